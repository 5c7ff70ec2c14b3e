"""Paired comparison of two configurations over shared entries: intervals, sign-flip and t p-values, McNemar, Holm."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from .clusters import Estimate, mean_estimate
from .intervals import BATCH, RESAMPLES, mean_interval
from .resampling import FlipTest, Resampler

__all__ = [
    "SMALL_UNITS",
    "Comparison",
    "Paired",
    "compare",
    "compare_many",
    "holm",
    "interval_method",
    "mcnemar_p",
    "paired",
    "paired_t_p",
]


@dataclass(frozen=True)
class Paired:
    """first - second over the entries both scored."""

    n: int
    mean_difference: float | None
    interval: tuple[float, float] | None
    """Paired bootstrap interval of the mean difference (entries resampled with both their scores)."""
    p_value: float | None
    """Two-sided sign-flip permutation p-value of the mean difference (exact when 2^n <= resamples)."""


def _mean(difference: npt.NDArray[np.float64], axis: int = -1) -> npt.NDArray[np.float64]:
    return np.asarray(np.mean(difference, axis=axis), dtype=np.float64)


def paired(
    first: npt.NDArray[np.float64],
    second: npt.NDArray[np.float64],
    rng: np.random.Generator,
    resamples: int = RESAMPLES,
) -> Paired:
    """Compare two aligned vectors (one value per shared entry)."""
    n = int(first.size)
    if n == 0:
        return Paired(0, None, None, None)
    difference = first - second
    interval = mean_interval(difference, rng, resamples)
    if n < 2:
        p_value = None  # one shared entry says nothing about a difference: no test, and no Holm weight
    elif np.all(difference == 0):
        p_value = 1.0  # every sign flip gives the observed zero
    elif 2**n <= resamples:
        # Every sign pattern can be enumerated: with one sample, permutation_type="samples" flips the
        # sign of each entry's difference (the null of swapping the two configurations within an entry).
        result = stats.permutation_test(
            (difference,),
            _mean,
            permutation_type="samples",
            vectorized=True,
            n_resamples=resamples,
            batch=BATCH,
            alternative="two-sided",
            rng=rng,
        )
        p_value = float(result.pvalue)
    else:
        # The same null drawn at random: scipy's permutation_test would loop in Python over every
        # entry of every batch; its Monte Carlo test draws the flips as one array.
        magnitude = np.abs(difference)

        def flipped(size: tuple[int, ...]) -> npt.NDArray[np.float64]:
            signs = rng.integers(0, 2, size=size, dtype=np.int8) * 2 - 1  # -1 or +1, each with probability 1/2
            return np.asarray(magnitude * signs, dtype=np.float64)

        result = stats.monte_carlo_test(
            difference,
            flipped,
            _mean,
            vectorized=True,
            n_resamples=resamples,
            batch=BATCH,
            alternative="two-sided",
        )
        p_value = float(result.pvalue)
    return Paired(n, float(np.mean(difference)), interval, p_value)


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm-adjusted p-values across the comparisons that have one (the others stay None)."""
    present = [i for i, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    if present:
        corrected = multipletests([p_values[i] for i in present], method="holm")[1]
        for i, value in zip(present, corrected):
            adjusted[i] = float(value)
    return adjusted


SMALL_UNITS = 20
"""Fewer units (entries, or clusters) than this: a small-n row; a bootstrap-only figure shows no interval."""


def interval_method(units: int) -> str:
    """`t` at every number of units: a mean's t interval holds its level where BCa runs narrow (at 20 units too)."""
    del units  # kept in the signature: the rule once depended on it, and callers say what they have
    return "t"


@dataclass(frozen=True)
class Comparison:
    """first - second over shared units, with every section-15 figure."""

    n: int
    mean_difference: float | None
    bootstrap_interval: tuple[float, float] | None
    t_interval: tuple[float, float] | None
    interval_method: str
    units: int
    clusters: int | None
    design_effect: float | None
    standard_error: float | None
    test: FlipTest
    p_t: float | None
    """Paired t-test (cluster-robust with clusters)."""
    sd_difference: float | None
    correlation: float | None
    mcnemar_p: float | None
    """McNemar's exact p on the failure flags of the shared entries; None without discordant flags to test."""


def paired_t_p(difference: npt.NDArray[np.float64], estimate: Estimate) -> float | None:
    """Two-sided p of the paired t-test: scipy's ttest_1samp, or the clustered t on G - 1 df."""
    if estimate.standard_error is None or estimate.mean is None or difference.size < 2:
        return None
    if estimate.standard_error == 0:
        return 1.0 if estimate.mean == 0 else 0.0
    if estimate.clusters is None:
        return float(stats.ttest_1samp(difference, 0.0).pvalue)
    statistic = estimate.mean / estimate.standard_error
    return float(2 * stats.t.sf(abs(statistic), estimate.clusters - 1))


def mcnemar_p(first: npt.NDArray[np.bool_], second: npt.NDArray[np.bool_]) -> float | None:
    """McNemar's exact test (statsmodels) of paired failure flags; None when no entry is shared."""
    if first.size == 0:
        return None
    table = [
        [int(np.sum(first & second)), int(np.sum(first & ~second))],
        [int(np.sum(~first & second)), int(np.sum(~first & ~second))],
    ]
    return float(mcnemar(table, exact=True).pvalue)


def compare(
    first: npt.NDArray[np.float64],
    second: npt.NDArray[np.float64],
    resampler: Resampler,
    groups: npt.NDArray[np.intp] | None = None,
    failures: tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None = None,
) -> Comparison:
    """Compare two aligned vectors (one value per shared entry; `groups` the entries' clusters)."""
    return compare_many([(first, second, groups, failures)], resampler)[0]


Pair = tuple[
    npt.NDArray[np.float64],
    npt.NDArray[np.float64],
    "npt.NDArray[np.intp] | None",
    "tuple[npt.NDArray[np.bool_], npt.NDArray[np.bool_]] | None",
]


def compare_many(pairs: Sequence[Pair], resampler: Resampler) -> list[Comparison]:
    """compare() of each (first, second, groups, failures); the resampling is shared across them."""
    differences = [(first - second, groups) for first, second, groups, _ in pairs]
    intervals = resampler.mean_intervals(differences)
    tests = resampler.flip_tests(differences)
    out = []
    for (first, second, groups, failures), (difference, _), bootstrap, test in zip(
        pairs, differences, intervals, tests
    ):
        n = int(first.size)
        estimate = mean_estimate(difference, groups, resampler.level)
        correlation = None
        if n >= 2 and np.std(first) > 0 and np.std(second) > 0:
            correlation = float(np.corrcoef(first, second)[0, 1])
        out.append(
            Comparison(
                n=n,
                mean_difference=estimate.mean,
                bootstrap_interval=bootstrap,
                t_interval=estimate.t_interval,
                interval_method=interval_method(estimate.units),
                units=estimate.units,
                clusters=estimate.clusters,
                design_effect=estimate.design_effect,
                standard_error=estimate.standard_error,
                test=test,
                p_t=paired_t_p(difference, estimate),
                sd_difference=float(np.std(difference, ddof=1)) if n >= 2 else None,
                correlation=correlation,
                mcnemar_p=None if failures is None else mcnemar_p(*failures),
            )
        )
    return out
