"""A capture's long texts left on disk after intake, read again from their line when needed.

A 100x bundle's answers are most of its bytes and nearly all distinct: holding them in every
process (the controller and each xdist worker) for the whole run cost about 200 MB. Intake checks
every line whole, then keeps only where the line is (its byte offset and length in captures.jsonl)
and a digest of its bytes; reading a text again checks the digest, so a bundle edited during the
run is an error naming the file and line, never a silently different text.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path
from typing import Any

from .errors import BundleChanged
from .jsonl import jsonl_line
from .paths import BundlePathError, bundle_file
from .strictjson import strict_loads

__all__ = ["DEFERRED_TEXTS", "LineTexts", "line_digest"]

DEFERRED_TEXTS = ("prompt", "answer")
"""The capture fields left on disk: the answer (distinct per capture) and the prompt (shared by an entry's lines)."""
_LAST: dict[str, Any] = {}
"""The last line parsed again (the report reads a capture's prompt, then its answer): checked, not parsed twice."""
_LOCK = threading.Lock()


def line_digest(data: bytes) -> bytes:
    """The digest a line's bytes (as read, line end included) are checked against when read again."""
    return hashlib.blake2b(data, digest_size=16).digest()


class LineTexts:
    """Where one capture's deferred texts are: captures.jsonl of `root`, line `line` at `offset`, `size` bytes."""

    __slots__ = ("digest", "line", "name", "offset", "root", "size")

    def __init__(self, root: Path, name: str, line: int, offset: int, size: int, digest: bytes) -> None:
        self.root, self.name, self.line, self.offset, self.size, self.digest = root, name, line, offset, size, digest

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LineTexts) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[Any, ...]:
        return LineTexts, (self.root, self.name, self.line, self.offset, self.size, self.digest)

    def _key(self) -> tuple[Any, ...]:
        return (str(self.root), self.name, self.line, self.offset, self.size, self.digest)

    def load(self) -> dict[str, str]:
        """The deferred fields as intake read them; BundleChanged when the line's bytes are not those checked."""
        key = self._key()
        changed = f"{self.name} line {self.line} changed since intake checked it"
        try:
            # Resolved again: a symlink swapped in after intake still cannot lead out of the bundle.
            with bundle_file(self.root, self.name).open("rb") as stream:
                stream.seek(self.offset)
                data = stream.read(self.size)
        except (OSError, BundlePathError) as error:
            raise BundleChanged(f"{changed}: it cannot be read again ({error}); "
                                "leave the bundle unchanged while a run reads it") from None
        if len(data) != self.size or line_digest(data) != self.digest:
            raise BundleChanged(f"{changed} (its bytes differ): leave the bundle unchanged while a run reads it, "
                                "then run again")
        with _LOCK:  # the bytes are checked on every read; only their parse is kept for the next field
            if _LAST.get("key") == key:
                return dict(_LAST["texts"])
        # The same steps as intake's, on the same bytes: the same strings come back.
        obj = strict_loads(jsonl_line(self.line, data).decode("utf-8"), lenient=("evidence",))
        texts = {name: obj[name] for name in DEFERRED_TEXTS}
        with _LOCK:
            _LAST["key"], _LAST["texts"] = key, texts
        return dict(texts)
