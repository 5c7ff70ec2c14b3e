"""Which judge a call is for, carried on the request itself for the transports below the panel.

As httpx carries a request's timeout in `Request.extensions`, the panel puts the judge (and the
capture's cassette, judges/cassettes.py) on every request it sends; the pacing and cassette
transports read them there. Nothing is global or context-local, so captures judged concurrently
in one process cannot see each other's judge or cassette.
"""

from __future__ import annotations

import httpx

from ..core.plan import JudgeSlot

__all__ = ["CASSETTE_EXTENSION", "JUDGE_EXTENSION", "judge_of"]

JUDGE_EXTENSION = "ora.judge"
"""The request extension naming the JudgeSlot a call is sent for."""
CASSETTE_EXTENSION = "ora.cassette"
"""The request extension holding the capture's cassette (a judges.cassettes.CaptureCassette)."""


def judge_of(request: httpx.Request) -> JudgeSlot | None:
    """The judge this request is sent for, or None for a request sent outside a judge's call."""
    judge = request.extensions.get(JUDGE_EXTENSION)
    return judge if isinstance(judge, JudgeSlot) else None
