"""run.json as typed data: written from its model, read back into it, the same bytes again; a bad file named."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.run_data import methodology_block

from pytest_ora.reports.runfile import PilotBlock, RunFile, RunFileError, parse_run_file, read_run_file


def run_file(**changes: Any) -> RunFile:
    data: dict[str, Any] = {
        "pytest_ora_version": "0.1.0",
        "suite_commit": None,
        "started_utc": "2026-11-30T00:53:20Z",
        "ended_utc": "2026-11-30T00:53:21Z",
        "bundle": "b",
        "rubric": "ora-1.0",
        "rubric_digest": "sha256:0",
        "rubric_text": "rubric: ora-1.0\n",
        "methodology": methodology_block(),
        "summary_notes": {"preface": ["Selection: all captures."], "appendix": []},
    }
    data.update(changes)
    return RunFile(**data)


def test_when_run_json_is_read_back_then_it_is_written_again_byte_for_byte(tmp_path: Path) -> None:
    written = run_file().dumps()
    (tmp_path / "run.json").write_text(written, encoding="utf-8")

    assert read_run_file(tmp_path / "run.json").dumps() == written
    assert list(json.loads(written))[:5] == ["pytest_ora_version", "suite_commit", "started_utc", "ended_utc", "bundle"]
    assert '"suite_commit": null' in written  # set to None: written as null, not left out


def test_when_the_run_facts_and_pilot_are_not_given_then_their_keys_are_not_written() -> None:
    bare = RunFile(
        bundle="b",
        rubric="r",
        rubric_digest="d",
        rubric_text="t",
        methodology=None,
        summary_notes={"preface": [], "appendix": []},  # type: ignore[arg-type]
    )

    assert list(json.loads(bare.dumps())) == [
        "bundle",
        "rubric",
        "rubric_digest",
        "rubric_text",
        "methodology",
        "summary_notes",
    ]


def test_a_pilot_block_sits_after_the_run_facts_and_keeps_its_verdict_rule() -> None:
    pilot = PilotBlock(
        id="p",
        cells={"A": "cell-a"},
        hypotheses=[],
        execution_window_utc="x to y",
        verdict={"directional_at_least": None, "per_hypothesis_at_least": 2, "no_critical": True},
        total_cost_usd=None,
        total_judge_calls=3,
        total_candidate_calls=0,
    )
    written = run_file(pilot=pilot).dumps()

    assert list(json.loads(written))[4:6] == ["pilot", "bundle"]
    assert parse_run_file(json.loads(written)).dumps() == written
    assert '"no_critical": true' in written and '"per_hypothesis_at_least": 2' in written


def test_when_run_json_has_a_bad_field_then_the_error_names_the_file_and_the_field(tmp_path: Path) -> None:
    data = json.loads(run_file().dumps())
    data["summary_notes"]["preface"] = "one line"
    (tmp_path / "run.json").write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(
        RunFileError, match=r"run.json: not a run's data: field summary_notes.preface: Input should be a valid list"
    ):
        read_run_file(tmp_path / "run.json")


def test_when_run_json_is_not_json_then_the_error_says_so(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{oops", encoding="utf-8")

    with pytest.raises(RunFileError, match=r"run.json: cannot read the machine-written data"):
        read_run_file(tmp_path / "run.json")


def test_when_a_run_fact_has_no_field_then_writing_run_json_refuses_it_rather_than_dropping_it() -> None:
    from pytest_ora.method.rubric import get_rubric
    from pytest_ora.reports.renderers import run_data

    notes: dict[str, list[str]] = {"preface": [], "appendix": []}
    assert '"suite_commit": null' in run_data("b", get_rubric("ora-1.0"), None, notes, {"suite_commit": None})
    with pytest.raises(TypeError, match=r"run\.json has no field candidates_note: add it to RunFile"):
        run_data("b", get_rubric("ora-1.0"), None, notes, {"candidates_note": "x"})
