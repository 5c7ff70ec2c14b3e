"""The statistics' design end to end: clusters from bundle.yaml or --ora-cluster, the pairs compared, and their usage errors."""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, record

from pytest_ora.testing.server import ReferenceJudge


def scenarios(captures: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Entries sharing a scenario: metadata.scenario pairs up the four entries."""
    keys = sorted({c["entry_key"] for c in captures})
    return [{**c, "metadata": {"scenario": f"s{keys.index(c['entry_key']) // 2}"}} for c in captures]


@pytest.fixture
def clustered(pytester: pytest.Pytester, judge: ReferenceJudge) -> pytest.Pytester:
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(
        pytester.path / "bundle",
        routes=routes,
        configurations=("optimum", "big-1", "big-2"),
        edit=scenarios,
        manifest={"cluster": "metadata.scenario", "compare_pairs": [["optimum", "big-1"]]},
    )
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return pytester


def read(pytester: pytest.Pytester, name: str, out: str = "ora-results") -> Any:
    text = (pytester.path / out / name).read_text(encoding="utf-8")
    return json.loads(text) if name.endswith(".json") else text


def test_bundle_cluster_and_compare_pairs(clustered: pytest.Pytester) -> None:
    assert record(clustered).ret == 0
    stats = read(clustered, "stats.json")
    entries = stats["units"]["entries"]
    clusters = stats["units"]["clusters"]
    assert stats["units"]["cluster"] == "metadata.scenario" and 2 <= clusters < entries  # pairs of entries share one
    assert [(c["first"], c["second"]) for c in stats["comparisons"]] == [("optimum", "big-1")]
    assert stats["pairs"]["holm_family"] == 1
    row = stats["configurations"][0]
    assert row["clusters"] <= clusters and row["interval_method"] == "t" and row["small_n"] is True
    # The failure rate's Wilson interval is clustered too: never narrower than the unclustered one
    from pytest_ora.stats.intervals import wilson_interval

    for lane in stats["configurations"]:
        plain = wilson_interval(lane["failures"], lane["n"])
        assert plain is not None and lane["failure_rate_interval"][0] <= plain[0] + 1e-12
        assert lane["failure_rate_interval"][1] >= plain[1] - 1e-12
    summary = read(clustered, "summary.md")
    assert (
        f"Units: clusters of related entries by `metadata.scenario` ({clusters} clusters over {entries} entries)"
        in summary
    )
    assert "Units: Units:" not in summary and "Units: Units:" not in read(clustered, "methodology.md")
    assert "t (small n)" in summary and "Design effect" in summary


def test_options_override_the_bundle(clustered: pytest.Pytester) -> None:
    record(clustered)
    clustered.runpytest("--ora-out", "ref", "--ora-reference", "big-2", "--ora-cluster", "entry_key")
    stats = read(clustered, "stats.json", "ref")
    assert [(c["first"], c["second"]) for c in stats["comparisons"]] == [("optimum", "big-2"), ("big-1", "big-2")]
    assert stats["units"]["cluster"] == "entry_key" and stats["units"]["clusters"] == stats["units"]["entries"]
    clustered.runpytest("--ora-out", "named", "--ora-pairs", "big-2:optimum", "--ora-pairs", "big-1:big-2")
    named = read(clustered, "stats.json", "named")
    assert [(c["first"], c["second"]) for c in named["comparisons"]] == [("big-2", "optimum"), ("big-1", "big-2")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ora-reference", "nope"], "--ora-reference names 'nope', which bundle.yaml does not list"),
        (["--ora-pairs", "optimum:nope"], "--ora-pairs optimum:nope names 'nope'"),
        (["--ora-pairs", "optimum"], "--ora-pairs takes two different configurations as A:B"),
        (["--ora-cluster", "metadata.missing"], "--ora-cluster metadata.missing has no value in any capture"),
        (["--ora-cluster", "colour"], "--ora-cluster colour is not a capture field"),
    ],
)
def test_bad_options_are_usage_errors(clustered: pytest.Pytester, args: list[str], message: str) -> None:
    result = clustered.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_a_bad_cluster_or_pair_in_bundle_yaml_names_the_line(pytester: pytest.Pytester) -> None:
    write_bundle(
        pytester.path / "bundle", manifest={"cluster": "metadata.none", "compare_pairs": [["optimum", "ghost"]]}
    )
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    text = result.stderr.str()
    assert "bundle.yaml" in text and "cluster" in text and "has no value in any capture" in text
    assert "compare_pairs.0.1" in text and "names a configuration that bundle.yaml does not list" in text
