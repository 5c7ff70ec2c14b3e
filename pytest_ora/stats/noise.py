"""Judge noise: the variance of the scores split into between-capture, between-judge and within-judge parts.

Each criterion (and overall) is a balanced crossed design: every judge scores every capture, K
times with judge samples. Over the captures complete in that sense, the two-way random-effects
ANOVA with replication gives the mean squares of captures, judges, their interaction and the
samples within a cell (MS_C, MS_J, MS_CJ, MS_E), and the expected-mean-squares estimates of the
variance components (negative estimates set to 0):

    within judge (sample to sample)  s2_e  = MS_E
    judge x capture                  s2_cj = (MS_CJ - MS_E) / K
    judge (leniency)                 s2_j  = (MS_J - MS_CJ) / (C K)
    capture                          s2_c  = (MS_C - MS_CJ) / (J K)

Between-judge is s2_j + s2_cj (judges differ on the whole and about a capture). With one sample
(K = 1) s2_e and s2_cj are not separable: the residual MS_CJ is both, reported as between-judge,
and within-judge is null. The sums of squares are those statsmodels' anova_lm computes for the
same data (two-way with interaction) and the components those of statsmodels' MixedLM (REML) on
balanced data; both are held equal in tests/unit/stats/test_noise.py. They are computed here in closed form
because a regression on one dummy per capture (thousands) is too large to fit for every criterion.

Per configuration: a capture's overall averages J judges, so judge noise adds
(s2_cj + s2_e / K) / J to its variance (the judges' overall leniency s2_j moves every capture
alike and does not widen an interval over captures). Against the configuration's own variance of
overall, that gives the share of its interval's width judge noise accounts for, and the width K'
samples per judge would give, if the judges' noise is as measured (projections assume the mean).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .arrays import RunArrays

__all__ = ["PROJECTED", "Components", "components", "noise_section"]

FloatArray = npt.NDArray[np.float64]
PROJECTED = (1, 3, 5, 10)
"""Samples per judge whose interval width each configuration reports."""


@dataclass(frozen=True)
class Components:
    """Variance components of one criterion over the complete captures."""

    captures: int
    judges: int
    samples: int
    mean_squares: dict[str, float | None]
    capture: float
    judge: float | None
    """Judges' overall leniency (main effect); None with one judge."""
    judge_by_capture: float | None
    """Judges disagreeing about a capture (interaction); with K = 1 it holds the within-judge noise too."""
    within_judge: float | None
    """Sample to sample, one judge, one capture; None with one sample (not separable)."""

    @property
    def between_judge(self) -> float | None:
        if self.judge is None or self.judge_by_capture is None:
            return None
        return self.judge + self.judge_by_capture

    @property
    def noise(self) -> float | None:
        """What judges add to one judge's score of a capture, leniency aside: s2_cj + s2_e."""
        if self.judge_by_capture is None:
            return self.within_judge
        return self.judge_by_capture + (self.within_judge or 0.0)


def _complete(values: FloatArray) -> FloatArray:
    """captures x judges x K without the captures missing any judge's or sample's value."""
    keep = ~np.isnan(values).any(axis=(1, 2))
    return values[keep]


def components(values: FloatArray) -> Components | None:
    """The variance components of captures x judges x K scores (NaN: missing); None with fewer than 2 complete captures."""
    data = _complete(values)
    c, j, k = data.shape
    if c < 2 or (j < 2 and k < 2):
        return None
    grand = float(data.mean())
    capture_means = data.mean(axis=(1, 2))
    judge_means = data.mean(axis=(0, 2))
    cells = data.mean(axis=2)
    ss_c = j * k * float(np.sum((capture_means - grand) ** 2))
    ms_c = ss_c / (c - 1)
    ms_j = ms_cj = ms_e = None
    if j >= 2:
        ms_j = c * k * float(np.sum((judge_means - grand) ** 2)) / (j - 1)
        interaction = cells - capture_means[:, None] - judge_means[None, :] + grand
        ms_cj = k * float(np.sum(interaction**2)) / ((c - 1) * (j - 1))
    if k >= 2:
        ms_e = float(np.sum((data - cells[:, :, None]) ** 2)) / (c * j * (k - 1))
    within = ms_e
    if ms_cj is not None:
        residual = ms_cj  # E[MS_C] - E[MS_CJ] = J K s2_c
        by_capture = max(0.0, (ms_cj - ms_e) / k) if ms_e is not None else ms_cj
        assert ms_j is not None
        judge: float | None = max(0.0, (ms_j - ms_cj) / (c * k))
    else:
        assert ms_e is not None
        residual, by_capture, judge = ms_e, None, None
    capture = max(0.0, (ms_c - residual) / (j * k))
    squares = {"capture": ms_c, "judge": ms_j, "judge_by_capture": ms_cj, "within_judge": ms_e}
    return Components(c, j, k, squares, capture, judge, by_capture, within)


def _share(part: float | None, total: float) -> float | None:
    return None if part is None or total <= 0 else part / total


def _criterion_row(name: str, found: Components | None) -> dict[str, Any]:
    if found is None:
        return {"criterion": name, "captures": 0, "note": "fewer than two captures scored by every judge (and sample)"}
    parts = {"between_capture": found.capture, "between_judge": found.between_judge, "within_judge": found.within_judge}
    total = sum(value for value in parts.values() if value is not None)
    note = None
    if found.within_judge is None:
        note = (
            "one judgment per judge and capture: the within-judge (sample-to-sample) component cannot be "
            "separated from the judges' disagreement, which holds it; judge with --ora-judge-samples 2 or more"
        )
    elif found.between_judge is None:
        note = "one judge: the between-judge component needs two or more"
    return {
        "criterion": name,
        "captures": found.captures,
        "judges": found.judges,
        "samples": found.samples,
        **parts,
        "shares": {key: _share(value, total) for key, value in parts.items()},
        "judge_leniency": found.judge,
        "judge_by_capture": found.judge_by_capture,
        "mean_squares": found.mean_squares,
        "note": note,
    }


def _widths(found: Components | None, values: FloatArray, width: float | None) -> dict[str, Any]:
    """How much of an interval's width judge noise accounts for, and the width K' samples would give."""
    empty: dict[str, Any] = {
        "judge_noise_width": None,
        "judge_noise_share": None,
        "width_with_samples": None,
        "note": None,
    }
    if found is None or width is None or values.size < 2 or found.noise is None:
        return empty
    variance = float(np.var(values, ddof=1))
    if variance <= 0:
        return empty
    judges, samples = found.judges, found.samples
    added = (
        found.noise if found.within_judge is None else (found.judge_by_capture or 0.0) + found.within_judge / samples
    )
    added /= judges
    if added >= variance:
        # The run's judge noise is at least this configuration's whole spread of overall: its few captures
        # cannot say how much of the width is the judges' (a share of 100% would be a guess, not a figure).
        return {
            **empty,
            "note": "the judges' noise, as measured over the run, is at least this configuration's "
            "variance of overall: too few captures to split its interval's width",
        }
    noise = added
    rest = variance - noise
    out: dict[str, Any] = {
        "judge_noise_share": noise / variance,
        "judge_noise_width": width * (1 - math.sqrt(rest / variance)),
        "width_with_samples": None,
        "note": None,
    }
    if found.within_judge is not None:
        out["width_with_samples"] = {
            str(k): width
            * math.sqrt((rest + ((found.judge_by_capture or 0.0) + found.within_judge / k) / judges) / variance)
            for k in PROJECTED
        }
    return out


def noise_section(data: RunArrays, configurations: Sequence[dict[str, Any]], reducer: str) -> dict[str, Any]:
    """stats.json's `noise`: per criterion and overall the variance components; per configuration the widths."""
    if data.samples is not None:
        per_criterion = [data.samples[:, :, :, i] for i in range(len(data.criteria))]
        overall = data.samples[:, :, :, -1]
    else:
        per_criterion = [data.scores[:, :, i, None] for i in range(len(data.criteria))]
        overall = data.judge_overall[:, :, None]
    found = components(overall)
    rows = []
    for row in configurations:
        index = data.of(row["configuration"])
        interval = row.get("t_interval")
        width = None if interval is None else float(interval[1] - interval[0])
        rows.append(
            {
                "configuration": row["configuration"],
                "interval_width": width,
                **_widths(found, data.overall[index], width),
            }
        )
    return {
        "samples": 1 if data.samples is None else int(data.samples.shape[2]),
        "reducer": reducer,
        "criteria": [_criterion_row(name, components(values)) for name, values in zip(data.criteria, per_criterion)],
        "overall": _criterion_row("overall", found),
        "configurations": rows,
        "projected_samples": list(PROJECTED),
    }
