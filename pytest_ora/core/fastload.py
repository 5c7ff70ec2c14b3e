"""The speed machinery behind one switch: a capture's prompt and answer left on disk after intake, read again when asked for.

With `DEFER_TEXTS` on (the default), intake keeps of each captures.jsonl line only where it is (byte
offset and length) and a digest of its bytes; a text read again is checked against the digest, so a
bundle edited during the run is an error naming the file and line, never a silently different text.
Off, every capture holds its texts as intake read them. The outputs are the same bytes either way;
docs/performance.md has the memory this saves.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from pydantic import BaseModel, PrivateAttr

from .candidates import transcript_of, transcript_text
from .errors import BundleChanged
from .jsonl import jsonl_line
from .models import Capture
from .paths import bundle_file

__all__ = ["DEFERRED_TEXTS", "DEFER_TEXTS", "DeferredCapture", "LineSource", "LineTexts", "deferred", "loaded"]

DEFER_TEXTS = True
"""The one switch: intake leaves the captures' prompts and answers on disk (True) or keeps them in memory (False)."""
DEFERRED_TEXTS = ("prompt", "answer")
"""The capture fields left on disk: the answer (distinct per capture) and the prompt (shared by an entry's lines)."""
_LAST: dict[str, Any] = {}
"""The last line parsed again (the report reads a capture's prompt, then its answer): checked, not parsed twice."""
_LOCK = threading.Lock()
_FIELDS_SETS: dict[frozenset[str], set[str]] = {}


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
                    raise BundleChanged(
                        f"{changed}: it is another file now; leave the bundle unchanged while a "
                        "run reads it, then run again"
                    )
                stream.seek(offset)
                return stream.read(size)
        except OSError as error:
            raise BundleChanged(
                f"{changed}: it cannot be read again ({error.strerror or error}); "
                "leave the bundle unchanged while a run reads it"
            ) from None


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
            raise BundleChanged(
                f"{self.source.name} line {self.line} changed since intake checked it (its bytes "
                "differ): leave the bundle unchanged while a run reads it, then run again"
            )
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


class DeferredCapture(Capture):
    """A capture whose prompt and answer are read again from their line when asked for (see `deferred`).

    Every attribute, model_dump and model_copy still see the texts; only the memory is given back.
    """

    _texts: LineTexts | None = PrivateAttr(default=None)
    """Where the texts not held (DEFERRED_TEXTS) are."""

    if not TYPE_CHECKING:  # typed as the fields they are; only a deferred text ever gets here

        def __getattr__(self, name: str) -> Any:
            if name in DEFERRED_TEXTS:
                texts = (self.__pydantic_private__ or {}).get("_texts")
                if texts is not None:
                    return texts.load()[name]
            return super().__getattr__(name)

    def model_dump(self, **kwargs: Any) -> dict[str, Any]:
        return BaseModel.model_dump(loaded(self), **kwargs)

    def model_dump_json(self, **kwargs: Any) -> str:
        return BaseModel.model_dump_json(loaded(self), **kwargs)


def deferred(
    capture: Capture, source: LineSource, line: int, offset: int, raw: bytes, shared: dict[Any, Any] | None = None
) -> Capture:
    """`capture` (line `line` of `source`, the bytes `raw` at `offset`) without its prompt and answer when the
    switch is on; the capture itself when it is off.

    `shared` keeps one object per equal model snapshot and per equally written number across the
    captures of a bundle (a frozen capture never changes them).
    """
    if not DEFER_TEXTS:
        return capture
    values = {name: value for name, value in capture.__dict__.items() if name not in DEFERRED_TEXTS}
    if shared is not None:
        for name in ("model_snapshot", "cost_usd", "wall_clock_minutes"):
            value = values[name]
            key = (name, tuple(value.items()) if isinstance(value, dict) else str(value))
            if value is not None and (key in shared or len(shared) < 100_000):
                values[name] = shared.setdefault(key, value)
    light = DeferredCapture.model_construct(_fields_set=_shared_fields_set(capture.model_fields_set), **values)
    light._texts = LineTexts(source, line, offset, len(raw), line_digest(raw))
    return light


def loaded(capture: Capture) -> Capture:
    """`capture` holding its prompt and answer (itself when it does): one read of its line for both."""
    texts = capture._texts if isinstance(capture, DeferredCapture) else None
    if texts is None or all(name in capture.__dict__ for name in DEFERRED_TEXTS):
        return capture
    values = {**texts.load(), **capture.__dict__}  # a text given to model_copy(update=...) is kept
    return Capture.model_construct(_fields_set=capture.model_fields_set, **values)


def _shared_fields_set(fields: set[str]) -> set[str]:
    """One fields-set object per distinct set: a frozen model never changes it, and copies copy it first."""
    key = frozenset(fields)
    if key not in _FIELDS_SETS and len(_FIELDS_SETS) < 1024:
        _FIELDS_SETS[key] = set(fields)
    return _FIELDS_SETS.get(key, set(fields))
