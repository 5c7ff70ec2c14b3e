"""A capture's long texts left on disk after intake, read again from their line when needed.

A 100x bundle's answers are most of its bytes and nearly all distinct: holding them in every
process (the controller and each xdist worker) for the whole run cost about 200 MB. Intake checks
every line whole, then keeps only where the line is (its byte offset and length in captures.jsonl)
and a digest of its bytes; reading a text again checks the digest, so a bundle edited during the
run is an error naming the file and line, never a silently different text.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any, BinaryIO

from .candidates import transcript_of, transcript_text
from .errors import BundleChanged
from .jsonl import jsonl_line
from .paths import bundle_file

__all__ = ["DEFERRED_TEXTS", "LineSource", "LineTexts", "line_digest"]

DEFERRED_TEXTS = ("prompt", "answer")
"""The capture fields left on disk: the answer (distinct per capture) and the prompt (shared by an entry's lines)."""
_LAST: dict[str, Any] = {}
"""The last line parsed again (the report reads a capture's prompt, then its answer): checked, not parsed twice."""
_LOCK = threading.Lock()


def line_digest(data: bytes) -> bytes:
    """The digest a line's bytes (as read, line end included) are checked against when read again."""
    return hashlib.blake2b(data, digest_size=16).digest()


class LineSource:
    """The captures.jsonl a bundle's deferred texts come from, as intake opened it (its real path and file identity)."""

    __slots__ = ("identity", "name", "path", "root")

    def __init__(self, root: Path, name: str, path: Path, identity: tuple[int, int]) -> None:
        self.root, self.name, self.path, self.identity = root, name, path, identity

    @classmethod
    def opened(cls, root: Path, name: str, stream: BinaryIO) -> LineSource:
        """The source of the file intake is reading through `stream`."""
        status = os.fstat(stream.fileno())
        return cls(root, name, bundle_file(root, name).resolve(), (status.st_dev, status.st_ino))

    def __reduce__(self) -> tuple[Any, ...]:
        return LineSource, (self.root, self.name, self.path, self.identity)

    def read(self, line: int, offset: int, size: int) -> bytes:
        """`size` bytes at `offset`, from the very file intake read; BundleChanged for any other file."""
        changed = f"{self.name} line {line} changed since intake checked it"
        try:
            # O_NOFOLLOW: the file itself swapped for a link (even to the same file moved out) is not followed.
            with os.fdopen(os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)), "rb") as stream:
                status = os.fstat(stream.fileno())
                # The same file or none: a file moved, replaced or linked in since intake is never read.
                if (status.st_dev, status.st_ino) != self.identity:
                    raise BundleChanged(f"{changed}: it is another file now; leave the bundle unchanged while a "
                                        "run reads it, then run again")
                stream.seek(offset)
                return stream.read(size)
        except OSError as error:
            raise BundleChanged(f"{changed}: it cannot be read again ({error.strerror or error}); "
                                "leave the bundle unchanged while a run reads it") from None


class LineTexts:
    """Where one capture's deferred texts are: line `line` of `source`, `size` bytes at `offset`, and their digest."""

    __slots__ = ("digest", "line", "offset", "size", "source")

    def __init__(self, source: LineSource, line: int, offset: int, size: int, digest: bytes) -> None:
        self.source, self.line, self.offset, self.size, self.digest = source, line, offset, size, digest

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LineTexts) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[Any, ...]:
        return LineTexts, (self.source, self.line, self.offset, self.size, self.digest)

    def _key(self) -> tuple[Any, ...]:
        return (str(self.source.path), self.source.identity, self.line, self.offset, self.size, self.digest)

    def load(self) -> dict[str, str]:
        """The deferred fields as intake read them; BundleChanged when the line's bytes are not those checked."""
        key = self._key()
        data = self.source.read(self.line, self.offset, self.size)
        if len(data) != self.size or line_digest(data) != self.digest:
            raise BundleChanged(f"{self.source.name} line {self.line} changed since intake checked it (its bytes "
                                "differ): leave the bundle unchanged while a run reads it, then run again")
        with _LOCK:  # the bytes are checked on every read; only their parse is kept for the next field
            if _LAST.get("key") == key:
                return dict(_LAST["texts"])
        # The bytes intake checked whole (strictly: no repeated key, exact numbers): the plain parser gives the
        # same strings for these top-level fields, faster.
        obj = json.loads(jsonl_line(self.line, data).decode("utf-8"))
        texts = {name: obj[name] for name in DEFERRED_TEXTS}
        if isinstance(texts["answer"], list):  # a transcript: its text, as the capture read whole holds it
            texts["answer"] = transcript_text(transcript_of(texts["answer"]))
        with _LOCK:
            _LAST["key"], _LAST["texts"] = key, texts
        return dict(texts)
