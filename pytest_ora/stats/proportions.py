"""The failure rate's interval when related entries share a cluster: Wilson on the effective sample size.

Failures of entries in one cluster move together, so n captures carry less information than n
independent ones. The interval is the Wilson score interval at n / deff captures, where the design
effect deff is the cluster-robust variance of the proportion (a ratio estimator over clusters, with
the m / (m - 1) small-sample factor) over the binomial variance p (1 - p) / n, never below 1 (a
clustered interval is never narrower than the unclustered one). At p = 0 or 1 the variance is 0
either way and deff is 1 (Korn and Graubard's effective-sample-size Wilson interval).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from statsmodels.stats.proportion import proportion_confint

from .intervals import CONFIDENCE

__all__ = ["clustered_wilson_interval", "failure_design_effect"]


def failure_design_effect(failures: npt.NDArray[np.bool_], groups: npt.NDArray[np.intp]) -> float | None:
    """The design effect of a proportion over these clusters (>= 1); None with fewer than two clusters."""
    n = int(failures.size)
    codes, inverse = np.unique(groups, return_inverse=True)
    m = int(codes.size)
    if n == 0 or m < 2:
        return None
    p = float(failures.mean())
    if p in (0.0, 1.0):
        return 1.0
    totals = np.bincount(inverse, weights=failures.astype(np.float64), minlength=m)
    sizes = np.bincount(inverse, minlength=m).astype(np.float64)
    clustered = m / (m - 1) * float(((totals - p * sizes) ** 2).sum()) / n**2
    return max(1.0, clustered / (p * (1 - p) / n))


def clustered_wilson_interval(
    failures: npt.NDArray[np.bool_],
    groups: npt.NDArray[np.intp],
    level: float = CONFIDENCE,
) -> tuple[float, float] | None:
    """Wilson score interval of the failure rate at the effective sample size n / deff; None when not computable."""
    deff = failure_design_effect(failures, groups)
    if deff is None:
        return None
    effective = failures.size / deff
    low, high = proportion_confint(float(failures.mean()) * effective, effective, alpha=1 - level, method="wilson")
    return float(low), float(high)
