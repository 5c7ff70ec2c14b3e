"""Agreement extras: ICC(2,k) equals pingouin, Fleiss and ordinal alpha come from their libraries, alpha's bootstrap is krippendorff's."""

from __future__ import annotations

from fractions import Fraction

import krippendorff
import numpy as np
import pandas as pd
import pingouin
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from pytest_ora.stats.agreement import agreement, icc_2k, interval_alpha
from pytest_ora.stats.arrays import Scale
from pytest_ora.stats.reliability import alpha_distribution, alpha_intervals, capture_terms

LIKERT = Scale(Fraction(1), Fraction(5), Fraction(1))


def panel(captures: int, judges: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, captures)
    return np.clip(truth[:, None] + rng.integers(-1, 2, (captures, judges)), 1, 5).astype(np.float64)


# pingouin's own code calls DataFrame.dropna(inplace=True), which pandas 3.1 deprecates: its warning, not ours.
@pytest.mark.filterwarnings("ignore:The inplace keyword in DataFrame.dropna:DeprecationWarning")
def test_icc_2k_equals_pingouin() -> None:
    ratings = panel(40, 3, 1) + np.random.default_rng(2).normal(0, 0.3, (40, 3))
    frame = pd.DataFrame([{"capture": i, "judge": j, "score": ratings[i, j]} for i in range(40) for j in range(3)])
    table = pingouin.intraclass_corr(data=frame, targets="capture", raters="judge", ratings="score")
    # pingouin 0.7 names Shrout and Fleiss's ICC(2,k) "ICC(A,k)" (absolute agreement, average of k); earlier "ICC2k".
    by_type = table.set_index("Type")["ICC"]
    expected = float(by_type["ICC(A,k)"] if "ICC(A,k)" in by_type.index else by_type["ICC2k"])

    assert icc_2k(ratings) == pytest.approx(expected, rel=1e-10)


def test_fleiss_and_ordinal_alpha_with_three_judges_on_a_likert_scale() -> None:
    ratings = panel(30, 3, 3)
    result = agreement(ratings, LIKERT)
    table, _ = aggregate_raters((ratings - 1).astype(int), n_cat=5)

    assert result.fleiss_kappa == pytest.approx(fleiss_kappa(table, method="fleiss"))
    assert result.alpha_ordinal == pytest.approx(
        krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="ordinal", value_domain=[1, 2, 3, 4, 5])
    )
    assert result.icc_2k is not None


def test_no_fleiss_with_two_judges_and_no_ordinal_alpha_for_half_points_or_wide_scales() -> None:
    two = agreement(panel(30, 2, 4), LIKERT)
    assert two.fleiss_kappa is None and two.alpha_ordinal is not None
    halves = agreement(panel(30, 3, 5) + 0.5 * (np.arange(90).reshape(30, 3) % 2 == 0), Scale(Fraction(1), Fraction(6)))
    assert halves.alpha_ordinal is None
    wide = agreement(panel(30, 3, 6), Scale(Fraction(0), Fraction(100)))
    assert wide.alpha_ordinal is None


def test_each_bootstrap_resample_alpha_is_krippendorffs_on_the_resampled_captures() -> None:
    ratings = panel(25, 3, 7) + np.random.default_rng(8).normal(0, 0.2, (25, 3))
    rng = np.random.default_rng(9)
    draws = rng.integers(0, 25, (5, 25))
    counts = np.stack([np.bincount(row, minlength=25) for row in draws]).astype(np.float64)

    values = alpha_distribution(counts, ratings)

    for row, value in zip(draws, values):
        expected = krippendorff.alpha(reliability_data=ratings[row].T, level_of_measurement="interval")
        assert value == pytest.approx(expected, rel=1e-9)
        assert value == pytest.approx(interval_alpha(ratings[row]), rel=1e-12)


def test_alpha_intervals_hold_the_estimate_and_skip_incomplete_captures() -> None:
    ratings = panel(60, 2, 10)
    with_gap = ratings.copy()
    with_gap[0, 1] = np.nan
    low, high = alpha_intervals([ratings], seed=0)[0] or (0.0, 0.0)
    estimate = interval_alpha(ratings)
    assert estimate is not None and low < estimate < high
    assert capture_terms(with_gap)[0, 0] == 0.0  # an incomplete capture counts for nothing
    assert alpha_intervals([with_gap], seed=0)[0] is not None
    assert alpha_intervals([np.full((10, 2), 3.0)], seed=0) == [None]  # no variation: alpha undefined, no interval
