"""SIGINT and SIGTERM during a run: both interrupt like Ctrl-C, and neither can cut the report short.

pytest turns a KeyboardInterrupt into an orderly interruption: the session finishes, pytest-ora
writes the report with what was judged and releases the output lock. SIGTERM's default action
kills the process with none of that, so it is made to raise KeyboardInterrupt too. Once the
session is finishing (any plugin's pytest_sessionfinish, xdist's included) a signal is held
until the report is written and the lock released; the run then exits as interrupted.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

__all__ = ["SignalGuard"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class SignalGuard:
    """Installs and removes pytest-ora's SIGINT/SIGTERM handlers (main thread only)."""

    def __init__(self, settle: Callable[[], None] = lambda: None) -> None:
        self._settle = settle
        """Called before the interrupt is raised: lets a thread that compiles source (the session end's
        warm-up) finish first, since pytest reports the interrupt by parsing source too. CPython 3.11's AST
        constructor keeps its recursion count per interpreter, not per thread, and an interrupt in the
        first seconds of a live run once ended in "SystemError: AST constructor recursion depth mismatch"
        inside pytest's report of it; with the two apart it cannot meet the warm-up's compiling."""
        self._previous: dict[int, Any] = {}
        self.holding = False
        self.held: int | None = None
        """The signal that arrived while the report was being written, if one did."""
        self.received: int | None = None
        """The signal that interrupted the run, if one did (the report says what stopped it)."""

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread() or self._previous:
            return
        for number in _SIGNALS:
            self._previous[number] = signal.signal(number, self._handle)

    def hold(self) -> None:
        """From now on a signal is remembered, not raised: the report is being written."""
        self.holding = True

    def restore(self) -> None:
        """Put back the handlers found at install()."""
        for number, previous in self._previous.items():
            signal.signal(number, previous)
        self._previous.clear()
        self.holding = False

    def _handle(self, number: int, frame: FrameType | None) -> None:
        if self.holding:
            self.held = number
            return
        self.received = number
        self._settle()
        raise KeyboardInterrupt(f"{signal.Signals(number).name} received")
