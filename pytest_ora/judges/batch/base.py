"""What the batch modules of each provider share: a pending request, a batch's status, one outcome."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

__all__ = ["Outcome", "Pending", "Status", "results_lines"]


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
    errors: str | None = None
    """OpenAI: the error file id (the requests that failed), if any."""


@dataclass(frozen=True)
class Outcome:
    """One request's result: the response body when it succeeded, else None (asked live instead)."""

    custom_id: str
    body: bytes | None


def results_lines(content: bytes) -> Iterator[dict[str, Any]]:
    """The objects of a results JSONL file (both providers' batch output), blank lines skipped."""
    for line in content.splitlines():
        if line.strip():
            yield json.loads(line)
