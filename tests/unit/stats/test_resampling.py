"""Shared draws: intervals are scipy's BCa on the same resamples; sign-flip p-values are scipy's; floors are bounds."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from pytest_ora.stats.clusters import cluster_sums
from pytest_ora.stats.intervals import BATCH, generator
from pytest_ora.stats.resampling import Resampler


def test_a_shared_draw_gives_scipys_bca_interval_for_the_same_resamples() -> None:
    values = np.random.default_rng(1).gamma(2, 1.5, 57)
    expected = stats.bootstrap(
        (values,),
        np.mean,
        n_resamples=10_000,
        batch=BATCH,
        vectorized=True,
        method="BCa",
        rng=generator(3, "bootstrap:57"),
    ).confidence_interval

    resampler = Resampler(3)
    low, high = resampler.mean_interval(values) or (0, 0)
    other = resampler.mean_intervals([(values + 1, None), (values, None)])

    assert (low, high) == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert other[1] == pytest.approx((low, high), rel=1e-12)
    assert other[0] == pytest.approx((low + 1, high + 1), rel=1e-9)  # shared resamples: a shift moves the bounds


def test_the_cluster_bootstrap_is_scipys_paired_bootstrap_of_cluster_sums() -> None:
    rng = np.random.default_rng(2)
    groups = rng.integers(0, 30, 120).astype(np.intp)
    values = rng.normal(5, 2, 120)
    sums, sizes = cluster_sums(values, groups)

    def ratio(s: np.ndarray, k: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.sum(s, axis=axis) / np.sum(k, axis=axis)

    # scipy's paired bootstrap draws one index per unit: the same draw as ours for that unit count.
    expected = stats.bootstrap(
        (sums, sizes),
        ratio,
        paired=True,
        n_resamples=10_000,
        batch=BATCH,
        vectorized=True,
        method="BCa",
        rng=generator(0, f"bootstrap:{sums.size}"),
    ).confidence_interval

    assert Resampler(0).mean_interval(values, groups) == pytest.approx((expected.low, expected.high), rel=1e-9)


def test_the_monte_carlo_flip_p_is_scipys_on_the_shared_flips() -> None:
    difference = np.random.default_rng(4).normal(0.25, 1, 80)
    resampler = Resampler(0)
    signs = resampler.signs(80)
    rows = iter(range(0, 10_000, BATCH))

    def flipped(size: tuple[int, ...]) -> np.ndarray:
        start = next(rows)
        return np.abs(difference) * signs[start : start + size[0]]

    expected = stats.monte_carlo_test(difference, flipped, np.mean, vectorized=True, n_resamples=10_000, batch=BATCH)
    test = resampler.flip_test(difference)

    assert test.p_value == pytest.approx(
        expected.pvalue, abs=2e-4
    )  # one tie at most may fall either side in float sums
    assert not test.exact and not test.p_floor


def test_a_p_on_the_floor_is_flagged_as_a_bound() -> None:
    test = Resampler(0).flip_test(np.full(200, 2.0) + np.random.default_rng(0).normal(0, 0.1, 200))
    assert test.p_floor and test.p_value == pytest.approx(2 / 10_001)


def test_enumerated_sign_patterns_give_the_smallest_reachable_p() -> None:
    test = Resampler(0).flip_test(np.array([1.0, 2.0, 1.5]))
    assert test.exact and test.p_value == pytest.approx(0.25) and test.p_min == pytest.approx(0.25)
    mixed = Resampler(0).flip_test(np.array([1.0, -2.0, 1.5, 0.5, 0.7]))
    assert mixed.p_min == pytest.approx(2 / 32) and mixed.p_value is not None and mixed.p_value > mixed.p_min


def test_same_seed_same_figures() -> None:
    values = np.random.default_rng(9).normal(0, 1, 40)
    assert Resampler(5).mean_interval(values) == Resampler(5).mean_interval(values)
    assert Resampler(5).mean_interval(values) != Resampler(6).mean_interval(values)
