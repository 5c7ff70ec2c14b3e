"""texts.json: what each capture of the selection asked and answered, for the report's capture view.

The ledger holds the judges' side only; the prompt, the context and the answer come from the
bundle, which `verify` never reads. So the run writes them beside the ledger, machine-written, and
report.html renders its capture view from this file: the same file gives the same page.

Texts repeat (an entry's captures share one prompt and context; replicated configurations repeat
answers), so each distinct text is stored once in a string table that the rows index. The texts are
the bundle's: untrusted. The page only ever inserts them as text, never as markup. A capture intake
excluded as secret-bearing input keeps no texts here (nothing under --ora-out may hold a credential),
and any text shaped like a credential is left out too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..bundle.secrets import secret_in
from ..core.errors import OraError
from ..core.fastload import loaded
from ..core.plan import Plan
from ..core.vocabulary import SECRET_REASON
from ..method.kinds import forwards_texts
from .datafile import first_problem
from .pagedata import PageTexts, Strings, TextRow, Turn

__all__ = [
    "TEXTS_NAME",
    "TEXTS_SCHEMA",
    "TextsFile",
    "TextsFileError",
    "capture_texts",
    "parse_texts_file",
    "read_texts",
    "texts_json",
]

TEXTS_NAME = "texts.json"
TEXTS_SCHEMA = "ora-texts-1"
WITHHELD_TEXT = "(withheld: this rubric's kind never writes a capture's texts to an output)"
"""What stands for a text of a capture whose kind forwards none: the fact that it was there, not the text."""
TEXT_COLUMNS = ("capture_id", "prompt", "context", "answer", "second_answer")
"""One row per capture of the ledger; strings are indices into `strings` (-1: none). `second_answer`
is the second contestant's answer of a compare item (kind compare), else -1."""
TRANSCRIPTS = "transcripts"
"""Present only when an answer is a transcript: capture id -> its turns as [role, string index] pairs, which the
capture view shows as a conversation (the row's `answer` holds the same turns as one text)."""


class TextsFileError(OraError):
    """texts.json cannot be read as the captures' texts: its path, the field and what is wrong."""


class TextsFile(BaseModel):
    """texts.json: the string table and one row of indices per capture of the ledger."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)

    schema_: str = Field(alias="schema")
    """The file's format, ora-texts-1."""
    rubric: str
    """The rubric's version."""
    columns: list[str]
    """TEXT_COLUMNS: what each row's places hold."""
    strings: list[str]
    rows: list[TextRow]
    transcripts: dict[str, list[Turn]] | None = None
    """Written only when an answer is a transcript (TRANSCRIPTS)."""

    def shown(self) -> PageTexts:
        """The part the page's capture view reads."""
        shown = PageTexts(strings=self.strings, rows=self.rows)
        if self.transcripts:
            shown["transcripts"] = self.transcripts
        return shown


def capture_texts(plan: Plan, capture_ids: Iterable[str]) -> TextsFile:
    """The texts of the given captures (the ledger's, in its order) from the plan's captures."""
    planned = {p.capture.capture_id: p for p in plan.captures}
    strings = Strings()
    rows: list[TextRow] = []
    transcripts: dict[str, list[Turn]] = {}
    forwards = forwards_texts(plan.rubric.kind)
    scanned: dict[str, bool] = {}  # an entry's prompt and context repeat for each of its captures: scanned once

    def secret(text: str | None) -> bool:
        if text is None:
            return False
        found = scanned.get(text)
        if found is None:
            found = scanned[text] = secret_in(text) is not None
        return found

    for capture_id in capture_ids:
        item = planned.get(capture_id)
        if item is None or (item.reason or "").startswith(SECRET_REASON):
            continue
        capture = loaded(item.capture)  # one read of its line for the prompt and the answer
        second = item.partner.answer if item.partner is not None else None
        texts = (capture.prompt, capture.context, capture.answer, second)
        if not forwards:
            prompt, context, answer, second_answer = (strings(None if not text else WITHHELD_TEXT) for text in texts)
            rows.append((capture_id, prompt, context, answer, second_answer))
            continue
        if any(secret(text) for text in texts):
            continue
        # The entry's prompt and context first: they are shared, so they land early in the table.
        rows.append(
            (capture_id, strings(capture.prompt), strings(capture.context), strings(capture.answer), strings(second))
        )
        if capture.transcript is not None and item.partner is None:
            transcripts[capture_id] = [(turn.role, strings(turn.content)) for turn in capture.transcript]
    return TextsFile(
        schema=TEXTS_SCHEMA,
        rubric=plan.rubric.version,
        columns=list(TEXT_COLUMNS),
        strings=strings.table,
        rows=rows,
        transcripts=transcripts or None,
    )


def texts_json(data: TextsFile) -> str:
    """texts.json's bytes: compact (it is the largest file a run writes), one row a line, stable."""
    head = json.dumps({"schema": data.schema_, "rubric": data.rubric, "columns": data.columns}, ensure_ascii=False)
    strings = ",\n".join(json.dumps(s, ensure_ascii=False) for s in data.strings)
    rows = ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in data.rows)
    turns = ""
    if data.transcripts:
        turns = (
            ', "transcripts": {\n'
            + ",\n".join(
                f"{json.dumps(capture_id, ensure_ascii=False)}: {json.dumps(pairs, ensure_ascii=False, separators=(',', ':'))}"
                for capture_id, pairs in data.transcripts.items()
            )
            + "\n}"
        )
    return f'{head[:-1]}, "strings": [\n{strings}\n], "rows": [\n{rows}\n]{turns}}}\n'


def read_texts(directory: Path) -> tuple[TextsFile | None, str | None]:
    """texts.json of an output directory, or None and why it is not shown (None, None: the run wrote none)."""
    path = directory / TEXTS_NAME
    if not path.is_file():
        return None, None
    try:
        return parse_texts_file(path.read_text(encoding="utf-8")), None
    except (OSError, UnicodeDecodeError, TextsFileError) as error:
        return None, f"{TEXTS_NAME} is not shown: {error}"


def parse_texts_file(text: str) -> TextsFile:
    """texts.json's text as the captures' texts; TextsFileError naming the first bad field."""
    try:
        data = TextsFile.model_validate_json(text)
    except ValidationError as error:
        raise TextsFileError(f"not the captures' texts: {first_problem(error)}") from None
    problem = _bad_index(data)
    if problem is not None:
        raise TextsFileError(f"not the captures' texts: {problem}")
    return data


def _bad_index(data: TextsFile) -> str | None:
    """The first string index that is not in the string table (-1 stands for no text in a row), or None."""
    size = len(data.strings)
    for number, row in enumerate(data.rows):
        for place, index in enumerate(row[1:], start=1):
            if not -1 <= index < size:
                return f"field rows.{number}.{place}: string index {index} is not in strings (0 to {size - 1}) or -1"
    for capture_id, turns in (data.transcripts or {}).items():
        for number, (_, index) in enumerate(turns):
            if not 0 <= index < size:
                return f"field transcripts.{capture_id}.{number}.1: string index {index} is not in strings (0 to {size - 1})"
    return None
