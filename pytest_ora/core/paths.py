"""Where a path the bundle names really leads: it must resolve inside the bundle, symlinks followed."""

from __future__ import annotations

import functools
from pathlib import Path

from .errors import OraError

__all__ = ["MAX_NAME_BYTES", "BundlePathError", "bundle_file", "inside"]

MAX_NAME_BYTES = 255
"""The longest file or directory name ext4, APFS, NTFS and most others store."""


class BundlePathError(OraError, ValueError):
    """A path the bundle names leads outside it, or is not a regular file."""


def inside(root: Path, relative: str | Path) -> Path:
    """root/relative resolved (every symlink followed); BundlePathError when it leaves the bundle."""
    path = Path(relative)
    if path.is_absolute() or ".." in path.parts:
        raise BundlePathError("points outside the bundle")
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in path.parts):
        # a stat of it would raise `File name too long`, not say "absent"
        raise BundlePathError(f"has a name longer than a file system allows ({MAX_NAME_BYTES} bytes)")
    base = _resolved(root)
    # The text is checked first, the destination second: a symlink anywhere on the way
    # (the file, specs/, specs/<family>/) can lead out, and only resolve() sees where.
    resolved = (base / path).resolve()
    if not resolved.is_relative_to(base):
        raise BundlePathError("resolves outside the bundle (through a symlink)")
    return resolved


@functools.lru_cache(maxsize=16)
def _resolved(root: Path) -> Path:
    """The bundle root resolved once: intake asks for thousands of paths under the same root."""
    return root.resolve()


def bundle_file(root: Path, name: str) -> Path:
    """A bundle file to read: inside the bundle and a regular file (never a directory or a FIFO).

    FileNotFoundError when absent; BundlePathError for anything else that cannot be read safely.
    """
    path = inside(root, name)
    if not path.exists():
        raise FileNotFoundError(name)
    # is_file() is a stat, not an open: a FIFO is refused without blocking on it.
    if not path.is_file():
        kind = "a directory" if path.is_dir() else "not a regular file"
        raise BundlePathError(f"is {kind}")
    return path
