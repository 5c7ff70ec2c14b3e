"""The scoring definition as versioned data: criteria, weights, scale, cap, threshold, rounding.

Every number of the method lives here and nowhere else. A change to any of them is a new
version with a line in its history; reports name the version that produced them.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Anchor", "Criterion", "ORA_V1", "Rounding", "Rubric", "get_rubric"]


@dataclass(frozen=True)
class Criterion:
    """One scored criterion and its weight in the weighted score."""

    name: str
    title: str
    weight: Fraction
    question: str


@dataclass(frozen=True)
class Anchor:
    """A band of the scale and what a score in it means."""

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
class Rubric:
    """A complete scoring definition."""

    version: str
    title: str
    criteria: tuple[Criterion, ...]
    anchors: tuple[Anchor, ...]
    scale_min: Fraction
    scale_max: Fraction
    cap_criterion: str
    failure_below: Fraction
    rounding: Rounding
    history: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(criterion.name for criterion in self.criteria)

    def weight(self, name: str) -> Fraction:
        return next(c.weight for c in self.criteria if c.name == name)

    def formula(self) -> str:
        """The formula as printed in the header and the methodology note."""
        terms = " + ".join(f"{_plain(c.weight, 2)}*{c.name}" for c in self.criteria)
        return (
            f"weighted = {terms}; overall = min(weighted, {self.cap_criterion}); "
            f"failure when overall < {_plain(self.failure_below, 1)}"
        )


def _plain(value: Fraction, min_places: int = 0) -> str:
    """A terminating fraction as a plain decimal string (0.35, 4.0)."""
    text = f"{float(value):.10f}".rstrip("0")
    whole, _, places = text.partition(".")
    places = places.ljust(min_places, "0")
    return f"{whole}.{places}" if places else whole


ORA_V1 = Rubric(
    version="ora-1.0",
    title="Ora Performance Judging and Scoring v1.0",
    criteria=(
        Criterion(
            "fidelity",
            "Fidelity",
            Fraction("0.35"),
            "Did the answer actually execute the technique's method and structure, or merely "
            "describe it, name-drop it, or write a generic essay? This is the test of whether the "
            "analysis was performed at all, which is why Fidelity sets the hard cap.",
        ),
        Criterion(
            "soundness",
            "Soundness",
            Fraction("0.25"),
            "Are the claims and inferences correct and logically valid, with evidence kept distinct "
            "from assumption? This judges reasoning inside the answer, not external fact-checking "
            "beyond the provided or retrieved material.",
        ),
        Criterion(
            "completeness",
            "Completeness",
            Fraction("0.18"),
            "Does the answer surface what this technique should surface for this prompt, or does it "
            "leave major gaps?",
        ),
        Criterion(
            "relevance",
            "Relevance",
            Fraction("0.12"),
            "Does the answer engage this specific prompt and material, or drift into a generic "
            "treatment?",
        ),
        Criterion(
            "calibration",
            "Calibration",
            Fraction("0.10"),
            "Is the answer honest about uncertainty, explicit about assumptions, and free of "
            "overclaiming?",
        ),
    ),
    anchors=(
        Anchor(9, 10, "exemplary execution of the actual technique"),
        Anchor(7, 8, "strong and usable with minor omissions or calibration issues"),
        Anchor(5, 6, "competent but flawed; the technique is recognizable but partial"),
        Anchor(3, 4, "mostly gestures at the technique; substantial non-execution"),
        Anchor(0, 2, "wrong task, empty answer, unusable output, or nearly no method execution"),
    ),
    scale_min=Fraction(0),
    scale_max=Fraction(10),
    cap_criterion="fidelity",
    failure_below=Fraction(4),
    rounding=Rounding(),
    history=("ora-1.0 (2026-06-20): the Ora Performance Judging and Scoring framework v1.0.",),
)

_RUBRICS = {ORA_V1.version: ORA_V1}


def get_rubric(version: str) -> Rubric:
    """The built-in rubric of that version."""
    try:
        return _RUBRICS[version]
    except KeyError:
        known = ", ".join(sorted(_RUBRICS))
        raise KeyError(f"unknown rubric version {version!r}; known: {known}") from None


assert sum(c.weight for c in ORA_V1.criteria) == 1, "Ora v1.0 weights must sum to 1"
