"""Reliability: the faults a real run meets, what the user sees, what is written, and that nothing is lost.

docs/reliability.md is the fault matrix; each of its rows names the test that backs it, here or in
another test file. The end-to-end tests run pytest itself on a small bundle whose judges are the
loopback reference judge, with the keys below set: recognisable fake keys that must never appear
in anything a run writes or prints.
"""

from __future__ import annotations

import asyncio
import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.bundle_factory import write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.core.credentials import Secret, redact
from pytest_ora.core.errors import OutputError, TransportError
from pytest_ora.core.record import base_record
from pytest_ora.judges.panel import Judging
from pytest_ora.judges.providers import api_key_for
from pytest_ora.judges.transport import RetryPolicy, send
from pytest_ora.reports.aggregation import ledger_row
from pytest_ora.reports.methodology import RunFacts
from pytest_ora.reports.output import LOCK_NAME, OutputDir
from pytest_ora.testing.server import INVALID_FAULTS, Fault, ReferenceJudge

EVAL_TEST = (Path(__file__).parents[2] / "evals" / "test_ora.py").read_text(encoding="utf-8")
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
"""The captures of the test bundle that are judged, in run order."""
EXCLUDED = (
    "visual:causal-dag/optimum",
    "visual:causal-dag/big-1",
    "lens:fishbone-diagram/optimum",
    "lens:fishbone-diagram/big-1",
)
"""Its collision losers: never judged."""


# --- the project under test -------------------------------------------------------------------


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """The loopback reference judge accepts only this module's fake keys."""
    return {"keys": {"anthropic": KEY_A, "openai": KEY_B}}


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The sample eval suite over a 12-capture bundle judged by the loopback judge, keys set."""
    return fault_project(pytester, judge, monkeypatch)


def fault_project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The `project` of this module's fault tests (test_progress builds the same): one capture in flight at a time."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes)
    pytester.makepyfile(test_ora=EVAL_TEST)
    # One capture in flight at a time: FaultPlan arms each capture's faults as its test starts.
    pytester.makeini("[pytest]\nora_bundle = bundle\nora_concurrency = 1\n")
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
    return (
        {f"{path.parent.parent.name}:{path.parent.name}/{path.stem}" for path in root.rglob("*.json")}
        if root.is_dir()
        else set()
    )


def judge_file(project: pytest.Pytester, capture_id: str, slot: str) -> dict[str, Any]:
    """judges/<family>/<technique>/<configuration>.<slot>.json"""
    entry_key, _, configuration = capture_id.partition("/")
    family, _, technique = entry_key.partition(":")
    path = project.path / "ora-results" / "judges" / family / technique / f"{configuration}.{slot}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    counts = result.parseoutcomes()
    kinds = ("passed", "skipped", "lowscore", "failed", "errors")
    return {kind: counts[kind] for kind in kinds if counts.get(kind)}


class FaultPlan:
    """A plugin for in-process runs: before a capture's test runs, arm the faults planned for it.

    With --ora-concurrency 1 (the project's ini) a capture is judged while its own test runs, so the faults
    meet exactly that capture's judge calls.
    """

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
    "lens:historian/big-1": [Fault("slow", delay=4.0, provider="anthropic")],
}


def test_transient_faults_cost_a_retry_not_a_capture(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """429 (retry-after, retry-after-ms), 408, 500, 502, 503, 529, a dropped connection and a reply
    slower than --ora-timeout, each on one capture: retried with the default policy, all scored."""
    # When each judged capture meets one fault (two for one capture), under the default retry policy
    result = project.runpytest("--ora-record", "once", "--ora-timeout", "2", plugins=[FaultPlan(judge, TRANSIENT)])

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
    assert took["lens:historian/big-1"] >= 2.0  # the slow reply was abandoned at the 2 s timeout, then retried


def test_a_429_storm_is_ridden_out_with_the_default_policy(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """Every judge call gets 429 (no retry-after) for 3 s of real time: a run with the defaults retries
    through it and scores every capture. (That the defaults ride out a 10 s storm whatever the jitter
    draws is test_transport's storm test, on a virtual clock.)"""
    judge.inject(Fault("429", duration=3))
    started = time.monotonic()

    result = project.runpytest("--ora-record", "once")

    assert result.ret == 0, result.stdout.str()
    assert outcomes(result) == {"passed": 8, "skipped": 4}
    assert time.monotonic() - started >= 3
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}
    first = [judge_file(project, JUDGED[0], slot)["attempts"] for slot in ("big-1", "big-2")]
    assert all(2 < attempts <= 7 for attempts in first), first
    assert judge.calls > 16


BOUNDED = {
    "mode:argument-audit/optimum": [Fault("500", times=2, provider="anthropic")],
    "mode:causal-dag/optimum": [Fault("slow", times=2, delay=2.5, provider="openai")],
    "visual:fishbone-diagram/optimum": [Fault("drop", times=2, provider="anthropic")],
    "lens:historian/optimum": [Fault("429", times=2, retry_after="0", provider="openai")],
}


def test_faults_past_the_retry_bound_fail_their_capture_and_a_rerun_completes_it(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """With --ora-retries 1, a fault that repeats fails its capture naming the judge and the fault;
    the ledger keeps an error row; the other captures are scored; `once` then completes the run."""
    result = project.runpytest(
        "--ora-record", "once", "--ora-retries", "1", "--ora-timeout", "1", plugins=[FaultPlan(judge, BOUNDED)]
    )

    assert result.ret == 1
    assert outcomes(result) == {"passed": 4, "skipped": 4, "failed": 4}
    result.stdout.fnmatch_lines_random(
        [
            "*mode:argument-audit/optimum: Judge A (claude-opus-4-7): HTTP 500 after 2 attempts*provider error: re-run later*",
            "*mode:causal-dag/optimum: Judge B (gpt-5.4): ReadTimeout after 2 attempts*network fault*",
            "*visual:fishbone-diagram/optimum: Judge A (claude-opus-4-7): RemoteProtocolError after 2 attempts*",
            "*lens:historian/optimum: Judge B (gpt-5.4): HTTP 429 after 2 attempts*rate limited: lower -n or raise --ora-retries*",
        ]
    )
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

    # Then only the failed judge of each failed capture is asked again (the other judge's valid
    # exchange was kept in a partial cassette), and the ledger is complete
    assert again.ret == 0
    assert judge.calls == len(BOUNDED)
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
    plan = {cid: [Fault(kind, provider="anthropic")] for cid, kind in zip(JUDGED, INVALID_FAULTS, strict=True)}

    result = project.runpytest("--ora-record", "once", "--ora-reasks", "0", plugins=[FaultPlan(judge, plan)])

    assert result.ret == 1
    assert outcomes(result) == {"skipped": 4, "failed": 8}
    rows = ledger(project)
    for capture_id, kind in zip(JUDGED, INVALID_FAULTS, strict=True):
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
    assert judge.calls == 2 * 8  # Judge A's ask and re-ask; Judge B's valid exchange was kept from the first run
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
    result.stdout.fnmatch_lines(
        [
            "*mode:causal-dag/big-1: Judge A (claude-opus-4-7): HTTP 401 after 1 attempt: *invalid x-api-key*check the judge's API key*"
        ]
    )
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


# --- bundle side --------------------------------------------------------------------------------


def every_kind_of_bad_line(items: list[dict[str, Any]]) -> list[Any]:
    """Wrong types, an unknown family, a bad slug, an unknown configuration, a missing field, a
    duplicate capture id and a malformed line (line 10 gets non-UTF-8 bytes after writing)."""
    items[0]["answer"] = 42
    items[1]["acceptance"] = "yes"
    items[2]["cost_usd"] = "cheap"
    items[3]["entry_key"] = "method:causal-dag"
    items[4]["entry_key"] = "visual:Causal_DAG"
    items[5]["configuration"] = "big-9"
    del items[6]["prompt"]
    return [*items, items[7], "{not json"]


def test_bad_input_of_every_kind_stops_the_run_before_any_judge_call(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """One run, one message listing every problem by file, line, capture id and field; exit code 4;
    no judge contacted, nothing written."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    root = write_bundle(project.path / "bundle", routes=routes, edit=every_kind_of_bad_line)
    lines = (root / "captures.jsonl").read_bytes().split(b"\n")
    lines[9] = lines[9].replace(b"warehouse", b"wareh\xffouse", 1)
    (root / "captures.jsonl").write_bytes(b"\n".join(lines))

    result = project.runpytest("--ora-record", "once")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: capture bundle failed intake (13 problems):",
            "  - bundle.yaml: field 'scored_set.mode': scored set has 0 mode entries "
            "after collision resolution, expected 2 (missing: argument-audit, causal-dag)*",
            "  - bundle.yaml: field 'scored_set.visual': scored set has 2 visual entries after collision resolution, expected 1*",
            "  - bundle.yaml: field 'rubric': names no rubric, so ora-1.0 (the Ora judging method*) was used by default; choose another*",
            "  - captures.jsonl:1: mode:argument-audit/optimum: field 'answer': input should be a valid string (got 42)",
            "  - captures.jsonl:2: mode:argument-audit/big-1: field 'acceptance': input should be a valid dictionary* (got 'yes')",
            "  - captures.jsonl:3: mode:causal-dag/optimum: field 'cost_usd': must be a number (got 'cheap')",
            "  - captures.jsonl:4: method:causal-dag/big-1: field 'entry_key': must be "
            "family:technique with family mode, visual or lens* (got 'method:causal-dag')",
            "  - captures.jsonl:5: visual:Causal_DAG/optimum: field 'entry_key': must be family:technique* (got 'visual:Causal_DAG')",
            "  - captures.jsonl:6: visual:causal-dag/big-9: field 'configuration': "
            "names a configuration that bundle.yaml does not list (got 'big-9')*",
            "  - captures.jsonl:7: visual:fishbone-diagram/optimum: field 'prompt': is required but missing",
            "  - captures.jsonl:10: is not UTF-8 at byte 109 of the line; save the file as UTF-8",
            "  - captures.jsonl:13: visual:fishbone-diagram/big-1: field 'entry_key': repeats the capture id first seen on line 8*",
            "  - captures.jsonl:14: is not valid JSON: Expecting property name enclosed in double quotes at column 2*",
        ]
    )
    assert judge.requests == []
    assert not (project.path / "ora-results").exists() and not (project.path / "cassettes").exists()


def test_a_yaml_alias_bomb_is_refused_at_once(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """A billion-laughs bundle.yaml is refused from its event stream, unexpanded, in well under a second."""
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        bomb.append(f"{level}: &{level} [" + ", ".join([f"*{previous}"] * 9) + "]")
    (project.path / "bundle" / "bundle.yaml").write_text("\n".join(bomb) + "\n", encoding="utf-8")
    started = time.monotonic()

    result = project.runpytest("--ora-record", "once")

    assert time.monotonic() - started < 10
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bundle.yaml: uses 72 aliases (more than 64): refusing a possible alias bomb*"])
    assert judge.requests == []


def unscorable_and_large(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for item in items:
        capture_id = f"{item['entry_key']}/{item['configuration']}"
        if capture_id == "mode:argument-audit/optimum":
            item["answer"] = (item["answer"] + "\n\n") * (1_000_000 // (len(item["answer"]) + 2) + 1)
        elif capture_id == "mode:causal-dag/big-1":
            item["visual_artifact"] = "artifacts/latin1.svg"
        elif capture_id == "visual:fishbone-diagram/optimum":
            item["visual_artifact"] = "artifacts/missing.png"
        elif capture_id == "visual:fishbone-diagram/big-1":
            item["visual_artifact"] = "artifacts/huge.png"
    return items


def test_unscorable_captures_skip_with_their_reason_and_a_one_megabyte_answer_is_judged(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """Missing spec, missing artifact, an image over the 5 MB limit and an artifact that is neither
    an image nor UTF-8 are skipped as unscorable, never sent; a 1 MB answer is judged like any other."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    root = write_bundle(project.path / "bundle", routes=routes, edit=unscorable_and_large)
    (root / "specs" / "lens" / "historian.md").unlink()
    (root / "artifacts").mkdir()
    (root / "artifacts" / "huge.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * (5 * 1024 * 1024))
    (root / "artifacts" / "latin1.svg").write_bytes("<svg><text>Café</text></svg>".encode("latin-1"))

    result = project.runpytest("--ora-record", "once", "-rs")

    assert result.ret == 0, result.stdout.str()
    result.stdout.fnmatch_lines_random(
        [
            "SKIPPED*lens:historian/optimum: unscorable: no technique specification at specs/lens/historian.md",
            "SKIPPED*mode:causal-dag/big-1: unscorable: visual artifact artifacts/latin1.svg is neither an image nor UTF-8 text (byte 14)",
            "SKIPPED*visual:fishbone-diagram/optimum: unscorable: visual artifact artifacts/missing.png is missing",
            "SKIPPED*visual:fishbone-diagram/big-1: unscorable: visual artifact "
            "artifacts/huge.png is 5242888 bytes, over the 5 MB image limit judges accept",
        ]
    )
    rows = ledger(project)
    assert statuses(rows) == {"scored": 3, "unscorable": 5, "excluded": 4}
    assert rows["mode:argument-audit/optimum"]["status"] == "scored"
    sent = [r for r in judge.requests if r.method == "POST"]
    assert len(sent) == 2 * 3
    assert max(len(r.body) for r in sent) > 1_000_000
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert "- visual:fishbone-diagram/big-1: visual artifact artifacts/huge.png is 5242888 bytes" in methodology


def test_an_unreadable_artifact_is_unscorable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A text or image artifact the OS refuses to read (simulated: root reads anything) is unscorable,
    never a crash at judging time."""

    def locked(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for item in items:
            if item["entry_key"] == "visual:fishbone-diagram":
                suffix = "png" if item["configuration"] == "optimum" else "svg"
                item["visual_artifact"] = f"artifacts/locked-{item['configuration']}.{suffix}"
        return items

    root = write_bundle(tmp_path, edit=locked)
    (root / "artifacts").mkdir()
    (root / "artifacts" / "locked-optimum.png").write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    (root / "artifacts" / "locked-big-1.svg").write_text("<svg/>", encoding="utf-8")
    real_open = Path.open

    def refuse(self: Path, *args: Any, **kwargs: Any) -> Any:
        if self.name.startswith("locked-"):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", refuse)

    plan = intake(root)

    reasons = {
        p.capture.configuration: (p.status, p.reason)
        for p in plan.captures
        if p.capture.entry_key == "visual:fishbone-diagram"
    }
    assert reasons == {
        "optimum": ("unscorable", "visual artifact artifacts/locked-optimum.png cannot be read (Permission denied)"),
        "big-1": ("unscorable", "visual artifact artifacts/locked-big-1.svg cannot be read (Permission denied)"),
    }


# --- process side -------------------------------------------------------------------------------


def test_ctrl_c_keeps_what_was_judged_and_the_rerun_pays_for_nothing_twice(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """SIGINT in the middle of a slow live run: the interrupted run still writes its ledger and a
    methodology note saying it was interrupted; the same command again pays only for captures
    that have no cassette, and completes the ledger."""
    judge.latency = 1.0  # every judge call takes a second, so the run is interrupted mid-way
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--ora-record", "once"]
    process = project.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while len(recorded(project)) < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        time.sleep(0.3)  # the third capture's judge calls are in flight now
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=60)[0].decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    # Then the run stopped as interrupted, with the ledger and the methodology note of what was judged
    assert process.returncode == pytest.ExitCode.INTERRUPTED, output
    assert "KeyboardInterrupt" in output
    first = recorded(project)
    assert 2 <= len(first) < len(JUDGED)
    rows = ledger(project)
    scored = {cid for cid, row in rows.items() if row["status"] == "scored"}
    assert len(scored) >= 2 and scored <= first
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert f"- run interrupted: {len(rows)} captures recorded; re-run to complete" in methodology
    assert not (project.path / "ora-results" / LOCK_NAME).exists()

    # When the same command runs again
    judge.latency = 0.0
    judge.reset()
    again = project.runpytest("--ora-record", "once")

    # Then no recorded judge call is paid for again, and the ledger is complete
    assert again.ret == 0
    assert judge.calls == 2 * (len(JUDGED) - len(first))
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}
    assert "run interrupted" not in (project.path / "ora-results" / "methodology.md").read_text()


CRASH_ONCE = '''
import os
import signal
import time
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def crash_once(request):
    """Kill this worker (SIGKILL: no cleanup, no report) when it starts the victim, the first time only.

    A second first: xdist hands out the first work while this worker may already run the victim, and a
    worker dead before the controller has sent it all of its first work is xdist's own INTERNALERROR
    (a broken pipe), not the crash this test is about."""
    callspec = getattr(request.node, "callspec", None)
    planned = callspec.params.get("ora_capture") if callspec is not None else None
    marker = request.config.rootpath / "crashed-once"
    if planned is not None and planned.capture.capture_id == "mode:causal-dag/optimum" and not marker.exists():
        marker.write_text("crashed")
        time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGKILL)
    yield
'''


def test_a_killed_xdist_worker_is_reported_and_a_rerun_completes(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """A worker killed mid-run: xdist reports the crash, the methodology note says a selected capture
    has no record, the other captures are kept; a rerun judges only the missing one."""
    project.makeconftest(CRASH_ONCE)

    # xdist's own scheduling (with prompt caching on, see the next test)
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "--ora-record", "once", "--ora-prompt-cache", "off"
    )

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*worker 'gw*' crashed while running 'test_ora.py::test_capture?mode:causal-dag/optimum?'*"]
    )
    rows = ledger(project)
    assert set(rows) == {*JUDGED, *EXCLUDED} - {"mode:causal-dag/optimum"}
    assert statuses(rows) == {"scored": 7, "excluded": 4}
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert "- 1 selected captures have no record (a worker crashed or stopped); re-run to complete" in methodology
    output = result.stdout.str() + result.stderr.str()
    assert KEY_A not in output and KEY_B not in output

    judge.reset()
    again = project.runpytest("--ora-record", "once", "--ora-prompt-cache", "off")

    assert again.ret == 0
    assert judge.calls == 2
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}
    assert "have no record" not in (project.path / "ora-results" / "methodology.md").read_text()


def test_a_killed_worker_under_entry_grouping_has_its_entry_finished_by_the_replacement(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """With prompt caching on (the default), an entry's captures go to one worker through xdist's scope
    scheduler, which hands a dead worker's unfinished entry to its replacement: the crash is reported
    and fails the run, the crashed capture is judged there, and nothing is paid twice."""
    project.makeconftest(CRASH_ONCE)

    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--ora-record", "once")

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        ["*worker 'gw*' crashed while running 'test_ora.py::test_capture?mode:causal-dag/optimum?'*"]
    )
    rows = ledger(project)
    assert set(rows) == {*JUDGED, *EXCLUDED}
    assert statuses(rows) == {"scored": 8, "excluded": 4}
    assert judge.calls == 16  # the victim died before its judges were asked: every call paid once
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert "have no record" not in methodology
    output = result.stdout.str() + result.stderr.str()
    assert KEY_A not in output and KEY_B not in output


def test_an_unwritable_output_dir_stops_the_run_before_any_judge_call(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """--ora-out under a regular file (read-only as far as the run can tell; chmod does not stop root):
    exit code 4 with what to do, before any judge call."""
    (project.path / "blocker").write_text("a file, not a directory")

    result = project.runpytest("--ora-record", "once", "--ora-out", "blocker/ora-results")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: cannot write the report to */blocker/ora-results: Not a directory; choose a writable directory with --ora-out"
        ]
    )
    assert judge.calls == 0


def test_an_unwritable_cassettes_dir_stops_a_live_run_before_any_judge_call(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """Recordings that could not be written would make every judge call paid and then lost: a live
    run whose --ora-cassettes cannot be written stops with exit code 4 before contacting a judge."""
    (project.path / "blocker").write_text("a file, not a directory")

    result = project.runpytest("--ora-record", "once", "--ora-cassettes", "blocker/cassettes")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: cannot record judge calls in */blocker/cassettes: Not a directory; choose a writable directory with --ora-cassettes"
        ]
    )
    assert judge.requests == []


class _DiskFillsOn:
    """Stands in for the os and tempfile modules of pytest_ora.reports.output: the write of one report file
    stops half-way with ENOSPC, as on a full disk."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.current = ""

    def mkstemp(self, **kwargs: Any) -> tuple[int, str]:
        import tempfile

        self.current = kwargs.get("prefix", "")
        return tempfile.mkstemp(**kwargs)

    def fdopen(self, handle: int, *args: Any, **kwargs: Any) -> Any:
        stream = os.fdopen(handle, *args, **kwargs)
        if self.current != f".{self.name}.":
            return stream
        write = stream.write

        def half_then_full(text: str) -> int:
            write(text[: len(text) // 2])
            stream.flush()
            raise OSError(errno.ENOSPC, "No space left on device")

        stream.write = half_then_full
        return stream

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


SESSION_END_ORDER = (
    "ledger.jsonl",
    "summary.json",
    "run.json",
    "texts.json",
    "runs.json",  # the data files
    "summary.md",
    "summary.csv",
    "ledger.csv",
    "methodology.md",  # then the registry's renderings of them
)
"""The order the session end writes a judged rubric's files in, up to the statistics (reports/output.py)."""


@pytest.mark.parametrize("failing", ["ledger.jsonl", "summary.json", "methodology.md"])
def test_a_full_disk_at_the_end_leaves_no_half_written_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str
) -> None:
    """OutputDir.write_report on a disk that fills up: a readable OutputError, every report file is
    whole or absent (atomic replace, temporary files removed), no methodology note claims a finished
    report, and every judged capture is still in ledger.jsonl (the journal, or the final ledger)."""
    import pytest_ora.reports.output as output

    plan = intake(write_bundle(tmp_path / "bundle"))
    records = [
        base_record(p, "error" if p.status == "judge" else p.status, p.reason or "judge unavailable")
        for p in plan.captures
    ]
    out = OutputDir(tmp_path / "out")
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "methodology.md").write_text("a previous run's note")
    out.claim()
    for record in records:
        out.append(ledger_row(record, plan.rubric))
    out.flush_journal()  # the journal is on disk; the disk fills while the report is written
    fills = _DiskFillsOn(failing)
    monkeypatch.setattr(output, "os", fills)
    monkeypatch.setattr(output, "tempfile", fills)

    with pytest.raises(OutputError) as caught:
        out.write_report(plan, records, RunFacts(scoring_date="2026-06-20", record_mode="once", selected=len(records)))

    assert str(caught.value).startswith(
        f"could not finish the report in {tmp_path / 'out'}: No space left on device; the ledger journal there keeps every judged capture"
    )
    written = sorted(path.name for path in (tmp_path / "out").iterdir())
    assert not [name for name in written if name.endswith(".tmp")]
    assert "methodology.md" not in written
    # the files before the failing one are whole, none after it was started; ledger.jsonl is at least the journal of every row
    before = SESSION_END_ORDER[: SESSION_END_ORDER.index(failing)]
    assert written == sorted({*before, "ledger.jsonl", LOCK_NAME, "runs"})
    for name in before:
        if name.endswith(".json"):
            json.loads((tmp_path / "out" / name).read_text(encoding="utf-8"))  # whole
    assert (tmp_path / "out" / "runs" / "0001" / "methodology.md").read_text() == "a previous run's note"
    rows = [json.loads(line) for line in (tmp_path / "out" / "ledger.jsonl").read_text().splitlines()]
    assert sorted(row["capture_id"] for row in rows) == sorted(p.capture.capture_id for p in plan.captures)
    out.release()


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["in-process", "xdist"])
def test_a_full_disk_at_the_end_is_said_plainly_and_a_rerun_finishes_free(
    project: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch, workers: tuple[str, ...]
) -> None:
    """End to end: the report cannot be finished; the run says so in its summary and exits 4 (no
    traceback, pytest's own summary intact); a rerun replays every call and writes the full report.
    Under xdist the report is written on a thread while the workers shut down: its failure still
    reaches the summary and the exit status."""
    import pytest_ora.reports.output as output

    real = output.write_atomic

    def full(path: Path, text: str) -> None:
        if path.name == "methodology.md":
            time.sleep(1.0)  # a slow disk: the failure comes after xdist's workers have gone
            raise OSError(errno.ENOSPC, "No space left on device")
        real(path, text)

    monkeypatch.setattr(output, "write_atomic", full)
    result = project.runpytest("--ora-record", "once", *workers)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        [
            "ora: REPORT NOT WRITTEN: could not finish the report in */ora-results: No space left on device; "
            "the ledger journal there keeps every judged capture*",
            "*8 passed, 4 skipped*",
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    assert not (project.path / "ora-results" / "methodology.md").exists()
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}

    monkeypatch.setattr(output, "write_atomic", real)
    judge.reset()
    again = project.runpytest("--ora-record", "once", *workers)

    assert again.ret == 0
    assert judge.calls == 0
    assert (project.path / "ora-results" / "methodology.md").is_file()


def test_a_second_run_on_the_same_output_dir_is_refused_while_the_first_holds_it(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """The output directory's lock names a live process: the second run stops with exit code 4 before
    judging, and leaves the lock and the first run's files alone."""
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        out = project.path / "ora-results"
        out.mkdir()
        (out / LOCK_NAME).write_text(str(holder.pid))
        (out / "ledger.jsonl").write_text("the first run's journal\n")

        result = project.runpytest("--ora-record", "once")

        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [
                f"ERROR: another pytest-ora run (pid {holder.pid}) is writing to */ora-results; wait for it or use a different --ora-out"
            ]
        )
        assert judge.calls == 0
        assert (out / LOCK_NAME).read_text() == str(holder.pid)
        assert (out / "ledger.jsonl").read_text() == "the first run's journal\n"
    finally:
        holder.kill()
        holder.wait()


def test_a_stale_lock_of_a_dead_run_is_taken_over(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """A lock left by a run that died (its pid is gone) does not block the next run, which releases it at the end."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    out = project.path / "ora-results"
    out.mkdir()
    (out / LOCK_NAME).write_text(str(dead.pid))

    result = project.runpytest("--ora-record", "once")

    assert result.ret == 0
    assert statuses(ledger(project)) == {"scored": 8, "excluded": 4}
    assert not (out / LOCK_NAME).exists()


# --- secrets ------------------------------------------------------------------------------------

KEY_CORE = "ORA-RELIABILITY-FAKE-KEY"
"""The part both fake keys share: a leak of either, whole or cut, contains it."""


def leaks(project: pytest.Pytester, *results: pytest.RunResult) -> list[str]:
    """Every file under the project and every terminal output that holds a key or a part of one."""
    files = [path for path in project.path.rglob("*") if path.is_file()]
    found = [str(path.relative_to(project.path)) for path in files if KEY_CORE.encode() in path.read_bytes()]
    for index, result in enumerate(results):
        if KEY_CORE in result.stdout.str() + result.stderr.str():
            found.append(f"output of run {index}")
    return found


def test_no_mode_writes_or_prints_a_key(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """With the keys set, every record mode and the dry run, with failures among the captures
    (a 401, an invalid reply shown raw), verbose, with locals and junitxml: no file and no output
    holds any part of a key."""
    trouble = {
        "mode:causal-dag/optimum": [Fault("401", provider="openai")],
        "lens:historian/big-1": [Fault("prose", times=2, provider="anthropic")],
    }
    loud = ("-v", "-rA", "-l", "--tb=long")
    runs = [
        project.runpytest(
            "--ora-record", "once", "--junitxml", "junit-once.xml", *loud, plugins=[FaultPlan(judge, trouble)]
        ),
        project.runpytest("--ora-record", "new_episodes", "--junitxml", "junit-new-episodes.xml", *loud),
        project.runpytest("--ora-record", "all", "--junitxml", "junit-all.xml", *loud),
        project.runpytest("--ora-record", "none", "--junitxml", "junit-none.xml", *loud),
        project.runpytest("--ora-dry-run", "--junitxml", "junit-dry-run.xml", *loud),
    ]

    # Then the failures happened, and were shown, without the key
    assert [run.ret for run in runs] == [1, 0, 0, 0, 0]
    runs[0].stdout.fnmatch_lines_random(
        [
            "*mode:causal-dag/optimum: Judge B (gpt-5.4): HTTP 401 after 1 attempt: invalid_api_key: Incorrect API key provided: sk-p****4d77.*",
            "*lens:historian/big-1: Judge A (claude-opus-4-7) gave an invalid reply after 2 asks*Raw reply:*",
        ]
    )
    assert "HTTP 401" in (project.path / "junit-once.xml").read_text()
    assert len(recorded(project)) == 8 and (project.path / "ora-results" / "estimate.json").is_file()
    # (the keys were really used: every request carried one)
    sent = judge.requests
    assert sent and all(
        r.headers.get("x-api-key") == KEY_A or r.headers.get("authorization") == f"Bearer {KEY_B}" for r in sent
    )
    assert leaks(project, *runs) == []


LOCALS_BOOM = '''
import pytest
import pytest_ora.judges.panel


@pytest.fixture(autouse=True)
def judge_code_breaks(request, monkeypatch):
    """An unexpected exception inside judging, after the keys were used: a traceback with locals."""
    if "mode:argument-audit/optimum" in request.node.name:
        def broken(*args, **kwargs):
            raise RuntimeError("unexpected failure while checking a reply")
        monkeypatch.setattr(pytest_ora.judges.panel, "check_reply", broken)
    yield
'''


def test_a_traceback_with_locals_never_shows_a_key(project: pytest.Pytester) -> None:
    """A capture failing on an unexpected exception, shown with --showlocals and --tb=long: every
    frame's locals are printed (the key's included, as a redacted Secret), never the key."""
    project.makeconftest(LOCALS_BOOM)

    result = project.runpytest("--ora-record", "once", "-k", "argument-audit", "--showlocals", "--tb=long")

    assert result.ret == 1
    assert outcomes(result) == {"passed": 1, "failed": 1}
    output = result.stdout.str()
    assert "RuntimeError: unexpected failure while checking a reply" in output
    assert "key        = Secret('[redacted]')" in output
    assert "secrets    = (Secret('[redacted]'), Secret('[redacted]'))" in output
    assert leaks(project, result) == []


def test_keys_exceptions_and_reprs_never_show_a_key(tmp_path: Path) -> None:
    """A key is a Secret: its repr, and the repr of anything holding it, is redacted; a transport
    error whose provider message echoes the key carries it nowhere (message, args, repr, attributes)."""
    plan = intake(write_bundle(tmp_path))
    plan_key = api_key_for(plan.panel.judges[0].spec, {"ANTHROPIC_API_KEY": f"  {KEY_A}\n"})
    assert plan_key == KEY_A and isinstance(plan_key, Secret)
    for shown in (repr(plan_key), repr([plan_key]), repr({"key": plan_key}), f"{(plan_key,)!r}"):
        assert KEY_CORE not in shown
    judging = Judging(plan.panel, plan.rubric, environ=KEYS)
    assert KEY_CORE not in repr(judging) and KEY_CORE not in repr(judging.secrets())
    assert redact(f"header x-api-key: {KEY_A}", [KEY_A]) == "header x-api-key: [redacted]"

    def echo(request: httpx.Request) -> httpx.Response:
        message = f"key {request.headers['x-api-key']} revoked"
        return httpx.Response(401, json={"error": {"type": "authentication_error", "message": message}})

    async def call() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(echo)) as client:
            headers = {"x-api-key": KEY_A}
            request = httpx.Request("POST", "https://judge.invalid/v1/messages", headers=headers, content=b"{}")
            await send(
                client,
                request,
                policy=RetryPolicy(),
                judge="Judge A (claude-opus-4-7)",
                error_message=lambda r: r.json()["error"]["message"],
                secrets=(plan_key,),
            )

    with pytest.raises(TransportError) as caught:
        asyncio.run(call())
    error = caught.value
    assert "HTTP 401" in str(error) and "key [redacted] revoked" in str(error)
    for shown in (str(error), repr(error), repr(error.args), error.provider_message or "", repr(vars(error))):
        assert KEY_CORE not in shown
