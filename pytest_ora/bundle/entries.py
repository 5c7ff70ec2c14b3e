"""The prompts candidates answer: entries.jsonl (or captures.jsonl lines without an answer), one capture per candidate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.bundle import CaptureLine
from ..core.candidates import Entry
from ..core.errors import Problem, show_value
from ..core.jsonl import jsonl_line
from ..core.models import BundleManifest, Capture
from ..core.paths import BundlePathError, bundle_file
from ..core.strictjson import StrictJsonError, strict_loads
from .secrets import redact_shapes, text_secret

__all__ = ["ENTRIES", "candidate_captures", "entry_of", "is_entry_line", "read_entries"]

ENTRIES = "entries.jsonl"


def is_entry_line(obj: dict[str, Any]) -> bool:
    """A captures.jsonl line that is an entry for the candidates: no answer and no configuration."""
    return "answer" not in obj and "configuration" not in obj


def entry_of(name: str, number: int, obj: dict[str, Any], problems: list[Problem]) -> Entry | None:
    """The line's entry, or None with every problem (file, line, field) added."""
    try:
        return Entry.model_validate(obj)
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            missing = detail["type"] == "missing"
            problems.append(
                Problem(
                    name,
                    "is required but missing"
                    if missing
                    else "is not a known field"
                    if detail["type"] == "extra_forbidden"
                    else str(detail["msg"]).replace("Value error, ", "").lower(),
                    line=number,
                    field=redact_shapes(".".join(str(part) for part in detail["loc"])) or None,
                    value=None if missing else redact_shapes(show_value(detail.get("input"))),
                )
            )
        return None


def read_entries(root: Path, problems: list[Problem]) -> list[tuple[Entry, int]] | None:
    """entries.jsonl's entries with their lines; None when the bundle has no entries.jsonl."""
    try:
        path = bundle_file(root, ENTRIES)
        raw_lines = path.read_bytes().splitlines(keepends=True)
    except FileNotFoundError:
        return None
    except (BundlePathError, OSError) as error:
        problems.append(Problem(ENTRIES, f"cannot be read ({error})"))
        return []
    entries = []
    for number, raw in enumerate(raw_lines, start=1):
        data = jsonl_line(number, raw)
        if not data.strip():
            continue
        try:
            obj = strict_loads(data.decode("utf-8"))
        except UnicodeDecodeError as error:
            problems.append(Problem(ENTRIES, f"is not UTF-8 at byte {error.start} of the line", line=number))
            continue
        except (json.JSONDecodeError, StrictJsonError) as error:
            problems.append(
                Problem(
                    ENTRIES,
                    f"is not valid JSON: {redact_shapes(str(error))}",
                    line=number,
                    fix="each line must hold exactly one JSON object",
                )
            )
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(ENTRIES, "must be a JSON object", line=number, value=show_value(obj)))
            continue
        entry = entry_of(ENTRIES, number, obj, problems)
        if entry is not None:
            entries.append((entry, number))
    if not entries and not problems:
        problems.append(
            Problem(ENTRIES, "is empty: it holds no entry", fix="write one JSON object per line, one per prompt")
        )
    return entries


def candidate_captures(manifest: BundleManifest, entries: list[tuple[Entry, int]]) -> list[CaptureLine]:
    """One capture per entry and candidate configuration (configurations order), its answer made in the run."""
    lines = []
    for configuration in manifest.configurations:
        if configuration not in (manifest.candidates or {}):
            continue
        for entry, number in entries:
            capture = Capture.model_validate(
                {
                    "entry_key": entry.entry_key,
                    "configuration": configuration,
                    "prompt": entry.prompt,
                    "answer": "",
                    "context": entry.context,
                    "reference": entry.reference,
                    "metadata": entry.metadata,
                    "messages": None if entry.messages is None else [turn.model_dump() for turn in entry.messages],
                    "acceptance": {"passed": True, "reason": None, "notes": "answered inside the run"},
                }
            )
            lines.append(CaptureLine(capture, number, text_secret(capture)))
    return lines
