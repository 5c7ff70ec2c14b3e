"""Paired comparison of two configurations over shared entries: bootstrap interval, sign-flip p-value, Holm."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats
from statsmodels.stats.multitest import multipletests

from .intervals import BATCH, RESAMPLES, mean_interval

__all__ = ["Paired", "holm", "paired"]


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
    first: npt.NDArray[np.float64], second: npt.NDArray[np.float64], rng: np.random.Generator, resamples: int = RESAMPLES
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
            (difference,), _mean, permutation_type="samples", vectorized=True,
            n_resamples=resamples, batch=BATCH, alternative="two-sided", rng=rng,
        )
        p_value = float(result.pvalue)
    else:
        # The same null drawn at random: scipy's permutation_test would loop in Python over every
        # entry of every batch (0.1-0.2 s a pair); its Monte Carlo test draws the flips as one array.
        magnitude = np.abs(difference)

        def flipped(size: tuple[int, ...]) -> npt.NDArray[np.float64]:
            signs = rng.integers(0, 2, size=size, dtype=np.int8) * 2 - 1  # -1 or +1, each with probability 1/2
            return np.asarray(magnitude * signs, dtype=np.float64)

        result = stats.monte_carlo_test(
            difference, flipped, _mean, vectorized=True, n_resamples=resamples, batch=BATCH, alternative="two-sided",
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
