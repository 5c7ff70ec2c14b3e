"""--ora-step-summary: a run's table, gates and regressions appended to GitHub Actions' step summary file."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.bundle_factory import executed_answer, read_captures, write_captures
from support.e2e import KEY_A, KEY_B, outcomes, record

from pytest_ora.harness.options import STEP_SUMMARY_ENV


def test_a_gated_run_against_a_baseline_under_xdist_appends_one_summary_with_table_gates_and_regressions(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a first run where every answer executes its method, recorded
    rows = read_captures(project.path / "bundle")
    for row in rows:
        if not row["answer"]:
            row["answer"] = executed_answer(str(row["entry_key"]).partition(":")[2])
    write_captures(project.path / "bundle", rows)
    assert outcomes(record(project))["lowscore"] == 0
    # and big-1's answers then cut to their first line, and a step summary file that already holds a line
    for row in rows:
        if row["configuration"] == "big-1" and row["answer"]:
            row["answer"] = str(row["answer"]).splitlines()[0]
    write_captures(project.path / "bundle", rows)
    summary = project.path / "step-summary.md"
    summary.write_text("# Earlier step\n", encoding="utf-8")
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(summary))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)

    # When the second run is judged under two xdist workers against the first, gated on regressions
    result = project.runpytest_subprocess(
        "--ora-record", "all", "--ora-out", "second", "--ora-baseline", "ora-results", "--ora-fail-regression",
        "--ora-fail-under", "1", "-n", "2", "-p", "no:cacheprovider",
    )  # fmt: skip

    # Then the gate fails the run, and the file holds the earlier line and one summary after it, written once
    assert result.ret == 1
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("# Earlier step\n\n## pytest-ora: ")
    assert text.count("## pytest-ora") == 1
    # with the configurations' table,
    assert "| Configuration | Judged |" in text and "| big-1 | " in text and "| optimum | " in text
    # each gate and whether it held,
    assert "- --ora-fail-under 1: **held**" in text
    assert "- --ora-fail-regression: **FAILED**: big-1 mean overall fell by" in text
    # the regressions against the baseline, big-1 regressed and optimum not
    assert "### Since the baseline" in text
    assert any(line.startswith("| big-1 | ") and line.endswith("| **yes** |") for line in text.splitlines())
    assert any(line.startswith("| optimum | ") and line.endswith("| no |") for line in text.splitlines())
    assert "Captures whose overall fell by at least 1: " in text
    # and never a key, nor any statistic beyond these (no agreement, no p-values)
    assert KEY_A not in text and KEY_B not in text
    assert "alpha" not in text.lower() and "| p |" not in text


def test_without_github_step_summary_the_bare_option_is_a_usage_error(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(STEP_SUMMARY_ENV, raising=False)

    result = project.runpytest("--ora-step-summary")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--ora-step-summary appends to the file GITHUB_STEP_SUMMARY names, and it is not set*"]
    )
    assert not (project.path / "ora-results").exists()


def test_a_directory_given_as_the_file_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-step-summary=bundle")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ora-step-summary takes a file to append to, got the directory 'bundle'*"])


def test_with_github_step_summary_set_it_is_on_by_default_and_off_turns_it_off(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = project.path / "summary-file.md"
    monkeypatch.setenv(STEP_SUMMARY_ENV, str(summary))

    assert outcomes(record(project, "--ora-step-summary=off"))["passed"] == 6
    assert not summary.exists()
    assert outcomes(record(project))["passed"] == 6
    assert summary.read_text(encoding="utf-8").count("## pytest-ora") == 1


def test_the_ini_key_names_the_file_relative_to_the_ini_file(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(STEP_SUMMARY_ENV, raising=False)
    project.makeini("[pytest]\nora_bundle = bundle\nora_step_summary = ci/summary.md\n")
    (project.path / "ci").mkdir()

    assert outcomes(record(project))["passed"] == 6

    text = (project.path / "ci" / "summary.md").read_text(encoding="utf-8")
    assert "### Gates\n\nNo gate was set." in text and "Since the baseline" not in text
    assert Path(project.path / "ora-results" / "summary.md").is_file()
