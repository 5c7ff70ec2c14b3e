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

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .archive import RUNS_DIR, run_directories
from .runfile import RunFileError, parse_run_file

__all__ = ["RUNS_NAME", "RUNS_SCHEMA", "EarlierRun", "RunsFile", "earlier_runs", "runs_json"]

RUNS_NAME = "runs.json"
RUNS_SCHEMA = "ora-runs-1"


class EarlierRun(BaseModel):
    """One run kept under runs/NNNN: what the page lists of it, or why it could not be read.

    A key the run's files did not give stays unwritten (an unreadable run has only `run` and `unreadable`)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    run: str
    """The directory's name under runs/."""
    scoring_date: str | None = None
    rubric: str | None = None
    selection: str | None = None
    captures: int | None = None
    """The run's records (run.json's methodology)."""
    configurations: list[tuple[str, int | float | None]] | None = None
    """(configuration, mean overall), in summary.json's order."""
    unreadable: str | None = None
    """Why the run's files could not be read: the run is listed as such, never guessed."""


class RunsFile(BaseModel):
    """runs.json: the earlier runs, oldest first."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_: str = Field(alias="schema")
    runs: list[EarlierRun]

    def dumps(self) -> str:
        """The file's text."""
        return json.dumps(self.model_dump(by_alias=True, exclude_unset=True), indent=1, ensure_ascii=False) + "\n"


def _read(directory: Path, name: str) -> Any:
    path = directory / name
    if path.is_symlink() or not path.resolve().is_relative_to(directory.resolve()):
        raise ValueError(f"{name} is a symbolic link or points outside {directory.name}")
    if not path.is_file():  # a stat: a FIFO is refused without blocking on it
        raise ValueError(f"{name} is not a regular file")
    return json.loads(path.read_text(encoding="utf-8"))


def _run(directory: Path) -> EarlierRun:
    try:
        summary = _read(directory, "summary.json")
        run = parse_run_file(_read(directory, "run.json")) if os.path.lexists(directory / "run.json") else None
        facts = None if run is None else run.methodology
        return EarlierRun(
            run=directory.name,
            scoring_date=None if facts is None else facts.scoring_date,
            rubric=(None if run is None else run.rubric) or (summary[0].get("rubric") if summary else None),
            selection=(summary[0].get("selection") if summary else None) or "all captures",
            captures=None if facts is None else facts.records,
            configurations=[(str(row["configuration"]), row.get("mean_overall")) for row in summary],
        )
    except RunFileError as error:  # run.json out of shape: its first bad field, said
        return EarlierRun(run=directory.name, unreadable=f"run.json: {error}")
    except ValidationError as error:  # a value of the wrong type: the first one, said
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        return EarlierRun(run=directory.name, unreadable=f"field {where}: {first['msg']}")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError, IndexError) as error:
        return EarlierRun(
            run=directory.name,
            unreadable=(
                f"{type(error).__name__}: {error}" if not isinstance(error, OSError) else (f"{error.strerror or error}")
            ),
        )


def earlier_runs(out: Path) -> list[EarlierRun]:
    """The runs under out/runs/, oldest first."""
    return [_run(p) for _, p in run_directories(out / RUNS_DIR)]


def runs_json(runs: list[EarlierRun]) -> str:
    """runs.json's text."""
    return RunsFile(schema=RUNS_SCHEMA, runs=runs).dumps()
