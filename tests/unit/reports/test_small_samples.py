"""Intervals at every n: the t interval shown for means and paired differences, BCa kept, bootstrap-only figures from 20 units."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
import pytest
from statsmodels.regression.linear_model import OLS

from pytest_ora.reports.page import statistics_input
from pytest_ora.reports.statsdata import StatsFile
from pytest_ora.reports.statsfiles import TOO_FEW, stable, statistics_markdown
from pytest_ora.stats.arrays import RunArrays, Scale
from pytest_ora.stats.statistics import Design, run_statistics


def arrays(entries: int, seed: int = 0) -> RunArrays:
    """Two configurations over `entries` entries, two judges on one criterion, scores on 0-10."""
    rng = np.random.default_rng(seed)
    keys = [f"e{i}" for i in range(entries)]
    own = np.clip(np.round(rng.normal([[6.0, 6.5]], 1.5, (2 * entries, 2))), 0, 10)
    own[entries:] += 0.5
    return RunArrays(
        capture_ids=tuple(f"{k}/{c}" for c in ("a", "b") for k in keys),
        entry_keys=tuple(keys * 2),
        configurations=tuple(["a"] * entries + ["b"] * entries),
        criteria=("quality",),
        judges=("A", "B"),
        scores=own[:, :, None],
        judge_overall=own,
        overall=own.mean(axis=1),
        failure=np.zeros(2 * entries, dtype=np.bool_),
        critical=None,
        scale=Scale(Fraction(0), Fraction(10)),
    )


class Manifest:
    hypotheses: ClassVar[list[Any]] = []
    compare_pairs = None


def stats(entries: int, design: Design | None = None) -> dict[str, Any]:
    result = run_statistics(
        arrays(entries), ["a", "b"], Manifest(), seed=0, disagreement="30%", resamples=2_000, design=design
    )
    data: dict[str, Any] = json.loads(json.dumps(stable(result.data)))
    return data


def typed(data: dict[str, Any]) -> StatsFile:
    """stats.json's model of the statistics' data."""
    return StatsFile.model_validate({"rubric": "r", **data})


@pytest.mark.parametrize("entries", [5, 40])
def test_means_and_pairs_show_the_t_interval_at_every_n_and_keep_bca_beside_it(entries: int) -> None:
    data = stats(entries)
    for row in [*data["configurations"], *data["comparisons"]]:
        assert row["interval_method"] == "t"
        assert row["small_n"] is (entries < 20)
        assert row["t_interval"] is not None and row["bootstrap_interval"] is not None
        assert row["t_interval"] != row["bootstrap_interval"]
    configuration = data["configurations"][0]
    assert configuration["mean_overall_interval"] == configuration["bootstrap_interval"]  # the old field, kept
    assert data["comparisons"][0]["interval"] == data["comparisons"][0]["bootstrap_interval"]
    summary = statistics_markdown(typed(data), None)
    t = configuration["t_interval"]
    row = next(line for line in summary.splitlines() if line.startswith("| a "))
    assert f"[{t[0]:.2f}, {t[1]:.2f}]" in row
    assert ("t (small n)" in row) is (entries < 20) and "BCa" not in row


def test_a_clustered_t_interval_is_statsmodels_cluster_robust_ols_on_g_minus_1_df() -> None:
    entries = 40
    clusters = {f"e{i}": f"s{i // 2}" for i in range(entries)}
    data = stats(entries, Design(cluster="metadata.scenario", clusters=clusters))
    row = data["configurations"][0]
    values = arrays(entries).overall[:entries]
    groups = np.arange(entries) // 2
    fit = OLS(values, np.ones((entries, 1))).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    assert fit.df_resid_inference == 19  # G - 1
    assert row["t_interval"] == pytest.approx(list(fit.conf_int(alpha=0.05)[0]), rel=1e-9)
    assert row["clusters"] == 20 and row["interval_method"] == "t" and row["small_n"] is False


def test_alpha_shows_its_bootstrap_interval_only_from_20_units() -> None:
    few, many = stats(10), stats(10 + 15)  # 20 and 50 scored captures; alpha is over captures
    assert few["agreement"]["captures"] == 20
    small = stats(5)  # 10 captures
    assert small["agreement"]["overall"]["alpha_interval"] is not None  # kept in stats.json whatever the n
    cell = f"| {TOO_FEW} |"  # the table's cell (the words above the tables name the rule too)
    assert cell in statistics_markdown(typed(small), None)
    assert cell not in statistics_markdown(typed(few), None) and cell not in statistics_markdown(typed(many), None)
    page = statistics_input(typed(small), None)
    assert page.agreement["overall"].alpha_interval is None and page.agreement["overall"].alpha_interval_note == TOO_FEW
    assert statistics_input(typed(many), None).agreement["overall"].alpha_interval is not None
