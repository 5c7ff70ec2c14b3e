"""A bootstrap interval of Krippendorff's interval alpha, resampling captures (`alpha_interval`).

Interval alpha is a ratio of sums over captures (see agreement.interval_alpha), so a resample's
alpha follows from how often each capture is drawn: one matrix product per batch of resamples,
for every criterion at once. A test holds each resample's value to krippendorff.alpha on the
resampled captures. The interval is the percentile interval of ALPHA_RESAMPLES resamples.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .intervals import CONFIDENCE, generator

__all__ = ["ALPHA_RESAMPLES", "alpha_distribution", "alpha_intervals", "capture_terms"]

ALPHA_RESAMPLES = 1_000
_BATCH = 100

FloatArray = npt.NDArray[np.float64]


def capture_terms(ratings: FloatArray) -> FloatArray:
    """captures x 4: per capture, complete (1/0), the within-capture disagreement, sum of squares, sum of ratings."""
    judges = ratings.shape[1]
    complete = np.asarray(~np.isnan(ratings).any(axis=1), dtype=np.bool_)
    filled = np.where(complete[:, None], ratings, 0.0)
    within = 2 * (judges * (filled**2).sum(axis=1) - filled.sum(axis=1) ** 2) / max(judges - 1, 1)
    return np.column_stack([complete.astype(np.float64), within, (filled**2).sum(axis=1), filled.sum(axis=1)])


def _alpha(sums: FloatArray, judges: int) -> FloatArray:
    """Alpha from summed capture terms (last axis: complete, within, squares, sum)."""
    total = judges * sums[..., 0]
    between = 2 * (total * sums[..., 2] - sums[..., 3] ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(1 - (total - 1) * sums[..., 1] / between, dtype=np.float64)


def alpha_distribution(counts: FloatArray, ratings: FloatArray) -> FloatArray:
    """Alpha of each resample, given resamples x captures draw counts."""
    return _alpha(counts @ capture_terms(ratings), ratings.shape[1])


def alpha_intervals(
    ratings: list[FloatArray],
    seed: int,
    resamples: int = ALPHA_RESAMPLES,
    level: float = CONFIDENCE,
) -> list[tuple[float, float] | None]:
    """Percentile bootstrap intervals of interval alpha for several captures x judges arrays over the same captures."""
    if not ratings or ratings[0].shape[0] < 2 or ratings[0].shape[1] < 2:
        return [None] * len(ratings)
    captures, judges = ratings[0].shape
    terms = np.concatenate([capture_terms(r) for r in ratings], axis=1)  # captures x 4 per array
    rng = generator(seed, "alpha")
    values = np.empty((resamples, len(ratings)))
    for start in range(0, resamples, _BATCH):
        rows = min(_BATCH, resamples - start)
        drawn = rng.integers(0, captures, (rows, captures), dtype=np.int64)
        counts = np.bincount((drawn + captures * np.arange(rows)[:, None]).ravel(), minlength=rows * captures)
        sums = counts.reshape(rows, captures).astype(np.float64) @ terms
        values[start : start + rows] = _alpha(sums.reshape(rows, len(ratings), 4), judges)
    out: list[tuple[float, float] | None] = []
    for k in range(len(ratings)):
        finite = values[:, k][np.isfinite(values[:, k])]
        if finite.size < resamples * 0.99 or not np.isfinite(_alpha(terms[:, 4 * k : 4 * k + 4].sum(axis=0), judges)):
            out.append(None)  # alpha undefined in the data or in many resamples (no variation): no interval
            continue
        low, high = np.quantile(finite, [(1 - level) / 2, (1 + level) / 2])
        out.append((float(low), float(high)))
    return out
