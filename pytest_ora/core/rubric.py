"""A rubric as data: criteria, weights, scale, cap, failure, votes, verdicts (read by method/rubric.py)."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction

from .errors import OraError

__all__ = [
    "Anchor",
    "Criterion",
    "HistoryEntry",
    "RecordedCalibration",
    "Rounding",
    "Rubric",
    "RubricError",
    "VerdictBand",
    "VoteRule",
    "weight_text",
]


class RubricError(OraError, ValueError):
    """A rubric that cannot be used as given: where (the file), and what is wrong there."""

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        self.detail = detail
        super().__init__(f"{where}: {detail}")


@dataclass(frozen=True)
class Criterion:
    """One scored criterion, its weight in the weighted score, its question and anchors."""

    name: str
    title: str
    weight: Fraction
    question: str
    anchors: tuple[tuple[str, str], ...] = ()
    """(score or band such as "9-10", what it means), highest first as the file lists them."""


@dataclass(frozen=True)
class Anchor:
    """A band of the scale and what a score in it means (rubric-wide anchors)."""

    low: int
    high: int
    meaning: str


@dataclass(frozen=True)
class Rounding:
    """How the public table rounds (half away from zero everywhere)."""

    rating_places: int = 1
    percent_places: int = 0
    dollar_places: int = 0
    minute_places: int = 1


@dataclass(frozen=True)
class VerdictBand:
    """A verdict on overall: the first band (highest first) whose minimum holds."""

    name: str
    min: Fraction | None


@dataclass(frozen=True)
class VoteRule:
    """A vote over the judges' own overalls: at least `judges` of them at/above min or below `below`."""

    name: str
    judges: int | str
    """A count, or "majority" (more than half of the panel) or "all"."""
    min: Fraction | None = None
    below: Fraction | None = None


@dataclass(frozen=True)
class HistoryEntry:
    """One line of the append-only history."""

    version: str
    date: str
    change: str
    digest: str

    def line(self) -> str:
        return f"{self.version} ({self.date}): {self.change}"


@dataclass(frozen=True)
class RecordedCalibration:
    """The panel's agreement as measured once and recorded with the rubric, which a run compares its own with."""

    statistic: str
    """fleiss_kappa: over every (capture, criterion) rating of the panel's judges, the scale's points as categories."""
    value: float
    date: str
    scope: str
    """What the recorded value was measured on, in words."""


@dataclass(frozen=True)
class Rubric:
    """A complete scoring definition."""

    version: str
    title: str
    criteria: tuple[Criterion, ...]
    anchors: tuple[Anchor, ...]
    scale_min: Fraction
    scale_max: Fraction
    cap_criterion: str | None
    failure_below: Fraction | None
    rounding: Rounding
    history: tuple[str, ...]
    kind: str = "scores"
    scale_step: Fraction | None = None
    failure_vote: str | None = None
    verdicts: tuple[VerdictBand, ...] = ()
    votes: tuple[VoteRule, ...] = ()
    panel_size: int = 2
    blind: bool = False
    blind_strict: bool = False
    """`blind: strict`: besides the fields, names in the texts are replaced by [withheld] (else texts go as written)."""
    requires_spec: bool = True
    families: tuple[str, ...] | None = None
    """Closed family list (ora-1.0: mode, visual, lens); None means any slug."""
    task: str = ""
    """The judge's task, first paragraph of the judge prompt."""
    scoring_note: str | None = None
    """What the prompt says about allowed values; derived from the step when absent."""
    compare: tuple[tuple[str, str], ...] = ()
    """Configuration pairs a compare rubric names (bundle.yaml and --ora-compare override)."""
    params: tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...] = ()
    """A kind's own numbers, by group (checklist: severity_weights, detection), exact, in file order."""
    digest: str = ""
    source: str = ""
    """Where the rubric was read from: builtin:<id> or a path."""
    options: object = None
    """The kind's own section of the rubric file, parsed by its package (method/kinds/<kind>/): scorecard's
    axes and baseline (scorecard/axes.py: Card), python's scorer (python/kind.py: Scorer); None for the others.
    Frozen and hashable (a Rubric is a cache key)."""
    prompt_format: str = "prompt-1"
    """How the judge request is worded (judges.packet): prompt-1 shows weights and the version; prompt-2
    shows only what the judge scores by, so weights, cap, failure, verdicts and votes can change offline."""
    panel_models: tuple[str, ...] | None = None
    """The locked judge ensemble (model ids); None: any models."""
    calibration: RecordedCalibration | None = None
    """The panel's recorded agreement (a measurement beside the definition, outside its digest); None: none recorded."""
    judge_verdict: bool = False
    """The judge also returns `rationale` and `overall_verdict` (one of the verdict bands), checked against the band
    its own scores give."""
    shown_version: str | None = None
    """prompt-1: the version the request names, when replies recorded under an earlier version with the
    same judge view are rescored (judges.recordings); None: this version."""
    recorded_under: str | None = None
    """'version (digest)' of the rubric the replaying cassettes were recorded under, when not this one."""

    def __hash__(self) -> int:
        # A rubric is a cache key on every capture's path (scoring, the ledger's models). The hash
        # dataclasses derive would hash every field each time, Fractions in Python code among them;
        # equal rubrics share these three strings, whose hashes Python keeps.
        return hash((self.version, self.digest, self.source))

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        # Read for every score of every capture; kept in the instance's __dict__ (equality and hash read fields only).
        return tuple(criterion.name for criterion in self.criteria)

    @property
    def vote_names(self) -> tuple[str, ...]:
        return tuple(vote.name for vote in self.votes)

    def weight(self, name: str) -> Fraction:
        return next(c.weight for c in self.criteria if c.name == name)

    def overall_span(self) -> tuple[Fraction, Fraction]:
        """The range a capture's overall can take: the weights times the scale for a scores rubric (capped at a
        criterion, within the scale too); the scale itself for other kinds."""
        if self.kind != "scores" or not self.criteria:
            return self.scale_min, self.scale_max
        total = sum((c.weight for c in self.criteria), Fraction(0))
        low, high = total * self.scale_min, total * self.scale_max
        if self.cap_criterion:
            low, high = min(low, self.scale_min), min(high, self.scale_max)
        return low, high

    def param(self, group: str) -> dict[str, Fraction]:
        """One group of the kind's numbers (empty when the file gives none)."""
        return dict(next((values for name, values in self.params if name == group), ()))

    def scores_formula(self) -> str:
        """weighted, overall and failure over the criteria (kind: scores)."""
        terms = " + ".join(f"{weight_text(c.weight)}*{c.name}" for c in self.criteria)
        overall = f"overall = min(weighted, {self.cap_criterion})" if self.cap_criterion else "overall = weighted"
        return f"weighted = {terms}; {overall}; {self.failure_text()}"

    def failure_text(self) -> str:
        """What makes a capture a quality failure, in words."""
        if self.failure_vote is not None:
            failure = f"failure when the {self.failure_vote} vote holds"
        else:
            assert self.failure_below is not None
            failure = f"failure when overall < {_plain(self.failure_below, 1)}"
        return failure

    def rules(self) -> str:
        """Verdict bands and votes in one line (empty when the rubric has none)."""
        parts = []
        if self.verdicts:
            bands = ", ".join(f"{v.name} >= {_plain(v.min, 1)}" if v.min is not None else v.name for v in self.verdicts)
            parts.append(f"verdicts {bands}")
        for vote in self.votes:
            test = f">= {_plain(vote.min, 1)}" if vote.min is not None else f"< {_plain(vote.below or Fraction(0), 1)}"
            parts.append(f"{vote.name}: {vote.judges} judges {test}")
        return "; ".join(parts)


def weight_text(value: Fraction) -> str:
    """A weight as written: a terminating fraction as a decimal (0.35), else n/d (1/6)."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return _plain(value, 2 if value < 1 else 0) if denominator == 1 else f"{value.numerator}/{value.denominator}"


def _plain(value: Fraction, min_places: int = 0) -> str:
    """A terminating fraction as a plain decimal string (0.35, 4.0)."""
    text = f"{float(value):.10f}".rstrip("0")
    whole, _, places = text.partition(".")
    places = places.ljust(min_places, "0")
    return f"{whole}.{places}" if places else whole
