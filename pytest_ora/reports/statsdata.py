"""stats.json as typed data: one run's statistics, written from these models and read back into them.

Field order is the file's key order; a figure keeps the type it was computed with (an int stays an int, a
float a float), and a key the statistics did not write stays unwritten (older files lack the extended
figures: their fields default to None and are not dumped), so a file read and written again is the same bytes.
The sections whose rows vary in shape by what could be computed (judge noise, the calibration against people)
are kept as JSON values and read by their own renderers.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, JsonValue

from ..core.errors import OraError
from .datafile import parse_data, read_data

__all__ = [
    "AgreementRow",
    "AgreementSection",
    "Calibration",
    "ComparisonRow",
    "ConfigurationRow",
    "CoverageCell",
    "DisagreementsSection",
    "JudgeComparison",
    "JudgeMeans",
    "JudgeSection",
    "MethodSection",
    "PairsSection",
    "RecordedCalibrationSection",
    "RecordedValue",
    "RunCalibration",
    "ScaleSection",
    "SelfPreferenceRow",
    "SkewedCoverage",
    "StatsFile",
    "StatsFileError",
    "UnitsSection",
    "parse_stats_file",
    "read_stats_file",
]

Number = int | float
"""A figure as it was computed (int or float, kept as given)."""
Interval = list[float]
"""A 95% interval, [low, high]."""
Calibration = dict[str, JsonValue]
"""stats.json's `calibration` (against human labels, or people's preferences in a compare run), as written."""


class StatsFileError(OraError):
    """stats.json cannot be read as a run's statistics: its path, the field and what is wrong."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CoverageCell(_Data):
    """One cell of the t interval's simulated coverage on skewed scores."""

    population: str
    n: int
    coverage: Number
    mc_error: Number
    none: Number
    """The share of samples whose scores were all equal (no interval shown)."""


class SkewedCoverage(_Data):
    """The seeded simulation of the t interval's coverage below 20 units."""

    trials: int
    cells: list[CoverageCell]


class MethodSection(_Data):
    """How every figure was computed: seed, resamples, level, the methods in words, the libraries."""

    seed: int
    resamples: int
    confidence_level: Number
    agreement: str
    mean_interval: str
    t_interval: str | None = None
    small_n: str | None = None
    power: str | None = None
    mcnemar: str | None = None
    judges: str | None = None
    agreement_extras: str | None = None
    noise: str | None = None
    failure_interval: str
    paired: str
    t_coverage_skewed: SkewedCoverage | None = None
    libraries: dict[str, str]
    """Library name -> the version that computed the figures."""


class ScaleSection(_Data):
    """The rubric's scale as the statistics read it."""

    min: Number
    max: Number
    step: Number
    step_declared: bool


class AgreementRow(_Data):
    """The judges' agreement on one criterion (or overall)."""

    criterion: str
    n: int
    krippendorff_alpha: Number | None
    exact: Number | None
    within_one: Number | None
    quadratic_kappa: Number | None
    note: str | None
    """Why a figure is missing, or how it was computed."""
    alpha_ordinal: Number | None = None
    fleiss_kappa: Number | None = None
    icc_2k: Number | None = None
    alpha_interval: Interval | None = None
    """Percentile bootstrap of alpha over captures (shown from 20 captures)."""


class AgreementSection(_Data):
    """Judge agreement: the judges, the captures every judge scored, per criterion and overall."""

    judges: list[str]
    captures: int
    criteria: list[AgreementRow]
    overall: AgreementRow


class ConfigurationRow(_Data):
    """One configuration's mean overall and failure rate, with their intervals."""

    configuration: str
    n: int
    mean_overall: Number | None
    mean_overall_interval: Interval | None
    failures: int | None = None
    failure_rate: Number | None
    failure_rate_interval: Interval | None
    units: int | None = None
    clusters: int | None = None
    design_effect: Number | None = None
    standard_error: Number | None = None
    bootstrap_interval: Interval | None = None
    t_interval: Interval | None = None
    interval_method: str | None = None
    """"t" when the t interval is the one shown; absent in older files (the bootstrap interval is shown)."""
    small_n: bool | None = None


class ComparisonRow(_Data):
    """A paired comparison of two configurations over their shared scored entries (first - second)."""

    first: str
    second: str
    n: int
    mean_difference: Number | None
    interval: Interval | None
    """The BCa bootstrap interval (older files show it)."""
    p_value: Number | None
    units: int | None = None
    clusters: int | None = None
    design_effect: Number | None = None
    bootstrap_interval: Interval | None = None
    t_interval: Interval | None = None
    interval_method: str | None = None
    small_n: bool | None = None
    p_floor: bool | None = None
    """The sign-flip p is on the resampling floor 2/(R+1): the true p is smaller."""
    p_exact: bool | None = None
    p_min: Number | None = None
    p_t: Number | None = None
    sd_difference: Number | None = None
    correlation: Number | None = None
    standard_error: Number | None = None
    mcnemar_p: Number | None = None
    p_holm: Number | None
    p_holm_bound: bool | None = None
    """The Holm value comes from a floored p: an upper bound."""
    mde_80: Number | None = None
    mde_80_adjusted: Number | None = None


class DisagreementsSection(_Data):
    """Where disagreements.csv's threshold came from and how many it lists."""

    threshold: Number
    given_as: str
    """--ora-disagreement as given."""
    count: int


class UnitsSection(_Data):
    """The statistical unit: the entry, or clusters of entries."""

    cluster: str | None
    """The field naming each entry's cluster; None: the unit is the entry."""
    entries: int
    clusters: int | None
    small_n_below: int


class PairsSection(_Data):
    """Which configurations were compared, and the Holm family."""

    rule: str
    compared: int
    holm_family: int
    alpha: Number


class JudgeMeans(_Data):
    """One judge's mean overall on one configuration."""

    configuration: str
    n: int
    units: int
    mean: Number | None
    t_interval: Interval | None


class JudgeComparison(_Data):
    """One judge's paired difference on one compared pair."""

    first: str
    second: str
    n: int
    units: int
    mean: Number | None
    t_interval: Interval | None


class SelfPreferenceRow(_Data):
    """A judge's own overall minus the other judges' on a configuration running the judge's model."""

    configuration: str
    difference: Number | None
    n: int
    units: int
    t_interval: Interval | None
    flagged: bool


class JudgeSection(_Data):
    """One judge's view of the configurations and pairs, and its self-preference."""

    judge: str
    model: str | None
    configurations: list[JudgeMeans]
    comparisons: list[JudgeComparison]
    self_preference: list[SelfPreferenceRow]


class RecordedValue(_Data):
    """The rubric's recorded agreement."""

    value: Number
    date: str
    scope: str


class RunCalibration(_Data):
    """The run's own agreement, with its interval and n."""

    value: Number | None
    interval: Interval | None
    captures: int
    ratings: int
    judges: int
    resamples: int
    confidence_level: Number


class RecordedCalibrationSection(_Data):
    """The run's agreement beside the rubric's recorded value, and the reading."""

    statistic: str
    recorded: RecordedValue
    run: RunCalibration
    verdict: str
    reading: str
    method: str


class StatsFile(_Data):
    """stats.json: what summary.md's and methodology.md's Statistics sections, the page and the gates read."""

    rubric: str
    """The rubric's version."""
    method: MethodSection
    scale: ScaleSection | None = None
    agreement: AgreementSection
    configurations: list[ConfigurationRow]
    comparisons: list[ComparisonRow]
    disagreements: DisagreementsSection
    units: UnitsSection | None = None
    """Absent in older files (no extended figures)."""
    pairs: PairsSection | None = None
    judges: list[JudgeSection] | None = None
    noise: dict[str, JsonValue] | None = None
    """Judge noise: variance components per criterion and overall, widths per configuration (stats/noise.py)."""
    calibration: Calibration | None = None
    recorded_calibration: RecordedCalibrationSection | None = None

    @property
    def extended(self) -> bool:
        """The file holds the extended figures (units, t intervals, pairs compared, judges)."""
        return self.units is not None

    def dumps(self) -> str:
        """The file's text."""
        return json.dumps(self.model_dump(exclude_unset=True), indent=2, ensure_ascii=False) + "\n"


def read_stats_file(path: Path) -> StatsFile:
    """stats.json read back; StatsFileError naming the file and the first bad field."""
    return read_data(path, parse_stats_file, StatsFileError)


def parse_stats_file(text: str) -> StatsFile:
    """stats.json's text as the run's statistics; StatsFileError naming the first bad field."""
    return parse_data(text, StatsFile, StatsFileError, "a run's statistics")
