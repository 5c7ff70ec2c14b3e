"""The capture runner: one loop per process, captures judged ahead when allowed."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import httpx
from support.bundle_factory import write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.core.plan import PlannedCapture
from pytest_ora.core.record import CaptureRecord
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


class _Gated(CaptureRunner):
    """A runner whose captures are judged by the test: `slow` ones wait until released, the others end at once."""

    def __init__(self, lookahead: int, slow: set[str]) -> None:
        stand_in = cast(
            Any,
            SimpleNamespace(policy=SimpleNamespace(timeout=httpx.Timeout(5)), may_record_any=lambda: True, drain=list),
        )
        super().__init__(Path("."), stand_in, stand_in, stand_in, lookahead=lookahead)
        self.slow = slow
        self.started: list[str] = []
        self.release = threading.Event()

    async def _judge(self, planned: PlannedCapture, client: httpx.AsyncClient) -> CaptureRecord:
        capture_id = planned.capture.capture_id
        self.started.append(capture_id)
        while capture_id in self.slow and not self.release.is_set():
            await asyncio.sleep(0.01)
        return cast(CaptureRecord, {"capture_id": capture_id})


def _planned(capture_id: str) -> PlannedCapture:
    return cast(PlannedCapture, SimpleNamespace(capture=SimpleNamespace(capture_id=capture_id)))


@contextmanager
def _item_waiting(runner: _Gated, todo: list[PlannedCapture]) -> Iterator[threading.Thread]:
    """The first item run in a thread of its own (it waits for its capture), the rest upcoming; all released after."""
    waiting = threading.Thread(target=runner.run, args=(todo[0], todo[1:]), daemon=True)
    waiting.start()
    try:
        yield waiting
    finally:
        runner.release.set()
        waiting.join(timeout=10)
        runner.close()


def test_a_slow_capture_holds_its_own_place_only_and_the_captures_done_ahead_give_theirs_to_the_next() -> None:
    # Given three captures in flight at most, the item's own capture slow, the next ones quick
    todo = [_planned(f"c{number}") for number in range(1, 8)]
    runner = _Gated(lookahead=3, slow={"c1"})
    with _item_waiting(runner, todo) as waiting:
        # When the quick captures are done while the item still waits for its own
        deadline = time.monotonic() + 10
        while len(runner.started) < 7 and time.monotonic() < deadline:
            time.sleep(0.01)
        # Then each place freed went to the next upcoming capture: all seven started, the slow one still judged
        assert runner.started == [f"c{number}" for number in range(1, 8)]
        assert waiting.is_alive()
        runner.release.set()
        waiting.join(timeout=10)
        # And the captures judged ahead wait for their items, which take them without judging again
        assert runner.run(todo[1], todo[2:])["capture_id"] == "c2"
        assert len(runner.started) == 7


def test_captures_done_ahead_wait_for_their_items_up_to_a_bound() -> None:
    # Given two captures in flight at most and a slow item's capture, with many upcoming
    todo = [_planned(f"c{number}") for number in range(1, 40)]
    runner = _Gated(lookahead=2, slow={"c1"})
    with _item_waiting(runner, todo):
        time.sleep(0.5)
        # Then no more are judged ahead than twice the captures in flight (their records wait in memory)
        assert len(runner.started) == 1 + 2 * 2
