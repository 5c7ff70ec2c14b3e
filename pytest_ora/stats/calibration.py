"""Judges checked against people: each judge and the panel vs the human mean.

Over the captures that are both labelled and scored in this run, per criterion and for overall:
Krippendorff's interval alpha and (on a discrete scale) quadratic-weighted kappa of the judge
against the mean of the raters (the same functions as judge-vs-judge agreement),
the bias (mean judge minus human) with a Student t interval, the mean absolute error and
Spearman's rho (scipy). With two or more raters, the raters' own alpha is the ceiling a judge
can be expected to reach. A human's overall is the rubric's formula over the raters' mean scores,
exactly as the panel's overall is the formula over the judges' mean scores.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import krippendorff
import numpy as np
import numpy.typing as npt
from scipy import stats

from ..method.scoring import combine
from .agreement import agreement
from .arrays import RunArrays, Scale
from .intervals import BATCH, CONFIDENCE, RESAMPLES, generator

__all__ = ["GATE_MINIMUM", "METHOD", "PANEL", "SMALL_N", "HumanArrays", "calibration", "human_arrays"]

PANEL = "panel"
"""The row of the panel mean (the scores and overall the ledger reports)."""
SMALL_N = 30
"""Below this many labelled captures every figure is marked unstable: an alpha over a dozen captures
moves a lot with one label."""
GATE_MINIMUM = 10
"""--ora-fail-calibration fails with fewer labelled captures than this, whatever the alpha."""
METHOD = (
    "each judge's score (and the panel mean) against the mean of the human raters, over captures both labelled "
    "and scored: Krippendorff's alpha, interval level (krippendorff.alpha); quadratic-weighted Cohen's kappa "
    "(statsmodels cohens_kappa) where the values lie on a discrete scale; bias = mean(judge - human) with a "
    "Student t interval (scipy.stats.ttest_1samp); mean absolute error; Spearman's rho (scipy.stats.spearmanr). "
    "A human overall is the rubric's formula over the raters' mean scores. alpha_interval: percentile bootstrap "
    "resampling labelled captures (scipy.stats.bootstrap, paired; alpha in closed form per resample). "
    "Human-vs-human alpha over every rater's labels (captures with two or more raters) is the ceiling."
)

FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class HumanArrays:
    """The human labels as arrays: labelled captures x raters x criteria, NaN where a rater gave no label."""

    source: str
    capture_ids: tuple[str, ...]
    raters: tuple[str, ...]
    scores: FloatArray
    rater_overall: FloatArray
    """labelled captures x raters: each rater's own overall."""
    mean_scores: FloatArray
    """labelled captures x criteria: the raters' mean."""
    mean_overall: FloatArray
    """labelled captures: the rubric's formula over the raters' mean scores."""
    counts: npt.NDArray[np.intp]
    """labelled captures: how many raters labelled each."""
    labels: int


def human_arrays(labels: Any, rubric: Any) -> HumanArrays:
    """A checked LabelSet (bundle.labels) as arrays, captures in the file's first-seen order."""
    grouped = labels.by_capture()
    raters = labels.raters
    names = tuple(rubric.names)
    scores = np.full((len(grouped), len(raters), len(names)), np.nan)
    own = np.full((len(grouped), len(raters)), np.nan)
    means = np.empty((len(grouped), len(names)))
    overall = np.empty(len(grouped))
    position = {rater: j for j, rater in enumerate(raters)}  # tuple.index per label was quadratic in the raters
    for i, given in enumerate(grouped.values()):
        maps = [label.score_map() for label in given]
        for label, values in zip(given, maps):
            j = position[label.rater]
            scores[i, j] = [float(values[name]) for name in names]
            own[i, j] = float(combine([values], rubric).overall)
        combined = combine(maps, rubric)
        means[i] = [float(sum(float(m[name]) for m in maps) / len(maps)) for name in names]
        overall[i] = float(combined.overall)
    return HumanArrays(
        source=labels.source,
        capture_ids=tuple(grouped),
        raters=raters,
        scores=scores,
        rater_overall=own,
        mean_scores=means,
        mean_overall=overall,
        counts=np.array([len(g) for g in grouped.values()], dtype=np.intp),
        labels=len(labels.labels),
    )


def _finite(value: float) -> float | None:
    return float(value) if math.isfinite(value) else None


def _pair_alpha(judge: FloatArray, human: FloatArray, axis: int = -1) -> FloatArray:
    """Interval alpha of two raters over the last axis, in closed form (as agreement.interval_alpha), vectorized
    over resamples: 1 - (2n - 1) * sum (j - h)^2 / sum over all ordered pairs of values of their squared difference."""
    both = np.concatenate([judge, human], axis=axis)
    total = both.shape[axis]
    within = 2 * ((judge - human) ** 2).sum(axis=axis)
    between = 2 * (total * (both**2).sum(axis=axis) - both.sum(axis=axis) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(1 - (total - 1) * within / between, dtype=np.float64)


def alpha_interval(
    judge: FloatArray, human: FloatArray, rng: np.random.Generator, resamples: int
) -> list[float] | None:
    """Percentile bootstrap interval of the judge-vs-human alpha, resampling captures; None when undefined."""
    if judge.size < 3 or np.ptp(np.concatenate([judge, human])) == 0:
        return None
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        result = stats.bootstrap(
            (judge, human),
            _pair_alpha,
            paired=True,
            vectorized=True,
            n_resamples=resamples,
            batch=BATCH,
            confidence_level=CONFIDENCE,
            method="percentile",
            rng=rng,
        )
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    return [low, high] if math.isfinite(low) and math.isfinite(high) else None


def versus(
    judge: FloatArray,
    human: FloatArray,
    scale: Scale,
    rng: np.random.Generator | None = None,
    resamples: int = RESAMPLES,
) -> dict[str, Any]:
    """One judge's (or the panel's) values against the human means on the same captures."""
    keep = ~(np.isnan(judge) | np.isnan(human))
    judge, human = judge[keep], human[keep]
    n = int(judge.size)
    row: dict[str, Any] = {
        "n": n,
        "krippendorff_alpha": None,
        "alpha_interval": None,
        "quadratic_kappa": None,
        "bias": None,
        "bias_interval": None,
        "mae": None,
        "spearman_rho": None,
        "small_n": n < SMALL_N,
    }
    notes = []
    if n:
        difference = judge - human
        row["bias"] = float(difference.mean())
        row["mae"] = float(np.abs(difference).mean())
        found = agreement(np.column_stack([judge, human]), scale)
        row["krippendorff_alpha"], row["quadratic_kappa"] = found.krippendorff_alpha, found.quadratic_kappa
        if found.krippendorff_alpha is not None and rng is not None:
            row["alpha_interval"] = alpha_interval(judge, human, rng, resamples)
        if found.note:
            notes.append(found.note)
    if n >= 2 and np.ptp(judge - human) > 0:
        result = stats.ttest_1samp(judge - human, 0.0)
        interval = result.confidence_interval(CONFIDENCE)
        row["bias_interval"] = [float(interval.low), float(interval.high)]
    elif n >= 2:
        notes.append("no bias interval: every difference is the same")
    if n >= 3 and np.ptp(judge) > 0 and np.ptp(human) > 0:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            row["spearman_rho"] = _finite(float(stats.spearmanr(judge, human).statistic))
    elif n:
        notes.append("no rho: fewer than three captures or no variation")
    if row["small_n"]:
        notes.insert(0, f"only {n} labelled captures (fewer than {SMALL_N}): unstable, label more before relying on it")
    row["note"] = "; ".join(notes) or None
    return row


def _ceiling(ratings: FloatArray) -> dict[str, Any]:
    """Human-vs-human interval alpha over raters x captures (missing labels allowed)."""
    pairable = int((np.sum(~np.isnan(ratings), axis=1) >= 2).sum())
    alpha = None
    if pairable >= 2:
        try:
            with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
                warnings.simplefilter("ignore", RuntimeWarning)
                alpha = _finite(float(krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval")))
        except ValueError:  # one value in the whole domain: undefined, not perfect
            alpha = None
    return {"n": pairable, "krippendorff_alpha": alpha, "small_n": pairable < SMALL_N}


def calibration(data: RunArrays, human: HumanArrays, seed: int = 0, resamples: int = RESAMPLES) -> dict[str, Any]:
    """stats.json's `calibration`: every judge and the panel vs people, and the people's own agreement."""
    position = {capture: i for i, capture in enumerate(data.capture_ids)}
    shared = [(position[c], h) for h, c in enumerate(human.capture_ids) if c in position]
    run_index = np.array([i for i, _ in shared], dtype=np.intp)
    human_index = np.array([h for _, h in shared], dtype=np.intp)
    judges: list[dict[str, Any]] = []
    columns: list[tuple[str, FloatArray, FloatArray]] = []
    for j, label in enumerate(data.judges):
        columns.append((label, data.scores[run_index, j, :], data.judge_overall[run_index, j]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a capture no judge scored on a criterion stays NaN
        panel_scores = (
            np.nanmean(data.scores[run_index], axis=1) if run_index.size else np.empty((0, len(data.criteria)))
        )
    columns.append((PANEL, panel_scores, data.overall[run_index]))
    for label, scores, overall in columns:
        judges.append(
            {
                "judge": label,
                "criteria": [
                    {
                        "criterion": name,
                        **versus(
                            scores[:, k],
                            human.mean_scores[human_index, k],
                            data.scale,
                            generator(seed, f"calibration:{label}:{name}"),
                            resamples,
                        ),
                    }
                    for k, name in enumerate(data.criteria)
                ],
                "overall": {
                    "criterion": "overall",
                    **versus(
                        overall,
                        human.mean_overall[human_index],
                        data.scale,
                        generator(seed, f"calibration:{label}:overall"),
                        resamples,
                    ),
                },
            }
        )
    ceiling = None
    if len(human.raters) >= 2:
        ceiling = {
            "raters": len(human.raters),
            "criteria": [
                {"criterion": name, **_ceiling(human.scores[human_index, :, k])} for k, name in enumerate(data.criteria)
            ],
            "overall": {"criterion": "overall", **_ceiling(human.rater_overall[human_index])},
        }
    points = [
        {
            "capture_id": data.capture_ids[i],
            "raters": int(human.counts[h]),
            "human": [*map(float, human.mean_scores[h]), float(human.mean_overall[h])],
            "judges": {
                label: [*(None if math.isnan(v) else float(v) for v in scores[k]), float(overall[k])]
                for label, scores, overall in columns
            },
        }
        for k, (i, h) in enumerate(shared)
    ]
    return {
        "source": human.source,
        "labels": human.labels,
        "raters": list(human.raters),
        "captures_labelled": len(human.capture_ids),
        "captures": len(shared),
        "not_scored": len(human.capture_ids) - len(shared),
        "small_n_below": SMALL_N,
        "gate_minimum": GATE_MINIMUM,
        "method": METHOD,
        "criteria": list(data.criteria),
        "judges": judges,
        "humans": ceiling,
        "points": points,
    }


def panel_alpha(calibration_data: dict[str, Any]) -> float | None:
    """The gate's figure: the panel's alpha vs people on overall."""
    for row in calibration_data["judges"]:
        if row["judge"] == PANEL:
            value = row["overall"]["krippendorff_alpha"]
            return None if value is None else float(value)
    return None


def judge_labels(calibration_data: dict[str, Any]) -> Sequence[str]:
    return [row["judge"] for row in calibration_data["judges"]]
