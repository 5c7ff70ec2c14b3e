"""Statistics end to end: stats.json, hypotheses.json and the report sections from a real pytest run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, low_and_excluded, record

from pytest_ora.testing.server import ReferenceJudge

HYPOTHESES: dict[str, Any] = {
    "hypotheses": [
        {"id": "H1", "better": "optimum", "worse": "big-1", "margin": 0.3},
        {"id": "H2", "better": "big-1", "worse": "optimum", "margin": 0},
    ],
    "verdict": {"directional_at_least": 2},
}


@pytest.fixture
def pilot(pytester: pytest.Pytester, judge: ReferenceJudge) -> pytest.Pytester:
    """The test bundle with two hypotheses and a verdict, judged by the loopback server."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes, edit=low_and_excluded, manifest=HYPOTHESES)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return pytester


def read(pytester: pytest.Pytester, name: str, out: str = "ora-results") -> Any:
    text = (pytester.path / out / name).read_text(encoding="utf-8")
    return json.loads(text) if name.endswith(".json") else text


def test_hypotheses_json_follows_the_ledger_by_hand(pilot: pytest.Pytester) -> None:
    # When the bundle with hypotheses is judged
    result = record(pilot)
    assert result.ret == 0

    # Then every delta is overall(better) - overall(worse) of the ledger, over the entries both scored
    ledger = [json.loads(line) for line in read(pilot, "ledger.jsonl").splitlines()]
    overall = {(r["entry_key"], r["configuration"]): r["overall"] for r in ledger if r["status"] == "scored"}
    shared = sorted(
        {key for key, config in overall if config == "big-1"} & {key for key, config in overall if config == "optimum"}
    )
    data = read(pilot, "hypotheses.json")
    h1, h2 = data["hypotheses"]
    assert [e["entry_key"] for e in h1["entries"]] == sorted(e["entry_key"] for e in h1["entries"]) == shared
    by_hand = [overall[(key, "optimum")] - overall[(key, "big-1")] for key in shared]
    assert [e["delta"] for e in h1["entries"]] == pytest.approx(by_hand)
    assert h1["directional"] == sum(d > 0 for d in by_hand)
    assert h1["meets_margin"] == sum(d >= 0.3 - 1e-12 for d in by_hand)
    assert h2["directional"] == sum(-d >= 0 for d in by_hand)  # margin 0: a tie counts
    assert h1["unpaired_entries"] == ["lens:historian"]  # big-1's capture of it was excluded
    expected = "PASS" if h1["directional"] + h2["directional"] >= 2 else "FAIL"
    assert data["verdict"]["result"] == expected
    assert data["rubric"] == "ora-1.0"
    # And the summary and methodology say so
    summary = read(pilot, "summary.md")
    assert "## Statistics" in summary and "### Hypotheses" in summary and f"Verdict: **{expected}**" in summary
    assert "- Seed: 0 (--ora-seed); resamples: 10,000; confidence level: 95%" in read(pilot, "methodology.md")


def test_stats_json_is_deterministic_for_a_seed_and_moves_with_it(pilot: pytest.Pytester) -> None:
    record(pilot)
    pilot.runpytest("--ora-out", "first")
    pilot.runpytest("--ora-out", "again")
    pilot.runpytest("--ora-out", "other", "--ora-seed", "7")

    first, again, other = (read(pilot, "stats.json", out) for out in ("first", "again", "other"))

    assert first == again
    assert first["method"]["seed"] == 0 and other["method"]["seed"] == 7

    # On three or four captures BCa bounds sit on the extreme resample means whatever the seed; the
    # percentile bounds of alpha over seven captures (asserted below) move with it.
    # Agreement resamples only for alpha's bootstrap interval; every other figure is seed-free.
    def unresampled(agreement: dict[str, Any]) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in row.items() if k != "alpha_interval"}
            for row in [*agreement["criteria"], agreement["overall"]]
        ]

    assert unresampled(first["agreement"]) == unresampled(other["agreement"])
    assert first["agreement"]["overall"]["alpha_interval"] != other["agreement"]["overall"]["alpha_interval"]


def test_disagreement_threshold_option(pilot: pytest.Pytester) -> None:
    record(pilot)

    pilot.runpytest("--ora-out", "all", "--ora-disagreement", "0")
    listed = read(pilot, "disagreements.csv", "all").splitlines()

    assert listed[0] == "capture_id,criterion,judge_a,judge_b,spread,rubric"
    assert len(listed) - 1 == 7 * 5  # every criterion of the 7 scored captures, at spread >= 0
    spreads = [float(line.split(",")[4]) for line in listed[1:]]
    assert spreads == sorted(spreads, reverse=True)
    assert read(pilot, "stats.json", "all")["disagreements"] == {"threshold": 0.0, "given_as": "0", "count": 35}


@pytest.mark.parametrize("value", ["-1", "lots", "30%%"])
def test_a_bad_disagreement_threshold_is_a_usage_error(pilot: pytest.Pytester, value: str) -> None:
    result = pilot.runpytest("--ora-disagreement", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ora-disagreement takes scale points (3) or a share of the scale (30%)*"])


def test_a_bad_hypothesis_stops_the_run_before_judging(pytester: pytest.Pytester) -> None:
    manifest = {"hypotheses": [{"id": "H1", "better": "optimum", "worse": "nobody"}]}
    write_bundle(pytester.path / "bundle", manifest=manifest)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")

    result = pytester.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*bundle.yaml:13: field 'hypotheses.0.worse': names a configuration that bundle.yaml does not list*"]
    )


TRIO = Path(__file__).parents[2] / "evals" / "examples" / "trio"


def test_the_trio_example_hypothesis_table_and_verdict_by_hand(pytester: pytest.Pytester) -> None:
    # Given the pilot example: 3 tasks x 4 cells, three judges, H2, H3, H4 and the verdict
    for name in ("bundle", "cassettes"):
        shutil.copytree(TRIO / name, pytester.path / name)
    for name in ("conftest.py", "test_trio.py", "pytest.ini"):
        shutil.copy(TRIO / name, pytester.path / name)

    # When it replays
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-out", "out")
    assert result.ret == 0

    # Then each delta is the trio means' difference per task, counted by hand from the ledger
    ledger = [json.loads(line) for line in read(pytester, "ledger.jsonl", "out").splitlines()]
    mean = {(r["entry_key"], r["configuration"]): r["overall"] for r in ledger}
    tasks = ["task:board-memo", "task:pricing-review", "task:vendor-exit"]
    claims = {"H2": ("cell-b", "cell-a", 0.30), "H3": ("cell-d", "cell-c", 0.30), "H4": ("cell-d", "cell-a", 0.0)}
    data = read(pytester, "hypotheses.json", "out")
    directional = 0
    for row in data["hypotheses"]:
        better, worse, margin = claims[row["id"]]
        deltas = [mean[(task, better)] - mean[(task, worse)] for task in tasks]
        assert [e["delta"] for e in row["entries"]] == pytest.approx(deltas)
        counted = sum(d >= 0 if margin == 0 else d > 0 for d in deltas)
        assert (row["directional"], row["meets_margin"]) == (counted, sum(d >= margin for d in deltas))
        assert row["mean_delta"] == pytest.approx(sum(deltas) / 3)
        directional += counted
    # And the verdict: a capture is critical when a majority (2 of 3) of its judges' own overalls are below 2.0
    critical = [r["capture_id"] for r in ledger if sum(j["overall"] < 2.0 for j in r["judges"]) >= 2]
    assert [r["capture_id"] for r in ledger if r["critical"]] == critical
    verdict = data["verdict"]
    assert verdict["critical_captures"] == critical
    # The pilot's rule is per hypothesis: each directional in at least 2 of the 3 tasks, and no critical cell
    per_hypothesis = {row["id"]: row["directional"] for row in data["hypotheses"]}
    assert verdict["result"] == ("PASS" if min(per_hypothesis.values()) >= 2 and not critical else "FAIL")
    # As recorded: every delta points the right way (3 of 3 in each), but two Qwen-solo cells are critical
    assert (directional, critical, verdict["result"]) == (
        9,
        ["task:board-memo/cell-c", "task:pricing-review/cell-c"],
        "FAIL",
    )
    assert (
        "Verdict: **FAIL** (H2 3/3, H3 3/3, H4 3/3 directional, 2 required in every hypothesis; 2 captures with the "
        "critical vote:"
    ) in read(pytester, "summary.md", "out")
