"""Rows to import: a JSONL or CSV file of captures read into rows, every bad row named (file, line, column).

`init --from` (harness/scaffold.py) and its pairwise rows (harness/pairwise_rows.py) read their
files here; nothing here writes.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from ..core.errors import OraError, listed, utf8_error_at
from ..core.models import CONFIGURATION_PATTERN, Capture
from ..core.strictjson import StrictJsonError, repeated_names, unique_pairs

__all__ = ["InitError", "Row", "import_rows", "name_changes"]

_REQUIRED = ("configuration", "prompt", "answer")
_KNOWN = frozenset(
    {"id", "entry_key", "configuration", "prompt", "answer", "context", "reference", "cost_usd", "wall_clock_minutes"}
)
_SLUG = re.compile(r"[^a-z0-9]+")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.+-]+")
_FAMILY_COLUMNS = ("family", "dataset")
"""Columns that name an entry's family when its id is not family:technique, the first present winning."""


class InitError(OraError, ValueError):
    """Why nothing was written: every problem, one a line (file:line: column: what)."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        count = len(problems)
        super().__init__(
            f"nothing written ({count} problem{'s' if count != 1 else ''}):\n" + "\n".join(listed(problems, count))
        )


@dataclass(frozen=True)
class Row:
    """One imported capture and where it came from."""

    line: int
    capture: dict[str, Any]
    renamed: tuple[tuple[str, str, str], ...] = ()
    """(column, value as given, value as used) for each name that had to change to fit the bundle's format."""
    family_from: str | None = None
    """The column (family or dataset) that named the entry's family, when one did."""
    entry: bool = False
    """A prompt without answer and configuration: an entries.jsonl line the candidates answer in the run."""


def _slug_ok(text: str) -> bool:
    return re.fullmatch(r"[a-z0-9][a-z0-9-]*", text) is not None


def _slug(text: str) -> str:
    return _SLUG.sub("-", text.strip().lower()).strip("-")


def _configuration_name(text: str) -> str:
    """A configuration's name as given when it fits (a label, a file name and a pytest id); else its safe form."""
    if re.fullmatch(CONFIGURATION_PATTERN, text):
        return text
    return _UNSAFE.sub("-", text.strip()).lstrip("_.+-").rstrip("-")


def name_changes(rows: list[Row]) -> list[str]:
    """Each name changed at import, once: `column: 'as given' -> as used`, in the order first met."""
    seen = dict.fromkeys(change for row in rows for change in row.renamed)
    return [f"{column}: {given!r} -> {used}" for column, given, used in seen]


# --- import -------------------------------------------------------------------------------------


def import_rows(path: Path, prompts: bool = False) -> list[Row]:
    """Rows of a JSONL or CSV file as captures; InitError listing every bad row (file, line, column).

    `prompts` (the suite has candidates): a row with neither configuration nor answer is a prompt, an entry."""
    try:
        raw_bytes = path.read_bytes()
        text = raw_bytes.decode("utf-8-sig")
    except FileNotFoundError:
        raise InitError([f"{path}: does not exist"]) from None
    except OSError as error:
        raise InitError([f"{path}: cannot be read ({error.strerror or error})"]) from None
    except UnicodeDecodeError as error:
        raise InitError([f"{path}: is not UTF-8 at {utf8_error_at(raw_bytes, error)}; save it as UTF-8"]) from None
    problems: list[str] = []
    raw = _csv_rows(path, text, problems) if path.suffix.lower() == ".csv" else _jsonl_rows(path, text, problems)
    rows: list[Row] = []
    seen: dict[tuple[str, str], int] = {}
    for line, data in raw:
        is_prompt = prompts and not str(data.get("configuration") or "").strip() and not str(data.get("answer") or "")
        row = _row(path, line, {**data, "configuration": "candidates", "answer": ""} if is_prompt else data, problems)
        if row is None:
            continue
        if is_prompt:
            row = _entry(row)
        key = (row.capture["entry_key"], row.capture.get("configuration", ""))
        if key in seen:
            what = f"the prompt {key[0]}" if row.entry else f"the capture {key[0]}/{key[1]}"
            problems.append(f"{path}:{line}: column id: {what} is already on line {seen[key]}")
            continue
        seen[key] = line
        rows.append(row)
    if not raw and not problems:
        problems.append(f"{path}: holds no rows")
    if problems:
        raise InitError(problems)
    return rows


def _jsonl_rows(path: Path, text: str, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line, object_pairs_hook=unique_pairs)
        except StrictJsonError as error:
            problems.append(f"{path}:{number}: column {error.field}: given twice in one row (never last-wins)")
            continue
        except ValueError as error:
            problems.append(f"{path}:{number}: not a JSON object ({error})")
            continue
        if not isinstance(data, dict):
            problems.append(f"{path}:{number}: not a JSON object")
            continue
        rows.append((number, data))
    return rows


def _csv_rows(path: Path, text: str, problems: list[str]) -> list[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return []
    except csv.Error as error:
        problems.append(_csv_problem(path, reader, error))
        return []
    header = [name.strip() for name in header]
    for name in repeated_names(header):
        problems.append(f"{path}:1: column {name}: given twice in the header (never last-wins)")
    if problems:
        return []
    rows = []
    start = reader.line_num + 1
    try:
        rows += _csv_values(path, reader, header, start, problems)
    except csv.Error as error:
        problems.append(_csv_problem(path, reader, error))
    return rows


def _csv_problem(path: Path, reader: Any, error: csv.Error) -> str:
    """A CSV the reader stops on (a cell over its size limit, a bad quote), named by the line it reached."""
    if "field larger than field limit" in str(error):
        return (
            f"{path}:{reader.line_num}: a cell is longer than {csv.field_size_limit():,} characters, the CSV "
            "reader's limit; import such answers from JSONL instead"
        )
    return f"{path}:{reader.line_num}: not readable as CSV ({error})"


def _csv_values(
    path: Path, reader: Any, header: list[str], start: int, problems: list[str]
) -> list[tuple[int, dict[str, Any]]]:
    rows = []
    for values in reader:
        if not any(value.strip() for value in values):
            start = reader.line_num + 1
            continue
        if len(values) < len(header):
            missing = ", ".join(header[len(values) :])
            problems.append(
                f"{path}:{start}: has {len(values)} columns, the header has {len(header)}: "
                f"missing {missing} (a value with a comma needs quotes)"
            )
        elif len(values) > len(header):
            problems.append(
                f"{path}:{start}: has {len(values)} columns, the header has {len(header)}: "
                f"{len(values) - len(header)} more than {header[-1]} (a value with a comma needs quotes)"
            )
        else:
            # Empty optional cells are absent; an empty answer is kept (a low score, not an error).
            rows.append((start, {k: v for k, v in zip(header, values) if v != "" or k in _REQUIRED}))
        start = reader.line_num + 1
    return rows


# C901: one imported row's columns checked in order; split, another problem could be named first.
def _row(path: Path, line: int, data: dict[str, Any], problems: list[str]) -> Row | None:  # noqa: C901
    where = f"{path}:{line}"
    bad = len(problems)
    ident = data.get("entry_key", data.get("id"))
    if ident is None or str(ident).strip() == "":
        problems.append(f"{where}: column id: missing (give each row an id, or an entry_key family:technique)")
    for name in _REQUIRED:
        if name not in data or data[name] is None:
            problems.append(f"{where}: column {name}: missing")
        elif not isinstance(data[name], str):
            problems.append(f"{where}: column {name}: must be text, got {type(data[name]).__name__}")
    if isinstance(data.get("prompt"), str) and not data["prompt"].strip():
        problems.append(f"{where}: column prompt: is empty")
    if len(problems) > bad:
        return None
    family_column = next((name for name in _FAMILY_COLUMNS if str(data.get(name) or "").strip()), None)
    if ":" in str(ident):
        family_column = None  # an id family:technique names its family itself
    family = str(data[family_column]) if family_column is not None else None
    if family is not None and not _slug(family):
        problems.append(f"{where}: column {family_column}: {family!r} has no letters or digits to make a family from")
        return None
    entry_key = _entry_key(str(ident), family)
    configuration = _configuration_name(str(data["configuration"]))
    if entry_key is None:
        problems.append(f"{where}: column id: {ident!r} has no letters or digits to make an id from")
        return None
    if not configuration:
        problems.append(f"{where}: column configuration: {data['configuration']!r} has no letters or digits")
        return None
    capture: dict[str, Any] = {
        "entry_key": entry_key,
        "configuration": configuration,
        "prompt": data["prompt"],
        "answer": data["answer"],
    }
    for name in ("context", "reference"):
        if data.get(name) is not None:
            if not isinstance(data[name], str):
                problems.append(f"{where}: column {name}: must be text")
                return None
            capture[name] = data[name]
    for name in ("cost_usd", "wall_clock_minutes"):
        if name in data and data[name] is not None:
            try:
                value = float(data[name])
            except (TypeError, ValueError):
                problems.append(f"{where}: column {name}: must be a number >= 0, got {data[name]!r}")
                return None
            if not value >= 0 or value == float("inf"):
                problems.append(f"{where}: column {name}: must be a number >= 0, got {data[name]!r}")
                return None
            capture[name] = value
    metadata = {k: v for k, v in data.items() if k not in _KNOWN}
    if "id" in data and "entry_key" not in data and str(data["id"]) != entry_key.partition(":")[2]:
        metadata["id"] = data["id"]  # the id as given, when it had to be made a slug
    if configuration != data["configuration"]:
        metadata["configuration"] = str(data["configuration"])  # as given, when it had to change (-k matches it)
    if metadata:
        capture["metadata"] = metadata
    renamed = []
    if configuration != data["configuration"]:
        renamed.append(("configuration", str(data["configuration"]), configuration))
    if family_column is not None and entry_key.partition(":")[0] != family:
        renamed.append((family_column, str(family), entry_key.partition(":")[0]))
    try:
        Capture.model_validate(capture)
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            column = ".".join(str(part) for part in detail["loc"]) or "row"
            problems.append(f"{where}: column {column}: {detail['msg']}")
        return None
    return Row(line, capture, tuple(renamed), family_from=family_column)


def _entry(row: Row) -> Row:
    """A prompt row as an entries.jsonl line: what a capture line holds, less its configuration and answer."""
    capture = {
        k: v for k, v in row.capture.items() if k not in ("configuration", "answer", "cost_usd", "wall_clock_minutes")
    }
    metadata = {k: v for k, v in (capture.pop("metadata", None) or {}).items() if k not in ("configuration", "answer")}
    if metadata:
        capture["metadata"] = metadata
    return dataclasses.replace(row, capture=capture, entry=True)


def _entry_key(ident: str, family: str | None = None) -> str | None:
    """An id as an entry key: `family:technique` kept (as slugs); any other id is a technique of the row's
    family column (as a slug) or of family `eval`."""
    given_family, colon, technique = ident.partition(":")
    if colon:
        given_family, technique = _slug(given_family), _slug(technique)
        return f"{given_family}:{technique}" if given_family and technique else None
    slug = _slug(ident)
    return f"{_slug(family) if family is not None else 'eval'}:{slug}" if slug else None
