"""Votes over each judge's own overall, and verdict bands on the capture's overall (the trio rubric).

Exact arithmetic: a judge whose overall is exactly 3.5 meets `min: 3.5`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..core.rubric import Rubric, VoteRule

__all__ = ["needed", "verdict", "vote", "votes"]


def needed(rule: VoteRule, panel: int) -> int:
    """How many judges a vote needs on a panel of this size."""
    if rule.judges == "majority":
        return panel // 2 + 1
    if rule.judges == "all":
        return panel
    assert isinstance(rule.judges, int)
    return rule.judges


def vote(rule: VoteRule, overalls: Sequence[Fraction]) -> bool:
    """Whether at least the needed number of judges' own overalls meet the rule."""
    if rule.min is not None:
        agreeing = sum(1 for value in overalls if value >= rule.min)
    else:
        assert rule.below is not None
        agreeing = sum(1 for value in overalls if value < rule.below)
    return agreeing >= needed(rule, len(overalls))


def votes(rubric: Rubric, overalls: Sequence[Fraction]) -> dict[str, bool]:
    """Every vote of the rubric, in the rubric's order."""
    return {rule.name: vote(rule, overalls) for rule in rubric.votes}


def verdict(rubric: Rubric, overall: Fraction) -> str | None:
    """The first band, highest first, whose minimum the overall meets; None without bands."""
    for band in rubric.verdicts:
        if band.min is None or overall >= band.min:
            return band.name
    return None
