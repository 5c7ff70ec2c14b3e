"""Judge agreement: alpha, exact and within-one shares, quadratic-weighted kappa, the discrete grid."""

from __future__ import annotations

from fractions import Fraction

import krippendorff
import numpy as np
import pytest

from pytest_ora.stats.agreement import agreement, discrete_grid
from pytest_ora.stats.arrays import Scale

ZERO_TEN = Scale(Fraction(0), Fraction(10))
LIKERT = Scale(Fraction(1), Fraction(5), Fraction(1))


def closed_form_qwk(a: np.ndarray, b: np.ndarray) -> float:
    """Quadratic-weighted kappa with value weights: 1 - E[(a-b)^2] / E over independent pairs of (a-b)^2."""
    expected = a.var() + b.var() + (a.mean() - b.mean()) ** 2
    return float(1 - np.mean((a - b) ** 2) / expected)


def test_identical_judges_agree_perfectly() -> None:
    ratings = np.array([[1, 1], [3, 3], [5, 5], [2, 2]], dtype=float)

    result = agreement(ratings, LIKERT)

    assert (result.n, result.exact, result.within_one) == (4, 1.0, 1.0)
    assert result.krippendorff_alpha == pytest.approx(1.0)
    assert result.quadratic_kappa == pytest.approx(1.0)


def test_figures_match_the_libraries_and_the_closed_form() -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(1, 6, 200).astype(float)
    b = np.clip(a + rng.integers(-1, 2, 200), 1, 5)

    result = agreement(np.column_stack([a, b]), LIKERT)

    assert result.krippendorff_alpha == pytest.approx(
        krippendorff.alpha(reliability_data=[a, b], level_of_measurement="interval")
    )
    assert result.quadratic_kappa == pytest.approx(closed_form_qwk(a, b))
    assert result.exact == pytest.approx(np.mean(a == b))
    assert result.within_one == 1.0


def test_within_one_counts_one_scale_step() -> None:
    ratings = np.array([[1, 2], [1, 3], [4, 4], [5, 1]], dtype=float)

    result = agreement(ratings, LIKERT)

    assert (result.exact, result.within_one) == (0.25, 0.5)


def test_kappa_needs_exactly_two_judges() -> None:
    ratings = np.array([[1, 2, 2], [3, 3, 4], [5, 4, 5]], dtype=float)

    result = agreement(ratings, LIKERT)

    assert result.quadratic_kappa is None
    assert result.krippendorff_alpha == pytest.approx(krippendorff.alpha(reliability_data=ratings.T))
    assert result.exact == 0.0 and result.within_one == 1.0


def test_no_variation_leaves_alpha_undefined_not_perfect() -> None:
    result = agreement(np.full((5, 2), 7.0), ZERO_TEN)

    assert result.krippendorff_alpha is None and result.quadratic_kappa is None
    assert result.exact == 1.0


@pytest.mark.parametrize(
    ("values", "scale", "categories"),
    [
        ([0.0, 7.5, 10.0], ZERO_TEN, 21),  # half points on 0-10
        ([0.0, 7.0, 10.0], ZERO_TEN, 11),  # whole points
        ([1.0, 2.0, 5.0], LIKERT, 5),  # the declared step
        ([0.0, 7.3, 10.0], ZERO_TEN, 101),  # tenths: still discrete
        ([0.0, 7.35, 10.0], ZERO_TEN, None),  # hundredths: continuous, no kappa
        ([1.0, 2.5, 5.0], LIKERT, 9),  # off the declared step: its half
    ],
)
def test_the_kappa_grid_holds_every_value_without_rounding(
    values: list[float], scale: Scale, categories: int | None
) -> None:
    grid = discrete_grid(np.array(values), scale)

    assert (None if grid is None else grid.size) == categories
    if grid is not None:
        assert set(values) <= set(grid.tolist())


def test_a_weighted_overall_is_continuous_so_it_gets_no_kappa() -> None:
    ratings = np.array([[7.175, 7.0], [4.35, 4.5], [8.0, 8.125]])

    assert agreement(ratings, ZERO_TEN).quadratic_kappa is None
