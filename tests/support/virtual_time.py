"""An asyncio event loop on a virtual clock: sleeping moves the clock instead of waiting.

`asyncio.sleep`, `wait_for` and every timer of the loop run on `loop.time()`; when nothing is
ready, the loop jumps its clock to the next timer. A simulation of a minute of rate-limited
judging runs in milliseconds and always the same way, with the real limiter and retry code.
"""

from __future__ import annotations

import asyncio
import selectors
from collections.abc import Coroutine
from typing import Any, TypeVar

_T = TypeVar("_T")


class _JumpingSelector(selectors.DefaultSelector):
    """Never blocks: a wait for a timer moves the loop's clock to it."""

    def __init__(self, loop: VirtualLoop) -> None:
        super().__init__()
        self._loop = loop

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        events = super().select(0)
        if not events and timeout is not None and timeout > 0:
            self._loop.now += timeout
        return events


class VirtualLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock only moves when every task waits for a timer."""

    def __init__(self, start: float = 1000.0) -> None:
        self.now = start
        super().__init__(selector=_JumpingSelector(self))

    def time(self) -> float:
        return self.now

    def clock(self) -> float:
        """The virtual time, as a `clock` callable for code under test."""
        return self.now


def run_virtual(coroutine: Coroutine[Any, Any, _T], loop: VirtualLoop | None = None) -> _T:
    """Run `coroutine` to its end on a virtual clock."""
    loop = loop if loop is not None else VirtualLoop()
    try:
        return loop.run_until_complete(coroutine)
    finally:
        loop.close()
