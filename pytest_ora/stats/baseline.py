"""This run against a baseline run: per configuration, the paired difference of overall over shared captures.

The interval a gate and the tables use is the Student t interval of the mean paired difference at
every number of shared captures; the BCa bootstrap of `paired` is computed and kept beside it.
`interval_method` names the one used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

from .intervals import CONFIDENCE, RESAMPLES, generator
from .paired import paired

__all__ = ["SMALL_N", "BaselineDifference", "baseline_difference", "t_interval"]

SMALL_N = 20
"""Below this many units a row is marked small n."""


@dataclass(frozen=True)
class BaselineDifference:
    """current - baseline over the captures both runs scored."""

    n: int
    mean_difference: float | None
    t_interval: tuple[float, float] | None
    bootstrap_interval: tuple[float, float] | None
    interval_method: str
    """`t`: the t interval is the one used at every n."""
    p_value: float | None
    """Two-sided sign-flip permutation p-value of the mean difference."""
    p_floor: bool = False
    """The p-value is the smallest the test can give at this n and resample count: shown as "< floor", never as a number."""
    p_min: float | None = None
    """That smallest p-value."""

    @property
    def interval(self) -> tuple[float, float] | None:
        return self.t_interval if self.interval_method == "t" else self.bootstrap_interval


def t_interval(difference: npt.NDArray[np.float64], level: float = CONFIDENCE) -> tuple[float, float] | None:
    """Student t interval of the mean; None for fewer than two values, the point when every value is equal."""
    if difference.size < 2:
        return None
    if np.all(difference == difference[0]):
        return float(difference[0]), float(difference[0])
    result = stats.ttest_1samp(difference, 0.0).confidence_interval(confidence_level=level)
    low, high = float(result.low), float(result.high)
    return (low, high) if math.isfinite(low) and math.isfinite(high) else None


def baseline_difference(
    current: npt.NDArray[np.float64],
    baseline: npt.NDArray[np.float64],
    seed: int,
    key: str,
    resamples: int = RESAMPLES,
) -> BaselineDifference:
    """Compare two aligned vectors (one overall per shared capture), current minus baseline."""
    result = paired(current, baseline, generator(seed, f"baseline:{key}"), resamples)
    t = t_interval(current - baseline) if result.n else None
    method = "t"
    # paired() enumerates every sign pattern when 2^n <= resamples (floor 2 / 2^n), else draws them at
    # random (scipy's Monte Carlo floor, two-sided: 2 / (resamples + 1)).
    p_min = None if result.n < 2 else (2 / 2**result.n if 2**result.n <= resamples else 2 / (resamples + 1))
    on_floor = result.p_value is not None and p_min is not None and result.p_value <= p_min * (1 + 1e-9)
    return BaselineDifference(
        result.n, result.mean_difference, t, result.interval, method, result.p_value, on_floor, p_min
    )
