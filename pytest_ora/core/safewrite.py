"""Files written under a directory the user named: never through a symbolic link, whole or not at all.

Every writer of a file a user opens (init's suite, the labelling page) goes through here: a name
under the target that is a symbolic link (even a dangling one, which exists() calls absent) is
refused, never followed to a file outside the target; a file appears whole (a temporary name, then
a rename) and a set of files all appear or none does.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Collection, Mapping
from pathlib import Path

from .errors import OraError
from .fileio import file_mode

__all__ = ["UnsafeWriteError", "check_target", "write_files"]


class UnsafeWriteError(OraError, OSError):
    """A file that cannot be written safely under its target: a symbolic link, or not a directory on the way."""


def check_target(root: Path, relative: str, overwrite: bool = False) -> Path:
    """root/relative, after checking that no name on the way under root is a symbolic link and that the
    file is absent (a dangling link counts as present) or, with `overwrite`, a regular file.
    UnsafeWriteError otherwise."""
    path = root
    parts = Path(relative).parts
    if Path(relative).is_absolute() or ".." in parts:
        raise UnsafeWriteError(f"{root / relative}: leads outside {root}")
    for index, part in enumerate(parts):
        path = path / part
        last = index == len(parts) - 1
        if os.path.islink(path):
            raise UnsafeWriteError(
                f"{path}: is a symbolic link; not written through (remove it or choose another directory)"
            )
        if not os.path.lexists(path):
            continue
        if not last and not path.is_dir():
            raise UnsafeWriteError(f"{path}: is not a directory")
        if last and (not overwrite or not path.is_file()):
            raise UnsafeWriteError(f"{path}: already exists" + ("" if path.is_file() else " and is not a regular file"))
    return path


def write_files(root: Path, files: Mapping[str, str], replace: Collection[str] = ()) -> list[Path]:
    """Every file of `files` (path under root: text) written, or none: on any failure the files and
    directories this call made are removed and the OSError raised. A name in `replace` may already be
    a regular file (replaced last, once every new file is in place). The paths written, in order."""
    if os.path.lexists(root) and not root.is_dir():
        raise UnsafeWriteError(f"{root}: is not a directory")
    targets = [check_target(root, name, name in replace) for name in files]
    made_dirs: list[Path] = []
    staged: list[tuple[str, Path, bool]] = []
    created: list[Path] = []
    try:
        for name, target in zip(files, targets, strict=True):
            made_dirs += _make_parents(target.parent)
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
            staged.append((temporary, target, name in replace))
            os.fchmod(handle, file_mode())
            with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
                stream.write(files[name])
        for temporary, target, replacing in sorted(staged, key=lambda item: item[2]):
            if replacing:
                os.replace(temporary, target)  # replaces a name, never follows one
                continue
            os.link(temporary, target)  # fails on any name already there, a dangling link included
            created.append(target)
            os.unlink(temporary)
    except BaseException:
        for temporary, _, _ in staged:
            Path(temporary).unlink(missing_ok=True)
        for target in created:
            target.unlink(missing_ok=True)
        for directory in reversed(made_dirs):
            with contextlib.suppress(OSError):
                directory.rmdir()
        raise
    return targets


def _make_parents(directory: Path) -> list[Path]:
    """The directories made for `directory`, outermost first."""
    missing: list[Path] = []
    while not os.path.lexists(directory):
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        os.mkdir(path)
    return list(reversed(missing))
