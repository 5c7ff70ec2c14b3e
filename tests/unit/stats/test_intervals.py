"""Intervals: the bootstrap interval of a mean covers the truth about 95% of the time; Wilson by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_ora.stats.intervals import generator, mean_interval, wilson_interval


def test_wilson_matches_the_formula() -> None:
    k, n, z = 19, 194, 1.959963984540054
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))

    low, high = wilson_interval(k, n) or (0, 0)

    assert (low, high) == pytest.approx((centre - half, centre + half))


def test_wilson_without_trials_is_none_and_zero_failures_is_not_a_point() -> None:
    assert wilson_interval(0, 0) is None
    low, high = wilson_interval(0, 20) or (1, 1)
    assert low == pytest.approx(0.0, abs=1e-12) and 0.1 < high < 0.2


def test_bootstrap_interval_covers_the_true_mean_about_95_percent_of_the_time() -> None:
    # Repeated experiments: 30 skewed draws each; the 95% interval should hold the true mean (1.0)
    # in roughly 95% of them (BCa on n=30 runs a little under nominal).
    covered = 0
    trials = 200
    for trial in range(trials):
        sample = np.random.default_rng(1000 + trial).exponential(1.0, 30)
        low, high = mean_interval(sample, generator(0, f"coverage:{trial}"), resamples=2000) or (0, 0)
        covered += low <= 1.0 <= high
    assert 0.88 <= covered / trials <= 0.99


def test_same_seed_same_interval_other_seed_other_interval() -> None:
    sample = np.random.default_rng(3).normal(6, 2, 50)

    first = mean_interval(sample, generator(0, "mean:x"))
    again = mean_interval(sample, generator(0, "mean:x"))
    other = mean_interval(sample, generator(1, "mean:x"))

    assert first == again
    assert first != other


def test_degenerate_samples() -> None:
    assert mean_interval(np.array([4.0]), generator(0, "k")) is None
    assert mean_interval(np.array([4.0, 4.0, 4.0]), generator(0, "k")) == (4.0, 4.0)
