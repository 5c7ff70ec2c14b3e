"""Exact scoring (seed 000 Phases 3-5): judge means, the weighted score, the cap, the failure flag.

All arithmetic is rational: a weighted score of exactly 4.0 is 4, not 3.9999999999999996.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from .rubric import Rubric

__all__ = ["Scores", "combine", "exact"]


def exact(value: Decimal | int | str | Fraction) -> Fraction:
    """A score as an exact fraction (Decimal and decimal strings convert without rounding)."""
    return Fraction(value)


@dataclass(frozen=True)
class Scores:
    """The public scores of one capture."""

    means: dict[str, Fraction]
    """Criterion -> the mean of the judges' scores."""
    weighted: Fraction
    overall: Fraction
    """min(weighted, the cap criterion's mean)."""
    failure: bool
    """overall below the rubric's failure threshold."""


def combine(judges: Sequence[Mapping[str, Decimal | str | Fraction]], rubric: Rubric) -> Scores:
    """Average the judges per criterion, weigh, cap at the cap criterion, classify."""
    if not judges:
        raise ValueError("at least one judge's scores are needed")
    key = tuple(tuple(str(judge[name]) for name in rubric.names) for judge in judges)
    return _combine(key, rubric)


@functools.lru_cache(maxsize=1 << 16)
def _combine(judges: tuple[tuple[str, ...], ...], rubric: Rubric) -> Scores:
    # Pure and called for every capture by the runner, the ledger and the tables: computed once.
    columns = list(zip(*judges))
    means = {name: sum(map(Fraction, column), Fraction(0)) / len(judges) for name, column in zip(rubric.names, columns)}
    weighted = sum((c.weight * means[c.name] for c in rubric.criteria), Fraction(0))
    overall = min(weighted, means[rubric.cap_criterion])
    return Scores(means=means, weighted=weighted, overall=overall, failure=overall < rubric.failure_below)
