"""Units and clusters: the standard error and Student t interval of a mean, cluster-robust when entries are related.

Without clusters each value is its own unit and the t interval is scipy's one-sample t. With
cluster labels (entries sharing a scenario, a source document) the mean's standard error is the
cluster-robust (sandwich) one of a regression on a constant, as in Miller 2024, "Adding Error
Bars to Evals", appendix A, taken from statsmodels' OLS with cov_type="cluster" (its default
small-sample factor G/(G-1) * (N-1)/(N-K), so never narrower than the plain sandwich), with
t on G - 1 degrees of freedom. The design effect is the variance ratio clustered / independent.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats
from statsmodels.regression.linear_model import OLS

__all__ = ["Estimate", "cluster_codes", "cluster_sums", "mean_estimate", "t_interval"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class Estimate:
    """A mean over its units, with its standard error and t interval."""

    n: int
    """Values (entries, or captures)."""
    units: int
    """Independent units: the values, or the clusters they fall in."""
    mean: float | None
    standard_error: float | None
    t_interval: tuple[float, float] | None
    clusters: int | None
    """Clusters, when clustered; None when each value is its own unit."""
    design_effect: float | None
    """Variance of the mean clustered / as if independent; None unclustered or undefined."""


def cluster_codes(labels: Sequence[str]) -> IntArray:
    """Cluster labels -> 0..G-1, in first-seen order."""
    seen: dict[str, int] = {}
    return np.array([seen.setdefault(label, len(seen)) for label in labels], dtype=np.intp)


def cluster_sums(values: FloatArray, groups: IntArray) -> tuple[FloatArray, FloatArray]:
    """Each cluster's sum of values and its size (clusters in code order, empty codes dropped)."""
    _, dense = np.unique(groups, return_inverse=True)
    sums = np.asarray(np.bincount(dense, weights=values), dtype=np.float64)
    sizes = np.asarray(np.bincount(dense), dtype=np.float64)
    return sums, sizes


def t_interval(values: FloatArray, level: float = 0.95, groups: IntArray | None = None) -> tuple[float, float] | None:
    """Student t interval of the mean (cluster-robust with `groups`); None when it is undefined."""
    return mean_estimate(values, groups, level).t_interval


def mean_estimate(values: FloatArray, groups: IntArray | None = None, level: float = 0.95) -> Estimate:
    """The mean, its standard error and t interval; clustered when `groups` labels each value's cluster."""
    n = int(values.size)
    mean = float(np.mean(values)) if n else None
    if groups is None:
        return _independent(values, n, mean, level)
    clusters = int(np.unique(groups).size)
    if n < 2 or clusters < 2:
        return Estimate(n, clusters, mean, None, None, clusters, None)
    if np.all(values == values[0]):
        # No spread seen: a t interval would be the point itself, claiming a certainty a few equal
        # values do not give (three 9s are common on a lumpy scale). No interval, not a zero-width one.
        return Estimate(n, clusters, mean, 0.0, None, clusters, None)
    design = np.ones((n, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns about few clusters; the t on G - 1 df is the answer to that
        fit = OLS(values, design).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    low, high = (float(v) for v in fit.conf_int(alpha=1 - level)[0])
    se = float(fit.bse[0])
    independent = float(stats.sem(values))
    effect = (se / independent) ** 2 if independent > 0 else None
    return Estimate(n, clusters, mean, se, (low, high), clusters, effect)


def _independent(values: FloatArray, n: int, mean: float | None, level: float) -> Estimate:
    if n < 2:
        return Estimate(n, n, mean, None, None, None, None)
    if np.all(values == values[0]):
        # No spread seen: no t interval (scipy gives NaN; a zero-width one would overstate, see above).
        return Estimate(n, n, mean, 0.0, None, None, None)
    # mean +- t(df) * sd / sqrt(n): ttest_1samp's confidence_interval (a test holds them equal), without
    # its per-call overhead, which is most of the statistics' time over sixty configurations.
    se = float(np.std(values, ddof=1)) / math.sqrt(n)
    half = _t_quantile(n - 1, level) * se
    assert mean is not None
    return Estimate(n, n, mean, se, (mean - half, mean + half), None, None)


@functools.lru_cache(maxsize=4096)
def _t_quantile(df: int, level: float) -> float:
    return float(stats.t.ppf((1 + level) / 2, df))
