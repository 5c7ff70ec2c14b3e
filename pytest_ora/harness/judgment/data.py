"""Each mode's data fields, exactly as the judge skill lists them, checked before anything is sent."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...core.errors import OraError
from ...core.models import BehaviorItem, ChecklistBonus, ChecklistIssue, GoldStandard

__all__ = [
    "JUDGED_MODES",
    "MODES",
    "PHASES",
    "CoherenceData",
    "CompareData",
    "Contestant",
    "DataError",
    "FileData",
    "ModeData",
    "PhaseData",
    "SoloData",
    "Team",
    "parse_data",
]

PHASES = {
    "phase-sm": "judge-phase-sm-1.0",
    "phase-tea": "judge-phase-tea-1.0",
    "phase-dev": "judge-phase-dev-1.0",
    "phase-reviewer": "judge-phase-reviewer-1.0",
}
"""Phase mode -> its built-in rubric."""
JUDGED_MODES = ("solo", "compare", *PHASES, "coherence")
MODES = (*JUDGED_MODES, "swebench", "ground-truth")


class DataError(OraError, ValueError):
    """The data cannot be judged as given: the field and why (a usage error, exit 4)."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _issues(value: Any) -> Any:
    """A list of {id, severity, description}, or {severity or category: [{id, description}, ...]}."""
    if isinstance(value, dict):
        return [
            {**item, "severity": severity} if isinstance(item, dict) else item
            for severity, items in value.items()
            for item in (items if isinstance(items, list) else [items])
        ]
    return value


def _criteria(value: Any) -> Any:
    """A list of {id, category, description}, or {category: [{id, description}, ...]}."""
    if isinstance(value, dict):
        return [
            {**item, "category": category} if isinstance(item, dict) else item
            for category, items in value.items()
            for item in (items if isinstance(items, list) else [items])
        ]
    return value


class _Checklists(_Data):
    """The checklist fields solo and compare share."""

    baseline_issues: list[ChecklistIssue] | None = Field(default=None, min_length=1)
    bonus_issues: list[ChecklistBonus] = Field(default_factory=list)
    baseline_criteria: list[BehaviorItem] | None = Field(default=None, min_length=1)
    bonus_criteria: list[BehaviorItem] = Field(default_factory=list)

    _issue_forms = field_validator("baseline_issues", mode="before")(_issues)
    _criteria_forms = field_validator("baseline_criteria", "bonus_criteria", mode="before")(_criteria)


class SoloData(_Checklists):
    """solo: one response; the checklist rubric with baseline_issues, the behavior rubric with baseline_criteria."""

    spec: str = Field(min_length=1)
    character: str = Field(min_length=1)
    challenge: str = Field(min_length=1)
    response: str
    code: str | None = None
    gold_standard: GoldStandard | None = None


class Contestant(_Data):
    """One of compare's contestants."""

    spec: str = Field(min_length=1)
    character: str = Field(min_length=1)
    response: str


class CompareData(_Checklists):
    """compare: two contestants on one challenge."""

    contestants: list[Contestant] = Field(min_length=2, max_length=2)
    challenge: str = Field(min_length=1)
    code: str | None = None


class Team(_Data):
    """One team of a phase mode."""

    theme: str = Field(min_length=1)
    response: str


class PhaseData(_Data):
    """phase-sm, phase-tea, phase-dev, phase-reviewer: two teams' responses to one phase."""

    team1: Team
    team2: Team
    context: str = Field(min_length=1)


class CoherenceData(_Data):
    """coherence: a relay chain's four responses."""

    theme: str = Field(min_length=1)
    sm_response: str
    tea_response: str
    dev_response: str
    reviewer_response: str


class FileData(_Data):
    """swebench and ground-truth: a scenario of the scenarios file and a response file."""

    scenario: str = Field(min_length=1)
    response_file: str = Field(min_length=1)


ModeData = SoloData | CompareData | PhaseData | CoherenceData | FileData
_MODELS: dict[str, type[_Data]] = {
    "solo": SoloData,
    "compare": CompareData,
    **dict.fromkeys(PHASES, PhaseData),
    "coherence": CoherenceData,
    "swebench": FileData,
    "ground-truth": FileData,
}


def parse_data(mode: str, data: Any) -> Any:
    """The mode's data, checked; DataError naming the first field that is wrong."""
    if mode not in _MODELS:
        raise DataError(f"unknown mode {mode!r}; modes: {', '.join(MODES)}")
    if not isinstance(data, dict):
        raise DataError(f"--data: mode {mode} takes a JSON object of its fields, got {type(data).__name__}")
    try:
        parsed = _MODELS[mode].model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"]) or "(data)"
        if first["type"] == "missing":
            raise DataError(f"--data: field '{field}' is missing (mode {mode})") from None
        if first["type"] == "extra_forbidden":
            raise DataError(f"--data: field '{field}' is not a field of mode {mode}") from None
        reason = str(first["msg"]).removeprefix("Value error, ").lower()
        raise DataError(f"--data: field '{field}' {reason} (mode {mode})") from None
    if isinstance(parsed, _Checklists) and parsed.baseline_issues is not None and parsed.baseline_criteria is not None:
        raise DataError(f"--data: give baseline_issues or baseline_criteria, not both (mode {mode})")
    return parsed
