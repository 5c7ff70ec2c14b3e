"""One run's statistics (SPEC section 10), as plain data: what stats.json and hypotheses.json hold.

Every resampling computation draws from its own Generator, seeded by --ora-seed and the
computation's name, so a figure depends only on its own data and the seed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import version
from typing import Any

import numpy as np

from .agreement import agreement
from .arrays import RunArrays
from .disagreements import Disagreement, disagreements, threshold
from .hypotheses import evaluate
from .intervals import CONFIDENCE, RESAMPLES, generator, mean_interval, wilson_interval
from .paired import holm, paired

__all__ = ["LIBRARIES", "METHOD", "RunStatistics", "hypotheses_data", "run_statistics"]

LIBRARIES = ("numpy", "scipy", "krippendorff", "statsmodels")
METHOD = {
    "agreement": "Krippendorff's alpha, interval level (krippendorff.alpha) over each judge's score per capture; "
    "exact and within-one-step agreement as shares of captures; quadratic-weighted Cohen's kappa "
    "(statsmodels cohens_kappa, weights on the scale's values) with two judges on a discrete scale",
    "mean_interval": "BCa bootstrap of the mean overall, resampling captures (scipy.stats.bootstrap)",
    "failure_interval": "Wilson score interval of the failure rate (scipy.stats.binomtest proportion_ci)",
    "paired": "configurations compared over entries both scored: mean difference of overall, BCa bootstrap "
    "resampling entries, two-sided sign-flip permutation p-value (exact by scipy.stats.permutation_test, "
    "permutation_type='samples', when 2^n <= resamples; else random sign flips by scipy.stats.monte_carlo_test), Holm adjustment across the pairs "
    "(statsmodels multipletests)",
}


@dataclass(frozen=True)
class RunStatistics:
    """The statistics of one run: stats.json's data, the disagreements, the hypotheses."""

    data: dict[str, Any]
    disagreements: list[Disagreement]
    hypotheses: dict[str, Any] | None


def _interval(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else [value[0], value[1]]


def _agreement_rows(data: RunArrays) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    rows = [{"criterion": name, **asdict(agreement(data.scores[:, :, k], data.scale))} for k, name in enumerate(data.criteria)]
    return rows, {"criterion": "overall", **asdict(agreement(data.judge_overall, data.scale))}


def _configurations(data: RunArrays, names: Sequence[str], seed: int, resamples: int) -> list[dict[str, Any]]:
    rows = []
    for name in names:
        index = data.of(name)
        values = data.overall[index]
        failures = int(data.failure[index].sum())
        rows.append({
            "configuration": name,
            "n": int(index.size),
            "mean_overall": float(values.mean()) if index.size else None,
            "mean_overall_interval": _interval(mean_interval(values, generator(seed, f"mean:{name}"), resamples)),
            "failures": failures,
            "failure_rate": failures / index.size if index.size else None,
            "failure_rate_interval": _interval(wilson_interval(failures, int(index.size))),
        })
    return rows


def _shared(data: RunArrays, first: str, second: str) -> tuple[np.ndarray, np.ndarray]:
    left = {data.entry_keys[i]: data.overall[i] for i in data.of(first)}
    right = {data.entry_keys[i]: data.overall[i] for i in data.of(second)}
    shared = [key for key in left if key in right]  # bundle order
    return np.array([left[k] for k in shared], dtype=np.float64), np.array([right[k] for k in shared], dtype=np.float64)


def _comparisons(data: RunArrays, names: Sequence[str], seed: int, resamples: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for first, second in itertools.combinations(names, 2):
        x, y = _shared(data, first, second)
        result = paired(x, y, generator(seed, f"paired:{first}:{second}"), resamples)
        rows.append({
            "first": first, "second": second, "n": result.n, "mean_difference": result.mean_difference,
            "interval": _interval(result.interval), "p_value": result.p_value,
        })
    p_values: list[float | None] = [row["p_value"] for row in rows]
    for row, adjusted in zip(rows, holm(p_values)):
        row["p_holm"] = adjusted
    return rows


def hypotheses_data(data: RunArrays, manifest: Any, seed: int, resamples: int) -> dict[str, Any] | None:
    """hypotheses.json's data, or None when the bundle names no hypotheses."""
    if not manifest.hypotheses:
        return None
    results, outcome = evaluate(data, manifest.hypotheses, manifest.verdict, seed, resamples)
    rows = []
    for result in results:
        rows.append({
            "id": result.id, "better": result.better, "worse": result.worse, "margin": float(result.margin),
            "n": len(result.entries), "directional": result.directional, "meets_margin": result.meets_margin,
            "mean_delta": result.mean_delta, "interval": _interval(result.interval),
            "entries": [
                {"entry_key": e.entry_key, "better": e.better, "worse": e.worse, "delta": float(e.delta),
                 "directional": e.directional, "meets_margin": e.meets_margin}
                for e in result.entries
            ],
            "unpaired_entries": list(result.unpaired),
        })
    verdict = None
    if outcome is not None:
        rule = manifest.verdict
        verdict = {
            "rule": {"directional_at_least": rule.directional_at_least, "no_critical": rule.no_critical},
            "result": outcome.result, "directional": outcome.directional, "required": outcome.required,
            "critical_captures": None if outcome.critical is None else list(outcome.critical),
            "reasons": list(outcome.reasons),
        }
    return {
        "directional": sum(r.directional for r in results),
        "meets_margin": sum(r.meets_margin for r in results),
        "deltas": sum(len(r.entries) for r in results),
        "hypotheses": rows,
        "verdict": verdict,
    }


def run_statistics(
    data: RunArrays, configurations: Sequence[str], manifest: Any, *, seed: int, disagreement: str,
    resamples: int = RESAMPLES, labels: Any = None,
) -> RunStatistics:
    """Agreement, per-configuration intervals, paired comparisons, disagreements and hypotheses of one run."""
    at_least = threshold(disagreement, data.scale)
    listed = disagreements(data, at_least)
    criteria, overall = _agreement_rows(data)
    scale = data.scale
    stats = {
        "method": {
            "seed": seed, "resamples": resamples, "confidence_level": CONFIDENCE, **METHOD,
            "libraries": {name: version(name) for name in LIBRARIES},
        },
        "scale": {"min": float(scale.minimum), "max": float(scale.maximum), "step": float(scale.unit),
                  "step_declared": scale.step is not None},
        "agreement": {"judges": list(data.judges), "captures": len(data.capture_ids), "criteria": criteria, "overall": overall},
        "configurations": _configurations(data, configurations, seed, resamples),
        "comparisons": _comparisons(data, configurations, seed, resamples),
        "disagreements": {"threshold": float(at_least), "given_as": disagreement, "count": len(listed)},
    }
    if labels is not None:  # human labels (SPEC 16): stats/calibration.py, a stats.calibration.HumanArrays
        from .calibration import calibration

        stats["calibration"] = calibration(data, labels, seed, resamples)
    hypotheses = hypotheses_data(data, manifest, seed, resamples)
    if hypotheses is not None:
        hypotheses["method"] = {"seed": seed, "resamples": resamples, "confidence_level": CONFIDENCE,
                                "interval": "BCa bootstrap of the mean delta, resampling entries"}
    return RunStatistics(stats, listed, hypotheses)
