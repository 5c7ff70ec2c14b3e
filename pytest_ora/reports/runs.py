"""runs.json: the earlier runs kept under runs/NNNN when this run's report was written.

report.html lists them (date, selection, mean overall per configuration) from this file, not from
runs/ itself: a report moved to runs/ by the next run still re-renders (`verify`) to the same bytes.
Only files inside runs/NNNN are read, and an unreadable one is listed as such, never guessed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .archive import RUNS_DIR, run_directories

__all__ = ["RUNS_NAME", "earlier_runs", "runs_json"]

RUNS_NAME = "runs.json"


def _read(directory: Path, name: str) -> Any:
    path = directory / name
    if path.is_symlink() or not path.resolve().is_relative_to(directory.resolve()):
        raise ValueError(f"{name} is a symbolic link or points outside {directory.name}")
    if not path.is_file():  # a stat: a FIFO is refused without blocking on it
        raise ValueError(f"{name} is not a regular file")
    return json.loads(path.read_text(encoding="utf-8"))


def _run(directory: Path) -> dict[str, Any]:
    entry: dict[str, Any] = {"run": directory.name}
    try:
        summary = _read(directory, "summary.json")
        run = _read(directory, "run.json") if os.path.lexists(directory / "run.json") else {}
        methodology = run.get("methodology") or {}
        entry.update(
            {
                "scoring_date": methodology.get("scoring_date"),
                "rubric": run.get("rubric") or (summary[0].get("rubric") if summary else None),
                "selection": (summary[0].get("selection") if summary else None) or "all captures",
                "captures": methodology.get("records"),
                "configurations": [[str(row["configuration"]), row.get("mean_overall")] for row in summary],
            }
        )
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        entry["unreadable"] = (
            f"{type(error).__name__}: {error}" if not isinstance(error, OSError) else (f"{error.strerror or error}")
        )
    return entry


def earlier_runs(out: Path) -> list[dict[str, Any]]:
    """The runs under out/runs/, oldest first."""
    return [_run(p) for _, p in run_directories(out / RUNS_DIR)]


def runs_json(runs: list[dict[str, Any]]) -> str:
    return json.dumps({"schema": "ora-runs-1", "runs": runs}, indent=1, ensure_ascii=False) + "\n"
