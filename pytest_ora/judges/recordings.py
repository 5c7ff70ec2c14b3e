"""What a cassette directory was recorded for: one bundle, and the rubric versions recorded into it.

Two small files beside the cassettes, never inside one (so re-recording a cassette never touches
them, and cassettes of directories without them replay as before):

- `.ora-bundle`: the bundle id the directory belongs to. Recording another bundle into it stops
  the run, naming both ids and the fix.
- `.ora-rubrics` (JSON): the request format the directory was recorded in, and every rubric
  version recorded into it with its digest and judge view. A version recorded once can never be
  loaded with another digest (the history is append-only in fact, not only in form), and a new
  version whose judge view equals a recorded one replays those recordings and is rescored offline.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..core.errors import OraError
from ..core.fileio import file_mode
from ..core.rubric import Rubric
from .packet import PROMPT_FORMATS, PROMPT_VERSION, judge_view

__all__ = [
    "BUNDLE_FILE",
    "NEW_FORMAT",
    "RUBRICS_FILE",
    "Recorded",
    "RecordingsError",
    "bind_rubric",
    "check_bundle",
    "check_history",
    "note_recording",
    "prompt_format",
    "read_recorded",
]

BUNDLE_FILE = ".ora-bundle"
RUBRICS_FILE = ".ora-rubrics"
"""JSON, named without .json so nothing that walks the cassettes (*.json) takes it for one."""
NEW_FORMAT = "prompt-2"
"""The request format of a directory recorded from scratch: only what the judge scores by."""


class RecordingsError(OraError):
    """The cassette directory cannot be used for this run as it stands (a usage error, exit 4)."""


@dataclass(frozen=True)
class Recorded:
    """One rubric version recorded into a cassette directory."""

    version: str
    digest: str
    view: str


def read_recorded(directory: Path) -> tuple[str | None, tuple[Recorded, ...]]:
    """The directory's recorded request format (None: no record) and rubric versions, oldest first."""
    path = directory / RUBRICS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (FileNotFoundError, NotADirectoryError):
        return None, ()  # no record yet (or no directory: the run says so when it would record there)
    except (OSError, ValueError) as error:
        raise RecordingsError(
            f"{path}: cannot be read ({error}); restore it from version control or delete it"
        ) from None
    try:
        fmt = data["prompt"]
        entries = tuple(Recorded(str(e["version"]), str(e["digest"]), str(e["view"])) for e in data["rubrics"])
    except (KeyError, TypeError) as error:
        raise RecordingsError(f"{path}: not a rubric record (missing {error}); restore it or delete it") from None
    if fmt not in PROMPT_FORMATS:
        raise RecordingsError(f"{path}: unknown request format {fmt!r} (known: {', '.join(PROMPT_FORMATS)})")
    return str(fmt), entries


def prompt_format(directory: Path, recorded: str | None) -> str:
    """The request format: as recorded; a directory that already holds cassettes but no record predates
    the record (prompt-1); an empty or new directory gets the current format."""
    if recorded is not None:
        return recorded
    if directory.is_dir() and next(directory.glob("*/*/*.json"), None) is not None:
        return PROMPT_VERSION
    return NEW_FORMAT


def check_history(rubric: Rubric, entries: tuple[Recorded, ...], where: str) -> None:
    """A version already recorded with another digest is a changed rubric passing under an old id: refuse it."""
    for entry in entries:
        if entry.version == rubric.version and entry.digest != rubric.digest:
            raise RecordingsError(
                f"rubric {rubric.version} was recorded with {entry.digest}; this file is {rubric.digest}: "
                f"give the change a new version (a new id and a new history line; {where})"
            )


def bind_rubric(rubric: Rubric, directory: Path) -> Rubric:
    """The rubric as this cassette directory's requests must show it, and what its replies were recorded under.

    Raises RecordingsError for a version recorded with another digest.
    """
    recorded, entries = read_recorded(directory)
    check_history(rubric, entries, f"recorded in {directory / RUBRICS_FILE}")
    fmt = prompt_format(directory, recorded)
    bound = dataclasses.replace(rubric, prompt_format=fmt)
    view = judge_view(bound)
    first = next((entry for entry in entries if entry.view == view), None)
    if first is None or first.version == rubric.version:
        return bound
    return dataclasses.replace(
        bound,
        shown_version=first.version if fmt == PROMPT_VERSION else None,
        recorded_under=f"{first.version} ({first.digest})",
    )


def note_recording(rubric: Rubric, directory: Path) -> None:
    """Before a live run records: the directory's format and this rubric version join its record."""
    recorded, entries = read_recorded(directory)
    if recorded is not None and any(e.version == rubric.version for e in entries):
        return
    entry = {"version": rubric.version, "digest": rubric.digest, "view": judge_view(rubric)}
    data: dict[str, Any] = {
        "prompt": rubric.prompt_format,
        "rubrics": [dataclasses.asdict(e) for e in entries] + [entry],
    }
    _write(directory / RUBRICS_FILE, json.dumps(data, indent=1, sort_keys=True) + "\n")


def check_bundle(directory: Path, bundle: str, recording: bool, bind: bool = True) -> None:
    """A directory recorded for one bundle takes no other bundle's recordings; an unbound one is bound now."""
    path = directory / BUNDLE_FILE
    try:
        owner = path.read_text(encoding="utf-8").strip()
    except (FileNotFoundError, NotADirectoryError):
        owner = None
    except OSError as error:
        raise RecordingsError(f"{path}: cannot be read ({error.strerror or error})") from None
    if owner is not None and owner != bundle:
        if not recording:
            return  # replay: its cassettes are simply not this bundle's; each capture says so
        raise RecordingsError(
            f"the cassette directory {directory} belongs to bundle {owner!r} (its {BUNDLE_FILE}); this run would "
            f"record bundle {bundle!r} into it: give this bundle its own directory with --ora-cassettes DIR "
            f"(or ora_cassettes in its pytest.ini)"
        )
    if owner is None and recording and bind:
        _write(path, bundle + "\n")


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, file_mode())
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
