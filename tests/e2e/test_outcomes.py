"""Scores in pytest's own outputs (-v, -rL, junitxml), the quality gate, and what summary.md says."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from support.e2e import outcomes, record

LOW = "test_ora.py::test_capture[mode:causal-dag/big-1]"


def test_verbose_shows_each_captures_overall(project: pytest.Pytester) -> None:
    result = record(project, "-v")

    result.stdout.fnmatch_lines_random(
        [
            "test_ora.py::test_capture?mode:argument-audit/optimum? PASSED (overall *.*)*",
            f"{LOW.replace('[', '?').replace(']', '?')} LOWSCORE (overall *.*)*",
        ]
    )


@pytest.mark.parametrize("chars", ["L", "a"])
def test_r_lists_low_scores(project: pytest.Pytester, chars: str) -> None:
    result = record(project, f"-r{chars}")

    result.stdout.fnmatch_lines(
        ["*ora low scores (-rL)*", "LOWSCORE test_ora.py::test_capture?mode:causal-dag/big-1? - overall *.* < 4.0"]
    )


def test_without_r_low_scores_are_only_counted(project: pytest.Pytester) -> None:
    result = record(project)

    assert "ora low scores" not in result.stdout.str()
    assert outcomes(result)["lowscore"] == 1


def test_junitxml_carries_the_scores_and_marks_lowscore(project: pytest.Pytester) -> None:
    record(project, "--junitxml", "junit.xml")

    cases = {case.get("name"): case for case in ET.parse(project.path / "junit.xml").getroot().iter("testcase")}
    low = {p.get("name"): p.get("value") for p in cases["test_capture[mode:causal-dag/big-1]"].iter("property")}
    good = {p.get("name"): p.get("value") for p in cases["test_capture[mode:argument-audit/optimum]"].iter("property")}
    excluded = {p.get("name"): p.get("value") for p in cases["test_capture[lens:historian/big-1]"].iter("property")}
    assert low["ora_outcome"] == "LOWSCORE" and float(low["ora_overall"]) < 4.0
    assert good["ora_outcome"] == "scored" and float(good["ora_overall"]) >= 4.0
    assert set(good) == {
        "ora_outcome",
        "ora_overall",
        "ora_weighted",
        "ora_fidelity",
        "ora_soundness",
        "ora_completeness",
        "ora_relevance",
        "ora_calibration",
    }
    assert excluded == {"ora_outcome": "excluded"}


def test_fail_under_fails_the_run_naming_the_configuration(project: pytest.Pytester) -> None:
    record(project)

    # big-1 holds the empty answer, so its mean overall is far lower than optimum's
    failing = project.runpytest("--ora-fail-under", "7.5")
    passing = project.runpytest("--ora-fail-under", "1")

    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["ora: FAIL --ora-fail-under 7.5: big-1 mean overall *.** < 7.5"])
    assert "optimum mean overall" not in failing.stdout.str()
    assert passing.ret == 0 and "FAIL --ora-fail-under" not in passing.stdout.str()


def test_a_lowscore_share_gate_names_the_configuration(project: pytest.Pytester) -> None:
    record(project)

    # big-1 has one LOWSCORE among its 3 scored captures (33.3%), optimum none
    failing = project.runpytest("--ora-fail-lowscore-pct", "25")
    passing = project.runpytest("--ora-fail-lowscore-pct", "34")

    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(["ora: FAIL --ora-fail-lowscore-pct 25: big-1 LOWSCORE share 33.3% > 25%"])
    assert passing.ret == 0


def test_fail_under_reads_the_ini_key(project: pytest.Pytester) -> None:
    record(project)
    project.makeini("[pytest]\nora_bundle = bundle\nora_fail_under = 9.9\n")

    result = project.runpytest()

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["ora: FAIL --ora-fail-under 9.9: optimum mean overall *"])


def test_summary_md_names_the_judges_the_local_judge_and_each_family(project: pytest.Pytester) -> None:
    record(project)

    text = (project.path / "ora-results" / "summary.md").read_text()
    assert (
        "Judges (panel Optimum Big 1 / Big 2): Judge A = big-1 claude-opus-4-7 (anthropic); Judge B = big-2 gpt-5.4 (openai)."
        in text
    )
    assert "Scores from a local judge: Judge A at http://127.0.0.1:" in text
    assert "the reference judge's, not a model's" in text
    family = text.split("## Per family")[1].split("##")[0]
    cells = [
        [cell.strip() for cell in line.strip("|").split("|")] for line in family.splitlines() if line.startswith("|")
    ]
    assert cells[0] == ["Configuration", "Mode", "Visual", "Lens"]
    # big-1's empty answer pulls its mode mean down; the other families are untouched
    optimum, big1 = cells[2], cells[3]
    assert optimum[0] == "optimum" and big1[0] == "big-1"
    assert big1[1].endswith("(2)") and float(big1[1].split()[0]) < float(optimum[1].split()[0]) - 2
    assert big1[3] == ""  # big-1's lens capture was excluded: no scored capture in that family


def test_a_narrow_terminal_gets_a_narrower_table(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    record(project)

    monkeypatch.setenv("COLUMNS", "200")
    wide = project.runpytest()
    monkeypatch.setenv("COLUMNS", "60")
    narrow = project.runpytest()

    wide.stdout.fnmatch_lines(["Configuration * Fidelity * Calibration *"])
    narrow_summary = narrow.stdout.str().split("ora summary")[1]
    assert all(len(line) <= 60 for line in narrow_summary.splitlines() if line.startswith(("optimum", "big-1")))
    narrow.stdout.fnmatch_lines(["optimum: overall *, judged *, failure rate *%"])
