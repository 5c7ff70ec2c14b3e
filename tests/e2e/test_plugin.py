"""End to end through pytest itself: a bundle in a temp dir, the reference judge on loopback."""

from __future__ import annotations

import json

import pytest
from support.e2e import EXPECTED, KEY_A, KEY_B, REPORT, outcomes, record, report, tables

from pytest_ora.testing.server import ReferenceJudge


def test_recording_scores_every_capture_and_writes_the_report(project: pytest.Pytester) -> None:
    # When the bundle is judged live against the loopback judges
    result = record(project, "-rs")

    # Then scorable captures pass, the empty answer is a LOWSCORE, invalid and collision losers skip
    assert outcomes(result) == EXPECTED
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "ora: rubric ora-1.0: weighted = 0.35*fidelity + 0.25*soundness + 0.18*completeness + "
            "0.12*relevance + 0.10*calibration; overall = min(weighted, fidelity); failure when overall < 4.0",
            "ora: panel Optimum Big 1 / Big 2: Judge A = big-1 claude-opus-4-7 (anthropic), Judge B = big-2 gpt-5.4 (openai)",
            "*ora summary*",
            "optimum *",
            "SKIPPED [1] test_ora.py:14: lens:fishbone-diagram/big-1: excluded: collision: fishbone-diagram is scored as visual",
            "SKIPPED [1] test_ora.py:14: lens:historian/big-1: excluded: invalid capture (fallback): returned to capture audit",
        ]
    )
    rows = [json.loads(line) for line in (project.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    assert len(rows) == 12
    low = next(row for row in rows if row["capture_id"] == "mode:causal-dag/big-1")
    assert low["status"] == "scored" and low["failure"] is True and low["overall"] < 4.0
    assert {row["status"] for row in rows} == {"scored", "excluded"}
    for name in REPORT:
        assert "ora-1.0" in (project.path / "ora-results" / name).read_text()


def test_replay_needs_no_network_and_no_keys(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    record(project)
    recorded = report(project)
    judge.stop()

    # When the same run replays with the judges gone and no keys set
    result = project.runpytest()

    # Then the outcomes and every table are the same, byte for byte
    assert outcomes(result) == EXPECTED
    replayed = report(project)
    assert tables(replayed) == tables(recorded)


def test_xdist_workers_write_the_same_bytes(project: pytest.Pytester) -> None:
    record(project)
    assert outcomes(project.runpytest("--ora-out", "serial")) == EXPECTED

    result = project.runpytest_subprocess("-n", "2", "--ora-out", "parallel")

    assert outcomes(result) == EXPECTED
    assert report(project, "serial") == report(project, "parallel")


def test_an_xdist_controller_replaying_loads_no_http_client(project: pytest.Pytester) -> None:
    """Under -n the controller runs no item and sends no judge call: httpx, httpcore and vcrpy load in
    the workers only (each is tens of milliseconds of the controller's start, on the run's critical path)."""
    record(project)
    project.makeconftest(
        """
        import sys

        def pytest_terminal_summary(terminalreporter, config):
            if not hasattr(config, "workerinput"):
                loaded = sorted(name for name in ("httpx", "httpcore", "vcr") if name in sys.modules)
                terminalreporter.write_line(f"controller loaded: {loaded}")
        """
    )

    result = project.runpytest_subprocess("-n", "2", "--ora-out", "again")

    assert outcomes(result) == EXPECTED
    result.stdout.fnmatch_lines(["controller loaded: []"])


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["in-process", "xdist"])
def test_reports_hand_their_record_on_and_keep_none_of_it(project: pytest.Pytester, workers: tuple[str, ...]) -> None:
    """pytest's terminal reporter keeps every report to the end: once the controller has journaled a
    capture, its report holds neither the record nor the ledger line the worker made (memory at 10x)."""
    record(project)
    project.makeconftest(
        """
        def pytest_terminal_summary(terminalreporter):
            kept = [report.nodeid for reports in terminalreporter.stats.values() for report in reports
                    if hasattr(report, "ora_record") or hasattr(report, "ora_ledger")]
            terminalreporter.write_line(f"reports keeping a record: {len(kept)}")
        """
    )

    result = project.runpytest_subprocess(*workers, "--ora-out", "again")

    assert outcomes(result) == EXPECTED
    result.stdout.fnmatch_lines(["reports keeping a record: 0"])
    assert report(project, "again")["ledger.jsonl"] == report(project)["ledger.jsonl"]


@pytest.mark.parametrize(
    ("selection", "selected"),
    [
        (["-k", "lens"], 4),
        (["-k", "big-1"], 6),
        (["-k", "mode:argument-audit/optimum"], 1),
        (["-m", "optimum and mode"], 2),
        (["-m", "big-1"], 6),
    ],
)
def test_k_and_m_select_by_family_configuration_and_capture_id(
    project: pytest.Pytester, selection: list[str], selected: int
) -> None:
    record(project)

    result = project.runpytest(*selection, "--strict-markers")

    outcomes = result.parseoutcomes()
    assert sum(outcomes.get(kind, 0) for kind in ("passed", "skipped", "lowscore")) == selected
    rows = (project.path / "ora-results" / "ledger.jsonl").read_text().splitlines()
    assert len(rows) == selected


def test_a_missing_cassette_fails_the_capture_with_what_to_do(project: pytest.Pytester) -> None:
    record(project, "-k", "optimum")

    result = project.runpytest("-k", "mode:argument-audit/big-1")

    result.assert_outcomes(failed=1)
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        ["*mode:argument-audit/big-1: no recorded judge call for mode:argument-audit/big-1*--ora-record once*"]
    )
    assert "Traceback" not in result.stdout.str()
    row = json.loads((project.path / "ora-results" / "ledger.jsonl").read_text())
    assert row["status"] == "error" and "no recorded judge call" in row["reason"]


def test_a_changed_packet_fails_loudly_instead_of_replaying_a_stale_score(project: pytest.Pytester) -> None:
    record(project)
    captures = project.path / "bundle" / "captures.jsonl"
    captures.write_text(captures.read_text().replace("warehouse budget decision", "warehouse lease decision"))

    result = project.runpytest("-k", "mode:argument-audit/optimum")

    result.assert_outcomes(failed=1)
    # The item says what changed; the ora summary says it once for the run, with the one command that re-records
    result.stdout.fnmatch_lines(
        [
            "mode:argument-audit/optimum: recorded for a different judge request (packet field 'prompt' changed)",
            "ora: 1 capture: packet field 'prompt' changed since recorded; re-record only it*"
            "pytest *-k mode:argument-audit/optimum --ora-record new_episodes",
        ]
    )
    row = json.loads((project.path / "ora-results" / "ledger.jsonl").read_text())
    assert (
        "(packet field 'prompt' changed): re-record with --ora-record new_episodes" in row["reason"]
    )  # the ledger keeps it all


def test_bad_input_stops_the_run_with_one_clear_message(project: pytest.Pytester) -> None:
    captures = project.path / "bundle" / "captures.jsonl"
    lines = captures.read_text().splitlines()
    lines[2] = lines[2].replace('"optimum"', '"nowhere"')
    lines.append("{broken")
    captures.write_text("\n".join(lines) + "\n")

    result = project.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: capture bundle failed intake (2 problems):",
            "  - captures.jsonl:3: mode:causal-dag/nowhere: field 'configuration': names a configuration that bundle.yaml does not list*",
            "  - captures.jsonl:13: is not valid JSON*",
        ]
    )
    assert not (project.path / "ora-results" / "ledger.jsonl").exists()


def test_an_unreachable_judge_stops_a_live_run_before_judging(
    project: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)

    result = project.runpytest("--ora-record", "once")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: judging stopped before any capture was judged: Judge A (role big-1, model claude-opus-4-7, *): HTTP 401*"
        ]
    )
    assert judge.calls == 0
    assert "sk-ant-wrong" not in result.stderr.str()


def test_no_key_is_written_anywhere(project: pytest.Pytester) -> None:
    result = record(project, "--junitxml", "junit.xml", "-v")

    written = [p for p in project.path.rglob("*") if p.is_file()]
    assert any(p.name == "optimum.json" and "cassettes" in p.parts for p in written)
    for path in written:
        data = path.read_bytes()
        assert KEY_A.encode() not in data and KEY_B.encode() not in data, path
    assert KEY_A not in result.stdout.str() + result.stderr.str()


def test_a_substituted_judge_needs_a_panel_label(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-substitute", "big-2=big-1")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --ora-substitute changes the judging panel: name it with --ora-panel-label"])


def test_judging_ahead_keeps_several_captures_in_flight_and_the_same_tables(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    # When one process judges four captures at once against slow judges
    judge.latency = 0.3
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", KEY_A)
        patch.setenv("OPENAI_API_KEY", KEY_B)
        ahead = project.runpytest("--ora-record", "once", "--ora-concurrency", "4", "--ora-out", "ahead")

    # Then outcomes and tables are those of a one-at-a-time replay
    assert outcomes(ahead) == EXPECTED
    serial = project.runpytest("--ora-out", "serial")
    assert outcomes(serial) == EXPECTED
    assert tables(report(project, "ahead")) == tables(report(project, "serial"))


def test_collect_only_judges_nothing_and_keeps_the_last_report(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    record(project)
    calls = judge.calls
    before = report(project)

    result = project.runpytest("--collect-only", "-q", "--ora-record", "all")

    assert result.ret == 0
    result.stdout.fnmatch_lines(["test_ora.py::test_capture[mode:argument-audit/optimum]"])
    assert judge.calls == calls
    assert report(project) == before
