"""What the batch modules of each provider share: a pending request, a batch's status, one outcome."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Outcome", "Pending", "Status"]


@dataclass(frozen=True)
class Pending:
    """One judge call to be made through a batch."""

    custom_id: str
    capture_id: str
    label: str
    """The judge's label (its cassette tag)."""
    url: str
    body: bytes
    """The exact body a live call would send: the cassette matches on it."""


@dataclass(frozen=True)
class Status:
    """A batch as last polled."""

    state: str
    finished: bool
    done: int
    total: int
    results: str | None
    """Where the results are (OpenAI: the output file id; Anthropic: the results URL)."""


@dataclass(frozen=True)
class Outcome:
    """One request's result: the response body when it succeeded, else None (asked live instead)."""

    custom_id: str
    body: bytes | None
