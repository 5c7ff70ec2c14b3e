"""The trio example's cells.jsonl and pilot-summary.json, field for field against the pilot document's schema
(tests/fixtures/trio_pilot_schema.json, copied from it), with the values recomputed from the ledger."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.__main__ import main

SCHEMA = json.loads((Path(__file__).parents[1] / "fixtures" / "trio_pilot_schema.json").read_text(encoding="utf-8"))
CELLS = {"A": "cell-a", "B": "cell-b", "C": "cell-c", "D": "cell-d"}
TASKS = {"task-1": "task:board-memo", "task-2": "task:pricing-review", "task-3": "task:vendor-exit"}


@pytest.fixture(scope="module")
def out(replayed: Callable[[str], Path]) -> Path:
    return replayed("trio")


def _cells(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "cells.jsonl").read_text(encoding="utf-8").splitlines()]


def test_cells_jsonl_has_every_field_of_the_schema_and_no_other(out: Path) -> None:
    cells = _cells(out)

    assert len(cells) == SCHEMA["cell_record_count"]
    for record in cells:
        assert list(record) == SCHEMA["cell_record"]
        for judge in ("judge_opus", "judge_gpt", "judge_minimax"):
            assert list(record[judge]) == SCHEMA["judge_object"]
            assert record[judge]["overall_verdict"] in SCHEMA["overall_verdicts"]
            assert record[judge]["rationale"].strip()
        assert record["task_id"] in SCHEMA["tasks"] and record["cell_id"] in CELLS
        assert record["manifest_anchor"] == "pilot-2026-04-26-v1"
        # From a finished bundle the candidate fields are the capture's own: these captures have none
        assert [record[f] for f in SCHEMA["cell_record"][5:9]] == [None, None, None, None]


def test_a_cells_values_are_recomputed_from_the_ledger_for_one_task(out: Path) -> None:
    ledger = {
        row["capture_id"]: row
        for row in map(json.loads, (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines())
    }
    for record in (r for r in _cells(out) if r["task_id"] == "task-2"):
        row = ledger[f"{TASKS['task-2']}/{CELLS[record['cell_id']]}"]
        judges = {j["role"].replace("judge-", "judge_"): j for j in row["judges"]}
        for key, judge in judges.items():
            scores = {name: Fraction(value) for name, value in judge["scores"].items()}
            assert record[key]["mean"] == float(sum(scores.values()) / 6)
            assert {n: record[key][n] for n in scores} == {n: float(v) for n, v in scores.items()}
        means = [Fraction(record[key]["mean"]).limit_denominator(6) for key in judges]
        assert record["trio_mean"] == pytest.approx(float(sum(means) / 3), abs=1e-12)
        assert record["trio_strict_pass"] == (sum(m >= Fraction(7, 2) for m in means) >= 2)
        assert record["trio_critical_fail"] == (sum(m < 2 for m in means) >= 2)


def test_pilot_summary_has_every_field_of_the_schema_and_recomputes_from_the_cells(out: Path) -> None:
    summary = json.loads((out / "pilot-summary.json").read_text(encoding="utf-8"))
    cells = _cells(out)

    assert list(summary) == SCHEMA["summary"]
    assert list(summary["results_per_task"]) == SCHEMA["tasks"]
    assert re.fullmatch(r"\S+Z to \S+Z", summary["execution_window_utc"])
    assert summary["total_judge_calls"] == SCHEMA["total_judge_calls"]
    assert summary["total_candidate_calls"] == 0
    mean = {(r["task_id"], r["cell_id"]): r["trio_mean"] for r in cells}
    for task, row in summary["results_per_task"].items():
        assert list(row) == SCHEMA["per_task"]
        assert [row[f"cell_{c}_trio_mean"] for c in CELLS] == [mean[(task, c)] for c in CELLS]
        assert row["h2_delta_opus"] == pytest.approx(mean[(task, "B")] - mean[(task, "A")])
        assert row["h4_directional_pass"] == (mean[(task, "D")] >= mean[(task, "A")])
    assert list(summary["aggregate"]) == SCHEMA["aggregate"]
    assert summary["aggregate"]["critical_failures"] == sum(r["trio_critical_fail"] for r in cells)
    assert summary["aggregate"]["pilot_verdict"] in SCHEMA["pilot_verdicts"]
    hypotheses = json.loads((out / "hypotheses.json").read_text(encoding="utf-8"))
    assert (
        summary["aggregate"]["pilot_verdict"] == hypotheses["verdict"]["result"]
    )  # the per-hypothesis rule, both ways


def test_verify_re_renders_pilot_summary_and_names_an_edit(
    out: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import shutil

    copy = Path(shutil.copytree(out, tmp_path / "out"))
    assert main(["verify", str(copy)]) == 0
    assert "verify: ok: pilot-summary.json (from cells.jsonl, run.json)" in capsys.readouterr().out
    text = (copy / "pilot-summary.json").read_text(encoding="utf-8")
    (copy / "pilot-summary.json").write_text(
        text.replace('"pilot_verdict": "FAIL"', '"pilot_verdict": "PASS"'), encoding="utf-8"
    )

    assert main(["verify", str(copy)]) != 0
    assert "pilot-summary.json: edited by hand" in capsys.readouterr().out


def test_the_run_s_kappa_is_stated_beside_the_recorded_one_everywhere_it_is_read(out: Path) -> None:
    # Given the trio example replayed (its rubric records kappa_trio 0.7878)
    recorded = json.loads((out / "stats.json").read_text(encoding="utf-8"))["recorded_calibration"]
    # Then stats.json holds both values, the run's interval and n, and the reading by the stated rule
    assert recorded["recorded"] == {"value": 0.7878, "date": "2026-04-24", "scope": recorded["recorded"]["scope"]}
    run = recorded["run"]
    assert run["captures"] == 12 and run["ratings"] == 72 and run["judges"] == 3
    low, high = run["interval"]
    assert recorded["verdict"] == ("consistent" if low <= 0.7878 <= high else "recalibrate")
    # And summary.md, methodology.md and report.html say it in the same words
    for name in ("summary.md", "methodology.md", "report.html"):
        text = (out / name).read_text(encoding="utf-8")
        assert (
            "Recorded calibration: Fleiss&#x27; kappa 0.7878" in text
            or "Recorded calibration: Fleiss' kappa 0.7878" in text
        )
        assert (
            f"This run: {run['value']:.3f} (95% interval {low:.3f} to {high:.3f}; 12 captures, 72 ratings of 3 judges)"
            in text
        )
