"""One run's statistics, as plain data: what stats.json and hypotheses.json hold.

Every resampling computation draws from its own Generator, seeded by --ora-seed and the
computation's name, so a figure depends only on its own data and the seed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from typing import Any

import numpy as np
import numpy.typing as npt

from ..core.rubric import RecordedCalibration
from .agreement import agreement
from .arrays import RunArrays
from .clusters import cluster_codes, mean_estimate
from .coverage import SKEWED_COVERAGE, TRIALS
from .disagreements import Disagreement, disagreements, threshold
from .hypotheses import evaluate, null_pass_probability
from .intervals import CONFIDENCE, RESAMPLES, generator, wilson_interval
from .judges import judges_section
from .noise import noise_section
from .paired import SMALL_UNITS, Pair, compare_many, holm, interval_method
from .pairs import choose_pairs
from .power import POWER, minimum_detectable
from .proportions import clustered_wilson_interval
from .reliability import ALPHA_RESAMPLES, alpha_intervals
from .resampling import Resampler

__all__ = ["LIBRARIES", "METHOD", "Design", "RunStatistics", "hypotheses_data", "run_statistics"]

ALPHA = 0.05
"""Two-sided level of the power figures (mde_80) and of the words "significant" in the tables."""

LIBRARIES = ("numpy", "scipy", "krippendorff", "statsmodels")
METHOD = {
    "agreement": "Krippendorff's alpha, interval level (krippendorff.alpha) over each judge's score per capture; "
    "exact and within-one-step agreement as shares of captures; quadratic-weighted Cohen's kappa "
    "(statsmodels cohens_kappa, weights on the scale's values) with two judges on a discrete scale",
    "mean_interval": "the Student t interval of the mean overall is the one shown (t_interval); beside it "
    "bootstrap_interval: BCa bootstrap of the mean overall, resampling the units (entries, or whole clusters); one "
    "seeded set of resamples per unit count shared by every configuration and pair, the BCa bounds by "
    "scipy.stats.bootstrap from that distribution",
    "t_interval": "Student t interval of the mean (scipy.stats.ttest_1samp), or with clusters the cluster-robust "
    "t interval of a regression on a constant (statsmodels OLS, cov_type='cluster', t on clusters - 1 df)",
    "small_n": f"a mean or a mean paired difference is shown with its t interval at every number of units "
    f"(interval_method: t; BCa runs narrow, about 92% at 20 units on normal data); a row with fewer than {SMALL_UNITS} "
    "units (entries, or clusters) is marked small n; a figure with no closed-form standard error (alpha, "
    f"kappa, ICC) shows its bootstrap interval only from {SMALL_UNITS} units",
    "power": f"mde_80: the smallest true mean difference a two-sided paired t-test detects with {POWER:.0%} power at "
    f"alpha {ALPHA} (statsmodels TTestPower, effect size times the difference's spread); mde_80_adjusted at alpha "
    "divided by the pairs compared (Holm's first step)",
    "mcnemar": "McNemar's exact test of the failure flags over shared entries (statsmodels mcnemar, exact=True)",
    "judges": "each judge's own overall: mean per configuration and paired difference per compared pair, Student "
    "t intervals (cluster-robust with clusters); self_preference: a judge's overall on a configuration running its "
    "model minus the other judges' mean on the same captures, flagged when its t interval excludes 0",
    "agreement_extras": f"alpha_interval: percentile bootstrap of interval alpha resampling captures ({ALPHA_RESAMPLES:,} "
    "resamples); alpha_ordinal: krippendorff.alpha ordinal on integer scales of at most 11 points; fleiss_kappa: "
    "statsmodels fleiss_kappa with three or more judges on a discrete scale; icc_2k: ICC(2,k), two-way random, "
    "absolute agreement, average of k judges (ANOVA mean squares, held to pingouin in a test)",
    "noise": "variance of each judge's scores (each sample's, with judge samples) split by the two-way random-effects "
    "ANOVA with replication over the captures every judge (and sample) scored: between-capture, between-judge "
    "(leniency plus judge-by-capture disagreement) and within-judge (sample to sample; not separable with one "
    "sample), expected-mean-squares estimates, negatives set to 0 (sums of squares held to statsmodels anova_lm "
    "and components to statsmodels MixedLM REML in a test); per configuration the part of its t interval's width "
    "judge noise accounts for, (judge-by-capture + within-judge / K) / judges against the variance of its overall, "
    "and the width 1, 3, 5 or 10 samples per judge would give",
    "failure_interval": "Wilson score interval of the failure rate (scipy.stats.binomtest proportion_ci); with "
    "clusters, Wilson at the effective sample size n / design effect (statsmodels proportion_confint)",
    "paired": "configurations compared over entries both scored: mean difference of overall with its t interval "
    "(shown) and a BCa bootstrap interval resampling units (bootstrap_interval), two-sided sign-flip permutation "
    "p-value (exact by scipy.stats.permutation_test, "
    "permutation_type='samples', when 2^units <= resamples, with p_min the smallest p it can give; else random sign "
    "flips, one seeded set shared by every pair of the same unit count, by scipy.stats.monte_carlo_test, where a p on "
    "the floor 2/(R+1) is a bound, p_floor), paired t-test p_t (cluster-robust with clusters), Holm adjustment "
    "across the pairs compared (statsmodels multipletests)",
}


@dataclass(frozen=True)
class Design:
    """How the run's units relate and what to compare: from bundle.yaml, the options and the captures."""

    cluster: str | None = None
    """The capture field (or metadata.<key>) naming each entry's cluster; None: the unit is the entry."""
    clusters: Mapping[str, str] = field(default_factory=dict)
    """Entry key -> cluster label (an entry without a value is its own cluster)."""
    snapshots: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Configuration -> the models of its model_snapshot."""
    pairs: Sequence[tuple[str, str]] = ()
    """--ora-pairs."""
    reference: str | None = None
    """--ora-reference."""

    def groups(self, entries: Sequence[str]) -> npt.NDArray[np.intp] | None:
        """Cluster codes of these entries, or None when the unit is the entry."""
        if self.cluster is None:
            return None
        # A repeated answer's unit (entry#k) is in its entry's cluster: the entry is the statistical unit.
        bases = [entry.partition("#")[0] for entry in entries]
        return cluster_codes([self.clusters.get(base, f"\0{base}") for base in bases])


@dataclass(frozen=True)
class RunStatistics:
    """The statistics of one run: stats.json's data, the disagreements, the hypotheses."""

    data: dict[str, Any]
    disagreements: list[Disagreement]
    hypotheses: dict[str, Any] | None


def _cluster_count(design: Design, entries: Sequence[str]) -> int | None:
    groups = design.groups(entries)
    return None if groups is None else int(np.unique(groups).size)


def _interval(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else [value[0], value[1]]


def _agreement_rows(data: RunArrays, seed: int) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    ratings = [data.scores[:, :, k] for k in range(len(data.criteria))] + [data.judge_overall]
    intervals = alpha_intervals(ratings, seed) if len(data.judges) >= 2 else [None] * len(ratings)
    rows = [
        {"criterion": name, **asdict(agreement(values, data.scale)), "alpha_interval": _interval(interval)}
        for name, values, interval in zip([*data.criteria, "overall"], ratings, intervals)
    ]
    return rows[:-1], rows[-1]


def _configurations(
    data: RunArrays, names: Sequence[str], resampler: Resampler, design: Design
) -> list[dict[str, Any]]:
    rows = []
    indices = [data.of(name) for name in names]
    grouped = [(data.overall[index], design.groups([data.entry_keys[i] for i in index])) for index in indices]
    intervals = resampler.mean_intervals(grouped)
    for name, index, (values, groups), interval in zip(names, indices, grouped, intervals):
        failures = int(data.failure[index].sum())
        estimate = mean_estimate(values, groups, resampler.level)
        bootstrap = _interval(interval)
        method = interval_method(estimate.units)
        rows.append(
            {
                "configuration": name,
                "n": int(index.size),
                "mean_overall": float(values.mean()) if index.size else None,
                "mean_overall_interval": bootstrap,
                "failures": failures,
                "failure_rate": failures / index.size if index.size else None,
                "failure_rate_interval": _interval(
                    wilson_interval(failures, int(index.size))
                    if groups is None
                    else clustered_wilson_interval(data.failure[index].astype(bool), groups)
                ),
                "units": estimate.units,
                "clusters": estimate.clusters,
                "design_effect": estimate.design_effect,
                "standard_error": estimate.standard_error,
                "bootstrap_interval": bootstrap,
                "t_interval": _interval(estimate.t_interval),
                "interval_method": method,
                "small_n": estimate.units < SMALL_UNITS,
            }
        )
    return rows


def _shared(data: RunArrays, first: str, second: str) -> tuple[list[str], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    left = {data.entry_keys[i]: int(i) for i in data.of(first)}
    right = {data.entry_keys[i]: int(i) for i in data.of(second)}
    shared = [key for key in left if key in right]  # bundle order
    return (
        shared,
        np.array([left[k] for k in shared], dtype=np.intp),
        np.array([right[k] for k in shared], dtype=np.intp),
    )


def _comparisons(
    data: RunArrays,
    pairs: Sequence[tuple[str, str]],
    resampler: Resampler,
    design: Design,
) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    inputs: list[Pair] = []
    for first, second in pairs:
        shared, left, right = _shared(data, first, second)
        inputs.append(
            (data.overall[left], data.overall[right], design.groups(shared), (data.failure[left], data.failure[right]))
        )
    for (first, second), result in zip(pairs, compare_many(inputs, resampler)):
        bootstrap = _interval(result.bootstrap_interval)
        rows.append(
            {
                "first": first,
                "second": second,
                "n": result.n,
                "mean_difference": result.mean_difference,
                "interval": bootstrap,
                "p_value": result.test.p_value,
                "units": result.units,
                "clusters": result.clusters,
                "design_effect": result.design_effect,
                "bootstrap_interval": bootstrap,
                "t_interval": _interval(result.t_interval),
                "interval_method": result.interval_method,
                "small_n": result.units < SMALL_UNITS,
                "p_floor": result.test.p_floor,
                "p_exact": result.test.exact,
                "p_min": result.test.p_min,
                "p_t": result.p_t,
                "sd_difference": result.sd_difference,
                "correlation": result.correlation,
                "standard_error": result.standard_error,
                "mcnemar_p": result.mcnemar_p,
            }
        )
    p_values: list[float | None] = [row["p_value"] for row in rows]
    family = sum(p is not None for p in p_values)
    for row, adjusted in zip(rows, holm(p_values)):
        row["p_holm"] = adjusted
        # A Holm value computed from a floored p is an upper bound, as the floored p is.
        row["p_holm_bound"] = bool(row["p_floor"]) and adjusted is not None and adjusted < 1
        units, se = row["units"], row["standard_error"]
        row["mde_80"] = minimum_detectable(units, se, ALPHA)
        row["mde_80_adjusted"] = minimum_detectable(units, se, ALPHA / max(family, 1))
    return rows


def hypotheses_data(
    data: RunArrays,
    manifest: Any,
    seed: int,
    resamples: int,
    design: Design | None = None,
) -> dict[str, Any] | None:
    """hypotheses.json's data, or None when the bundle names no hypotheses."""
    if not manifest.hypotheses:
        return None
    design = design or Design()
    results, outcome = evaluate(data, manifest.hypotheses, manifest.verdict, seed, resamples)
    rows = []
    for result in results:
        deltas = np.array([float(e.delta) for e in result.entries], dtype=np.float64)
        estimate = mean_estimate(deltas, design.groups([e.entry_key for e in result.entries]))
        method = interval_method(estimate.units)
        rows.append(
            {
                "id": result.id,
                "better": result.better,
                "worse": result.worse,
                "margin": float(result.margin),
                "n": len(result.entries),
                "directional": result.directional,
                "meets_margin": result.meets_margin,
                "mean_delta": result.mean_delta,
                "interval": _interval(result.interval),
                "entries": [
                    {
                        "entry_key": e.entry_key,
                        "better": e.better,
                        "worse": e.worse,
                        "delta": float(e.delta),
                        "directional": e.directional,
                        "meets_margin": e.meets_margin,
                    }
                    for e in result.entries
                ],
                "unpaired_entries": list(result.unpaired),
                "units": estimate.units,
                "clusters": estimate.clusters,
                "bootstrap_interval": _interval(result.interval),
                "t_interval": _interval(estimate.t_interval),
                "interval_method": method,
                "small_n": estimate.units < SMALL_UNITS,
            }
        )
    verdict = None
    if outcome is not None:
        rule = manifest.verdict
        each = getattr(rule, "per_hypothesis_at_least", None)
        verdict = {
            "rule": (
                {"directional_at_least": rule.directional_at_least}
                if each is None
                else {"per_hypothesis_at_least": each}
            )
            | {"no_critical": rule.no_critical},
            "result": outcome.result,
            "directional": outcome.directional,
            "required": outcome.required,
            "critical_captures": None if outcome.critical is None else list(outcome.critical),
            "reasons": list(outcome.reasons),
            "null_pass_probability": null_pass_probability(
                data,
                manifest.hypotheses,
                rule,
                generator(seed, "null-verdict"),
                resamples,
            ),
        }
    return {
        "directional": sum(r.directional for r in results),
        "meets_margin": sum(r.meets_margin for r in results),
        "deltas": sum(len(r.entries) for r in results),
        "hypotheses": rows,
        "verdict": verdict,
    }


def run_statistics(
    data: RunArrays,
    configurations: Sequence[str],
    manifest: Any,
    *,
    seed: int,
    disagreement: str,
    resamples: int = RESAMPLES,
    design: Design | None = None,
    labels: Any = None,
    recorded: RecordedCalibration | None = None,
) -> RunStatistics:
    """Agreement, per-configuration intervals, paired comparisons, judges, disagreements and hypotheses of one run."""
    design = design or Design()
    at_least = threshold(disagreement, data.scale)
    listed = disagreements(data, at_least)
    criteria, overall = _agreement_rows(data, seed)
    scale = data.scale
    resampler = Resampler(seed, resamples, CONFIDENCE)
    pairs, rule = choose_pairs(
        configurations,
        pairs=design.pairs,
        reference=design.reference,
        listed=getattr(manifest, "compare_pairs", None),
    )
    comparisons = _comparisons(data, pairs, resampler, design)
    entries = list(dict.fromkeys(data.entry_keys))
    rows = _configurations(data, configurations, resampler, design)
    stats = {
        "method": {
            "seed": seed,
            "resamples": resamples,
            "confidence_level": CONFIDENCE,
            **METHOD,
            "t_coverage_skewed": {"trials": TRIALS, "cells": [asdict(cell) for cell in SKEWED_COVERAGE]},
            "libraries": {name: version(name) for name in LIBRARIES},
        },
        "scale": {
            "min": float(scale.minimum),
            "max": float(scale.maximum),
            "step": float(scale.unit),
            "step_declared": scale.step is not None,
        },
        "agreement": {
            "judges": list(data.judges),
            "captures": len(data.capture_ids),
            "criteria": criteria,
            "overall": overall,
        },
        "configurations": rows,
        "comparisons": comparisons,
        "disagreements": {"threshold": float(at_least), "given_as": disagreement, "count": len(listed)},
        "units": {
            "cluster": design.cluster,
            "entries": len(entries),
            "clusters": _cluster_count(design, entries),
            "small_n_below": SMALL_UNITS,
        },
        "pairs": {
            "rule": rule,
            "compared": len(pairs),
            "holm_family": sum(row["p_value"] is not None for row in comparisons),
            "alpha": ALPHA,
        },
        "judges": judges_section(data, configurations, pairs, design.snapshots, design.groups, CONFIDENCE),
    }
    stats["noise"] = noise_section(data, rows, getattr(manifest, "reducer", None) or "mean")
    if labels is not None:  # human labels: stats/calibration.py, a stats.calibration.HumanArrays
        from .calibration import calibration

        stats["calibration"] = calibration(data, labels, seed, resamples)
    if recorded is not None:  # the rubric's recorded agreement: stats/recorded.py
        from .recorded import recorded_calibration

        stats["recorded_calibration"] = recorded_calibration(data, recorded, seed, resamples)
    hypotheses = hypotheses_data(data, manifest, seed, resamples, design)
    if hypotheses is not None:
        hypotheses["method"] = {
            "seed": seed,
            "resamples": resamples,
            "permutations": resamples,
            "confidence_level": CONFIDENCE,
            "interval": "BCa bootstrap of the mean delta, resampling entries",
        }
    return RunStatistics(stats, listed, hypotheses)
