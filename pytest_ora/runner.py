"""One process's capture runner: packet, cassette, both judges, exact scores, the record.

Each pytest process (the only one, or each xdist worker) keeps one event loop and one
httpx.AsyncClient for all its captures, so connections are reused across captures.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx

from .cassettes import CassetteLibrary
from .intake import PlannedCapture
from .judging import Judging, judge_packet
from .output import OutputDir
from .packet import build_packet, packet_json
from .record import CaptureRecord, base_record
from .scoring import combine

__all__ = ["CaptureRunner"]


class CaptureRunner:
    """Judges captures in this process; close() when the session ends."""

    def __init__(self, root: Path, judging: Judging, cassettes: CassetteLibrary, output: OutputDir) -> None:
        self.root = root
        self.judging = judging
        self.cassettes = cassettes
        self.output = output
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
        packet, image = build_packet(capture, self.root, self.judging.rubric)
        self.output.write_capture(capture.capture_id, "packets", "", packet_json(packet))
        loop, client = self._ensure()
        with self.cassettes.use(capture.capture_id):
            judges = loop.run_until_complete(judge_packet(self.judging, client, packet, image))
        for judge in judges:
            self.output.write_capture(capture.capture_id, "judges", judge["slot"], dict(judge))
        record = base_record(planned, "scored")
        record["judges"] = judges
        record["failure"] = combine([judge["scores"] for judge in judges], self.judging.rubric).failure
        return record

    def close(self) -> None:
        if self._loop is not None and self._client is not None:
            self._loop.run_until_complete(self._client.aclose())
            self._loop.close()
        self._loop = None
        self._client = None
