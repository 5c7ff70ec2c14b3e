"""One process's capture runner: it sequences a capture's steps (harness/steps/) on the process's loop.

A capture's way: its answer (made by its candidate, if any), its packet, the panel's judges, their checked replies, the exact scores, the
record, the files (each step a module of harness/steps/). Each pytest process (the only one, or
each xdist worker) keeps one event loop, in a thread of its own, and one httpx.AsyncClient for
all its captures. A test waits for its capture's result; with `lookahead` above 1 the next
captures of the process are judged meanwhile, so a single process keeps several calls in flight,
candidates' and judges' under one limit (`calls`): a capture is judged as soon as its answer exists,
while the next captures' candidates answer.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from pathlib import Path
from typing import Any, TypeVar

import httpx

from ..core.plan import PlannedCapture
from ..core.record import CaptureRecord
from ..judges.budget import Price
from ..judges.cassettes import CassetteLibrary, CassetteTransport
from ..judges.inflight import CountingTransport, InFlightLog, LimitedTransport
from ..judges.panel import Judging
from ..judges.pool import network_transport
from ..judges.ratelimit import PacedTransport, SharedLimiter
from .steps.answer import Answering, generated
from .steps.estimate import estimate
from .steps.files import CaptureFiles, write_judges
from .steps.judging import ask_judges
from .steps.packets import OverContextWindow, item_packets
from .steps.record import count_live_calls, judged_record
from .steps.replies import checked_replies
from .steps.scores import score
from .steps.spend import Budget, BudgetReached, NotJudged, charge, charge_candidate, check_budget

__all__ = ["Budget", "BudgetReached", "CaptureRunner", "NotJudged", "OverContextWindow"]

_T = TypeVar("_T")
_POOL = 64
"""Connections the process's HTTP client keeps open at least (more when more calls may be in flight)."""
_KEPT_DONE = 2
"""Captures judged ahead and waiting for their items, at most this many times lookahead (the rest wait to start)."""


class _Loop:
    """An asyncio loop with the process's HTTP client: in a daemon thread, or run by the caller.

    In a thread, the captures judged ahead go on while pytest runs the next items. Without judging
    ahead (`inline`: a replay, one capture at a time) the caller runs the loop until its capture is
    judged: handing each capture to another thread and back costs each item two wake-ups and two
    hand-overs of the interpreter lock, about as much as a replayed judge call itself.
    """

    def __init__(
        self,
        timeout: httpx.Timeout,
        limiter: SharedLimiter | None = None,
        in_flight: InFlightLog | None = None,
        inline: bool = False,
        calls: int | None = None,
    ) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        if not inline:
            self._start_thread()

        def network() -> httpx.AsyncBaseTransport:
            # A connection for each call the process lets fly: fewer would queue calls the limit let go.
            inner = network_transport(max(_POOL, calls or 0))
            if in_flight is not None:
                inner = CountingTransport(inner, in_flight)
            if calls is not None:
                # Above the count, below the pace: a call waiting for its rate slot holds no place in flight.
                inner = LimitedTransport(inner, calls)
            if limiter is not None:
                # Below the cassettes: only calls that go to the network are paced, replay never is.
                inner = PacedTransport(inner, limiter)
            return inner

        self.client = httpx.AsyncClient(transport=CassetteTransport(network), timeout=timeout, trust_env=False)

    def _start_thread(self) -> None:
        self._thread = threading.Thread(target=self.loop.run_forever, name="pytest-ora-judges", daemon=True)
        self._thread.start()

    def _inline(self) -> bool:
        """Judged in the calling thread: asked for, and no event loop runs in this thread already
        (a suite's own, such as Playwright's sync API): then the loop moves to its thread for good."""
        if self._thread is not None:
            return False
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return True
        self._start_thread()
        return False

    def submit(self, coroutine: Coroutine[Any, Any, _T]) -> Future[_T]:
        if self._inline():  # judged now, in this thread; what it raises, raises here
            done: Future[_T] = Future()
            done.set_result(self.loop.run_until_complete(coroutine))
            return done
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    async def _shutdown(self) -> None:
        """Cancel what is still being judged (an interrupted run) and let it end, then close the client.

        A task left pending when the loop closes is destroyed later by the garbage collector,
        anywhere in the process, with "Task was destroyed but it is pending!" on stderr.
        """
        current = asyncio.current_task()
        pending = [task for task in asyncio.all_tasks() if task is not current]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.wait(pending, timeout=10)
        await self.client.aclose()

    def close(self) -> None:
        if self._inline():
            self.loop.run_until_complete(self._shutdown())
            self.loop.close()
            return
        assert self._thread is not None
        self.submit(self._shutdown()).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=30)
        self.loop.close()


def _same(started: PlannedCapture, given: PlannedCapture) -> bool:
    """Whether the capture judged ahead is the one a test asks for (itself, or equal field for field)."""
    if started is given:
        return True

    def fields(planned: PlannedCapture) -> tuple[object, ...]:
        partner = None if planned.partner is None else planned.partner.model_dump()
        return planned.status, planned.reason, planned.pair, planned.capture.model_dump(), partner

    return fields(started) == fields(given)


class CaptureRunner:
    """Judges captures in this process; close() when the session ends."""

    def __init__(
        self,
        root: Path,
        judging: Judging,
        cassettes: CassetteLibrary,
        output: CaptureFiles,
        budget: Budget | None = None,
        lookahead: int = 1,
        limiter: SharedLimiter | None = None,
        in_flight: InFlightLog | None = None,
        answering: Answering | None = None,
        generate_only: bool = False,
        calls: int | None = None,
    ) -> None:
        self.root = root
        self.judging = judging
        self.cassettes = cassettes
        self.output = output
        self.budget = budget
        self.lookahead = max(1, lookahead)
        self.calls = calls
        """Calls in flight at most in this process, candidates' and judges' together (None: no limit but lookahead's)."""
        self.limiter = limiter
        self.in_flight = in_flight
        self.answering = answering
        self.generate_only = generate_only
        """Answers only: every capture stops after its answer step (steps/answer.py `generated`)."""
        self._loop: _Loop | None = None
        self._pending: dict[str, tuple[PlannedCapture, Future[CaptureRecord]]] = {}
        """Captures started ahead of their items, running or done, by capture id."""
        self._upcoming: list[PlannedCapture] = []
        """The captures this process runs next, as the last item saw them."""
        self._running = 0
        """Captures started and not yet done (the current item's among them)."""
        self._closed = False
        self._lock = threading.RLock()
        """Guards the window above: the items' thread and the loop's (a capture done) both move it."""

    def run(self, planned: PlannedCapture, upcoming: Sequence[PlannedCapture] = ()) -> CaptureRecord:
        """Judge one capture and return its record; judge and cassette errors propagate.

        `upcoming` are the captures this process will ask for next. Up to lookahead captures run at
        once: whenever one is done, the next upcoming one starts, so a slow capture holds its own
        place only, not the window (done ones wait for their items, at most `_KEPT_DONE` x lookahead).
        """
        with self._lock:
            ahead = self._pending.pop(planned.capture.capture_id, None)
            self._upcoming = list(upcoming)
        if ahead is not None and not _same(ahead[0], planned):
            # Started ahead for the bundle's capture, but the test passed another one under its id: the capture
            # given is the one judged (its recording then matches it, or replay names the drift), never the other.
            self._forget(ahead[1], planned.capture.capture_id)
            ahead = None
        future = ahead[1] if ahead is not None else self._start(planned)
        with self._lock:
            self._top_up()
        return future.result()

    def _top_up(self) -> None:
        """Start upcoming captures while fewer than lookahead run and the done ones waiting are few (lock held)."""
        if self.lookahead <= 1 or self._closed:
            return
        for following in self._upcoming:
            if self._running >= self.lookahead or len(self._pending) >= _KEPT_DONE * self.lookahead:
                return
            if following.capture.capture_id not in self._pending:
                self._pending[following.capture.capture_id] = (following, self._start(following))

    def _done(self, _: Future[CaptureRecord]) -> None:
        """A capture is done (in the loop's thread): its place goes to the next upcoming capture."""
        with self._lock:
            self._running -= 1
            self._top_up()

    def _forget(self, future: Future[CaptureRecord], capture_id: str) -> None:
        """Let a capture judged ahead finish, and drop the cassette it just recorded (--ora-record once) for another
        version of the capture than the test asked for: the one asked for is recorded in its place."""
        try:
            record = future.result()
        except (Exception, NotJudged):  # its outcome is not this item's: only what it left on disk matters
            return
        if record["live_calls"] and self.cassettes.mode == "once":
            self.cassettes.path_for(capture_id).unlink(missing_ok=True)

    def _start(self, planned: PlannedCapture) -> Future[CaptureRecord]:
        if self._loop is None:
            inline = self.lookahead == 1 and not self.cassettes.may_record_any()
            self._loop = _Loop(self.judging.policy.timeout, self.limiter, self.in_flight, inline, self.calls)
        future = self._loop.submit(self._judge(planned, self._loop.client))
        if self.lookahead > 1:
            with self._lock:
                self._running += 1
            future.add_done_callback(self._done)  # called at once, in this thread, if already done
        return future

    async def _judge(self, planned: PlannedCapture, client: httpx.AsyncClient) -> CaptureRecord:
        """The capture's way, step by step."""
        capture_id = planned.capture.capture_id
        rubric = self.judging.rubric
        check_budget(self.budget, capture_id)
        live_answer = False
        if self.answering is not None:
            answered = await self.answering.answer(planned, client)
            planned, live_answer = answered.planned, answered.live
            if live_answer:  # one budget over both: the answer's cost counts before its judges are asked
                charge_candidate(self.budget, planned.capture.candidate_cost_usd)
                check_budget(self.budget, capture_id)
        if self.generate_only:
            raise generated(planned, live_answer)
        item = item_packets(planned, self.root, self.judging, self.output)
        replies = await ask_judges(capture_id, item, self.judging, self.cassettes, client)
        judges = checked_replies(replies, rubric)
        write_judges(self.output, capture_id, judges)
        record = judged_record(planned, item, judges, rubric)
        if live_answer:
            record["candidate_live"] = True
        score(record, rubric)
        count_live_calls(record, replies)
        charge(self.budget, record)
        return record

    def estimate(self, planned: PlannedCapture, prices: dict[str, Price]) -> dict[str, Any]:
        """A dry run: the packets are built and written, each judge's first requests sized, nothing sent."""
        spec = self.answering.candidates.get(planned.capture.configuration) if self.answering is not None else None
        slot = self.answering.slot(planned.capture.configuration) if self.answering is not None else None
        return estimate(
            planned, self.root, self.judging, self.output, prices, spec, None if slot is None else slot.spec
        )

    def close(self) -> list[str]:
        """Cancel captures judged ahead whose items never ran, stop the loop; files that failed to write."""
        with self._lock:
            self._closed = True
            waiting = [future for _, future in self._pending.values()]
            self._pending.clear()
        for future in waiting:
            future.cancel()
        if self._loop is not None:
            self._loop.close()
            self._loop = None
        if self.answering is not None:
            self.answering.close()
        return self.output.drain()
