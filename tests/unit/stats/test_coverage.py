"""The coverage of the intervals the tables show, by a seeded, vectorised simulation.

The tables show, for a mean or a mean paired difference (a paired difference is a mean of
differences; a hypothesis's mean delta too), the Student t interval at every n, cluster-robust on
G - 1 degrees of freedom with clusters. Each cell draws many samples at once, computes every
sample's interval with the product's formula (held equal to clusters.mean_estimate on the first
samples of the cell), and counts the intervals that hold the population's mean.

The band: 93-97%. With T trials a cell's Monte Carlo standard error is sqrt(c (1 - c) / T), about
0.22 points at T = 10,000, 0.15 at 20,000, 0.11 at 40,000 and 0.07 at 100,000 (each test asserts
its error is that small); a cell passes when its coverage is inside
the band by three standard errors, so a pass says the true coverage is within 93-97%, not just the
draw. Normal data: n = 3, 5, 20, 200, unclustered and clustered (pairs of entries sharing a
cluster, intra-cluster correlation 0.5). Skewed, lumpy 0-10 scores: n = 20 and 200 on the first
population of coverage.SKEWED; the second (a few failures among mostly top scores) is asserted in
the band only at 200, and its measured shortfall below that is what methodology.md prints.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import pytest
from scipy import stats

from pytest_ora.stats.clusters import mean_estimate
from pytest_ora.stats.coverage import SEED, SKEWED, SKEWED_COVERAGE, TRIALS, Population

FloatArray = npt.NDArray[np.float64]
NORMAL_TRIALS = 40_000
DRAWS = 4_000_000
"""At most this many values a cell (n = 200 cells draw fewer trials: 20,000 samples of 200, 10,000 of 200 pairs)."""
LOW, HIGH = 0.93, 0.97
CHECKED = 25
"""Samples per cell whose interval is also computed by the product one at a time, and held equal."""


def t_intervals(samples: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Each row's 95% t interval (NaN where every value is equal: no interval is shown then)."""
    n = samples.shape[1]
    mean = samples.mean(axis=1)
    spread = samples.std(axis=1, ddof=1)
    half = stats.t.ppf(0.975, n - 1) * spread / math.sqrt(n)
    half[spread == 0] = np.nan
    return mean - half, mean + half


def clustered_intervals(samples: FloatArray, size: int) -> tuple[FloatArray, FloatArray]:
    """Each row's cluster-robust t interval (consecutive runs of `size` values are a cluster; CR1, G - 1 df)."""
    trials, n = samples.shape
    clusters = n // size
    mean = samples.mean(axis=1)
    sums = (samples - mean[:, None]).reshape(trials, clusters, size).sum(axis=2)
    variance = clusters / (clusters - 1) * (sums**2).sum(axis=1) / n**2
    half = stats.t.ppf(0.975, clusters - 1) * np.sqrt(variance)
    return mean - half, mean + half


def coverage(low: FloatArray, high: FloatArray, truth: float) -> tuple[float, float, float]:
    """(share of shown intervals holding the truth, its Monte Carlo standard error, share with none shown)."""
    shown = ~np.isnan(low)
    hits = int(np.sum((low <= truth) & (truth <= high) & shown))
    count = int(shown.sum())
    share = hits / count
    return share, math.sqrt(share * (1 - share) / count), 1 - count / low.size


def trials_for(values: int, most: int) -> int:
    return min(most, DRAWS // values)


def assert_in_band(share: float, error: float, label: str) -> None:
    assert LOW + 3 * error <= share <= HIGH - 3 * error, f"{label}: {share:.4f} ± {error:.4f} not inside 93-97%"


def assert_product_agrees(
    samples: FloatArray, low: FloatArray, high: FloatArray, groups: npt.NDArray[np.intp] | None = None
) -> None:
    for row in range(CHECKED):
        interval = mean_estimate(samples[row], groups).t_interval
        if interval is None:
            assert np.isnan(low[row])
        else:
            assert (low[row], high[row]) == pytest.approx(interval, rel=1e-9, abs=1e-12)


def draw(population: Population, rng: np.random.Generator, trials: int, n: int) -> FloatArray:
    """trials x n scores from the population (inverse CDF of its weights)."""
    weights = np.asarray(population.weights) / sum(population.weights)
    index = np.searchsorted(np.cumsum(weights), rng.random((trials, n)), side="right")
    return np.asarray(population.scores, dtype=np.float64)[np.minimum(index, len(weights) - 1)]


def mean_of(population: Population) -> float:
    return float(np.dot(population.scores, population.weights) / sum(population.weights))


@pytest.mark.parametrize("n", [3, 5, 20, 200])
def test_the_t_interval_covers_93_to_97_percent_on_normal_data_at_every_n(n: int) -> None:
    samples = np.random.default_rng([SEED, n]).normal(6.0, 2.0, (trials_for(n, NORMAL_TRIALS), n))
    low, high = t_intervals(samples)
    assert_product_agrees(samples, low, high)
    share, error, _ = coverage(low, high, 6.0)
    assert error < 0.0016
    assert_in_band(share, error, f"t, normal, n={n}")


@pytest.mark.parametrize("clusters", [3, 5, 20, 200])
def test_the_clustered_t_interval_covers_93_to_97_percent_on_normal_data_at_every_g(clusters: int) -> None:
    rng = np.random.default_rng([SEED, clusters, 2])
    trials = trials_for(2 * clusters, NORMAL_TRIALS)
    effect = rng.normal(0.0, 1.0, (trials, clusters, 1))
    samples = (6.0 + effect + rng.normal(0.0, 1.0, (trials, clusters, 2))).reshape(trials, 2 * clusters)
    low, high = clustered_intervals(samples, 2)
    assert_product_agrees(samples, low, high, np.repeat(np.arange(clusters), 2))
    share, error, _ = coverage(low, high, 6.0)
    assert error < 0.0023
    assert_in_band(share, error, f"clustered t, normal, G={clusters}")


@pytest.mark.parametrize(("population", "n"), [(SKEWED[0], 20), (SKEWED[0], 200), (SKEWED[1], 200)])
def test_the_t_interval_covers_93_to_97_percent_on_skewed_lumpy_scores_from_20_units(
    population: Population, n: int
) -> None:
    samples = draw(population, np.random.default_rng([SEED, n, 3]), trials_for(n, TRIALS), n)
    low, high = t_intervals(samples)
    assert_product_agrees(samples, low, high)
    share, error, _ = coverage(low, high, mean_of(population))
    assert error < 0.0017
    assert_in_band(share, error, f"t, {population.name}, n={n}")


def measured() -> list[tuple[str, int, float, float, float]]:
    """SKEWED_COVERAGE's cells, recomputed with its seed."""
    cells = []
    for index, population in enumerate(SKEWED):
        for n in (3, 5, 10, 15, 20):
            samples = draw(population, np.random.default_rng([SEED, index, n]), TRIALS, n)
            share, error, none = coverage(*t_intervals(samples), mean_of(population))
            cells.append((population.name, n, round(share, 4), round(error, 4), round(none, 4)))
    return cells


def test_the_small_n_skewed_coverage_methodology_prints_is_what_the_simulation_measures() -> None:
    printed = [(c.population, c.n, c.coverage, c.mc_error, c.none) for c in SKEWED_COVERAGE]
    assert printed == measured()
    # The harder population falls short of 93% even at 20 units: methodology.md and the tables' note say so
    assert [c.coverage < LOW for c in SKEWED_COVERAGE if c.n == 20] == [False, True]
