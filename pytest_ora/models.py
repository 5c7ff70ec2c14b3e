"""Typed records for everything that crosses a boundary: bundle files, judge replies, report rows."""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from .vocabulary import FAMILIES

__all__ = [
    "FAMILIES",
    "PROVIDERS",
    "Hypothesis",
    "VerdictRule",
    "SLUG_PATTERN",
    "Acceptance",
    "BundleManifest",
    "Capture",
    "Family",
    "JudgeReply",
    "OptimumSnapshot",
    "Provider",
    "RoleSpec",
    "JudgeColumn",
    "LedgerRow",
    "Status",
    "SummaryRow",
    "capture_json_schema",
]

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
PROVIDERS: tuple[str, ...] = ("anthropic", "openai", "openai-compatible", "google")

Family = Literal["mode", "visual", "lens"]
Provider = Literal["anthropic", "openai", "openai-compatible", "google"]
Slug = Annotated[str, Field(pattern=SLUG_PATTERN)]


def _exact_number(value: Any) -> Any:
    """Numbers stay exact (Decimal); booleans, strings and non-finite values are refused."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise ValueError("must be a number")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return Decimal(repr(value))
    if isinstance(value, Decimal) and not value.is_finite():
        raise ValueError("must be a finite number")
    return Decimal(value)


ExactNumber = Annotated[Decimal, BeforeValidator(_exact_number)]
NonNegative = Annotated[Decimal, BeforeValidator(_exact_number), Field(ge=0)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _default_scored_set() -> dict[Family, int | list[str]]:
    return {"mode": 60, "visual": 21, "lens": 115}


def _default_collisions() -> dict[str, Family]:
    return {"causal-dag": "mode", "fishbone-diagram": "visual"}


class Hypothesis(_Record):
    """A pre-registered comparison (seed 003): configuration `better` beats `worse` by at least `margin`."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    better: Slug
    worse: Slug
    margin: ExactNumber = Decimal(0)
    """On the overall score's scale; delta >= margin meets it."""


class VerdictRule(_Record):
    """The pilot verdict (seed 003): PASS when enough per-entry deltas point the right way."""

    directional_at_least: Annotated[int, Field(ge=0)]
    """Directional (entry, hypothesis) pairs needed, counted over every hypothesis and entry."""
    no_critical: bool = False
    """Also require that no capture has the rubric's `critical` vote."""


class BundleManifest(_Record):
    """bundle.yaml: the bundle's id and its lanes, in table order."""

    bundle: Slug
    created: dt.date | str
    configurations: list[Slug] = Field(min_length=1)
    scored_set: dict[Family, Annotated[int, Field(ge=0)] | list[Slug]] = Field(default_factory=_default_scored_set)
    """Entries expected in the scored set after collision resolution: a count, or the techniques."""
    collisions: dict[Slug, Family] = Field(default_factory=_default_collisions)
    """Technique ids present in two families, and the family that keeps each."""
    rubric: str = "ora-1.0"
    """The scoring definition version this bundle is judged with."""
    hypotheses: list[Hypothesis] | None = None
    """Pre-registered comparisons between configurations (SPEC section 10); hypotheses.json."""
    verdict: VerdictRule | None = None

    @field_validator("configurations")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        repeated = sorted({name for name in value if value.count(name) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(repeated)} more than once")
        return value

    @field_validator("scored_set")
    @classmethod
    def _all_families(cls, value: dict[str, int | list[str]]) -> dict[str, int | list[str]]:
        return {family: value.get(family, 0) for family in FAMILIES}


class RoleSpec(_Record):
    """One role of the frozen Optimum configuration: which model, where, with which key."""

    model: str = Field(min_length=1)
    provider: Provider
    route: str = Field(pattern=r"^https?://[^\s]+$")
    """The full endpoint URL; always honoured, loopback included."""
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The environment variable holding the key; default by provider."""


class OptimumSnapshot(_Record):
    """optimum.yaml: the frozen Optimum role map the judges are taken from."""

    model_config = ConfigDict(extra="allow", frozen=True)

    snapshot: str = Field(min_length=1)
    frozen_at: dt.datetime | dt.date | str
    roles: dict[str, RoleSpec]


class Acceptance(_Record):
    """The capture framework's acceptance gate for one capture."""

    model_config = ConfigDict(extra="allow", frozen=True)

    passed: bool
    reason: str | None = None
    """Why a capture failed the gate: fallback, wrong-model, private-context, prompt-drift, ..."""
    notes: str = ""


class Capture(_Record):
    """One line of captures.jsonl: one configuration's answer to one entry's prompt."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    entry_key: str = Field(pattern=r"^(mode|visual|lens):[a-z0-9][a-z0-9-]*$")
    """family:technique."""
    configuration: Slug
    prompt: str
    answer: str
    target: str | None = None
    """Intended mode, visual route or lens host."""
    spec: str | None = None
    """Path of the technique specification under the bundle; default specs/<family>/<technique>.md."""
    visual_artifact: str | None = None
    """Path of the visual artifact under the bundle; null means text-only."""
    model_snapshot: dict[str, str] = Field(default_factory=dict)
    """Role -> model id used by this configuration."""
    acceptance: Acceptance
    cost_usd: NonNegative | None = None
    wall_clock_minutes: NonNegative | None = None

    @property
    def family(self) -> str:
        return self.entry_key.partition(":")[0]

    @property
    def technique(self) -> str:
        return self.entry_key.partition(":")[2]

    @property
    def capture_id(self) -> str:
        return f"{self.entry_key}/{self.configuration}"

    @property
    def spec_path(self) -> str:
        return self.spec or f"specs/{self.family}/{self.technique}.md"


class JudgeReply(BaseModel):
    """A judge's reply object: the seed 000 appendix schema, criteria taken from the rubric."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entry_key: str
    configuration: str
    judge_model: str
    scores: dict[str, ExactNumber]
    notes: dict[str, str]
    impression: str

    @model_validator(mode="before")
    @classmethod
    def _object(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("the reply must be a JSON object")
        return value


def capture_json_schema() -> dict[str, Any]:
    """JSON Schema of one captures.jsonl line, for bundle producers."""
    return Capture.model_json_schema(mode="validation")


Status = Literal["scored", "excluded", "unscorable", "error"]


class JudgeColumn(BaseModel):
    """One judge's part of a ledger row."""

    model_config = ConfigDict(frozen=True)

    role: str
    model: str
    """The model id the role names (the provider may report a dated snapshot: resolved_model)."""
    resolved_model: str | None = None
    scores: dict[str, float]
    notes: dict[str, str]
    impression: str
    asks: int = 1
    """How many times the judge was asked; more than 1 means re-asks after invalid replies."""


class LedgerRow(BaseModel):
    """One capture in the per-capture score ledger."""

    model_config = ConfigDict(frozen=True)

    capture_id: str
    entry_key: str
    family: str
    technique: str
    configuration: str
    status: Status
    reason: str | None = None
    judge_a: JudgeColumn | None = None
    judge_b: JudgeColumn | None = None
    fidelity: float | None = None
    soundness: float | None = None
    completeness: float | None = None
    relevance: float | None = None
    calibration: float | None = None
    weighted: float | None = None
    overall: float | None = None
    failure: bool | None = None
    """overall below the failure threshold; null when the capture was not scored."""
    rubric: str


class SummaryRow(BaseModel):
    """One configuration in the summary, at full precision."""

    model_config = ConfigDict(frozen=True)

    configuration: str
    judged: int
    unscorable: int
    excluded: int
    errors: int
    mean_overall: float | None
    mean_fidelity: float | None
    mean_soundness: float | None
    mean_completeness: float | None
    mean_relevance: float | None
    mean_calibration: float | None
    failure_rate: float | None
    """Scored captures with overall below the threshold, as a fraction of scored captures."""
    cost_per_100_queries_usd: float | None
    minutes_per_run: float | None
    rubric: str
