"""Exact scoring (the Ora judging method): judge means, the weighted score, the cap, votes, the verdict.

All arithmetic is rational: a weighted score of exactly 4.0 is 4, not 3.9999999999999996.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ..core.rubric import Rubric
from .votes import verdict, votes

__all__ = ["Scores", "combine", "exact", "is_failure", "judge_overall"]


def exact(value: Decimal | int | str | Fraction) -> Fraction:
    """A score as an exact fraction (Decimal and decimal strings convert without rounding)."""
    if isinstance(value, str):
        return _exact_text(value)
    return Fraction(value)


@functools.lru_cache(maxsize=1 << 10)
def _exact_text(value: str) -> Fraction:
    # Scores are a few strings ("7", "7.5") read for every capture; Fraction parses them in Python code.
    return Fraction(value)


@dataclass(frozen=True)
class Scores:
    """The public scores of one capture."""

    means: dict[str, Fraction]
    """Criterion -> the mean of the judges' scores."""
    weighted: Fraction
    overall: Fraction
    """min(weighted, the cap criterion's mean), or weighted when the rubric has no cap."""
    failure: bool
    """overall below the rubric's failure threshold, or the rubric's failure vote holds."""
    judge_overalls: tuple[Fraction, ...] = ()
    """Each judge's own overall: the same formula over that judge's scores alone, panel order."""
    votes: dict[str, bool] = field(default_factory=dict)
    verdict: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    """What a kind reports beyond the means (checklist: each judge's metrics, per-issue disagreement)."""


def _formula(means: Mapping[str, Fraction], rubric: Rubric) -> tuple[Fraction, Fraction]:
    weighted = sum((c.weight * means[c.name] for c in rubric.criteria), Fraction(0))
    overall = min(weighted, means[rubric.cap_criterion]) if rubric.cap_criterion else weighted
    return weighted, overall


def judge_overall(scores: Mapping[str, Decimal | str | Fraction], rubric: Rubric) -> Fraction:
    """One judge's own overall: the rubric's formula over that judge's scores alone."""
    return _formula({name: Fraction(scores[name]) for name in rubric.names}, rubric)[1]


def combine(judges: Sequence[Mapping[str, Decimal | str | Fraction]], rubric: Rubric) -> Scores:
    """Average the judges per criterion, weigh, cap, vote over the judges' own overalls, classify."""
    if not judges:
        raise ValueError("at least one judge's scores are needed")
    names = rubric.names
    key = tuple(tuple(str(judge[name]) for name in names) for judge in judges)
    return _combine(key, rubric)


@functools.lru_cache(maxsize=1 << 12)
def _combine(judges: tuple[tuple[str, ...], ...], rubric: Rubric) -> Scores:
    # Pure and called for every capture by the runner, the ledger and the tables. Bounded: at 10x every
    # capture's scores may differ, and the controller keeps records compact (harness RecordStore).
    names = rubric.names
    parsed = [[_exact_text(score) for score in judge] for judge in judges]
    means = {name: sum(column, Fraction(0)) / len(judges) for name, column in zip(names, zip(*parsed))}
    weighted, overall = _formula(means, rubric)
    own = tuple(_formula(dict(zip(names, judge)), rubric)[1] for judge in parsed)
    voted = votes(rubric, own)
    return Scores(
        means=means,
        weighted=weighted,
        overall=overall,
        failure=is_failure(rubric, overall, voted),
        judge_overalls=own,
        votes=voted,
        verdict=verdict(rubric, overall),
    )


def is_failure(rubric: Rubric, overall: Fraction, voted: dict[str, bool]) -> bool:
    """The rubric's failure rule: its failure vote holds, or overall is below its threshold."""
    if rubric.failure_vote is not None:
        return voted[rubric.failure_vote]
    assert rubric.failure_below is not None
    return overall < rubric.failure_below
