"""Which judge the current task is calling, for the transports below the panel (pacing, cassettes)."""

from __future__ import annotations

import contextvars

from ..bundle.intake import JudgeSlot

__all__ = ["current_judge", "judging_as"]

_JUDGE: contextvars.ContextVar[JudgeSlot | None] = contextvars.ContextVar("ora_judge", default=None)


def judging_as(judge: JudgeSlot) -> None:
    """Mark the running task (one judge's calls for one capture) as this judge's."""
    _JUDGE.set(judge)


def current_judge() -> JudgeSlot | None:
    """The judge whose call is being sent, or None outside a judge's task."""
    return _JUDGE.get()
