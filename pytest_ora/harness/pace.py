"""How fast a process judges: captures in flight per process, the items it will run next, the shared limiter.

Live judging is I/O-bound, so by default each process keeps several captures in flight (judging
ahead over the items it will run next); the shared rate limiter (judges/ratelimit.py) keeps the
whole run within the providers' limits. Replay is CPU-bound and stays one capture at a time.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..core.plan import PlannedCapture
from ..core.vocabulary import is_live
from .xdist import hand_to_worker, is_worker, queued_items, worker_value

if TYPE_CHECKING:  # the limiter paces HTTP calls: loaded by the processes that send them
    from ..judges.ratelimit import SharedLimiter

__all__ = [
    "AUTO_IN_FLIGHT",
    "LIMITS_KEY",
    "RunLimits",
    "calls_in_flight",
    "captures_ahead",
    "lookahead",
    "worker_upcoming",
]

AUTO_IN_FLIGHT = 32
"""Captures in flight per run by default when judging live (two judge calls each), split over xdist workers.

Against a judge without a limit, more in flight is more pace until the process's CPU is the bound; a
rate limit is held by the shared limiter (announced or learned by slow start), not by this number."""
LIMITS_KEY = "ora_limits_dir"
"""workerinput key naming the run's shared rate-limit directory."""
DIST_KEY = "ora_dist"
"""workerinput key holding the controller's --dist mode."""


def lookahead(concurrency: int, record: str, workers: int, budgeted: bool = False) -> int:
    """Captures judged at once in one process: the option, else auto (live: AUTO_IN_FLIGHT over the workers).

    Auto stays at one capture in replay (CPU-bound) and under --ora-budget-usd, whose guard is
    checked as a capture starts: judging ahead would start captures the budget may not cover.
    """
    if concurrency:
        return concurrency
    if not is_live(record) or budgeted:
        return 1
    return max(2, AUTO_IN_FLIGHT // max(1, workers))


def calls_in_flight(captures: int, asks: int, candidates: bool = False) -> int:
    """A process's one limit of calls in flight: its captures in flight, each with every judge (and sample) asked
    at once, and as many candidate calls again when candidates answer in the run.

    Judging and answering each get their stage's worth of calls (`captures` x `asks`, and `captures`), under one
    limit both stages draw from: generation and judging overlap, so a run takes about as long as its slower stage,
    not the two added up. One capture at a time (replay, a budget, --ora-concurrency 1) keeps one call.
    """
    judged = max(1, captures) * max(1, asks)
    return judged + captures if candidates and captures > 1 else judged


def captures_ahead(captures: int, calls: int, candidates: bool) -> int:
    """Captures a process keeps in flight: as many as its calls when candidates answer in the run, else `captures`.

    A capture holds one call while its candidate answers and one per judge while it is judged: with
    as many captures as calls, the captures being answered and those being judged fill the one limit
    of calls in flight, so neither stage waits for the other. One capture at a time (replay, a budget,
    --ora-concurrency 1) stays one.
    """
    if not candidates or captures <= 1:
        return captures
    return max(captures, calls)


def worker_upcoming(config: pytest.Config) -> list[PlannedCapture]:
    """The captures xdist has queued on this worker, in run order (empty when not knowable).

    Only the default `load` scheduling keeps a worker's queue its own; `worksteal` may hand a
    queued item to another worker, which would then judge (and pay for) it a second time.
    """
    # Workers run with dist "no": the controller's mode arrives in workerinput.
    if worker_value(config, DIST_KEY) not in ("load", "loadscope", "loadfile", "loadgroup"):
        return []
    queue = queued_items(config)
    if queue is None:
        return []
    items, indices = queue
    upcoming = []
    for index in indices:
        if not isinstance(index, int) or not 0 <= index < len(items):
            continue
        callspec = getattr(items[index], "callspec", None)
        planned = callspec.params.get("ora_capture") if callspec is not None else None
        if planned is not None and planned.status == "judge":
            upcoming.append(planned)
    return upcoming


class RunLimits:
    """The run's shared rate-limit directory: made by the controller, handed to xdist workers."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._owned: Path | None = None
        self._limiter: SharedLimiter | None = None

    def directory(self) -> Path:
        """The directory shared by every process of this run."""
        given = worker_value(self._config, LIMITS_KEY)
        if given:
            return Path(given)
        if self._owned is None:
            self._owned = Path(tempfile.mkdtemp(prefix="ora-limits-"))
        return self._owned

    def configure_node(self, node: Any) -> None:
        """Hand the directory to an xdist worker before it starts."""
        hand_to_worker(
            node, {LIMITS_KEY: str(self.directory()), DIST_KEY: str(getattr(self._config.option, "dist", "no"))}
        )

    def limiter(self, rpm: tuple[tuple[str, float], ...], tpm: tuple[tuple[str, float], ...]) -> SharedLimiter:
        """The limiter of this process: one for its captures and its tests' judge calls alike.

        Over the shared directory on an xdist worker; in memory when the process is the run's only one.
        """
        if self._limiter is None:
            from ..judges.ratelimit import Limit, SharedLimiter

            roles = {role for role, _ in rpm} | {role for role, _ in tpm}
            limits = {role: Limit(rpm=dict(rpm).get(role), tpm=dict(tpm).get(role)) for role in roles}
            self._limiter = SharedLimiter(self.directory() if is_worker(self._config) else None, limits)
        return self._limiter

    def close(self) -> None:
        """Remove the directory (controller only; workers leave it to the controller)."""
        if self._owned is not None:
            shutil.rmtree(self._owned, ignore_errors=True)
            self._owned = None
