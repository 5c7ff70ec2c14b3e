"""Shared resampling draws: one seeded set of bootstrap resamples and of sign flips per unit count.

Every configuration, pair and hypothesis over n units uses the same R resamples of n (drawn once
from generator(seed, "bootstrap:n")) and the same R sign patterns (generator(seed, "flips:n")).
A bootstrap distribution of a mean is then one matrix product (counts x values), so sixty
configurations cost about what one did; the interval from that distribution is scipy's own BCa
(scipy.stats.bootstrap given the distribution as `bootstrap_result`, which adds its jackknife
acceleration), and the sign-flip p-value is scipy's monte_carlo_test fed the shared flips.
A figure depends only on its data, the seed and R.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

from .intervals import BATCH, CONFIDENCE, RESAMPLES, generator

__all__ = ["FlipTest", "Resampler"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]


@dataclass(frozen=True)
class FlipTest:
    """A two-sided sign-flip permutation test of a mean difference."""

    p_value: float | None
    exact: bool
    """Every sign pattern enumerated (2^units <= resamples)."""
    p_floor: bool
    """A Monte Carlo p-value on its floor 2/(R+1): the true p is smaller than that, not equal to it."""
    p_min: float | None
    """With every pattern enumerated, the smallest p the test can give at this number of units."""


class _Distribution:
    """What scipy.stats.bootstrap reads from a previous result: the bootstrap distribution."""

    def __init__(self, values: FloatArray) -> None:
        self.bootstrap_distribution = values


def _mean(values: FloatArray, axis: int = -1) -> FloatArray:
    return np.asarray(np.mean(values, axis=axis), dtype=np.float64)


def _ratio(sums: FloatArray, sizes: FloatArray, axis: int = -1) -> FloatArray:
    return np.asarray(np.sum(sums, axis=axis) / np.sum(sizes, axis=axis), dtype=np.float64)


class Resampler:
    """Seeded shared draws for one run (cached by unit count)."""

    def __init__(self, seed: int, resamples: int = RESAMPLES, level: float = CONFIDENCE) -> None:
        self.seed, self.resamples, self.level = seed, resamples, level
        self._counts: dict[int, FloatArray] = {}
        self._signs: dict[int, FloatArray] = {}

    @property
    def floor(self) -> float:
        """The smallest two-sided Monte Carlo p-value: 2 / (R + 1)."""
        return min(1.0, 2 / (self.resamples + 1))

    def counts(self, units: int) -> FloatArray:
        """R x units: how often each unit appears in each bootstrap resample."""
        cached = self._counts.get(units)
        if cached is None:
            rng = generator(self.seed, f"bootstrap:{units}")
            cached = np.empty((self.resamples, units), dtype=np.float64)
            for start in range(0, self.resamples, BATCH):
                rows = min(BATCH, self.resamples - start)
                drawn = rng.integers(0, units, (rows, units))
                flat = (drawn + units * np.arange(rows)[:, None]).ravel()
                cached[start : start + rows] = np.bincount(flat, minlength=rows * units).reshape(rows, units)
            self._counts[units] = cached
        return cached

    def signs(self, units: int) -> FloatArray:
        """R x units of -1/+1, each with probability 1/2."""
        cached = self._signs.get(units)
        if cached is None:
            rng = generator(self.seed, f"flips:{units}")
            cached = (rng.integers(0, 2, size=(self.resamples, units), dtype=np.int8) * 2 - 1).astype(np.float64)
            self._signs[units] = cached
        return cached

    def mean_interval(self, values: FloatArray, groups: IntArray | None = None) -> tuple[float, float] | None:
        """BCa interval of the mean, resampling the units (the values, or whole clusters with `groups`)."""
        return self.mean_intervals([(values, groups)])[0]

    def mean_intervals(self, items: Sequence[tuple[FloatArray, IntArray | None]]) -> list[tuple[float, float] | None]:
        """mean_interval of each (values, groups); items with the same unit count share one matrix product."""
        prepared = [_units(values, groups) for values, groups in items]
        out: list[tuple[float, float] | None] = [None] * len(items)
        by_units: dict[int, list[int]] = {}
        for k, ((values, _), (sums, _)) in enumerate(zip(items, prepared)):
            if sums.size < 2:
                continue
            if np.all(values == values[0]):
                out[k] = float(values[0]), float(values[0])  # every resample has this mean; BCa is undefined here
                continue
            by_units.setdefault(int(sums.size), []).append(k)
        for units, members in by_units.items():
            counts = self.counts(units)
            totals = counts @ np.column_stack([prepared[k][0] for k in members])
            sizes = [prepared[k][1] for k in members]
            weights = counts @ np.column_stack([s if s is not None else np.ones(units) for s in sizes])
            for column, k in enumerate(members):
                sums, size = prepared[k]
                if size is None:
                    out[k] = self._bca((sums,), _mean, totals[:, column] / units, paired=False)
                else:
                    out[k] = self._bca((sums, size), _ratio, totals[:, column] / weights[:, column], paired=True)
        return out

    def _bca(
        self,
        data: tuple[FloatArray, ...],
        statistic: Callable[..., FloatArray],
        distribution: FloatArray,
        paired: bool,
    ) -> tuple[float, float] | None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # BCa on lumpy samples warns; bounds stay valid
            result = stats.bootstrap(
                data,
                statistic,
                n_resamples=0,
                vectorized=True,
                paired=paired,
                confidence_level=self.level,
                method="BCa",
                bootstrap_result=_Distribution(distribution),
            )
        low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
        return (low, high) if math.isfinite(low) and math.isfinite(high) else None

    def flip_test(self, difference: FloatArray, groups: IntArray | None = None) -> FlipTest:
        """Two-sided sign-flip test of mean difference 0 (flipping whole clusters with `groups`)."""
        return self.flip_tests([(difference, groups)])[0]

    def flip_tests(self, items: Sequence[tuple[FloatArray, IntArray | None]]) -> list[FlipTest]:
        """flip_test of each (difference, groups); Monte Carlo items of one unit count share one matrix product."""
        out: list[FlipTest | None] = [None] * len(items)
        by_units: dict[int, list[int]] = {}
        values = [_units(difference, groups)[0] for difference, groups in items]
        for k, unit_values in enumerate(values):
            units = int(unit_values.size)
            if units < 2:
                out[k] = FlipTest(None, False, False, None)  # one unit says nothing about a difference
            elif np.all(unit_values == 0):
                out[k] = FlipTest(1.0, 2**units <= self.resamples, False, None)  # every flip gives the observed zero
            elif 2**units <= self.resamples:
                # Every sign pattern is enumerated; the most extreme one (every sign alike) gives the
                # smallest p the test can reach at this number of units.
                out[k] = FlipTest(self._exact(unit_values), True, False, self._exact(np.abs(unit_values)))
            else:
                by_units.setdefault(units, []).append(k)
        for units, members in by_units.items():
            null = self.signs(units) @ np.column_stack([np.abs(values[k]) for k in members]) / units
            for column, k in enumerate(members):
                p_value = self._monte_carlo(values[k], null[:, column])
                out[k] = FlipTest(p_value, False, p_value <= self.floor * (1 + 1e-9), None)
        return [test if test is not None else FlipTest(None, False, False, None) for test in out]

    def _exact(self, values: FloatArray) -> float:
        # With one sample, permutation_type="samples" flips the sign of each unit (the null of
        # swapping the two configurations within a unit).
        result = stats.permutation_test(
            (values,),
            _mean,
            permutation_type="samples",
            vectorized=True,
            n_resamples=self.resamples,
            batch=BATCH,
            alternative="two-sided",
        )
        return float(result.pvalue)

    def _monte_carlo(self, values: FloatArray, null: FloatArray) -> float:
        # The null distribution (shared flips times the magnitudes) is handed to scipy's
        # monte_carlo_test as "resamples" of one value each, whose mean is itself; scipy compares
        # them with the observed mean and gives the p-value.
        column = null[:, None]

        def flipped(size: tuple[int, ...]) -> FloatArray:
            return column[: size[0]]

        result = stats.monte_carlo_test(
            values,
            flipped,
            _mean,
            vectorized=True,
            n_resamples=self.resamples,
            batch=self.resamples,
            alternative="two-sided",
        )
        return float(result.pvalue)


def _units(values: FloatArray, groups: IntArray | None) -> tuple[FloatArray, FloatArray | None]:
    """The units' values: the values themselves, or each cluster's sum and size."""
    if groups is None:
        return values, None
    from .clusters import cluster_sums

    return cluster_sums(values, groups)
