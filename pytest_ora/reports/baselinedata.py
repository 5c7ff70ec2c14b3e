"""baseline.json as typed data: this run against an earlier one, written from these models and read back into them.

Field order is the file's key order; a number keeps the type it was computed with (an overall read as 7 stays
7, one read as 7.0 stays 7.0), so a file read and written again is the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from ..core.errors import OraError
from .datafile import parse_data, read_data

__all__ = [
    "BaselineComparison",
    "BaselineDataError",
    "CaptureChange",
    "Change",
    "ConfigurationDifference",
    "Flip",
    "RunSide",
    "State",
    "TextChanges",
    "parse_baseline_comparison",
    "read_baseline_comparison",
]

Number = int | float
"""A score as the ledger gave it (int or float, kept as given)."""


class BaselineDataError(OraError):
    """baseline.json cannot be read as a baseline comparison: its path, the field and what is wrong."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunSide(_Data):
    """One of the two runs compared: where it is and what it was scored with."""

    path: str | None
    """The baseline's directory as given; None for this run."""
    bundle: str
    rubric: str
    rubric_digest: str
    scoring_date: str | None
    record_mode: str | None
    snapshot: str | None
    panel: str | None
    judges: list[str]
    """'label: provider:model', one a judge."""
    selected: int | None


class Change(_Data):
    """What differs between the runs (rubric, judges, panel, bundle, snapshot, record mode)."""

    what: str
    baseline: str | list[str] | None
    current: str | list[str] | None


class TextChanges(_Data):
    """Of the shared captures both runs kept texts for, how many prompts, contexts and answers differ."""

    compared: int
    prompt: int
    context: int
    answer: int
    answer_changed: list[str]


class ConfigurationDifference(_Data):
    """One configuration's paired difference of mean overall, this run minus the baseline."""

    configuration: str
    n: int
    baseline_mean: float | None
    current_mean: float | None
    mean_difference: float | None
    t_interval: list[float] | None
    bootstrap_interval: list[float] | None
    interval_method: str
    interval: list[float] | None
    """The interval shown and gated on (t at every n)."""
    p_value: float | None
    p_floor: bool
    p_min: float | None
    regressed: bool
    improved: bool


class CaptureChange(_Data):
    """A capture whose overall changed by at least --ora-regression-min."""

    capture_id: str
    configuration: str
    baseline: Number
    current: Number
    change: float


class State(_Data):
    """A capture's status and failure flag in one run."""

    status: str
    failure: bool | None


class Flip(_Data):
    """A capture whose status or failure flag changed."""

    capture_id: str
    configuration: str
    baseline: State
    current: State


class BaselineComparison(_Data):
    """baseline.json: what baseline.md, report.html's Since baseline and --ora-fail-regression read."""

    schema_: str = Field(alias="schema")
    """The file's format, ora-baseline-1."""
    rubric: str
    baseline: RunSide
    current: RunSide
    changed: list[Change]
    texts: TextChanges | None
    shared: int
    only_in_baseline: int
    only_in_current: int
    regression_min: float
    regression_min_given: str
    interval_rule: str
    configurations: list[ConfigurationDifference]
    changes: list[CaptureChange]
    flips: list[Flip]

    def dumps(self) -> str:
        """The file's text."""
        return json.dumps(self.model_dump(by_alias=True), indent=1, ensure_ascii=False) + "\n"


def read_baseline_comparison(path: Path) -> BaselineComparison:
    """baseline.json read back; BaselineDataError naming the file and the first bad field."""
    return read_data(path, parse_baseline_comparison, BaselineDataError)


def parse_baseline_comparison(text: str) -> BaselineComparison:
    """baseline.json's text as the comparison; BaselineDataError naming the first bad field."""
    return parse_data(text, BaselineComparison, BaselineDataError, "a baseline comparison")
