"""Which judge the current task is calling, for the transports below the panel (pacing, cassettes)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable

from ..core.plan import JudgeSlot

__all__ = ["current_judge", "judging_as", "on_valid_reply", "reply_valid"]

_ON_VALID: contextvars.ContextVar[Callable[[JudgeSlot], None] | None] = contextvars.ContextVar(
    "ora_on_valid", default=None
)
_JUDGE: contextvars.ContextVar[JudgeSlot | None] = contextvars.ContextVar("ora_judge", default=None)


def judging_as(judge: JudgeSlot) -> None:
    """Mark the running task (one judge's calls for one capture) as this judge's."""
    _JUDGE.set(judge)


def current_judge() -> JudgeSlot | None:
    """The judge whose call is being sent, or None outside a judge's task."""
    return _JUDGE.get()


def on_valid_reply(callback: Callable[[JudgeSlot], None]) -> None:
    """Call `callback` whenever a judge of the running capture's task gives a valid reply."""
    _ON_VALID.set(callback)


def reply_valid(judge: JudgeSlot) -> None:
    """Say that this judge's reply for the running capture was valid (its exchanges may be kept)."""
    callback = _ON_VALID.get()
    if callback is not None:
        callback(judge)
