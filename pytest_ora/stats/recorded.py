"""A run's panel agreement beside the value its rubric records (`calibration`), with the rule that says "recalibrate".

The statistic is Fleiss' kappa over every (capture, criterion) rating of the panel's judges, the
scale's points as categories (agreement.fleiss, statsmodels). Its interval is a percentile
bootstrap resampling captures (a capture's criteria stay together), the run's resamples from its
seed: kappa is a ratio of sums over subjects, so each resample follows from how often each
capture is drawn (one matrix product a batch). The rule: the recorded value outside the run's 95%
interval says "recalibrate"; inside it, nothing contradicts the record (which a small run's wide
interval cannot confirm either); no interval (fewer than two complete captures, too fine a scale,
no variation) compares nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.rubric import RecordedCalibration
from .agreement import discrete_grid, fleiss
from .arrays import RunArrays
from .intervals import CONFIDENCE, generator

__all__ = ["RESAMPLES", "kappa_terms", "recorded_calibration"]

RESAMPLES = 10_000
_BATCH = 100

FloatArray = npt.NDArray[np.float64]


def kappa_terms(scores: FloatArray, grid: FloatArray) -> FloatArray:
    """captures x (2 + categories): per capture, its subjects, the sum of their P_i, and each category's count."""
    captures, judges, criteria = scores.shape
    spacing = grid[1] - grid[0] if grid.size > 1 else 1.0
    codes = np.rint((scores - grid[0]) / spacing).astype(np.intp)  # captures x judges x criteria
    counts = np.zeros((captures, criteria, grid.size))
    for judge in range(judges):
        np.add.at(counts, (np.arange(captures)[:, None], np.arange(criteria)[None, :], codes[:, judge, :]), 1)
    agreement = ((counts**2).sum(axis=2) - judges) / (judges * (judges - 1))  # P_i of each subject
    return np.column_stack([np.full(captures, float(criteria)), agreement.sum(axis=1), counts.sum(axis=1)])


def _kappa(sums: FloatArray, judges: int) -> FloatArray:
    """Fleiss' kappa from summed capture terms (last axis: subjects, sum of P_i, category counts)."""
    subjects = sums[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = sums[..., 1] / subjects
        shares = sums[..., 2:] / (subjects * judges)[..., None]
        expected = (shares**2).sum(axis=-1)
        return np.asarray((observed - expected) / (1 - expected), dtype=np.float64)


def _interval(terms: FloatArray, judges: int, seed: int, resamples: int) -> tuple[float, float] | None:
    captures = terms.shape[0]
    rng = generator(seed, "recorded-calibration")
    values = np.empty(resamples)
    for start in range(0, resamples, _BATCH):
        rows = min(_BATCH, resamples - start)
        drawn = rng.integers(0, captures, (rows, captures), dtype=np.int64)
        counts = np.bincount((drawn + captures * np.arange(rows)[:, None]).ravel(), minlength=rows * captures)
        values[start : start + rows] = _kappa(counts.reshape(rows, captures).astype(np.float64) @ terms, judges)
    finite = values[np.isfinite(values)]
    if finite.size < resamples * 0.99:
        return None  # kappa undefined in many resamples (no variation): no interval
    low, high = np.quantile(finite, [(1 - CONFIDENCE) / 2, (1 + CONFIDENCE) / 2])
    return float(low), float(high)


def recorded_calibration(
    data: RunArrays, recorded: RecordedCalibration, seed: int, resamples: int = RESAMPLES
) -> dict[str, Any]:
    """stats.json's `recorded_calibration`: the recorded value, the run's own with its interval and n, the reading."""
    complete = data.scores[~np.isnan(data.scores).any(axis=(1, 2))]  # captures every judge scored on every criterion
    captures, judges = (complete.shape[0], complete.shape[1]) if complete.ndim == 3 else (0, len(data.judges))
    value: float | None = None
    interval: tuple[float, float] | None = None
    grid = discrete_grid(complete.ravel(), data.scale) if captures else None
    if captures >= 2 and judges >= 2 and grid is not None:
        pooled = complete.transpose(0, 2, 1).reshape(-1, judges)  # (capture, criterion) subjects x judges
        value = fleiss(pooled, data.scale)
        if value is not None:
            interval = _interval(kappa_terms(complete, grid), judges, seed, resamples)
    if interval is None:
        reading, verdict = (
            (
                "no interval: the run's Fleiss' kappa needs two or more captures every judge scored on a "
                "discrete scale, with some variation"
            ),
            "not compared",
        )
    elif interval[0] <= recorded.value <= interval[1]:
        verdict = "consistent"
        reading = (
            "the recorded value lies inside the run's 95% interval: nothing here contradicts the record "
            "(a wide interval cannot confirm it either)"
        )
    else:
        verdict = "recalibrate"
        reading = (
            "the recorded value lies outside the run's 95% interval: recalibrate the panel before relying on the record"
        )
    return {
        "statistic": recorded.statistic,
        "recorded": {"value": recorded.value, "date": recorded.date, "scope": recorded.scope},
        "run": {
            "value": value,
            "interval": None if interval is None else [interval[0], interval[1]],
            "captures": int(captures),
            "ratings": int(captures * data.scores.shape[2]) if captures else 0,
            "judges": int(judges),
            "resamples": resamples,
            "confidence_level": CONFIDENCE,
        },
        "verdict": verdict,
        "reading": reading,
        "method": (
            "Fleiss' kappa (statsmodels) over every (capture, criterion) rating of the panel's judges, the scale's "
            "points as categories; percentile bootstrap resampling captures; 'recalibrate' when the recorded value "
            "lies outside the run's 95% interval"
        ),
    }
