"""Partial runs, dry runs and --collect-only keep the last full report; a partial run says so."""

from __future__ import annotations

import json

import pytest
from support.e2e import record, report

from pytest_ora.testing.server import ReferenceJudge

OUT = "ora-results"


def test_a_partial_run_says_so_and_keeps_the_full_report_under_runs(project: pytest.Pytester) -> None:
    # Given a full run's report
    record(project)
    full = report(project)

    # When one capture is re-run with -k
    result = project.runpytest("-k", "mode:argument-audit/optimum")

    # Then the terminal, summary.md and summary.json say it is a partial run, naming the selection
    result.stdout.fnmatch_lines(["ora: selection: 1 of 12 captures, -k 'mode:argument-audit/optimum'"])
    summary_md = (project.path / OUT / "summary.md").read_text()
    assert summary_md.splitlines()[2] == (
        "**Partial run (selection: 1 of 12 captures, -k 'mode:argument-audit/optimum').** "
        "Captures outside the selection are not in this table."
    )
    rows = json.loads((project.path / OUT / "summary.json").read_text())
    assert {row["selection"] for row in rows} == {"selection: 1 of 12 captures, -k 'mode:argument-audit/optimum'"}
    # and the full run's report is kept, byte for byte, under runs/0001/
    assert {name: (project.path / OUT / "runs" / "0001" / name).read_bytes() for name in full} == full
    assert len((project.path / OUT / "ledger.jsonl").read_text().splitlines()) == 1
    methodology = (project.path / OUT / "methodology.md").read_text()
    assert (
        "- partial run (selection: 1 of 12 captures, -k 'mode:argument-audit/optimum'); earlier reports are under runs/"
        in methodology
    )


def test_a_full_run_has_no_selection_banner(project: pytest.Pytester) -> None:
    result = record(project)

    assert "selection:" not in result.stdout.str()
    rows = json.loads((project.path / OUT / "summary.json").read_text())
    assert {row["selection"] for row in rows} == {None}
    assert "Partial run" not in (project.path / OUT / "summary.md").read_text()


def test_earlier_reports_are_numbered_in_order(project: pytest.Pytester) -> None:
    record(project)
    project.runpytest("-k", "lens")
    project.runpytest("-k", "mode")

    runs = sorted(p.name for p in (project.path / OUT / "runs").iterdir())
    assert runs == ["0001", "0002"]
    first = json.loads((project.path / OUT / "runs" / "0001" / "summary.json").read_text())
    second = json.loads((project.path / OUT / "runs" / "0002" / "summary.json").read_text())
    assert first[0]["selection"] is None and "-k 'lens'" in second[0]["selection"]


def test_a_dry_run_leaves_the_last_report_alone(project: pytest.Pytester) -> None:
    record(project)
    before = report(project)
    packets = sorted(p.relative_to(project.path) for p in (project.path / OUT / "packets").rglob("*.json"))

    result = project.runpytest("--ora-dry-run")

    assert result.ret == 0
    assert report(project) == before
    assert sorted(p.relative_to(project.path) for p in (project.path / OUT / "packets").rglob("*.json")) == packets
    assert (project.path / OUT / "estimate.json").is_file()
    assert not (project.path / OUT / "runs").exists()
    result.stdout.fnmatch_lines(["ora: estimate written to * (the last report there is untouched)"])
    assert "report written" not in result.stdout.str()


def test_collect_only_says_nothing_about_a_report(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    record(project)
    before = report(project)

    result = project.runpytest("--collect-only", "-q")

    assert "report written" not in result.stdout.str() and "ora summary" not in result.stdout.str()
    assert report(project) == before


@pytest.mark.parametrize("args", [("-k", "nosuchmodel"), ("-k", "nosuchmodel", "-n", "2")])
def test_a_run_that_scores_nothing_leaves_the_last_report_as_it_was(
    project: pytest.Pytester, args: tuple[str, ...]
) -> None:
    record(project)
    before = report(project)
    packets = sorted(p.relative_to(project.path) for p in (project.path / OUT / "packets").rglob("*.json"))

    result = project.runpytest(*args)

    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED
    assert report(project) == before
    assert sorted(p.relative_to(project.path) for p in (project.path / OUT / "packets").rglob("*.json")) == packets
    assert not (project.path / OUT / "runs").exists()
    result.stdout.fnmatch_lines(
        [
            "ora: selection: 0 of 12 captures, -k 'nosuchmodel'",
            "ora: nothing scored in this run: the last report in * is left as it was",
        ]
    )
    assert "report written" not in result.stdout.str() and "failure rate -%" not in result.stdout.str()
