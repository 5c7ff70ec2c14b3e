"""A pytester project for live runs: the eval suite over the 12-capture test bundle, judged by a reference judge."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_ora.testing.server import ReferenceJudge
from support.bundle_factory import write_bundle

EVAL_TEST = (Path(__file__).parents[2] / "evals" / "test_ora.py").read_text(encoding="utf-8")
EXPECTED = {"passed": 8, "skipped": 4}
"""The test bundle's outcomes when every judged capture is scored."""


def live_project(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
    monkeypatch: pytest.MonkeyPatch,
    keys: dict[str, str],
    openai_api: str | None = None,
) -> pytest.Pytester:
    """Big-1 routed to the judge's Anthropic route, big-2 to its OpenAI route (or its Responses API), the keys set."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai", api=openai_api)}
    write_bundle(pytester.path / "bundle", routes=routes)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    for name, value in keys.items():
        monkeypatch.setenv(name, value)
    return pytester


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    """Passed, skipped, failed and errors counts of a run (zeros left out)."""
    counts = result.parseoutcomes()
    return {kind: counts[kind] for kind in ("passed", "skipped", "failed", "errors") if counts.get(kind)}


def live_calls(judge: ReferenceJudge, path: str | None = None) -> int:
    """Judge calls received on the live routes (or on one path), batch and file requests left out."""
    paths = (path,) if path else ("/v1/messages", "/v1/chat/completions", "/v1/responses")
    return sum(1 for r in judge.requests if r.method == "POST" and r.path in paths)


def interrupted_run(project: pytest.Pytester, args: list[str], ready: Callable[[], bool]) -> tuple[int, str]:
    """pytest with args in a child process, sent SIGINT once `ready()` holds (or after 60 s): exit code and output."""
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]
    process = project.popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not ready() and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=60)[0].decode()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, output
