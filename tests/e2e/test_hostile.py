"""Hostile input and faults: no escape from the bundle, no secret written, no hang, no paid call lost.

One test (or one parametrized test) per fault of docs/reliability.md's "Hostile input" section.
Judge-side faults go through the loopback reference judge's mutating-proxy faults (rewrite,
trickle, bogus_gzip); bundle-side faults are written into small bundles; process faults run
pytest itself, in a subprocess where a signal or a second run is involved.
"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from support.bundle_factory import write_bundle
from support.fake_keys import FAKE_A, FAKE_B, KEYS
from test_cassettes import FAST, Bench, change_answer, planned

from pytest_ora.bundle.intake import intake
from pytest_ora.core.errors import (
    CorruptCassette,
    IntakeError,
    InvalidReplyError,
    OraError,
    PacketDrift,
    TransportError,
)
from pytest_ora.harness.runner import CaptureRunner
from pytest_ora.judges.cassettes import CassetteLibrary, cassette_path
from pytest_ora.judges.panel import Judging
from pytest_ora.judges.providers.base import ProviderReply, loads_body
from pytest_ora.judges.reply import ReplyProblem, check_reply
from pytest_ora.judges.transport import MAX_REPLY_BYTES, RetryPolicy
from pytest_ora.method.rubric import get_rubric
from pytest_ora.reports.filewriter import CaptureFiles
from pytest_ora.reports.output import LOCK_NAME
from pytest_ora.testing.server import Fault, ReferenceJudge

EVAL_TEST = (Path(__file__).parents[2] / "evals" / "test_ora.py").read_text(encoding="utf-8")
CAPTURE_ID = "mode:argument-audit/optimum"


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """The reference judge (tests/conftest.py's `judge`) accepts only the fake keys."""
    return {"keys": {"anthropic": FAKE_A, "openai": FAKE_B}}


@pytest.fixture
def bench(tmp_path: Path, judge: ReferenceJudge) -> Iterator[Bench]:
    """A bundle routed to that judge, and runners over one cassettes directory; closed afterwards."""
    bench = Bench(tmp_path, judge)
    yield bench
    bench.close()


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The sample eval suite over the 12-capture test bundle (8 judged), judged by the loopback judge."""
    write_bundle(pytester.path / "bundle", routes={"big-1": judge.route("anthropic"), "big-2": judge.route("openai")})
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    return pytester


def runner_with(bench: Bench, policy: RetryPolicy, mode: str = "once", reasks: int = 1) -> CaptureRunner:
    """A bench runner with its own retry policy."""
    plan = bench.plan()
    judging = Judging(plan.panel, plan.rubric, policy=policy, reasks=reasks, environ=dict(KEYS))
    runner = CaptureRunner(
        plan.bundle.root, judging, CassetteLibrary(bench.cassettes, mode, judging.secrets()), CaptureFiles(bench.out)
    )
    bench._runners.append(runner)
    return runner


def problems(root: Path) -> str:
    with pytest.raises(IntakeError) as caught:
        intake(root)
    return str(caught.value)


def leaked(root: Path, *texts: str) -> list[str]:
    """Files under root, and texts, that hold either fake key."""
    found = [
        str(path)
        for path in root.rglob("*")
        if path.is_file() and any(key.encode() in path.read_bytes() for key in (FAKE_A, FAKE_B))
    ]
    return found + [text[:80] for text in texts if FAKE_A in text or FAKE_B in text]


# --- 1. symlinks out of the bundle -------------------------------------------------------------


@pytest.mark.parametrize("target", ["artifact", "spec", "specs-dir", "captures.jsonl", "bundle.yaml", "optimum.yaml"])
def test_a_symlink_out_of_the_bundle_stops_intake_and_nothing_outside_is_read(tmp_path: Path, target: str) -> None:
    """Every file the bundle names must resolve inside it: a symlink out stops intake (exit 4) naming the field."""
    secret = tmp_path / "outside" / "environ"
    secret.parent.mkdir()
    secret.write_text(f"ANTHROPIC_API_KEY={FAKE_A}\n", encoding="utf-8")
    root = write_bundle(tmp_path / "bundle")
    if target == "artifact":
        lines = (root / "captures.jsonl").read_text().splitlines()
        first = json.loads(lines[0])
        first["visual_artifact"] = "artifacts/diagram.svg"
        (root / "captures.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
        (root / "artifacts").mkdir()
        (root / "artifacts" / "diagram.svg").symlink_to(secret)
        expected = "field 'visual_artifact': resolves outside the bundle (through a symlink)"
    elif target == "spec":
        spec = root / "specs" / "mode" / "argument-audit.md"
        spec.unlink()
        spec.symlink_to(secret)
        expected = "field 'spec': resolves outside the bundle (through a symlink)"
    elif target == "specs-dir":
        (secret.parent / "mode").mkdir()
        for spec in (root / "specs" / "mode").iterdir():
            (secret.parent / "mode" / spec.name).write_text("outside", encoding="utf-8")
        (root / "specs" / "mode").rename(tmp_path / "kept")
        (root / "specs" / "mode").symlink_to(secret.parent / "mode")
        expected = "field 'spec': resolves outside the bundle (through a symlink)"
    else:
        moved = tmp_path / "outside" / target
        (root / target).rename(moved)
        (root / target).symlink_to(moved)
        expected = f"{target}: resolves outside the bundle (through a symlink)"

    message = problems(root)

    assert expected in message
    assert FAKE_A not in message


def test_an_artifact_symlinked_to_the_environment_is_never_sent(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """The reported case: an artifact -> /proc/self/environ stops the run before any judge call, no key written."""
    root = project.path / "bundle"
    lines = (root / "captures.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first["visual_artifact"] = "artifacts/env.svg"
    (root / "captures.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    (root / "artifacts").mkdir()
    (root / "artifacts" / "env.svg").symlink_to("/proc/self/environ")

    result = project.runpytest("--ora-record", "once", "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*field 'visual_artifact': resolves outside the bundle (through a symlink)*"])
    assert judge.calls == 0
    assert leaked(project.path, result.stdout.str(), result.stderr.str()) == []


# --- 2. judge text in every output is redacted -------------------------------------------------


def test_judge_text_reaching_any_output_is_redacted(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """A 2xx body that is not JSON, with keys at both ends: redacted in reason, terminal, ledger, note and junit."""
    padding = "x" * 5000

    def not_json(body: bytes) -> bytes:
        return f"<html>{FAKE_B} {padding} {FAKE_A}</html>".encode()

    judge.inject(Fault("rewrite", rewrite=not_json, times=2, provider="openai"))

    # One capture at a time: which capture's calls meet the two faults must not depend on scheduling.
    result = project.runpytest(
        "--ora-record",
        "once",
        "--ora-concurrency",
        "1",
        "-k",
        "argument-audit",
        "-rA",
        "-v",
        "--junitxml",
        "junit.xml",
        "-p",
        "no:cacheprovider",
    )

    outcomes = result.parseoutcomes()
    assert outcomes.get("failed") == 1 and outcomes.get("passed", 0) + outcomes.get("lowscore", 0) == 1
    result.stdout.fnmatch_lines(
        ["*gave an invalid reply*Raw reply: '<html>[[]redacted[]] xxx*xxx [[]redacted[]]</html>'*"]
    )
    rows = [json.loads(line) for line in (project.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    assert any("[redacted]" in (row["reason"] or "") for row in rows)
    assert "[redacted]" in (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "[redacted]" in (project.path / "junit.xml").read_text(encoding="utf-8")
    assert leaked(project.path, result.stdout.str(), result.stderr.str()) == []


def test_a_key_echoed_in_a_valid_reply_is_redacted_from_the_record(bench: Bench) -> None:
    """A judge that quotes a key in its notes or impression: the record (ledger, judges/) carries [redacted]."""
    import asyncio

    from pytest_ora.judges.packet import build_packet
    from pytest_ora.judges.panel import judge_packet

    def echo_key(body: bytes) -> bytes:
        marker = b'\\"impression\\":\\"'
        return body.replace(marker, marker + FAKE_B.encode() + b" ", 1)

    bench.judge.inject(Fault("rewrite", rewrite=echo_key, provider="openai"))
    plan = bench.plan()
    judging = Judging(plan.panel, plan.rubric, policy=FAST, environ=dict(KEYS))
    packet, image = build_packet(planned(plan).capture, plan.bundle.root, plan.rubric)

    async def judge_once() -> list[Any]:
        async with httpx.AsyncClient() as client:
            return await judge_packet(judging, client, packet, image)

    records = asyncio.run(judge_once())

    assert records[1]["impression"].startswith("[redacted] ")
    assert FAKE_B not in json.dumps(records)


# --- 3. user info in a route ---------------------------------------------------------------------


def test_user_info_in_a_route_never_reaches_a_cassette(bench: Bench) -> None:
    """A basic-auth gateway route: the password is in no cassette, and the recording replays."""
    bench.routes["big-1"] = bench.routes["big-1"].replace("http://", "http://gateway-user:gateway-pass-77@")
    plan = bench.plan()
    bench.runner(plan, "once").run(planned(plan))
    calls = bench.judge.calls

    text = cassette_path(bench.cassettes, CAPTURE_ID).read_text(encoding="utf-8")
    replayed = bench.runner(bench.plan(), "none", environ={}).run(planned(plan))

    assert "gateway-pass-77" not in text and "gateway-user" not in text
    assert replayed["status"] == "scored" and bench.judge.calls == calls


# --- 4. absurd numbers in a reply --------------------------------------------------------------


REPLY = {
    "entry_key": "mode:argument-audit",
    "configuration": "optimum",
    "judge_model": "m",
    "scores": {"fidelity": 7, "soundness": 7, "completeness": 7, "relevance": 7, "calibration": 7},
    "notes": {name: "n" for name in ("fidelity", "soundness", "completeness", "relevance", "calibration")},
    "impression": "i",
}


@pytest.mark.parametrize("number", ["1e-99999999", "5e+99999999", "1" * 5000, "0." + "0" * 200 + "1"])
def test_absurd_numbers_in_a_reply_are_refused_before_any_exact_arithmetic(number: str) -> None:
    """A score like 1e-99999999 is refused as text: it never reaches Fraction/Decimal arithmetic (that never returned)."""
    text = json.dumps(REPLY).replace('"fidelity": 7', f'"fidelity": {number}', 1)

    checked = check_reply(
        ProviderReply(payload=None, text=text, stop="complete"), get_rubric("ora-1.0"), "mode:argument-audit", "optimum"
    )

    assert isinstance(checked, ReplyProblem)
    assert checked.field == "(reply)" and "number" in checked.reason


# --- 5. intake bounds every number; lone surrogates ------------------------------------------


@pytest.mark.parametrize(
    ("field", "literal", "expected"),
    [
        ("cost_usd", "1e100", "field 'cost_usd': input should be less than or equal to 1000000"),
        ("cost_usd", "1e400", "field 'cost_usd': number 1e400 has an exponent beyond +-100"),
        ("cost_usd", "1" + "0" * 400, "has 401 characters (more than 64)"),
        ("wall_clock_minutes", "1e400", "number 1e400 has an exponent beyond +-100"),
        ("wall_clock_minutes", "1e-99999999", "number 1e-99999999 has an exponent beyond +-100"),
        ("answer", '"\\ud800 lone"', "field 'answer': holds a lone surrogate"),
        ("prompt", '"ok \\udfff"', "field 'prompt': holds a lone surrogate"),
    ],
)
def test_intake_bounds_numbers_and_refuses_lone_surrogates(
    tmp_path: Path, field: str, literal: str, expected: str
) -> None:
    """Values that used to pass intake and crash after every call was paid now stop intake (exit 4)."""

    def edit(items: list[dict[str, Any]]) -> list[Any]:
        line = json.dumps({**items[0], field: "PLACEHOLDER"}).replace('"PLACEHOLDER"', literal)
        return [line, *items[1:]]

    message = problems(write_bundle(tmp_path, edit=edit))

    assert "captures.jsonl:1" in message and expected in message


def _fuzz_value(rng: random.Random, depth: int = 0) -> Any:
    """A random JSON value, biased to the edges: huge, tiny and non-finite numbers, surrogates, empty text."""
    atoms: list[Callable[[], Any]] = [
        lambda: None,
        lambda: rng.choice([True, False]),
        lambda: rng.choice([0, -1, 1, 10 ** rng.randint(1, 60)]),
        lambda: rng.choice([0.5, -0.0, 1e300, 1e-300, float("inf"), float("nan")]),
        lambda: rng.choice(["", "no", "yes", "\ud800", "a\x00b", "x" * 300, "../../etc/passwd", "/abs", "é"]),
        lambda: float(rng.uniform(-1e6, 2e6)),
    ]
    if depth < 2 and rng.random() < 0.25:
        if rng.random() < 0.5:
            return [_fuzz_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
        return {
            rng.choice(["passed", "reason", "notes", "k"]): _fuzz_value(rng, depth + 1)
            for _ in range(rng.randint(0, 3))
        }
    return rng.choice(atoms)()


def test_fuzzed_capture_values_are_refused_at_intake_or_reported_without_error(tmp_path: Path) -> None:
    """200 seeded random values in capture fields: each fails intake by name, or survives every report step."""
    from pytest_ora.core.record import base_record
    from pytest_ora.reports.aggregation import ledger_row, summarize
    from pytest_ora.reports.methodology import RunFacts, methodology_markdown

    root = write_bundle(tmp_path / "bundle")
    lines = (root / "captures.jsonl").read_text().splitlines()
    fields = [
        "cost_usd",
        "wall_clock_minutes",
        "answer",
        "prompt",
        "target",
        "acceptance",
        "model_snapshot",
        "spec",
        "visual_artifact",
    ]
    rng = random.Random(16)
    outcomes = {"refused": 0, "accepted": 0}
    for _ in range(200):
        field, value = rng.choice(fields), _fuzz_value(rng)
        first = json.dumps({**json.loads(lines[0]), field: value}, allow_nan=True)
        (root / "captures.jsonl").write_text("\n".join([first, *lines[1:]]) + "\n", encoding="utf-8")
        try:
            plan = intake(root)
        except IntakeError as error:
            assert "captures.jsonl:1" in str(error)
            outcomes["refused"] += 1
            continue
        outcomes["accepted"] += 1
        records = [base_record(p, p.status if p.status != "judge" else "error", "fuzz") for p in plan.captures]
        for record in records:
            ledger_row(record, plan.rubric).model_dump_json()
        summarize(records, plan.bundle.manifest.configurations, plan.rubric)
        methodology_markdown(
            plan, records, RunFacts(scoring_date="2026-06-20", record_mode="none", selected=len(records))
        )
    assert outcomes["refused"] > 50 and outcomes["accepted"] > 25


# --- 6. a trickled body and the whole-call timeout ---------------------------------------------


def test_a_body_trickled_a_byte_at_a_time_is_bounded_by_the_timeout(bench: Bench) -> None:
    """--ora-timeout bounds the whole reply: a body at one byte per 0.2 s is given up after the timeout, and retried."""
    bench.judge.inject(Fault("trickle", delay=0.2, times=1))
    policy = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.05, timeout=httpx.Timeout(1.0))

    started = time.monotonic()
    record = runner_with(bench, policy).run(planned(bench.plan()))

    assert record["status"] == "scored"
    assert time.monotonic() - started < 30  # the trickled body alone would take minutes
    attempts = sorted(judge["attempts"] for judge in record["judges"])
    assert attempts == [1, 2]


def test_a_trickled_body_past_the_bound_fails_naming_the_timeout(bench: Bench) -> None:
    bench.judge.inject(Fault("trickle", delay=0.2, times=2, provider="anthropic"))
    policy = RetryPolicy(max_attempts=1, timeout=httpx.Timeout(0.5))

    with pytest.raises(TransportError, match=r"CallTimeout after 1 attempt: the reply was not complete within 0.5 s"):
        runner_with(bench, policy).run(planned(bench.plan()))


# --- 7. a non-UTF-8 2xx body, then a valid re-ask ---------------------------------------------


def test_a_non_utf8_reply_then_a_valid_reask_is_recorded_and_replays(bench: Bench) -> None:
    """The invalid body is re-asked, the capture judged, the cassette saved (body as base64) and replayed offline."""
    bench.judge.inject(Fault("rewrite", rewrite=lambda body: b"\xff\xfe\x00not utf-8\x80", provider="openai"))
    plan = bench.plan()

    record = bench.runner(plan, "once").run(planned(plan))
    calls = bench.judge.calls
    replayed = bench.runner(plan, "none", environ={}).run(planned(plan))

    assert record["status"] == "scored" and calls == 3
    assert '"base64"' in cassette_path(bench.cassettes, CAPTURE_ID).read_text(encoding="utf-8")
    assert replayed["judges"] == record["judges"] and bench.judge.calls == calls


# --- 8. a bogus content-encoding ---------------------------------------------------------------


def test_a_bogus_content_encoding_is_retried_then_named(bench: Bench) -> None:
    """`content-encoding: gzip` on a plain body: retried like a dropped connection; past the bound, named."""
    bench.judge.inject(Fault("bogus_gzip", times=1, provider="anthropic"))
    record = runner_with(bench, FAST).run(planned(bench.plan()))
    assert record["status"] == "scored"

    bench.judge.inject(Fault("bogus_gzip", times=2, provider="anthropic"))
    policy = RetryPolicy(max_attempts=2, base_delay=0.01, max_delay=0.05, timeout=httpx.Timeout(2.0))
    with pytest.raises(TransportError, match=r"Judge A \(claude-opus-4-7\): DecodingError after 2 attempts"):
        runner_with(bench, policy, mode="all").run(planned(bench.plan()))


# --- 9. duplicate keys --------------------------------------------------------------------------


def test_duplicate_keys_make_a_reply_invalid_and_a_capture_line_an_intake_error(bench: Bench, tmp_path: Path) -> None:
    """ "fidelity": 11, "fidelity": 5 is ambiguous: never last-wins."""
    with pytest.raises(ValueError, match="key 'fidelity' appears twice"):
        loads_body(b'{"scores": {"fidelity": 11, "fidelity": 5}}')

    def duplicate(body: bytes) -> bytes:
        marker = b'\\"fidelity\\":'
        return body.replace(marker, marker + b"11," + marker, 1)

    bench.judge.inject(Fault("rewrite", rewrite=duplicate, times=2, provider="openai"))
    with pytest.raises(InvalidReplyError, match="key 'fidelity' appears twice in one object"):
        bench.runner(bench.plan(), "once").run(planned(bench.plan()))

    def edit(items: list[dict[str, Any]]) -> list[Any]:
        line = json.dumps(items[0])
        return [line[:-1] + ', "answer": "second"}', *items[1:]]

    assert "captures.jsonl:1: field 'answer': key 'answer' appears twice" in problems(
        write_bundle(tmp_path / "b", edit=edit)
    )

    def nested(items: list[dict[str, Any]]) -> list[Any]:
        line = json.dumps({**items[0], "model_snapshot": {"big-1": "a"}})
        return [line.replace('"big-1": "a"', '"big-1": "a", "big-1": "b"'), *items[1:]]

    message = problems(write_bundle(tmp_path / "c", edit=nested))
    assert "field 'model_snapshot.big-1': key 'big-1' appears twice" in message


# --- 10. tracebacks become exit 4 -------------------------------------------------------------


def _nested(items: list[dict[str, Any]]) -> list[Any]:
    return ["[" * 100_000 + "]" * 100_000, *items[1:]]


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("bundle.yaml", "bundle.yaml: is a directory"),
        ("optimum.yaml", "optimum.yaml: is a directory"),
        ("captures.jsonl", "captures.jsonl: is a directory"),
        ("bracket", "field 'roles.big-1.route': is not a usable url"),
        ("port", "field 'roles.big-1.route': is not a usable url (port out of range 0-65535)"),
        ("nested", "captures.jsonl:1: is nested too deeply to read"),
    ],
)
def test_inputs_that_crashed_intake_stop_it_with_exit_4(tmp_path: Path, case: str, expected: str) -> None:
    routes = {"big-1": "http://[127.0.0.1/v1/messages", "big-2": "https://api.openai.com/v1/chat/completions"}
    if case == "port":
        routes["big-1"] = "http://127.0.0.1:99999/v1/messages"
    root = write_bundle(
        tmp_path, routes=routes if case in ("bracket", "port") else None, edit=_nested if case == "nested" else None
    )
    if case.endswith((".yaml", ".jsonl")):
        (root / case).unlink()
        (root / case).mkdir()

    assert expected in problems(root)


def test_a_directory_for_a_bundle_file_is_exit_4_not_internalerror(project: pytest.Pytester) -> None:
    (project.path / "bundle" / "captures.jsonl").unlink()
    (project.path / "bundle" / "captures.jsonl").mkdir()

    result = project.runpytest("-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.stderr.fnmatch_lines(["*captures.jsonl: is a directory*"])


# --- 11. hangs at intake -------------------------------------------------------------------------


def test_an_alias_bomb_under_the_alias_limit_is_refused_by_its_expansion(tmp_path: Path) -> None:
    """57 aliases (under the limit of 64) expanding to 8**8 nodes: refused from the node tree, never built or shown."""
    root = write_bundle(tmp_path)
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x]"]
    lines += [f"a{level}: &a{level} [{', '.join([f'*a{level - 1}'] * 8)}]" for level in range(1, 8)]
    text = "\n".join(lines) + "\n" + (root / "bundle.yaml").read_text()
    (root / "bundle.yaml").write_text(text.replace("configurations:", "configurations: *a7\nunused:", 1))

    assert "bundle.yaml: expands to" in problems(root)


def test_a_hundred_thousand_configurations_are_refused_at_once(tmp_path: Path) -> None:
    names = [f"c{index}" for index in range(100_000)]
    root = write_bundle(tmp_path, manifest={"configurations": names})

    assert "field 'configurations': list should have at most 1000 items after validation" in problems(root)


def test_a_fifo_named_captures_jsonl_is_refused_without_blocking(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    (root / "captures.jsonl").unlink()
    os.mkfifo(root / "captures.jsonl")

    assert "captures.jsonl: is not a regular file" in problems(root)


# --- 12. loose coercion ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"acceptance": {"passed": "no"}}, "field 'acceptance.passed': input should be a valid boolean (got 'no')"),
        ({"acceptance": {"passed": 1}}, "field 'acceptance.passed': input should be a valid boolean (got 1)"),
        ({"spec": ""}, "field 'spec': string should have at least 1 character"),
    ],
)
def test_loose_values_in_a_capture_are_refused(tmp_path: Path, change: dict[str, Any], expected: str) -> None:
    root = write_bundle(tmp_path, edit=lambda items: [{**items[0], **change}, *items[1:]])

    assert expected in problems(root)


@pytest.mark.parametrize("count", [True, 2.0])
def test_a_scored_set_count_must_be_an_integer(tmp_path: Path, count: Any) -> None:
    root = write_bundle(tmp_path, manifest={"scored_set": {"mode": count, "visual": 1, "lens": 1}})

    assert "field 'scored_set.mode" in problems(root)


# --- 13. disk full mid-run ----------------------------------------------------------------------


@pytest.mark.parametrize("workers", ["0", "2"])
def test_a_full_disk_mid_run_leaves_no_torn_ledger_line_and_says_so(
    project: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch, workers: str
) -> None:
    """The third ledger row meets ENOSPC half-way: cut back, the run stops, exit 4, no INTERNALERROR."""
    from pytest_ora.reports import output

    real = output._write_all
    rows = {"n": 0}

    def full_disk(descriptor: int, data: bytes) -> None:
        rows["n"] += 1
        if rows["n"] >= 3:
            os.write(descriptor, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        real(descriptor, data)

    monkeypatch.setattr(output, "_write_all", full_disk)
    monkeypatch.setattr(output, "JOURNAL_SECONDS", 0)  # each row written as it comes: the third write is the third row

    # One capture at a time, so "judging stopped" is visible: judging ahead would have started them all.
    result = project.runpytest(
        "--ora-record", "once", "-p", "no:cacheprovider", "-n", workers, "--ora-concurrency", "1"
    )

    text = result.stdout.str() + result.stderr.str()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "INTERNALERROR" not in text and "Traceback" not in text
    result.stdout.fnmatch_lines(
        ["ora: STOPPED: could not append to the ledger journal *No space left on device; every row before it is whole*"]
    )
    ledger = (project.path / "ora-results" / "ledger.jsonl").read_text(encoding="utf-8")
    assert ledger.endswith("\n") and all(json.loads(line) for line in ledger.splitlines())
    assert not (project.path / "ora-results" / LOCK_NAME).exists()
    assert judge.calls < 16, "judging stopped: not every capture was paid for"


# --- 14. SIGINT and SIGTERM in the last second ------------------------------------------------


LAST_SECOND = """
import os, signal, time

def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        os.kill(os.getpid(), signal.{name})
        time.sleep(0.3)
"""


def _run(project: pytest.Pytester, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=project.path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **KEYS},
    )


@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM"])
def test_a_signal_while_the_session_finishes_is_held_until_the_report_is_written(
    project: pytest.Pytester, name: str, workers: str
) -> None:
    """A signal in the last second (inside pytest_sessionfinish): report written, lock released, no traceback, exit 2."""
    project.makeconftest(LAST_SECOND.format(name=name))

    done = _run(project, "--ora-record", "once", "-n", workers)

    out = project.path / "ora-results"
    assert done.returncode == pytest.ExitCode.INTERRUPTED, done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stdout + done.stderr
    assert f"ora: {name} arrived while the report was written; it was finished first" in done.stderr
    assert (out / "methodology.md").is_file() and len((out / "ledger.jsonl").read_text().splitlines()) == 12
    assert not (out / LOCK_NAME).exists()


@pytest.mark.parametrize("workers", ["0", "2"])
def test_sigterm_mid_run_interrupts_like_ctrl_c(project: pytest.Pytester, judge: ReferenceJudge, workers: str) -> None:
    """SIGTERM no longer kills like SIGKILL: what was judged is reported, the lock released, the rerun completes."""
    judge.latency = 0.3
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--ora-record", "once", "-n", workers],
        cwd=project.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **KEYS},
    )
    cassettes = project.path / "cassettes"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list(cassettes.rglob("*.json")):
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=60)

    out = project.path / "ora-results"
    assert process.returncode == pytest.ExitCode.INTERRUPTED, stdout[-2000:] + stderr[-2000:]
    assert "run interrupted:" in (out / "methodology.md").read_text(encoding="utf-8")
    assert not (out / LOCK_NAME).exists()
    recorded = len(list(cassettes.rglob("*.json")))
    # a judge whose reply was valid before the signal waits in its capture's partial cassette
    kept = sum(
        len(json.loads(path.read_text(encoding="utf-8"))["interactions"]) for path in cassettes.rglob("*.partial")
    )
    judge.latency = 0.0
    before = judge.calls
    assert _run(project, "--ora-record", "once").returncode == 0
    assert judge.calls - before == 2 * (8 - recorded) - kept


# --- 15, 16, 18. corrupt, misplaced and edited cassettes -------------------------------------


def _edit_score(text: str) -> str:
    """The first recorded fidelity score raised by one (in a tool input object or in an escaped JSON text)."""
    data = json.loads(text)

    def edit(value: Any) -> Any:
        if isinstance(value, dict):
            if isinstance(value.get("fidelity"), (int, float)):
                return {**value, "fidelity": value["fidelity"] + 1}
            return {key: edit(item) for key, item in value.items()}
        if isinstance(value, list):
            return [edit(item) for item in value]
        if isinstance(value, str) and '"fidelity":' in value:
            return json.dumps(edit(json.loads(value)))
        return value

    response = data["interactions"][0]["response"]
    edited = edit(response["body"])
    assert edited != response["body"]
    response["body"] = edited
    return json.dumps(data)


CORRUPTIONS: dict[str, Callable[[str], str]] = {
    "truncated": lambda text: text[: len(text) // 2],
    "empty-object": lambda text: "{}",
    "interactions-not-a-list": lambda text: '{"interactions": {"a": 1}}',
    "body-key-deleted": lambda text: text.replace('"body"', '"bodie"', 1),
    "edited-response": _edit_score,
}


@pytest.mark.parametrize("kind", [*CORRUPTIONS, "binary-junk"])
def test_a_corrupt_or_edited_cassette_fails_naming_the_file(bench: Bench, kind: str) -> None:
    plan = bench.plan()
    bench.runner(plan, "once").run(planned(plan))
    path = cassette_path(bench.cassettes, CAPTURE_ID)
    if kind == "binary-junk":
        path.write_bytes(os.urandom(64) + b"\xff\xfe")
    else:
        path.write_text(CORRUPTIONS[kind](path.read_text(encoding="utf-8")), encoding="utf-8")
    calls = bench.judge.calls

    with pytest.raises(CorruptCassette) as caught:
        bench.runner(plan, "none", environ={}).run(planned(plan))

    assert f"the cassette {path} is corrupt (" in str(caught.value)
    if kind == "edited-response":
        assert "interaction 1's recorded response was edited" in str(caught.value)
    assert bench.judge.calls == calls


def test_a_directory_where_a_cassette_belongs_is_refused_before_calling(bench: Bench) -> None:
    path = cassette_path(bench.cassettes, CAPTURE_ID)
    path.mkdir(parents=True)
    plan = bench.plan()

    with pytest.raises(CorruptCassette, match=r"is not a file.*nothing was sent"):
        bench.runner(plan, "once").run(planned(plan))

    assert bench.judge.calls == 0


def test_drift_names_the_changed_packet_field_and_recommends_the_cheap_fix(bench: Bench) -> None:
    """Issue 15's item: per-field digests in the cassette name the field; new_episodes, not all, is recommended."""
    plan = bench.plan()
    bench.runner(plan, "once").run(planned(plan))
    changed = bench.plan(edit=change_answer)

    with pytest.raises(PacketDrift) as caught:
        bench.runner(changed, "none", environ={}).run(planned(changed))

    assert "(packet field 'answer' changed): re-record with --ora-record new_episodes" in str(caught.value)
    assert "--ora-record all would pay again for every selected capture" in str(caught.value)


# --- 17. two runs sharing --ora-cassettes -------------------------------------------------------


def test_two_runs_sharing_a_cassettes_directory_pay_once(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """Different --ora-out, the same --ora-cassettes, at once: each capture is paid for by one run only."""
    judge.latency = 0.2
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--ora-record", "once", "-q"]
    runs = [
        subprocess.Popen(
            [*command, "--ora-out", f"out-{index}"],
            cwd=project.path,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, **KEYS},
        )
        for index in (1, 2)
    ]
    outputs = [run.communicate(timeout=120)[0] for run in runs]

    assert [run.returncode for run in runs] == [0, 0], outputs
    assert judge.calls == 16  # 8 captures x 2 judges, not twice that
    assert not list((project.path / "cassettes").rglob(".*.lock"))
    for index in (1, 2):
        rows = (project.path / f"out-{index}" / "ledger.jsonl").read_text().splitlines()
        assert sum(json.loads(row)["status"] == "scored" for row in rows) == 8


# --- 19. reply size cap; stale temporary files --------------------------------------------


def test_an_oversized_reply_is_refused_unstored(bench: Bench) -> None:
    huge = b"{" + b" " * (MAX_REPLY_BYTES + 10) + b"}"
    bench.judge.inject(Fault("rewrite", rewrite=lambda body: huge, provider="anthropic"))

    with pytest.raises(TransportError, match=r"ReplyTooLarge after 1 attempt: the reply body passed 8388608 bytes"):
        bench.runner(bench.plan(), "once").run(planned(bench.plan()))

    assert not cassette_path(bench.cassettes, CAPTURE_ID).exists()


def test_a_stale_temporary_cassette_file_is_removed_when_the_capture_is_recorded(bench: Bench) -> None:
    """A worker killed mid-save leaves .<name>.<random>.tmp; the next recording of that capture removes it."""
    path = cassette_path(bench.cassettes, CAPTURE_ID)
    path.parent.mkdir(parents=True)
    stale = path.with_name(f".{path.name}.k1ll3d.tmp")
    stale.write_text('{"half": ', encoding="utf-8")

    plan = bench.plan()
    bench.runner(plan, "once").run(planned(plan))

    assert path.is_file() and not stale.exists()
    assert sorted(p.name for p in path.parent.iterdir()) == ["big-1.json", "optimum.json"] or sorted(
        p.name for p in path.parent.iterdir()
    ) == ["optimum.json"]


def test_a_full_disk_at_a_cassette_save_says_the_calls_were_not_recorded(
    bench: Bench, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ENOSPC while a cassette is saved: a plain message, no temporary file left, the rerun records it."""
    from types import SimpleNamespace

    from pytest_ora.core.errors import OraError
    from pytest_ora.judges import cassettes

    def full(source: str, target: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cassettes, "os", SimpleNamespace(**{**vars(os), "replace": full}))
    plan = bench.plan()

    with pytest.raises(
        OraError,
        match=r"could not write the cassette .*: No space left on device; this capture's "
        r"judge calls were made but not recorded",
    ):
        bench.runner(plan, "once").run(planned(plan))

    path = cassette_path(bench.cassettes, CAPTURE_ID)
    assert list(path.parent.iterdir()) == []
    monkeypatch.undo()
    assert bench.runner(plan, "once").run(planned(plan))["status"] == "scored"


def test_a_lone_surrogate_in_a_reply_or_a_manifest_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply note "\\ud800" is an invalid reply; a manifest value is an intake error (even with the pure-Python loader)."""
    text = json.dumps(REPLY).replace('"impression": "i"', '"impression": "\\ud800"')
    checked = check_reply(
        ProviderReply(payload=None, text=text, stop="complete"), get_rubric("ora-1.0"), "mode:argument-audit", "optimum"
    )
    assert isinstance(checked, ReplyProblem) and "lone surrogate" in checked.reason

    from pytest_ora.bundle import read

    monkeypatch.setattr(read, "_Loader", yaml.SafeLoader)
    root = write_bundle(tmp_path)
    (root / "bundle.yaml").write_text((root / "bundle.yaml").read_text().replace("test-bundle", '"test-\\ud800"'))

    assert "bundle.yaml: field 'bundle': holds a lone surrogate" in problems(root)


def test_a_key_inside_the_bundles_own_text_is_never_sent_or_written(bench: Bench) -> None:
    """An answer that holds a configured key's value: the capture fails before any call, and no packet is written."""

    def leak(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["answer"] += f"\n\nThe environment held {FAKE_A}."
        return items

    plan = bench.plan(edit=leak)
    runner = bench.runner(plan, "once")

    with pytest.raises(OraError, match="holds the value of a configured API key"):
        runner.run(planned(plan))
    runner.close()

    assert bench.judge.calls == 0
    assert leaked(bench.tmp_path / "out") == [] and leaked(bench.cassettes) == []
