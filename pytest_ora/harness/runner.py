"""One process's capture runner: packet, cassette, the panel's judges, exact scores, the record.

Each pytest process (the only one, or each xdist worker) keeps one event loop, in a thread of
its own, and one httpx.AsyncClient for all its captures. A test waits for its capture's result;
with `lookahead` above 1 the next captures of the process are judged meanwhile, so a single
process keeps several judge calls in flight.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest

from ..core.errors import OraError
from ..core.models import Capture
from ..core.plan import JudgeSlot, PlannedCapture
from ..core.record import CaptureRecord, base_record, note_blindness
from ..judges.budget import (
    OUTPUT_TOKENS_ESTIMATE,
    Price,
    SpendLog,
    cost,
    estimate_input_tokens,
    price_for,
    usage_cost,
)
from ..judges.cassettes import CassetteLibrary, CassetteTransport
from ..judges.context import over_window
from ..judges.inflight import CountingTransport, InFlightLog
from ..judges.packet import Packet, build_packet, judge_prompt, packet_fields, packet_json
from ..judges.panel import CaptureCall, Judging, judge_packet
from ..judges.providers import client_for
from ..judges.providers.base import ImagePart
from ..judges.ratelimit import PacedTransport, SharedLimiter
from ..method.kinds import combined, item_shape
from ..reports.filewriter import CaptureFiles

__all__ = ["Budget", "BudgetReached", "CaptureRunner", "NotJudged", "OverContextWindow"]

_T = TypeVar("_T")


class NotJudged(pytest.skip.Exception):  # type: ignore[name-defined,misc]
    """A capture the runner decided not to send: skipped, with a ledger status and a reason of its own."""

    status = "unscorable"
    shown = "unscorable: "

    def __init__(self, capture_id: str, reason: str) -> None:
        super().__init__(f"{capture_id}: {self.shown}{reason}", allow_module_level=False)
        self.reason = reason


class BudgetReached(NotJudged):
    """The run's judge spend reached --ora-budget-usd: this capture is not started."""

    status = "budget"
    shown = ""  # the reason says "not judged" itself


class OverContextWindow(NotJudged):
    """The packet is larger than a judge's context window: unscorable, never sent."""


@dataclass(frozen=True)
class Budget:
    """A cap on live judge spend, shared by every process of the run."""

    limit: Decimal
    prices: dict[str, Price]
    log: SpendLog


class _Loop:
    """An asyncio loop with the process's HTTP client: in a daemon thread, or run by the caller.

    In a thread, the captures judged ahead go on while pytest runs the next items. Without judging
    ahead (`inline`: a replay, one capture at a time) the caller runs the loop until its capture is
    judged: handing each capture to another thread and back costs each item two wake-ups and two
    hand-overs of the interpreter lock, about as much as a replayed judge call itself.
    """

    def __init__(self, timeout: httpx.Timeout, limiter: SharedLimiter | None = None,
                 in_flight: InFlightLog | None = None, inline: bool = False) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread: threading.Thread | None = None
        if not inline:
            self._start_thread()

        def network() -> httpx.AsyncBaseTransport:
            limits = httpx.Limits(max_connections=64, max_keepalive_connections=32)
            inner: httpx.AsyncBaseTransport = httpx.AsyncHTTPTransport(limits=limits, trust_env=False)
            if in_flight is not None:
                inner = CountingTransport(inner, in_flight)
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
    ) -> None:
        self.root = root
        self.judging = judging
        self.cassettes = cassettes
        self.output = output
        self.budget = budget
        self.lookahead = max(1, lookahead)
        self.limiter = limiter
        self.in_flight = in_flight
        self._loop: _Loop | None = None
        self._pending: dict[str, Future[CaptureRecord]] = {}

    def run(self, planned: PlannedCapture, upcoming: Sequence[PlannedCapture] = ()) -> CaptureRecord:
        """Judge one capture and return its record; judge and cassette errors propagate.

        `upcoming` are the captures this process will ask for next; up to lookahead - 1 of them
        start now.
        """
        future = self._pending.pop(planned.capture.capture_id, None) or self._start(planned)
        for following in upcoming:
            if len(self._pending) >= self.lookahead - 1:
                break
            if following.capture.capture_id not in self._pending:
                self._pending[following.capture.capture_id] = self._start(following)
        return future.result()

    def _start(self, planned: PlannedCapture) -> Future[CaptureRecord]:
        if self._loop is None:
            inline = self.lookahead == 1 and not self.cassettes.may_record_any()
            self._loop = _Loop(self.judging.policy.timeout, self.limiter, self.in_flight, inline)
        return self._loop.submit(self._judge(planned, self._loop.client))

    async def _judge(self, planned: PlannedCapture, client: httpx.AsyncClient) -> CaptureRecord:
        capture = planned.capture
        self._check_budget(capture.capture_id)
        rubric = self.judging.rubric
        kind = item_shape(rubric.kind)
        packets = [(tag, *self._checked(capture, packet, image)) for tag, packet, image in kind.packets(planned, self.root, rubric, build_packet)]
        prompts = []  # each packet's first ask, built once: sized here, sent by every judge below
        for tag, packet, image in packets:
            self.output.write_capture(capture.capture_id, "packets", tag, packet_json(packet))
            prompt = judge_prompt(packet, image, rubric, cache=self.judging.prompt_cache)
            too_large = over_window(self.judging.panel, prompt)
            if too_large is not None:
                raise OverContextWindow(capture.capture_id, too_large)
            prompts.append(prompt)
        # one packet's fields, or each packet's (compare: both orders) under its tag
        fields = packet_fields(packets[0][1]) if len(packets) == 1 else {
            tag: packet_fields(packet) for tag, packet, _ in packets
        }
        # Under the capture's lock when it may be recorded: another run on the same cassettes
        # directory waits here, then replays what this one recorded instead of paying again.
        async with self.cassettes.hold(capture.capture_id):
            cassette = self.cassettes.open(capture.capture_id)
            cassette.expect(fields)
            valid: list[str] = []

            def keep(judge: JudgeSlot) -> None:
                # Written as each judge's reply is found valid: a failure or an interrupt keeps it.
                valid.append(judge.label)
                cassette.save_partial(valid)

            # Each request carries this capture's cassette: concurrent captures keep their own.
            call = CaptureCall(cassette=cassette, on_valid=keep)
            replies = [
                await judge_packet(self.judging, client, packet, image, call, prompt)
                for (_, packet, image), prompt in zip(packets, prompts, strict=True)
            ]
            judges = kind.merge(replies, rubric)
            cassette.save()
        for judge in judges:
            self.output.write_capture(capture.capture_id, "judges", judge["slot"], dict(judge))
        record = base_record(planned, "scored")
        record["judges"] = judges
        note_blindness(record, planned, rubric)
        material = packets[0][1].material
        if material is not None:
            record["material"] = material
        record["failure"] = combined(record, rubric).failure
        record["live_calls"] = sum(judge["asks"] for judge in judges) - cassette.play_count
        if record["live_calls"] and self.budget is not None:
            self.budget.log.add(self._spent(record))
        return record

    def _packet(self, capture: Capture) -> tuple[Packet, bytes | None]:
        """The capture's packet; refused when the bundle's own text holds a configured key's value."""
        packet, image = build_packet(capture, self.root, self.judging.rubric)
        return self._checked(capture, packet, image)

    def _checked(self, capture: Capture, packet: Packet, image: bytes | None) -> tuple[Packet, bytes | None]:
        """The packet, unless the bundle's own text or artifact holds a configured key's value."""
        text = packet.model_dump_json().encode("utf-8")
        for secret in self.judging.secrets():
            value = str.__str__(secret).encode("utf-8")
            if value in text or (image is not None and value in image):
                raise OraError(
                    f"the packet of {capture.capture_id} holds the value of a configured API key (in the bundle's "
                    "own text or artifact); it is neither sent to a judge nor written: remove the key from the bundle"
                )
        return packet, image

    def _check_budget(self, capture_id: str) -> None:
        if self.budget is None:
            return
        spent = self.budget.log.total()
        if spent >= self.budget.limit:
            raise BudgetReached(
                capture_id, f"not judged: judge spend ${spent:.2f} reached --ora-budget-usd {self.budget.limit}"
            )

    def _spent(self, record: CaptureRecord) -> Decimal:
        assert self.budget is not None
        return usage_cost(record["judges"], self.budget.prices)

    def estimate(self, planned: PlannedCapture, prices: dict[str, Price]) -> dict[str, Any]:
        """A dry run: the packets are built and written, each judge's first requests sized, nothing sent."""
        capture = planned.capture
        rubric = self.judging.rubric
        packets = [(tag, *self._checked(capture, packet, image)) for tag, packet, image in item_shape(rubric.kind).packets(planned, self.root, rubric, build_packet)]
        sized = []
        for tag, packet, image in packets:
            self.output.write_capture(capture.capture_id, "packets", tag, packet_json(packet))
            prompt = judge_prompt(packet, image, rubric, cache=self.judging.prompt_cache)
            sized.append((prompt, sum(isinstance(part, ImagePart) for part in prompt.parts)))
        judges = []
        for judge in self.judging.panel.judges:
            # one call per packet (compare: both orders)
            tokens = sum(
                estimate_input_tokens(len(client_for(judge.spec).build_request(judge.spec, prompt, None).content), images)
                for prompt, images in sized
            )
            output = OUTPUT_TOKENS_ESTIMATE * len(sized)
            price = price_for(judge.spec.model, prices)
            usd = None if price is None else str(cost(price, tokens, output))
            judges.append({"label": judge.label, "model": judge.spec.model, "input_tokens": tokens,
                           "output_tokens": output, "usd": usd})
        return {"capture_id": capture.capture_id, "configuration": capture.configuration, "judges": judges}

    def close(self) -> list[str]:
        """Cancel captures judged ahead whose items never ran, stop the loop; files that failed to write."""
        for future in self._pending.values():
            future.cancel()
        self._pending.clear()
        if self._loop is not None:
            self._loop.close()
            self._loop = None
        return self.output.drain()
