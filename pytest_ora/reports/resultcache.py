"""Results of the session end's costly, pure steps, kept by the digest of everything they read.

The statistics (numpy, scipy, statsmodels, krippendorff) and the charts (matplotlib) cost seconds
on every run, mostly importing those libraries, and a replay of unchanged cassettes gives them
the same inputs each time. Each result is stored under the SHA-256 of its inputs, of every source
file of this package and of the versions of the libraries it uses: the same key can only come
from the same inputs computed by the same code, so a hit returns the bytes a fresh computation
would write, and anything changed (a ledger row, the rubric, a line of code, a library upgrade)
is a miss that computes afresh. An entry that does not read back whole is ignored.

Where: `$PYTEST_ORA_CACHE` if set (`off` disables the cache), else `$XDG_CACHE_HOME/pytest-ora`
(`~/.cache/pytest-ora`). At most `KEEP` entries are kept, the oldest removed first.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["CACHE_ENV", "KEEP", "cache_directory", "cached", "digest"]

CACHE_ENV = "PYTEST_ORA_CACHE"
KEEP = 64
"""Entries kept per kind: a few bundles' and branches' worth, a few megabytes."""
_LIBRARIES = ("numpy", "scipy", "statsmodels", "krippendorff", "matplotlib", "pydantic")


def cache_directory() -> Path | None:
    """The cache's root, or None when disabled."""
    given = os.environ.get(CACHE_ENV)
    if given is not None:
        return None if given.strip().lower() in ("", "0", "off", "no", "false") else Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-ora"


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """This package's sources and the libraries' versions: a result computed by other code never matches."""
    root = Path(__file__).resolve().parent.parent
    hasher = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        hasher.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    for name in _LIBRARIES:
        try:
            version = metadata.version(name)
        except metadata.PackageNotFoundError:
            version = "-"
        hasher.update(f"{name}={version}\0".encode())
    return hasher.hexdigest()


def digest(kind: str, inputs: Any) -> str:
    """The key of a result: its kind, its inputs (JSON-serialisable) and the code's digest."""
    text = json.dumps(inputs, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(f"{kind}\0{_code_digest()}\0{text}".encode()).hexdigest()


def cached(kind: str, inputs: Any, compute: Callable[[], dict[str, str]]) -> dict[str, str]:
    """`compute()`, or what it returned before for the same inputs and code."""
    root = cache_directory()
    if root is None:
        return compute()
    key = digest(kind, inputs)
    directory = root / kind
    path = directory / f"{key}.json"
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        if entry.get("key") == key and isinstance(entry.get("result"), dict):
            result: dict[str, str] = entry["result"]
            if all(isinstance(value, str) for value in result.values()):
                return result
    except (OSError, ValueError):
        pass  # absent, unreadable or torn: compute afresh
    result = compute()
    _store(directory, path, {"key": key, "result": result})
    return result


def _store(directory: Path, path: Path, entry: dict[str, Any]) -> None:
    """Write an entry whole or not at all; a cache that cannot be written is no cache, never an error."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(entry, stream, ensure_ascii=False)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
        entries = sorted(directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in entries[:-KEEP]:
            old.unlink(missing_ok=True)
    except OSError:
        return
