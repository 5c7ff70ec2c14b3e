"""Earlier reports: before a run replaces the report in --ora-out, the last one moves to runs/NNNN/.

The current report stays directly in --ora-out (scripts read it there). Earlier
ones are numbered in the order they were replaced, not stamped with a time, so two directories
that saw the same runs hold the same names.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["RUNS_DIR", "archive_report", "run_directories"]

RUNS_DIR = "runs"


def run_directories(runs: Path) -> list[tuple[int, Path]]:
    """runs/NNNN as (number, path), oldest first: real directories with ASCII-digit names only.

    A symbolic link (which could lead outside --ora-out), a FIFO or a file is skipped; `runs/²` is
    a digit to str.isdigit() but no number to int(), and is skipped too. lstat only: nothing is opened.
    """
    if runs.is_symlink() or not runs.is_dir():
        return []
    found = [
        (int(p.name), p)
        for p in runs.iterdir()
        if p.name.isascii() and p.name.isdigit() and not p.is_symlink() and p.is_dir()
    ]
    return sorted(found)


def archive_report(out: Path, names: tuple[str, ...]) -> Path | None:
    """Move the report files present in `out` to runs/<next number>/; the new directory, or None."""
    present = [name for name in names if (out / name).is_file()]
    if not present:
        return None
    runs = out / RUNS_DIR
    if runs.is_symlink() or (os.path.lexists(runs) and not runs.is_dir()):
        raise OSError(f"{runs}: is not a directory of this output (a symbolic link or a file); remove it")
    runs.mkdir(exist_ok=True)
    numbers = [number for number, _ in run_directories(runs)]
    target = runs / f"{max(numbers, default=0) + 1:04d}"
    target.mkdir()
    for name in present:
        os.replace(out / name, target / name)
    return target
