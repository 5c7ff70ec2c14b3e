"""Calls in flight: counted where requests leave for the network, shared through small files, and held to a limit.

Each process counts its own live calls (a replayed call never reaches the counted transport) and
keeps the count in `<directory>/<process>.json`, like the spend log, so the controller can show
the run's total under xdist.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx

__all__ = ["CountingTransport", "InFlightLog", "LimitedTransport"]


FLUSH_AFTER = 0.25
"""Seconds a changed count may wait before it is written: a progress figure, read every few seconds."""


class InFlightLog:
    """One process's count of live judge calls in flight, readable by every process of the run.

    The count changes twice a call; the file is written at most every FLUSH_AFTER seconds (a change in
    between is written when that time is up, so the file is never stale for longer), and at once when
    nothing is left in flight. Writing it on every change cost a busy run's event loop a tenth of its time.
    """

    def __init__(self, directory: Path, process: str, clock: Callable[[], float] = time.monotonic) -> None:
        self.directory = directory
        self._own = directory / f"{process}.json"
        self._count = 0
        self._written: int | None = None
        self._last = -FLUSH_AFTER
        self._clock = clock
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def change(self, delta: int) -> None:
        with self._lock:
            self._count += delta
            if self._count == 0 or self._clock() - self._last >= FLUSH_AFTER:
                self._write()
            elif self._timer is None:
                self._timer = threading.Timer(FLUSH_AFTER, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        """Write the count now if the file does not hold it."""
        with self._lock:
            self._timer = None
            self._write()

    def _write(self) -> None:
        self._last = self._clock()
        if self._written == self._count:
            return
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            temporary = self._own.with_suffix(".tmp")
            temporary.write_text(json.dumps({"in_flight": self._count}), encoding="utf-8")
            os.replace(temporary, self._own)
            self._written = self._count
        except OSError:
            pass  # a progress figure is not worth failing a judge call for

    def total(self) -> int:
        total = 0
        for path in sorted(self.directory.glob("*.json")):
            try:
                total += int(json.loads(path.read_text(encoding="utf-8"))["in_flight"])
            except (OSError, ValueError, KeyError):
                continue  # a file being replaced right now
        return total


class CountingTransport(httpx.AsyncBaseTransport):
    """Counts a request as in flight from sending until its response body has arrived."""

    def __init__(self, inner: httpx.AsyncBaseTransport, log: InFlightLog) -> None:
        self._inner = inner
        self._log = log

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self._log.change(+1)
        try:
            response = await self._inner.handle_async_request(request)
            await response.aread()
            return response
        finally:
            self._log.change(-1)

    async def aclose(self) -> None:
        await self._inner.aclose()


class LimitedTransport(httpx.AsyncBaseTransport):
    """Holds at most `limit` calls in flight at once, candidates' and judges' alike; the others wait their turn.

    A call holds its place from sending until its response body has arrived (not while it waits for
    its rate-limit slot or between retries), so one stage's calls never keep the other's from going.
    """

    def __init__(self, inner: httpx.AsyncBaseTransport, limit: int) -> None:
        self._inner = inner
        self.limit = max(1, limit)
        self._places: asyncio.Semaphore | None = None

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self._places is None:  # made in the loop that sends (the transport is built before it runs)
            self._places = asyncio.Semaphore(self.limit)
        async with self._places:
            response = await self._inner.handle_async_request(request)
            await response.aread()
            return response

    async def aclose(self) -> None:
        await self._inner.aclose()
