"""Judges examined as judges: each judge's view of each configuration, and self-preference.

A judge whose model is also a model of a configuration (its `model_snapshot`) may favour its own
answers. `self_preference` is that judge's mean overall on the configuration minus the other
judges' mean on the same captures, with a t interval over the units (cluster-robust with
clusters); it is flagged when the interval excludes 0. Intervals here are Student t: sixty
configurations x judges of bootstraps would cost seconds and add nothing at these sizes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .arrays import RunArrays
from .clusters import Estimate, mean_estimate

__all__ = ["judges_section"]

Groups = Callable[[Sequence[str]], "npt.NDArray[np.intp] | None"]


def _interval(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else [value[0], value[1]]


def _row(estimate: Estimate) -> dict[str, Any]:
    return {
        "n": estimate.n,
        "units": estimate.units,
        "mean": estimate.mean,
        "t_interval": _interval(estimate.t_interval),
    }


def judges_section(
    data: RunArrays,
    configurations: Sequence[str],
    pairs: Sequence[tuple[str, str]],
    snapshots: Mapping[str, Sequence[str]],
    groups: Groups,
    level: float,
) -> list[dict[str, Any]]:
    """One entry per judge: mean overall per configuration, paired differences per compared pair, self-preference."""
    section = []
    for j, label in enumerate(data.judges):
        model = data.judge_models[j] if j < len(data.judge_models) else None
        by_entry: dict[str, dict[str, float]] = {}
        for i, (entry, configuration) in enumerate(zip(data.entry_keys, data.configurations)):
            value = data.judge_overall[i, j]
            if not np.isnan(value):
                by_entry.setdefault(configuration, {})[entry] = float(value)
        rows = []
        for name in configurations:
            values = by_entry.get(name, {})
            estimate = mean_estimate(np.array(list(values.values()), dtype=np.float64), groups(list(values)), level)
            rows.append({"configuration": name, **_row(estimate)})
        compared = []
        for first, second in pairs:
            left, right = by_entry.get(first, {}), by_entry.get(second, {})
            shared = [key for key in left if key in right]
            difference = np.array([left[k] - right[k] for k in shared], dtype=np.float64)
            estimate = mean_estimate(difference, groups(shared), level)
            compared.append({"first": first, "second": second, **_row(estimate)})
        section.append(
            {
                "judge": label,
                "model": model,
                "configurations": rows,
                "comparisons": compared,
                "self_preference": _self_preference(data, j, model, configurations, snapshots, groups, level),
            }
        )
    return section


def _self_preference(
    data: RunArrays,
    j: int,
    model: str | None,
    configurations: Sequence[str],
    snapshots: Mapping[str, Sequence[str]],
    groups: Groups,
    level: float,
) -> list[dict[str, Any]]:
    """The judge's lean on each configuration that runs its own model (empty when none does, or it judges alone)."""
    if model is None or data.judge_overall.shape[1] < 2:
        return []
    others = np.array([k for k in range(data.judge_overall.shape[1]) if k != j], dtype=np.intp)
    rows = []
    for name in configurations:
        if model not in snapshots.get(name, ()):
            continue
        index = data.of(name)
        own = data.judge_overall[index, j]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a capture no other judge scored: NaN, left out below
            rest = np.nanmean(data.judge_overall[np.ix_(index, others)], axis=1) if index.size else np.empty(0)
        keep = ~np.isnan(own) & ~np.isnan(rest)
        entries = [data.entry_keys[i] for i, kept in zip(index, keep) if kept]
        estimate = mean_estimate(own[keep] - rest[keep], groups(entries), level)
        interval = estimate.t_interval
        rows.append(
            {
                "configuration": name,
                "difference": estimate.mean,
                "n": estimate.n,
                "units": estimate.units,
                "t_interval": _interval(interval),
                "flagged": interval is not None and (interval[0] > 0 or interval[1] < 0),
            }
        )
    return rows
