"""Votes over each judge's own overall, verdict bands and failure by vote, in exact arithmetic."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pytest_ora.core.rubric import VoteRule
from pytest_ora.method.rubric import ORA_V1, get_rubric
from pytest_ora.method.scoring import combine, judge_overall
from pytest_ora.method.votes import needed, verdict, vote

TRIO = get_rubric("trio-likert-1.0")
DIMENSIONS = TRIO.names


def judge(*values: int) -> dict[str, str]:
    return dict(zip(DIMENSIONS, map(str, values)))


def test_majority_means_more_than_half_of_the_panel() -> None:
    rule = VoteRule("critical", "majority", below=Fraction(2))
    assert [needed(rule, size) for size in (1, 2, 3, 4, 5)] == [1, 2, 2, 3, 3]
    assert needed(VoteRule("x", "all", min=Fraction(1)), 4) == 4


def test_a_vote_boundary_is_exact() -> None:
    strict = VoteRule("strict_pass", 2, min=Fraction("3.5"))
    assert vote(strict, [Fraction(7, 2), Fraction(7, 2), Fraction(1)]) is True  # exactly 3.5 meets min 3.5
    assert vote(strict, [Fraction(7, 2), Fraction(349, 100), Fraction(5)]) is True
    assert vote(strict, [Fraction(7, 2), Fraction(349, 100), Fraction(1)]) is False
    fail = VoteRule("fail", 2, below=Fraction(3))
    assert vote(fail, [Fraction(3), Fraction(3), Fraction(1)]) is False  # 3.0 is not below 3.0


def test_verdict_bands_take_the_first_band_whose_min_holds() -> None:
    assert [verdict(TRIO, Fraction(v)) for v in ("4", "3.99", "3.5", "2.5", "2.49", "1")] == [
        "PASS_STRONG",
        "PASS_ADEQUATE",
        "PASS_ADEQUATE",
        "FAIL_WEAK",
        "FAIL_CRITICAL",
        "FAIL_CRITICAL",
    ]
    assert verdict(ORA_V1, Fraction(9)) is None


def test_trio_capture_by_hand() -> None:
    # A trio capture: A 3,2,2,2,3,4 (16/6); B 3,2,2,2,3,2 (14/6); C 3,3,3,2,2,2 (15/6); mean 45/18 = 2.5.
    a, b, c = judge(3, 2, 2, 2, 3, 4), judge(3, 2, 2, 2, 3, 2), judge(3, 3, 3, 2, 2, 2)

    result = combine([a, b, c], TRIO)

    assert result.judge_overalls == (Fraction(16, 6), Fraction(14, 6), Fraction(15, 6))
    assert result.overall == Fraction(45, 18) == Fraction(5, 2)  # trio mean 2.5: FAIL_WEAK, not FAIL_CRITICAL
    assert result.verdict == "FAIL_WEAK"
    assert result.votes == {"strict_pass": False, "fail": True, "critical": False}
    assert result.failure is True  # failure: {vote: fail}
    assert judge_overall(a, TRIO) == Fraction(8, 3)


def test_trio_critical_needs_a_majority_below_two() -> None:
    one_low = combine([judge(1, 1, 1, 1, 1, 1), judge(2, 2, 2, 2, 2, 2), judge(5, 5, 5, 5, 5, 5)], TRIO)
    two_low = combine([judge(1, 1, 1, 1, 1, 1), judge(2, 1, 2, 2, 2, 2), judge(5, 5, 5, 5, 5, 5)], TRIO)

    assert one_low.votes["critical"] is False and one_low.judge_overalls[1] == 2
    assert two_low.votes["critical"] is True and two_low.judge_overalls[1] == Fraction(11, 6)


@pytest.mark.parametrize(
    ("scores", "overall", "failure"), [((6, 6, 6, 6), 60, False), ((6, 6, 6, 5), Fraction("57.5"), True)]
)
def test_solo_reports_0_to_100(scores: tuple[int, ...], overall: Fraction, failure: bool) -> None:
    solo = get_rubric("judge-solo-1.0")
    result = combine([dict(zip(solo.names, map(str, scores)))], solo)
    assert result.overall == overall and result.failure is failure
    assert result.verdict == ("GOOD" if overall >= 60 else "WEAK")
