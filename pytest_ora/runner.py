"""One process's capture runner: packet, cassette, both judges, exact scores, the record.

Each pytest process (the only one, or each xdist worker) keeps one event loop and one
httpx.AsyncClient for all its captures, so connections are reused across captures.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from .budget import OUTPUT_TOKENS_ESTIMATE, Price, SpendLog, cost, estimate_input_tokens, price_for
from .cassettes import CassetteLibrary
from .intake import PlannedCapture
from .judges import client_for
from .judges.base import ImagePart
from .judging import Judging, judge_packet
from .output import OutputDir
from .packet import build_packet, judge_prompt, packet_json
from .record import CaptureRecord, base_record
from .scoring import combine

__all__ = ["Budget", "BudgetReached", "CaptureRunner"]


class BudgetReached(pytest.skip.Exception):  # type: ignore[name-defined,misc]
    """The run's judge spend reached --ora-budget-usd: this capture is not started."""


@dataclass(frozen=True)
class Budget:
    """A cap on live judge spend, shared by every process of the run."""

    limit: Decimal
    prices: dict[str, Price]
    log: SpendLog


class CaptureRunner:
    """Judges captures in this process; close() when the session ends."""

    def __init__(
        self,
        root: Path,
        judging: Judging,
        cassettes: CassetteLibrary,
        output: OutputDir,
        budget: Budget | None = None,
    ) -> None:
        self.root = root
        self.judging = judging
        self.cassettes = cassettes
        self.output = output
        self.budget = budget
        self._loop: asyncio.AbstractEventLoop | None = None
        self._client: httpx.AsyncClient | None = None

    def _ensure(self) -> tuple[asyncio.AbstractEventLoop, httpx.AsyncClient]:
        if self._loop is None or self._client is None:
            self._loop = asyncio.new_event_loop()
            limits = httpx.Limits(max_connections=32, max_keepalive_connections=16)
            self._client = httpx.AsyncClient(timeout=self.judging.policy.timeout, limits=limits, trust_env=False)
        return self._loop, self._client

    def run(self, planned: PlannedCapture) -> CaptureRecord:
        """Judge one capture and return its record; judge and cassette errors propagate."""
        capture = planned.capture
        self._check_budget(capture.capture_id)
        packet, image = build_packet(capture, self.root, self.judging.rubric)
        self.output.write_capture(capture.capture_id, "packets", "", packet_json(packet))
        loop, client = self._ensure()
        with self.cassettes.use(capture.capture_id) as cassette:
            judges = loop.run_until_complete(judge_packet(self.judging, client, packet, image))
        for judge in judges:
            self.output.write_capture(capture.capture_id, "judges", judge["slot"], dict(judge))
        record = base_record(planned, "scored")
        record["judges"] = judges
        record["failure"] = combine([judge["scores"] for judge in judges], self.judging.rubric).failure
        record["live_calls"] = sum(judge["asks"] for judge in judges) - int(cassette.play_count)
        if record["live_calls"] and self.budget is not None:
            self.budget.log.add(self._spent(record))
        return record

    def _check_budget(self, capture_id: str) -> None:
        if self.budget is None:
            return
        spent = self.budget.log.total()
        if spent >= self.budget.limit:
            raise BudgetReached(
                f"{capture_id}: not judged: judge spend ${spent:.2f} reached --ora-budget-usd {self.budget.limit}",
                allow_module_level=False,
            )

    def _spent(self, record: CaptureRecord) -> Decimal:
        assert self.budget is not None
        total = Decimal(0)
        for judge in record["judges"]:
            price = price_for(judge["model"], self.budget.prices)
            if price is not None:
                total += cost(price, judge["usage"]["input_tokens"], judge["usage"]["output_tokens"])
        return total

    def estimate(self, planned: PlannedCapture, prices: dict[str, Price]) -> dict[str, Any]:
        """A dry run: the packet is built and written, each judge's first request sized, nothing sent."""
        capture = planned.capture
        packet, image = build_packet(capture, self.root, self.judging.rubric)
        self.output.write_capture(capture.capture_id, "packets", "", packet_json(packet))
        prompt = judge_prompt(packet, image, self.judging.rubric)
        images = sum(isinstance(part, ImagePart) for part in prompt.parts)
        judges = []
        for judge in self.judging.panel.judges:
            request = client_for(judge.spec).build_request(judge.spec, prompt, None)
            tokens = estimate_input_tokens(len(request.content), images)
            price = price_for(judge.spec.model, prices)
            usd = None if price is None else str(cost(price, tokens, OUTPUT_TOKENS_ESTIMATE))
            judges.append({"label": judge.label, "model": judge.spec.model, "input_tokens": tokens,
                           "output_tokens": OUTPUT_TOKENS_ESTIMATE, "usd": usd})
        return {"capture_id": capture.capture_id, "configuration": capture.configuration, "judges": judges}

    def close(self) -> None:
        if self._loop is not None and self._client is not None:
            self._loop.run_until_complete(self._client.aclose())
            self._loop.close()
        self._loop = None
        self._client = None
