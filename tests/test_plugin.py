"""End to end through pytest itself: a bundle in a temp dir, the reference judge on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bundle_factory import write_bundle

from pytest_ora.testing.server import ReferenceJudge

EVAL_TEST = (Path(__file__).parent.parent / "evals" / "test_ora.py").read_text(encoding="utf-8")
KEY_A = "sk-ant-FAKE-KEY-never-written-4242"
KEY_B = "sk-FAKE-KEY-never-written-8484"
EXPECTED = {"passed": 6, "skipped": 5, "lowscore": 1, "failed": 0, "errors": 0}
REPORT = ("ledger.jsonl", "ledger.csv", "summary.json", "summary.md", "summary.csv", "methodology.md", "report.html")
STATS = ("stats.json", "disagreements.csv")


def low_and_excluded(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for item in items:
        if item["entry_key"] == "mode:causal-dag" and item["configuration"] == "big-1":
            item["answer"] = ""
        if item["entry_key"] == "lens:historian" and item["configuration"] == "big-1":
            item["acceptance"] = {"passed": False, "reason": "fallback", "notes": "answered by a fallback model"}
    return items


@pytest.fixture
def judge() -> Iterator[ReferenceJudge]:
    with ReferenceJudge(keys={"anthropic": KEY_A, "openai": KEY_B}) as server:
        yield server


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge) -> pytest.Pytester:
    """A project holding the eval suite and a bundle whose judges are the loopback server."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes, edit=low_and_excluded)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return pytester


def record(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Judge live (record mode once) with the keys set only for this run."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", KEY_A)
        patch.setenv("OPENAI_API_KEY", KEY_B)
        return project.runpytest("--ora-record", "once", *args)


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    counts = result.parseoutcomes()
    return {kind: counts.get(kind, 0) for kind in ("passed", "skipped", "lowscore", "failed", "errors")}


def report(project: pytest.Pytester, out: str = "ora-results") -> dict[str, bytes]:
    return {name: (project.path / out / name).read_bytes() for name in REPORT + STATS}


def tables(files: dict[str, bytes]) -> dict[str, bytes]:
    """The report without what only a live run has: its methodology note and its judge spend."""
    kept = {name: data for name, data in files.items() if name != "methodology.md"}
    head, _, rest = kept["summary.md"].partition(b"\n## Judge spend")
    statistics = rest.partition(b"\n## Statistics")  # the Statistics section follows the spend: keep it
    kept["summary.md"] = head + (statistics[1] + statistics[2] if statistics[1] else b"")
    if "report.html" in kept:  # a later run into the same directory lists the earlier ones (runs/): by design
        page = kept["report.html"]
        start = page.find(b'<section id="earlier-runs">')
        if start >= 0:
            kept["report.html"] = page[:start] + page[page.index(b"</section>", start):]
    return kept


def test_recording_scores_every_capture_and_writes_the_report(project: pytest.Pytester) -> None:
    # When the bundle is judged live against the loopback judges
    result = record(project, "-rs")

    # Then scorable captures pass, the empty answer is a LOWSCORE, invalid and collision losers skip
    assert outcomes(result) == EXPECTED
    assert result.ret == 0
    result.stdout.fnmatch_lines([
        "ora: rubric ora-1.0: weighted = 0.35*fidelity + 0.25*soundness + 0.18*completeness + 0.12*relevance + 0.10*calibration; overall = min(weighted, fidelity); failure when overall < 4.0",
        "ora: panel Optimum Big 1 / Big 2: Judge A = big-1 claude-opus-4-7 (anthropic), Judge B = big-2 gpt-5.4 (openai)",
        "*ora summary*",
        "optimum *",
        "SKIPPED [1] test_ora.py:14: lens:fishbone-diagram/big-1: excluded: collision: fishbone-diagram is scored as visual",
        "SKIPPED [1] test_ora.py:14: lens:historian/big-1: excluded: invalid capture (fallback): returned to capture audit",
    ])
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
    result.stdout.fnmatch_lines(["*mode:argument-audit/big-1: no recorded judge call for mode:argument-audit/big-1*--ora-record once*"])
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
    result.stdout.fnmatch_lines([
        "mode:argument-audit/optimum: recorded for a different judge request (packet field 'prompt' changed); see the ora summary*",
        "ora: 1 capture was recorded for a different judge request (packet field 'prompt' in 1); re-record only them*"
        "pytest *-k mode:argument-audit/optimum --ora-record new_episodes",
    ])
    row = json.loads((project.path / "ora-results" / "ledger.jsonl").read_text())
    assert "(packet field 'prompt' changed): re-record with --ora-record new_episodes" in row["reason"]  # the ledger keeps it all


def test_bad_input_stops_the_run_with_one_clear_message(project: pytest.Pytester) -> None:
    captures = project.path / "bundle" / "captures.jsonl"
    lines = captures.read_text().splitlines()
    lines[2] = lines[2].replace('"optimum"', '"nowhere"')
    lines.append("{broken")
    captures.write_text("\n".join(lines) + "\n")

    result = project.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([
        "ERROR: capture bundle failed intake (2 problems):",
        "  - captures.jsonl:3: mode:causal-dag/nowhere: field 'configuration': names a configuration that bundle.yaml does not list*",
        "  - captures.jsonl:13: is not valid JSON*",
    ])
    assert not (project.path / "ora-results" / "ledger.jsonl").exists()


def test_an_unreachable_judge_stops_a_live_run_before_judging(
    project: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)

    result = project.runpytest("--ora-record", "once")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: judging stopped before any capture was judged: Judge A (role big-1, model claude-opus-4-7, *): HTTP 401*"])
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
