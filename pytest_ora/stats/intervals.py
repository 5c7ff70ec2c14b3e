"""Intervals: a bootstrap interval of a mean (scipy.stats.bootstrap) and a Wilson interval (scipy.stats.binomtest)."""

from __future__ import annotations

import math
import warnings
import zlib

import numpy as np
import numpy.typing as npt
from scipy import stats

__all__ = ["BATCH", "CONFIDENCE", "RESAMPLES", "generator", "mean_interval", "wilson_interval"]

CONFIDENCE = 0.95
RESAMPLES = 10_000
BATCH = 500
"""Resamples drawn at once: bounds memory at 10x (500 x 2,000 captures x 8 bytes = 8 MB)."""


def generator(seed: int, key: str) -> np.random.Generator:
    """A Generator for one named computation: the same seed and key give the same draws, whatever else ran."""
    return np.random.default_rng([seed, zlib.crc32(key.encode("utf-8"))])


def _mean(values: npt.NDArray[np.float64], axis: int = -1) -> npt.NDArray[np.float64]:
    return np.asarray(np.mean(values, axis=axis), dtype=np.float64)


def mean_interval(
    values: npt.NDArray[np.float64], rng: np.random.Generator, resamples: int = RESAMPLES, level: float = CONFIDENCE
) -> tuple[float, float] | None:
    """BCa bootstrap interval of the mean, resampling the values; None for fewer than two values."""
    if values.size < 2:
        return None
    if np.all(values == values[0]):
        # Every resample has the same mean: the interval is that point (BCa is undefined here).
        return float(values[0]), float(values[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # BCa on very small or lumpy samples warns; bounds stay valid
        result = stats.bootstrap(
            (values,),
            _mean,
            n_resamples=resamples,
            batch=BATCH,
            vectorized=True,
            confidence_level=level,
            method="BCa",
            rng=rng,
        )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return (low, high) if math.isfinite(low) and math.isfinite(high) else None


def wilson_interval(successes: int, trials: int, level: float = CONFIDENCE) -> tuple[float, float] | None:
    """Wilson score interval of a proportion; None without trials."""
    if trials == 0:
        return None
    interval = stats.binomtest(successes, trials).proportion_ci(confidence_level=level, method="wilson")
    return float(interval.low), float(interval.high)
