"""Exact scoring: judge means, the weighted score, the Fidelity cap and the failure threshold."""

from __future__ import annotations

import itertools
from decimal import Decimal
from fractions import Fraction

from pytest_ora.method.kinds import formula
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.method.scoring import combine

NAMES = ORA_V1.names


def scores(*values: str) -> dict[str, Decimal]:
    return {name: Decimal(value) for name, value in zip(NAMES, values)}


def test_a_weighted_score_of_exactly_four_is_not_a_failure() -> None:
    # Naive floats give 3.9999999999999996 here and a false failure.
    judge = scores("4.0", "0.0", "4.5", "9.5", "6.5")
    naive = 0.35 * 4.0 + 0.25 * 0.0 + 0.18 * 4.5 + 0.12 * 9.5 + 0.10 * 6.5

    result = combine([judge, judge], ORA_V1)

    assert naive < 4.0
    assert result.weighted == 4
    assert result.overall == 4
    assert result.failure is False


def _half_point_means_weighing_exactly_four() -> list[tuple[Decimal, ...]]:
    """Every criteria-means combination on the half-point grid whose exact weighted score is 4."""
    found = []
    for a, b, c, d in itertools.product(range(21), repeat=4):
        rest = 800 - (35 * a + 25 * b + 18 * c + 12 * d)  # in units of 0.005, halves doubled
        if rest % 10 == 0 and 0 <= rest // 10 <= 20:
            found.append(tuple(Decimal(n) / 2 for n in (a, b, c, d, rest // 10)))
    return found


def test_every_half_point_combination_that_floats_misjudge_is_exact() -> None:
    misjudged = 0
    for combo in _half_point_means_weighing_exactly_four():
        naive = sum(w * float(v) for w, v in zip((0.35, 0.25, 0.18, 0.12, 0.10), combo))
        result = combine([dict(zip(NAMES, combo))], ORA_V1)
        assert result.weighted == 4
        if min(naive, float(combo[0])) < 4.0 and result.overall == 4:
            misjudged += 1
            assert result.failure is False
    assert misjudged == 493


def test_overall_is_capped_at_fidelity() -> None:
    result = combine([scores("3", "10", "10", "10", "10"), scores("2", "10", "10", "10", "10")], ORA_V1)

    assert result.means["fidelity"] == Fraction(5, 2)
    assert result.weighted == Fraction("0.35") * Fraction(5, 2) + Fraction("0.65") * 10
    assert result.overall == Fraction(5, 2)
    assert result.failure is True


def test_the_judges_are_averaged_per_criterion() -> None:
    result = combine([scores("8", "7", "6", "5", "4"), scores("7", "7", "5", "6", "3")], ORA_V1)

    assert result.means == {
        "fidelity": Fraction(15, 2),
        "soundness": Fraction(7),
        "completeness": Fraction(11, 2),
        "relevance": Fraction(11, 2),
        "calibration": Fraction(7, 2),
    }
    assert result.weighted == Fraction("6.375")
    assert result.overall == Fraction("6.375")


def test_just_below_the_threshold_is_a_failure() -> None:
    result = combine([scores("3.5", "4", "4", "4", "4")], ORA_V1)

    assert result.overall == Fraction(7, 2)
    assert result.failure is True


def test_the_formula_names_weights_cap_and_threshold() -> None:
    assert formula(ORA_V1) == (
        "weighted = 0.35*fidelity + 0.25*soundness + 0.18*completeness + 0.12*relevance + 0.10*calibration; "
        "overall = min(weighted, fidelity); failure when overall < 4.0"
    )
    assert ORA_V1.version == "ora-1.0"
