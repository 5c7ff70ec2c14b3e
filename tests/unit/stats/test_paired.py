"""Paired comparisons: a known effect is covered and detected; no effect gives no small p; Holm by hand."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from pytest_ora.stats.intervals import generator
from pytest_ora.stats.paired import holm, paired


def test_a_known_effect_is_inside_the_interval_and_detected() -> None:
    # Given 60 entries whose second configuration scores 0.8 lower, plus per-entry noise
    rng = np.random.default_rng(11)
    first = rng.uniform(3, 9, 60)
    second = first - 0.8 + rng.normal(0, 0.6, 60)

    result = paired(first, second, generator(0, "effect"))

    assert result.n == 60
    assert result.interval is not None
    low, high = result.interval
    assert low <= 0.8 <= high
    assert low > 0  # the interval excludes no difference
    assert result.p_value is not None and result.p_value < 0.001


def test_no_difference_gives_a_large_p_and_an_interval_around_zero() -> None:
    # Given two configurations that differ only by symmetric per-entry noise
    rng = np.random.default_rng(12)
    first = rng.uniform(3, 9, 60)
    second = first + rng.normal(0, 0.6, 60)

    result = paired(first, second, generator(0, "null"))

    assert result.p_value is not None and result.p_value > 0.2
    assert result.interval is not None and result.interval[0] < 0 < result.interval[1]


def test_small_samples_get_the_exact_sign_flip_p_value() -> None:
    first = np.array([6.0, 7.5, 5.0, 8.0, 6.5])
    second = np.array([5.0, 7.0, 5.5, 6.0, 6.0])
    difference = first - second
    observed = abs(difference.mean())
    flips = [np.mean(difference * signs) for signs in itertools.product((1, -1), repeat=5)]
    exact = sum(abs(value) >= observed - 1e-12 for value in flips) / len(flips)

    result = paired(first, second, generator(0, "exact"))

    assert result.p_value == pytest.approx(exact)


def test_identical_configurations() -> None:
    values = np.array([5.0, 6.0, 7.0])
    result = paired(values, values.copy(), generator(0, "same"))
    assert (result.mean_difference, result.p_value, result.interval) == (0.0, 1.0, (0.0, 0.0))
    assert paired(np.array([]), np.array([]), generator(0, "none")).p_value is None


def test_holm_matches_the_step_down_by_hand() -> None:
    # sorted 0.01, 0.02, 0.03, 0.04 times 4, 3, 2, 1 -> 0.04, 0.06, 0.06 (running max), 0.06
    adjusted = holm([0.03, 0.01, None, 0.04, 0.02])

    assert adjusted == pytest.approx([0.06, 0.04, None, 0.06, 0.06])


def test_one_shared_entry_has_no_p_value_and_no_interval() -> None:
    result = paired(np.array([7.0]), np.array([5.0]), generator(0, "one"))
    assert (result.n, result.mean_difference, result.interval, result.p_value) == (1, 2.0, None, None)


def test_larger_samples_get_a_monte_carlo_p_value_close_to_the_exact_one() -> None:
    # Given 16 entries (65,536 sign patterns: more than the 10,000 resamples, so they are drawn)
    rng = np.random.default_rng(8)
    first = rng.uniform(4, 8, 16)
    second = first - 0.3 + rng.normal(0, 1.0, 16)
    difference = first - second
    signs = np.array(list(itertools.product((1.0, -1.0), repeat=16)))
    flips = np.abs(signs @ difference / 16)
    exact = float(np.mean(flips >= abs(difference.mean()) - 1e-12))

    result = paired(first, second, generator(0, "drawn"))

    assert 0.01 < exact < 0.5  # a p-value where a wrong null would show
    assert result.p_value == pytest.approx(exact, abs=0.015)  # Monte Carlo error at 10,000 draws is ~0.005
    again = paired(first, second, generator(0, "drawn"))
    assert again.p_value == result.p_value  # seeded
