"""What the batch modules of each provider share: a pending request, a batch's status, one outcome."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import OraError

__all__ = ["BatchResultsError", "FileBody", "Outcome", "Pending", "Status", "results_lines"]


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


class FileBody:
    """A file's bytes as a request body, read in chunks each time the request is sent.

    An upload streams from the file the requests were written into instead of holding them; a
    retried call reads the file again from its start (a generator could be sent only once).
    """

    CHUNK = 1 << 16

    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def headers(self) -> dict[str, str]:
        """Its length, so it is sent with a content-length as a bytes body is (not chunked)."""
        return {"content-length": str(self.path.stat().st_size)}

    def __iter__(self) -> Iterator[bytes]:
        with self.path.open("rb") as handle:
            while chunk := handle.read(self.CHUNK):
                yield chunk


class BatchResultsError(OraError):
    """A batch's results file is not JSON lines of objects: none of it is trusted."""


def results_lines(content: bytes) -> list[dict[str, Any]]:
    """The objects of a results JSONL file (both providers' batch output), blank lines skipped.

    A line that is not a JSON object with a custom_id raises BatchResultsError naming it (before:
    an INTERNALERROR): the whole file is refused and its requests are asked live.
    """
    objects = []
    for number, line in enumerate(content.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError as error:
            raise BatchResultsError(f"line {number} is not JSON: {error}") from None
        if not isinstance(value, dict) or "custom_id" not in value:
            raise BatchResultsError(f"line {number} is not a result object with a custom_id")
        objects.append(value)
    return objects
