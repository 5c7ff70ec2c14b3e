"""Clusters: the clustered standard error is Miller's sandwich with statsmodels' small-sample factor, equal to statsmodels."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.regression.linear_model import OLS

from pytest_ora.stats.clusters import cluster_codes, mean_estimate, t_interval
from pytest_ora.stats.paired import paired_t_p

SAMPLE = Path(__file__).resolve().parents[3] / "evals" / "bundle" / "captures.jsonl"


def sample_scenarios() -> tuple[list[str], list[str]]:
    """The sample's entries and the scenario text ("Case: ...") each one's prompt draws on."""
    entries: dict[str, str] = {}
    for line in SAMPLE.read_text(encoding="utf-8").splitlines():
        capture = json.loads(line)
        found = re.search(r"Case: (.+)", capture["prompt"])
        entries.setdefault(capture["entry_key"], found.group(1) if found else capture["entry_key"])
    return list(entries), list(entries.values())


def test_the_sample_reuses_scenarios_across_entries() -> None:
    entries, scenarios = sample_scenarios()
    assert len(entries) == 198 and len(set(scenarios)) == 158  # 195 scored after the two collisions


def test_clustered_se_on_the_sample_scenarios_equals_statsmodels_cluster_robust_ols() -> None:
    # Given the sample's 195 entries clustered by scenario, and scores with a per-scenario effect
    _, scenarios = sample_scenarios()
    groups = cluster_codes(scenarios)
    rng = np.random.default_rng(5)
    effect = rng.normal(0, 1.5, groups.max() + 1)
    values = np.clip(6 + effect[groups] + rng.normal(0, 1.5, groups.size), 0, 10)

    estimate = mean_estimate(values, groups)
    fit = OLS(values, np.ones((values.size, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)

    assert estimate.standard_error == pytest.approx(float(fit.bse[0]), rel=1e-12)
    assert estimate.t_interval == pytest.approx(tuple(fit.conf_int(alpha=0.05)[0]), rel=1e-12)
    assert estimate.clusters == len(set(scenarios))
    # Miller 2024 appendix A: Var = (1/n^2) sum_c (sum_i in c (x_i - mean))^2, times G/(G-1) * (n-1)/(n-1).
    residual_sums = np.bincount(groups, weights=values - values.mean())
    g, n = groups.max() + 1, values.size
    miller = np.sqrt((residual_sums**2).sum() / n**2 * g / (g - 1))
    assert estimate.standard_error == pytest.approx(miller, rel=1e-12)
    # Related entries share the scenario effect: the design effect is above 1.
    assert estimate.design_effect is not None and estimate.design_effect > 1
    assert estimate.design_effect == pytest.approx((miller / stats.sem(values)) ** 2, rel=1e-12)


def test_clustered_paired_t_equals_statsmodels() -> None:
    _, scenarios = sample_scenarios()
    groups = cluster_codes(scenarios)
    difference = np.random.default_rng(6).normal(0.3, 2, groups.size)

    estimate = mean_estimate(difference, groups)
    fit = OLS(difference, np.ones((difference.size, 1))).fit(
        cov_type="cluster", cov_kwds={"groups": groups}, use_t=True
    )

    assert paired_t_p(difference, estimate) == pytest.approx(float(fit.pvalues[0]), rel=1e-9)


def test_unclustered_t_interval_and_p_equal_scipy() -> None:
    values = np.random.default_rng(7).exponential(2, 12)
    expected = stats.ttest_1samp(values, 0).confidence_interval(0.95)

    assert t_interval(values) == pytest.approx((expected.low, expected.high), rel=1e-12)
    assert paired_t_p(values, mean_estimate(values)) == pytest.approx(stats.ttest_1samp(values, 0).pvalue, rel=1e-12)


def test_degenerate_cases() -> None:
    assert t_interval(np.array([3.0])) is None
    assert t_interval(np.array([3.0, 3.0, 3.0])) is None  # no spread seen is not certainty
    one_cluster = mean_estimate(np.array([1.0, 2.0, 3.0]), np.zeros(3, dtype=np.intp))
    assert one_cluster.t_interval is None and one_cluster.units == 1


def test_the_failure_rate_interval_under_clusters_is_wilson_at_the_effective_sample_size() -> None:
    import statsmodels.api as sm

    from pytest_ora.stats.intervals import wilson_interval
    from pytest_ora.stats.proportions import clustered_wilson_interval, failure_design_effect

    # Given 10 clusters of 6 entries whose failures move together (whole clusters fail)
    groups = np.repeat(np.arange(10), 6)
    failures = np.repeat(np.array([True, False, False, True, False, False, False, True, False, False]), 6)
    plain = wilson_interval(int(failures.sum()), int(failures.size))
    assert plain is not None
    clustered = clustered_wilson_interval(failures, groups)
    assert clustered is not None
    # Then the interval is wider than the unclustered one, around the same rate
    assert clustered[0] < plain[0] and clustered[1] > plain[1]
    # And its design effect is the cluster-robust variance of the mean over the binomial one (statsmodels' OLS on a
    # constant with clustered errors, whose small-sample factor adds (n - 1) / (n - 1 regressors) = 1 here)
    fit = sm.OLS(failures.astype(float), np.ones(failures.size)).fit(cov_type="cluster", cov_kwds={"groups": groups})
    p = failures.mean()
    assert failure_design_effect(failures, groups) == pytest.approx(
        float(fit.bse[0]) ** 2 / (p * (1 - p) / failures.size)
    )
    # Independent entries (each its own cluster) give nearly the plain interval; one cluster gives none
    alone = clustered_wilson_interval(failures, np.arange(failures.size))
    assert alone is not None and alone == pytest.approx(plain, abs=0.01)
    assert clustered_wilson_interval(failures, np.zeros(failures.size, dtype=np.intp)) is None
    assert failure_design_effect(np.zeros(12, dtype=bool), np.repeat(np.arange(3), 4)) == 1.0
