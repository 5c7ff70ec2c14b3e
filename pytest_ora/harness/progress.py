"""Live progress on the terminal: captures done of total, judge calls in flight, re-asks, retries,
spend against the budget and time left.

The controller keeps it. Finished captures arrive as records on the item reports (under xdist
too); calls in flight are read from every process's in-flight file. Replay-only runs show none.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING

from ..core.record import CaptureRecord
from ..judges.budget import Price, usage_cost

if TYPE_CHECKING:
    from ..judges.inflight import InFlightLog  # its module loads httpx, which the controller does not need

__all__ = ["INTERVAL_ENV", "LiveProgress"]

INTERVAL_ENV = "PYTEST_ORA_PROGRESS_SECONDS"
"""Seconds between progress lines (default 5); the first finished capture always prints one."""


class LiveProgress:
    """The controller's running account of a live run."""

    def __init__(
        self,
        in_flight: InFlightLog,
        prices: Mapping[str, Price],
        budget: Decimal | None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.in_flight = in_flight
        self.prices = prices
        self.budget = budget
        self.total: int | None = None
        self.done = 0
        self.errors = 0
        self.reasks = 0
        self.retries = 0
        self.spent = Decimal(0)
        self.priced_only = False
        """Every judge is on this machine: the spend is what the calls would cost at the models' prices, not paid."""
        self.candidates = False
        """Candidates answer in the run: the calls in flight are theirs and the judges', the spend both together."""
        self._clock = clock
        self._started = clock()
        self._last: float | None = None
        self.interval = float(os.environ.get(INTERVAL_ENV, "5"))

    def add(self, record: CaptureRecord) -> None:
        """Count a finished capture; re-asks, retries and spend only for calls sent in this run."""
        self.done += 1
        self.errors += record["status"] == "error"
        if record["live_calls"]:
            self.reasks += sum(judge["asks"] - 1 for judge in record["judges"])
            self.retries += sum(judge["attempts"] - judge["asks"] for judge in record["judges"])
            self.spent += usage_cost(record["judges"], self.prices)
        cost = record.get("candidate", {}).get("candidate_cost_usd") if record.get("candidate_live") else None
        if cost is not None:  # an answer made live this run, priced (role) or as its candidate reported
            self.spent += Decimal(str(cost))

    def due(self) -> bool:
        """Whether a line is due now (and note that it was printed)."""
        now = self._clock()
        if self._last is not None and now - self._last < self.interval:
            return False
        self._last = now
        return True

    def line(self, final: bool = False) -> str:
        """The progress line; the final one says how long the run took instead of what is left."""
        total = self.total if self.total is not None else "?"
        parts = [
            f"{self.done}/{total} captures",
            f"{self.in_flight.total()} {'calls (candidates and judges)' if self.candidates else 'judge calls'} in flight",
            f"{self.reasks} re-asks",
            f"{self.retries} retries",
        ]
        if self.errors:
            parts.append(f"{self.errors} errors")
        spend = f"${self.spent:.4f}"
        if self.priced_only:  # judges on this machine: what the calls would cost at the models' prices
            spend = f"{spend} (priced, not paid)"
        parts.append(
            f"{spend} of ${self.budget} budget"
            if self.budget is not None
            else spend
            if self.priced_only
            else f"{spend} spent"
        )
        parts.append(f"done in {self._clock() - self._started:.0f}s" if final else self._time_left())
        return "ora live: " + ", ".join(parts)

    def _time_left(self) -> str:
        if self.total is None or self.done == 0:
            return "time left: estimating"
        remaining = max(0, self.total - self.done)
        seconds = (self._clock() - self._started) / self.done * remaining
        minutes, rest = divmod(round(seconds), 60)
        return f"about {minutes}m{rest:02d}s left" if minutes else f"about {rest}s left"
