"""The capture runner: one loop per process, captures judged ahead when allowed."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
from support.bundle_factory import write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.core.plan import PlannedCapture
from pytest_ora.harness.runner import CaptureRunner, _Loop
from pytest_ora.judges.cassettes import CassetteLibrary
from pytest_ora.judges.panel import Judging
from pytest_ora.judges.transport import RetryPolicy
from pytest_ora.reports.filewriter import CaptureFiles
from pytest_ora.testing.server import ReferenceJudge

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-runner-test-key", "OPENAI_API_KEY": "sk-runner-test-key"}


@contextmanager
def runner_for(
    tmp_path: Path, judge: ReferenceJudge, lookahead: int
) -> Iterator[tuple[CaptureRunner, list[PlannedCapture]]]:
    """A runner recording against the judge, and the captures it can judge."""
    root = write_bundle(tmp_path / "bundle", routes={"big-1": judge.route("anthropic"), "big-2": judge.route("openai")})
    plan = intake(root)
    judging = Judging(plan.panel, plan.rubric, policy=RetryPolicy(timeout=httpx.Timeout(5.0)), environ=KEYS)
    library = CassetteLibrary(tmp_path / "cassettes", "once")
    runner = CaptureRunner(root, judging, library, CaptureFiles(tmp_path / "out"), lookahead=lookahead)
    try:
        yield runner, [p for p in plan.captures if p.status == "judge"]
    finally:
        runner.close()


def test_judging_ahead_sends_the_next_captures_while_the_first_is_judged(tmp_path: Path) -> None:
    with ReferenceJudge(latency=0.3) as judge, runner_for(tmp_path, judge, lookahead=4) as (runner, todo):
        # When the first capture is asked for, with the rest of the process's captures upcoming
        first = runner.run(todo[0], todo[1:])

        # Then the next three captures' judge calls reached the judges before the first result returned
        assert first["status"] == "scored"
        assert len(judge.requests) >= 8
        rest = {runner.run(p, todo[i + 2 :])["capture_id"] for i, p in enumerate(todo[1:])}
        assert rest == {p.capture.capture_id for p in todo[1:]}
        assert len(judge.requests) == 2 * len(todo)


def test_without_lookahead_one_capture_is_judged_at_a_time(tmp_path: Path) -> None:
    with ReferenceJudge(latency=0.1) as judge, runner_for(tmp_path, judge, lookahead=1) as (runner, todo):
        runner.run(todo[0], todo[1:])

        assert len(judge.requests) == 2


def test_a_replay_judges_in_the_calling_thread_and_moves_to_a_thread_under_a_running_loop() -> None:
    """Inline judging (a replay, one capture at a time) runs the loop in the caller; where the caller's
    thread already runs an event loop (Playwright's sync API does), it cannot, and the loop gets its thread."""

    async def answer() -> int:
        return 42

    inline = _Loop(httpx.Timeout(5), inline=True)
    assert inline.submit(answer()).result() == 42
    assert inline._thread is None  # judged right here
    inline.close()

    moved = _Loop(httpx.Timeout(5), inline=True)

    async def suite_with_its_own_loop() -> int:
        return moved.submit(answer()).result(timeout=10)

    assert asyncio.run(suite_with_its_own_loop()) == 42
    assert moved._thread is not None
    moved.close()
    assert not moved._thread.is_alive()
