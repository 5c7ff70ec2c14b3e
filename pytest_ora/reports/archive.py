"""Earlier reports: before a run replaces the report in --ora-out, the last one moves to runs/NNNN/.

The current report stays directly in --ora-out (SPEC section 7: scripts read it there). Earlier
ones are numbered in the order they were replaced, not stamped with a time, so two directories
that saw the same runs hold the same names.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["RUNS_DIR", "archive_report"]

RUNS_DIR = "runs"


def archive_report(out: Path, names: tuple[str, ...]) -> Path | None:
    """Move the report files present in `out` to runs/<next number>/; the new directory, or None."""
    present = [name for name in names if (out / name).is_file()]
    if not present:
        return None
    runs = out / RUNS_DIR
    runs.mkdir(exist_ok=True)
    numbers = [int(p.name) for p in runs.iterdir() if p.is_dir() and p.name.isdigit()]
    target = runs / f"{max(numbers, default=0) + 1:04d}"
    target.mkdir()
    for name in present:
        os.replace(out / name, target / name)
    return target
