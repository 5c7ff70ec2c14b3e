"""--ora-baseline: this run against an earlier one: paired differences, capture changes, what changed, the gate."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from support.bundle_factory import executed_answer, read_captures, write_captures
from support.e2e import outcomes, record
from support.example_runs import replay_example
from support.run_data import methodology_block

from pytest_ora.reports.baseline import BaselineError, baseline_markdown, load_baseline, regressed, regression_min
from pytest_ora.reports.baselinedata import BaselineComparison, BaselineDataError, parse_baseline_comparison
from pytest_ora.reports.verify import verify
from pytest_ora.stats.baseline import SMALL_N, baseline_difference, t_interval


def _degrade(project: pytest.Pytester, configuration: str) -> int:
    rows = read_captures(project.path / "bundle")
    changed = 0
    for row in rows:
        if row["configuration"] == configuration and row["answer"]:
            row["answer"] = row["answer"].splitlines()[0]  # only the heading is left: no method executed
            changed += 1
    write_captures(project.path / "bundle", rows)
    return changed


def test_a_degraded_configuration_is_found_the_gate_fails_and_the_others_are_unchanged(
    project: pytest.Pytester,
) -> None:
    # Given a first run where every big-1 answer executes its method (the fixture's empty one restored)
    rows = read_captures(project.path / "bundle")
    for row in rows:
        if not row["answer"]:
            row["answer"] = executed_answer(row["entry_key"].partition(":")[2])
    write_captures(project.path / "bundle", rows)
    assert outcomes(record(project))["lowscore"] == 0
    # then the same bundle with big-1's answers cut to their first line
    degraded = _degrade(project, "big-1")
    assert degraded >= 4

    # When the second run is compared with the first and gated on regressions
    result = record(
        project, "--ora-record", "all", "--ora-out", "second", "--ora-baseline", "ora-results", "--ora-fail-regression"
    )

    # Then it exits 1 naming big-1, and only big-1
    assert result.ret == 1
    gates = [line for line in result.outlines if line.startswith("ora: FAIL --ora-fail-regression")]
    assert len(gates) == 1 and "big-1 mean overall fell by" in gates[0] and "t interval" in gates[0], gates
    result.stdout.fnmatch_lines(["FAILED ora-gate::--ora-fail-regression*"])  # and a failed JUnit testcase
    data = json.loads((project.path / "second" / "baseline.json").read_text(encoding="utf-8"))
    rows = {row["configuration"]: row for row in data["configurations"]}
    assert rows["big-1"]["regressed"] and rows["big-1"]["interval"][1] < 0
    assert rows["big-1"]["interval_method"] == "t" and rows["big-1"]["n"] < SMALL_N  # a small run: t
    assert rows["optimum"]["mean_difference"] == 0 and not rows["optimum"]["regressed"]
    assert rows["optimum"]["interval"] == [0.0, 0.0]
    # every capture change listed is big-1's, at least the threshold (10% of 0-10), largest drop first
    assert data["regression_min"] == 1.0
    assert data["changes"] and {c["configuration"] for c in data["changes"]} == {"big-1"}
    assert all(c["change"] <= -1 for c in data["changes"])
    assert [c["change"] for c in data["changes"]] == sorted(c["change"] for c in data["changes"])
    # what changed: the answers (texts.json of both runs) and the record mode, not the rubric, judges or bundle
    assert data["changed"] == [{"what": "record mode", "baseline": "once", "current": "all"}]
    assert data["texts"]["answer"] == len(data["texts"]["answer_changed"]) == degraded  # excluded ones too
    assert all(cid.endswith("/big-1") for cid in data["texts"]["answer_changed"])
    # baseline.md and report.html are rendered from baseline.json: verify re-renders both
    markdown = (project.path / "second" / "baseline.md").read_text(encoding="utf-8")
    assert "| big-1 |" in markdown and "| yes |" in markdown
    matched, edited, _ = verify(project.path / "second")
    assert edited == [] and any(m.startswith("baseline.md") for m in matched)
    assert "Since baseline" in (project.path / "second" / "report.html").read_text(encoding="utf-8")


def test_the_baseline_may_be_the_output_directory_itself_and_the_earlier_run_is_listed(
    project: pytest.Pytester,
) -> None:
    # Given a first run in ora-results
    assert outcomes(record(project))["failed"] == 0

    # When the next run writes to the same directory and compares with it (its report moves to runs/0001)
    result = record(project, "--ora-baseline", "ora-results", "--ora-fail-regression")

    # Then nothing regressed (the same answers, the same judge), and the earlier run is listed
    assert result.ret == 0, result.outlines[-15:]
    out = project.path / "ora-results"
    data = json.loads((out / "baseline.json").read_text(encoding="utf-8"))
    assert all(row["mean_difference"] == 0 for row in data["configurations"] if row["n"])
    assert data["changes"] == [] and data["shared"] == 12
    runs = json.loads((out / "runs.json").read_text(encoding="utf-8"))["runs"]
    assert [run["run"] for run in runs] == ["0001"]
    assert {name for name, _ in runs[0]["configurations"]} == {"optimum", "big-1"}
    assert (out / "runs" / "0001" / "ledger.jsonl").is_file()
    assert "runs/0001" in (out / "report.html").read_text(encoding="utf-8")
    assert verify(out)[1] == []


def test_a_rubric_judge_and_bundle_change_between_the_runs_is_named(project: pytest.Pytester, tmp_path: Path) -> None:
    # Given a first run whose run.json says it used another rubric version, digest, judge model and bundle
    assert outcomes(record(project))["failed"] == 0
    earlier = tmp_path / "earlier"
    shutil.copytree(project.path / "ora-results", earlier)
    run = json.loads((earlier / "run.json").read_text(encoding="utf-8"))
    run.update(rubric="ora-0.9", rubric_digest="sha256:" + "0" * 64, bundle="test-bundle-old")
    run["methodology"]["judges"][1]["model"] = "gpt-5.3"
    (earlier / "run.json").write_text(json.dumps(run), encoding="utf-8")

    # When this run is compared with it
    result = record(project, "--ora-out", "second", f"--ora-baseline={earlier}")

    # Then each change is named with both values
    assert result.ret == 0
    data = json.loads((project.path / "second" / "baseline.json").read_text(encoding="utf-8"))
    changed = {c["what"]: (c["baseline"], c["current"]) for c in data["changed"]}
    assert changed["rubric version"] == ("ora-0.9", "ora-1.0")
    assert changed["rubric digest"][0] == "sha256:" + "0" * 64
    assert changed["judges"][0][1] == "Judge B: openai:gpt-5.3"
    assert changed["judges"][1][1] == "Judge B: openai:gpt-5.4"
    assert changed["bundle"] == ("test-bundle-old", "test-bundle")
    markdown = (project.path / "second" / "baseline.md").read_text(encoding="utf-8")
    assert "| rubric version | ora-0.9 | ora-1.0 |" in markdown


def test_a_missing_or_unreadable_baseline_is_a_usage_error_naming_the_path(project: pytest.Pytester) -> None:
    result = record(project, "--ora-baseline", "nowhere")
    assert result.ret == 4
    assert "--ora-baseline" in result.stderr.str() and "nowhere: does not exist" in result.stderr.str()
    (project.path / "half").mkdir()
    (project.path / "half" / "run.json").write_text("{}", encoding="utf-8")
    result = record(project, "--ora-baseline", "half")
    assert result.ret == 4 and "half: no ledger.jsonl" in result.stderr.str()
    result = record(project, "--ora-fail-regression")
    assert result.ret == 4 and "give --ora-baseline DIR" in result.stderr.str()
    result = record(project, "--ora-baseline", "half", "--ora-regression-min", "-1")
    assert result.ret == 4 and "--ora-regression-min takes scale points" in result.stderr.str()


def _run_dir(path: Path, ledger: str, run: dict[str, Any] | None = None) -> Path:
    path.mkdir(parents=True)
    (path / "ledger.jsonl").write_text(ledger, encoding="utf-8")
    (path / "run.json").write_text(
        json.dumps(run or {"bundle": "b", "rubric": "r", "rubric_digest": "d", "methodology": methodology_block()}),
        encoding="utf-8",
    )
    return path


def test_bad_baseline_files_are_named_with_file_and_line(tmp_path: Path) -> None:
    good = '{"capture_id": "m:a/x", "configuration": "x", "status": "scored", "overall": 5.0, "failure": false}\n'
    with pytest.raises(BaselineError, match=r"ledger.jsonl line 2: not JSON"):
        load_baseline(_run_dir(tmp_path / "a", good + "{oops\n"))
    with pytest.raises(BaselineError, match=r"ledger.jsonl line 1: no field 'status'"):
        load_baseline(_run_dir(tmp_path / "b", '{"capture_id": "m:a/x", "configuration": "x"}\n'))
    with pytest.raises(BaselineError, match=r"line 1: overall must be a number"):
        load_baseline(_run_dir(tmp_path / "c", good.replace("5.0", '"5"')))
    with pytest.raises(BaselineError, match=r"run.json is unreadable"):
        load_baseline(_run_dir(tmp_path / "d", good, run={"bundle": "b"}))
    loaded = load_baseline(_run_dir(tmp_path / "e", good))
    assert loaded.captures["m:a/x"].overall == 5.0 and loaded.texts is None


def test_nothing_outside_the_baseline_directory_is_read(tmp_path: Path) -> None:
    outside = tmp_path / "secret.jsonl"
    outside.write_text('{"capture_id": "m:a/x", "configuration": "x", "status": "scored"}\n', encoding="utf-8")
    base = _run_dir(tmp_path / "base", "")
    (base / "ledger.jsonl").unlink()
    (base / "ledger.jsonl").symlink_to(outside)
    with pytest.raises(BaselineError, match="points outside the directory"):
        load_baseline(base)


def test_the_interval_is_t_at_every_n_and_the_gate_reads_it() -> None:
    rng = np.random.default_rng(1)
    small_now, small_then = rng.normal(5, 1, 10), rng.normal(6, 1, 10)
    small = baseline_difference(small_now, small_then, seed=0, key="x")
    assert small.interval_method == "t" and small.interval == small.t_interval
    expected = t_interval(small_now - small_then)
    assert expected is not None and small.t_interval == expected
    large_now, large_then = rng.normal(5, 1, 40), rng.normal(5, 1, 40)
    large = baseline_difference(large_now, large_then, seed=0, key="x")
    # 40 shared captures: still the t interval (BCa runs narrow at a few dozen units); BCa is kept beside it
    assert large.interval_method == "t" and large.interval == large.t_interval and large.bootstrap_interval is not None
    assert baseline_difference(large_now, large_then, seed=0, key="x") == large  # seeded: the same draws
    data = comparison(
        configurations=[
            configuration_row(configuration="a", regressed=True, interval=[-2.0, -0.5], mean_difference=-1.2, n=10),
            configuration_row(configuration="b", regressed=False, interval=[-0.5, 0.4], mean_difference=0.0, n=10),
        ]
    )
    assert regressed(data) == [
        "--ora-fail-regression: a mean overall fell by 1.20 since the baseline over 10 shared "
        "captures (95% t interval [-2.00, -0.50] lies below 0)"
    ]


def test_regression_min_is_points_or_a_share_of_the_scale() -> None:
    assert regression_min("10%", (0.0, 10.0)) == 1
    assert regression_min("10%", (1.0, 5.0)) == pytest.approx(0.4)
    assert regression_min("2.5", (0.0, 100.0)) == 2.5


def test_baseline_md_shows_a_p_value_on_the_floor_as_below_it() -> None:
    data = comparison(
        configurations=[
            configuration_row(
                configuration="a",
                n=30,
                baseline_mean=6.0,
                current_mean=2.0,
                mean_difference=-4.0,
                interval=[-4.5, -3.5],
                interval_method="bca",
                p_value=0.00019998,
                p_floor=True,
                p_min=0.00019998,
                regressed=True,
            )
        ]
    )
    text = baseline_markdown(data)
    assert "| < 0.0002 | yes |" in text and "0.00019998" not in text


def run_side(**changes: Any) -> dict[str, Any]:
    """One run of a baseline comparison as baseline.json holds it, with `changes`."""
    return {
        "path": None,
        "bundle": "x",
        "rubric": "ora-1.0",
        "rubric_digest": "sha256:0",
        "scoring_date": "d",
        "record_mode": "none",
        "snapshot": None,
        "panel": "p",
        "judges": [],
        "selected": 1,
        **changes,
    }


def configuration_row(**changes: Any) -> dict[str, Any]:
    """One configuration's row of baseline.json, with `changes`."""
    return {
        "configuration": "a",
        "n": 1,
        "baseline_mean": None,
        "current_mean": None,
        "mean_difference": None,
        "t_interval": None,
        "bootstrap_interval": None,
        "interval_method": "t",
        "interval": None,
        "p_value": None,
        "p_floor": False,
        "p_min": None,
        "regressed": False,
        "improved": False,
        **changes,
    }


def comparison(**changes: Any) -> BaselineComparison:
    """A whole baseline.json (the model its readers take), with `changes`."""
    return BaselineComparison.model_validate(
        {
            "schema": "ora-baseline-1",
            "rubric": "ora-1.0",
            "baseline": run_side(path="b"),
            "current": run_side(),
            "changed": [],
            "texts": None,
            "shared": 30,
            "only_in_baseline": 0,
            "only_in_current": 0,
            "regression_min": 1.0,
            "regression_min_given": "10%",
            "interval_rule": "t below 20 shared captures, else bca",
            "configurations": [],
            "changes": [],
            "flips": [],
            **changes,
        }
    )


def test_when_baseline_json_is_read_back_then_it_is_written_again_byte_for_byte() -> None:
    data = comparison(
        changed=[{"what": "judges", "baseline": ["A: x:a"], "current": ["A: x:b"]}],
        changes=[{"capture_id": "m:a/x", "configuration": "x", "baseline": 7, "current": 5.5, "change": -1.5}],
    )

    # Then: an overall read as 7 stays 7 (never 7.0), and the keys keep their order.
    assert parse_baseline_comparison(data.dumps()).dumps() == data.dumps()
    assert '"baseline": 7,' in data.dumps() and list(json.loads(data.dumps()))[:3] == ["schema", "rubric", "baseline"]


def test_when_baseline_json_lacks_a_field_then_the_error_names_it() -> None:
    broken = json.loads(comparison().dumps())
    del broken["configurations"]

    with pytest.raises(BaselineDataError, match="field configurations: Field required"):
        parse_baseline_comparison(json.dumps(broken))


def test_when_a_baseline_s_texts_json_or_methodology_is_out_of_shape_then_it_is_refused_naming_the_field(
    tmp_path: Path,
) -> None:
    good = '{"capture_id": "m:a/x", "configuration": "x", "status": "scored", "overall": 5.0, "failure": false}\n'
    directory = _run_dir(tmp_path / "a", good)
    texts = {"schema": "ora-texts-1", "rubric": "r", "columns": [], "strings": ["p"], "rows": [["m:a/x", 0, -1, 3, -1]]}
    (directory / "texts.json").write_text(json.dumps(texts), encoding="utf-8")
    with pytest.raises(BaselineError, match=r"texts.json: not the captures' texts: field rows.0.3: string") as refused:
        load_baseline(directory)
    assert "is not shown" not in str(refused.value)  # refused, not a page's note
    run = {"bundle": "b", "rubric": "r", "rubric_digest": "d", "methodology": methodology_block(judges=[{}])}
    with pytest.raises(
        BaselineError, match=r"run.json is unreadable \(.*field methodology.judges.0.label: Field required"
    ):
        load_baseline(_run_dir(tmp_path / "b", good, run))


def test_a_rubric_whose_overall_runs_past_its_criteria_scale_takes_its_own_earlier_run_as_baseline(
    replayed: Any, tmp_path: Path
) -> None:
    # Given the solo example's run: four criteria on 1-10 weighted 2.5 each, so overalls of 10-100
    baseline = replayed("solo")
    overalls = [json.loads(line)["overall"] for line in (baseline / "ledger.jsonl").read_text().splitlines()]
    assert max(o for o in overalls if o is not None) > 10

    # When the example is replayed again against it (the gate on regressions too)
    def against_baseline(project: Path) -> None:
        ini = project / "pytest.ini"
        ini.write_text(ini.read_text() + f"addopts = --ora-baseline {baseline} --ora-fail-regression\n")

    out = replay_example("solo", tmp_path / "again", edit=against_baseline)

    # Then the earlier run is read on the overall's range (not refused as off the 1-10 scale), and nothing regressed
    comparison = json.loads((out / "baseline.json").read_text())
    assert comparison["regression_min"] == pytest.approx(9.0)  # 10% of 10-100
    assert comparison["changes"] == [] and comparison["flips"] == []
