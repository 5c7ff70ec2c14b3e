"""Reliability: the faults a real run meets, what the user sees, what is written, and that nothing is lost.

docs/reliability.md is the fault matrix; each of its rows names the test that backs it, here or in
another test file. The end-to-end tests run pytest itself on a small bundle whose judges are the
loopback reference judge, with the keys below set: recognisable fake keys that must never appear
in anything a run writes or prints.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# httpx imports httpcore lazily. Import it while this module is collected, so every in-process
# pytester run below finds it already loaded: pytester restores sys.modules after each run, and a
# second copy of httpcore imported inside one run would make httpx's exception mapping miss its
# errors in later runs (a dropped connection would escape as httpcore's error instead of retried).
import httpcore  # noqa: F401
import httpx
import pytest
from bundle_factory import write_bundle

from pytest_ora.credentials import Secret, redact
from pytest_ora.errors import OutputError, TransportError
from pytest_ora.intake import intake
from pytest_ora.judges import api_key_for
from pytest_ora.judging import Judging
from pytest_ora.methodology import RunFacts
from pytest_ora.output import LOCK_NAME, REPORT_FILES, OutputDir
from pytest_ora.testing.server import INVALID_FAULTS, Fault, ReferenceJudge
from pytest_ora.transport import RetryPolicy, send

EVAL_TEST = (Path(__file__).parent.parent / "evals" / "test_ora.py").read_text(encoding="utf-8")
KEY_A = "sk-ant-ORA-RELIABILITY-FAKE-KEY-7a1c33"
KEY_B = "sk-proj-ORA-RELIABILITY-FAKE-KEY-9e4d77"
KEYS = {"ANTHROPIC_API_KEY": KEY_A, "OPENAI_API_KEY": KEY_B}
JUDGED = (
    "mode:argument-audit/optimum",
    "mode:argument-audit/big-1",
    "mode:causal-dag/optimum",
    "mode:causal-dag/big-1",
    "visual:fishbone-diagram/optimum",
    "visual:fishbone-diagram/big-1",
    "lens:historian/optimum",
    "lens:historian/big-1",
)
"""The captures of the test bundle that are judged, in run order; the other 4 are collision losers."""
CAPTURES = 12


# --- the project under test -------------------------------------------------------------------


@pytest.fixture
def judge() -> Iterator[ReferenceJudge]:
    """The loopback reference judge, accepting only the fake keys."""
    with ReferenceJudge(keys={"anthropic": KEY_A, "openai": KEY_B}) as server:
        yield server


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The sample eval suite over a 12-capture bundle judged by the loopback judge, keys set."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    return pytester


def ledger(project: pytest.Pytester, out: str = "ora-results") -> dict[str, dict[str, Any]]:
    """The ledger's rows by capture id."""
    text = (project.path / out / "ledger.jsonl").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in text.splitlines()]
    return {row["capture_id"]: row for row in rows}


def statuses(rows: dict[str, dict[str, Any]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows.values():
        counts[row["status"]] = counts.get(row["status"], 0) + 1
    return counts


def recorded(project: pytest.Pytester) -> set[str]:
    """Capture ids that have a cassette."""
    root = project.path / "cassettes"
    return {
        f"{path.parent.parent.name}:{path.parent.name}/{path.stem}" for path in root.rglob("*.json")
    } if root.is_dir() else set()


def judge_file(project: pytest.Pytester, capture_id: str, slot: str) -> dict[str, Any]:
    """judges/<family>/<technique>/<configuration>.<slot>.json"""
    entry_key, _, configuration = capture_id.partition("/")
    family, _, technique = entry_key.partition(":")
    path = project.path / "ora-results" / "judges" / family / technique / f"{configuration}.{slot}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    counts = result.parseoutcomes()
    return {kind: counts.get(kind, 0) for kind in ("passed", "skipped", "lowscore", "failed", "errors") if counts.get(kind)}


class FaultPlan:
    """A plugin for in-process runs: before a capture's test runs, arm the faults planned for it."""

    def __init__(self, judge: ReferenceJudge, faults: dict[str, Sequence[Fault]]) -> None:
        self.judge = judge
        self.faults = faults

    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        callspec = getattr(item, "callspec", None)
        planned = callspec.params.get("ora_capture") if callspec is not None else None
        if planned is not None:
            self.judge.inject(*self.faults.get(planned.capture.capture_id, ()))


def durations(result: pytest.RunResult) -> dict[str, float]:
    """Each capture's call duration in seconds, by capture id."""
    return {
        report.nodeid.partition("[")[2][:-1]: report.duration
        for report in result.reprec.getreports("pytest_runtest_logreport")  # type: ignore[attr-defined]
        if report.when == "call"
    }


# --- judge side ---------------------------------------------------------------------------------

TRANSIENT = {
    "mode:argument-audit/optimum": [Fault("429", retry_after="1", provider="anthropic")],
    "mode:argument-audit/big-1": [Fault("429", retry_after_ms="300", retry_after="30", provider="openai")],
    "mode:causal-dag/optimum": [Fault("500", provider="anthropic")],
    "mode:causal-dag/big-1": [Fault("502", provider="openai")],
    "visual:fishbone-diagram/optimum": [Fault("503", provider="anthropic"), Fault("408", provider="openai")],
    "visual:fishbone-diagram/big-1": [Fault("529", provider="anthropic")],
    "lens:historian/optimum": [Fault("drop", provider="openai")],
    "lens:historian/big-1": [Fault("slow", delay=3.0, provider="anthropic")],
}


def test_transient_faults_cost_a_retry_not_a_capture(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """429 (retry-after, retry-after-ms), 408, 500, 502, 503, 529, a dropped connection and a reply
    slower than --ora-timeout, each on one capture: retried with the default policy, all scored."""
    # When each judged capture meets one fault (two for one capture), under the default retry policy
    result = project.runpytest("--ora-record", "once", "--ora-timeout", "1", plugins=[FaultPlan(judge, TRANSIENT)])

    # Then every capture is scored, nothing failed, and each fault cost exactly one more attempt
    assert result.ret == 0, result.stdout.str()
    assert outcomes(result) == {"passed": 8, "skipped": 4}
    assert judge.pending() == []
    rows = ledger(project)
    assert statuses(rows) == {"scored": 8, "excluded": 4}
    faulted = {(cid, f.provider) for cid, faults in TRANSIENT.items() for f in faults}
    for capture_id in JUDGED:
        for slot, provider in (("big-1", "anthropic"), ("big-2", "openai")):
            expected = 2 if (capture_id, provider) in faulted else 1
            assert judge_file(project, capture_id, slot)["attempts"] == expected, (capture_id, slot)
    assert judge.calls == 16 + 9
    assert recorded(project) == set(JUDGED)
    # And the waits the server asked for were honoured: retry-after 1 s; retry-after-ms 300 over retry-after 30
    took = durations(result)
    assert took["mode:argument-audit/optimum"] >= 1.0
    assert 0.3 <= took["mode:argument-audit/big-1"] < 5
    assert took["lens:historian/big-1"] >= 1.0  # the slow reply was abandoned at the 1 s timeout, then retried


def test_a_ten_second_429_storm_is_ridden_out_with_the_default_policy(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """Every judge call gets 429 (no retry-after) for 10 s: the defaults (7 attempts, equal jitter
    from 0.5 s) wait at least 15.75 s in all, so the storm passes before the bound."""
    judge.inject(Fault("429", duration=10))
    started = time.monotonic()

    result = project.runpytest("--ora-record", "once")

    assert result.ret == 0, result.stdout.str()
    assert outcomes(result) == {"passed": 8, "skipped": 4}
    assert time.monotonic() - started >= 10
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}
    first = [judge_file(project, JUDGED[0], slot)["attempts"] for slot in ("big-1", "big-2")]
    assert all(2 < attempts <= 7 for attempts in first), first
    assert judge.calls > 16


BOUNDED = {
    "mode:argument-audit/optimum": [Fault("500", times=2, provider="anthropic")],
    "mode:causal-dag/optimum": [Fault("slow", times=2, delay=1.5, provider="openai")],
    "visual:fishbone-diagram/optimum": [Fault("drop", times=2, provider="anthropic")],
    "lens:historian/optimum": [Fault("429", times=2, retry_after="0", provider="openai")],
}


def test_faults_past_the_retry_bound_fail_their_capture_and_a_rerun_completes_it(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """With --ora-retries 1, a fault that repeats fails its capture naming the judge and the fault;
    the ledger keeps an error row; the other captures are scored; `once` then completes the run."""
    result = project.runpytest(
        "--ora-record", "once", "--ora-retries", "1", "--ora-timeout", "0.5", plugins=[FaultPlan(judge, BOUNDED)]
    )

    assert result.ret == 1
    assert outcomes(result) == {"passed": 4, "skipped": 4, "failed": 4}
    result.stdout.fnmatch_lines_random([
        "*mode:argument-audit/optimum: Judge A (claude-opus-4-7): HTTP 500 after 2 attempts*provider error: re-run later*",
        "*mode:causal-dag/optimum: Judge B (gpt-5.4): ReadTimeout after 2 attempts*network fault*",
        "*visual:fishbone-diagram/optimum: Judge A (claude-opus-4-7): RemoteProtocolError after 2 attempts*",
        "*lens:historian/optimum: Judge B (gpt-5.4): HTTP 429 after 2 attempts*rate limited: lower -n or raise --ora-retries*",
    ])
    rows = ledger(project)
    assert statuses(rows) == {"scored": 4, "excluded": 4, "error": 4}
    for capture_id in BOUNDED:
        assert rows[capture_id]["status"] == "error" and "after 2 attempts" in rows[capture_id]["reason"]
    assert recorded(project) == set(JUDGED) - set(BOUNDED)
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert "4 captures could not be judged (see Errors); they are not in the means" in methodology

    # When the same command runs again with the faults gone
    judge.reset()
    again = project.runpytest("--ora-record", "once")

    # Then only the failed captures are judged (both judges each), and the ledger is complete
    assert again.ret == 0
    assert judge.calls == 2 * len(BOUNDED)
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}


EXPECTED_INVALID = {
    "out_of_range": "field 'scores.fidelity' is outside the scale 0-10 (got 11.0)",
    "missing_criterion": "field 'scores.fidelity' is missing",
    "non_numeric": "field 'scores.fidelity' must be a number",
    "wrong_echo": "field 'entry_key' does not match the packet's",
    "truncated": "field '(reply)' was cut off at the output token limit",
    "refusal": "field '(reply)' is a refusal",
    "empty": "field '(reply)' is empty",
    "prose": "field '(reply)' is not a single JSON object",
}


def test_every_invalid_reply_kind_fails_its_capture_by_name_and_a_rerun_reasks(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """Each judged capture gets a different invalid reply from Judge A. With no re-asks each fails
    naming the judge, the field and the raw reply (never clamped or defaulted); with the default one
    re-ask the rerun asks again and scores them all."""
    assert set(EXPECTED_INVALID) == set(INVALID_FAULTS)
    plan = {cid: [Fault(kind, provider="anthropic")] for cid, kind in zip(JUDGED, INVALID_FAULTS)}

    result = project.runpytest("--ora-record", "once", "--ora-reasks", "0", plugins=[FaultPlan(judge, plan)])

    assert result.ret == 1
    assert outcomes(result) == {"skipped": 4, "failed": 8}
    rows = ledger(project)
    for capture_id, kind in zip(JUDGED, INVALID_FAULTS):
        reason = rows[capture_id]["reason"]
        assert rows[capture_id]["status"] == "error"
        assert reason.startswith("Judge A (claude-opus-4-7) gave an invalid reply after 1 ask: ")
        assert EXPECTED_INVALID[kind] in reason and "Raw reply: " in reason, reason
        assert rows[capture_id]["judge_a"] is None and rows[capture_id]["overall"] is None
        result.stdout.fnmatch_lines([f"*{capture_id}: Judge A (claude-opus-4-7) gave an invalid reply*"])
    assert recorded(project) == set()
    assert not list((project.path / "ora-results").rglob("*.big-1.json"))

    # When the run is repeated with the default re-ask, each kind arriving once more
    judge.reset()
    again = project.runpytest("--ora-record", "once", plugins=[FaultPlan(judge, plan)])

    # Then every capture is asked again once, scored from the valid reply, and the re-asks are counted
    assert again.ret == 0, again.stdout.str()
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}
    assert judge.calls == 2 * 8 + 8
    assert all(judge_file(project, cid, "big-1")["asks"] == 2 for cid in JUDGED)
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert "- Re-asks after invalid replies: 8\n  - Judge A: 8\n  - Judge B: 0" in methodology


class RevokeKeyAfter:
    """A plugin for in-process runs: once `count` captures were judged, every judge call gets 401."""

    def __init__(self, judge: ReferenceJudge, count: int) -> None:
        self.judge = judge
        self.count = count
        self.judged = 0

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call" and report.passed:
            self.judged += 1
            if self.judged == self.count:
                self.judge.inject(Fault("401", times=1000))


def test_a_key_rejected_mid_run_fails_the_rest_readably_and_a_rerun_pays_only_for_them(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """After 3 captures the judges start answering 401: the remaining captures fail naming the judge
    and HTTP 401, the ledger has error rows for them, the 3 stay scored; a rerun with a good key and
    `--ora-record once` judges only the failed ones."""
    result = project.runpytest("--ora-record", "once", plugins=[RevokeKeyAfter(judge, 3)])

    assert result.ret == 1
    assert outcomes(result) == {"passed": 3, "skipped": 4, "failed": 5}
    result.stdout.fnmatch_lines([
        "*mode:causal-dag/big-1: Judge A (claude-opus-4-7): HTTP 401 after 1 attempt: *invalid x-api-key*check the judge's API key*"
    ])
    rows = ledger(project)
    failed = set(JUDGED[3:])
    assert {cid for cid, row in rows.items() if row["status"] == "error"} == failed
    assert all("HTTP 401" in rows[cid]["reason"] and "Judge A" in rows[cid]["reason"] for cid in failed)
    assert {cid for cid, row in rows.items() if row["status"] == "scored"} == set(JUDGED[:3])
    assert recorded(project) == set(JUDGED[:3])
    assert KEY_A not in result.stdout.str() and KEY_B not in result.stdout.str()

    # When the key is good again and the same command runs
    judge.reset()
    again = project.runpytest("--ora-record", "once")

    # Then only the 5 failed captures are paid for, and the ledger is complete
    assert again.ret == 0
    assert judge.calls == 2 * len(failed)
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}
