"""hypotheses.json as typed data: the bundle's pre-registered comparisons, written from these models and read back.

Field order is the file's key order; a figure keeps the type it was computed with, and a key the statistics did
not write stays unwritten (older files lack a row's t interval and units, or the method block), so a file read
and written again is the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from ..core.errors import OraError
from .datafile import parse_data, read_data

__all__ = [
    "DeltaRow",
    "HypothesesFile",
    "HypothesesFileError",
    "HypothesesMethod",
    "HypothesisFigures",
    "HypothesisVerdict",
    "RestatedRule",
    "parse_hypotheses_file",
    "read_hypotheses_file",
]

Number = int | float
"""A figure as it was computed (int or float, kept as given)."""
Interval = list[float]
"""A 95% interval, [low, high]."""


class HypothesesFileError(OraError):
    """hypotheses.json cannot be read as the run's hypotheses: its path, the field and what is wrong."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class DeltaRow(_Data):
    """One entry's delta: overall(better) - overall(worse), against the margin."""

    entry_key: str
    better: Number
    worse: Number
    delta: Number
    directional: bool
    meets_margin: bool


class HypothesisFigures(_Data):
    """One hypothesis: its entries' deltas, their mean and intervals, how many point its way."""

    id: str
    better: str
    worse: str
    margin: Number
    n: int
    directional: int
    meets_margin: int
    mean_delta: Number | None
    interval: Interval | None
    """The BCa bootstrap interval (older files show it)."""
    entries: list[DeltaRow]
    unpaired_entries: list[str]
    """Entries where one of the two configurations has no scored capture."""
    units: int | None = None
    clusters: int | None = None
    bootstrap_interval: Interval | None = None
    t_interval: Interval | None = None
    interval_method: str | None = None
    """"t" when the t interval is the one shown; absent in older files (the bootstrap interval is shown)."""
    small_n: bool | None = None


class RestatedRule(_Data):
    """The bundle's verdict rule as the file restates it: one count condition, and no_critical."""

    directional_at_least: int | None = None
    per_hypothesis_at_least: int | None = None
    no_critical: bool


class HypothesisVerdict(_Data):
    """The pilot verdict: PASS or FAIL, with its reasons and its chance of passing by chance."""

    rule: RestatedRule
    result: str
    directional: int
    required: int
    critical_captures: list[str] | None
    """Captures with the critical vote; None when not checked."""
    reasons: list[str]
    null_pass_probability: Number | None
    """The share of seeded label permutations under which the count condition passes."""


class HypothesesMethod(_Data):
    """How the hypotheses' figures were computed."""

    seed: int
    resamples: int
    permutations: int
    confidence_level: Number
    interval: str


class HypothesesFile(_Data):
    """hypotheses.json: what the Hypotheses sections of summary.md, methodology.md and the page read."""

    rubric: str
    """The rubric's version."""
    directional: int
    meets_margin: int
    deltas: int
    hypotheses: list[HypothesisFigures]
    verdict: HypothesisVerdict | None
    method: HypothesesMethod | None = None

    def dumps(self) -> str:
        """The file's text."""
        return json.dumps(self.model_dump(exclude_unset=True), indent=2, ensure_ascii=False) + "\n"


def read_hypotheses_file(path: Path) -> HypothesesFile:
    """hypotheses.json read back; HypothesesFileError naming the file and the first bad field."""
    return read_data(path, parse_hypotheses_file, HypothesesFileError)


def parse_hypotheses_file(text: str) -> HypothesesFile:
    """hypotheses.json's text as the run's hypotheses; HypothesesFileError naming the first bad field."""
    return parse_data(text, HypothesesFile, HypothesesFileError, "a run's hypotheses")
