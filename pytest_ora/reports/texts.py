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
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..bundle.secrets import secret_in
from ..core.fastload import loaded
from ..core.plan import Plan
from ..core.vocabulary import SECRET_REASON
from ..method.kinds import forwards_texts
from .pagedata import Strings

__all__ = ["TEXTS_NAME", "TEXTS_SCHEMA", "capture_texts", "read_texts", "texts_json"]

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


def capture_texts(plan: Plan, capture_ids: Iterable[str]) -> dict[str, Any]:
    """The texts of the given captures (the ledger's, in its order) from the plan's captures."""
    planned = {p.capture.capture_id: p for p in plan.captures}
    strings = Strings()
    rows: list[list[Any]] = []
    transcripts: dict[str, list[list[Any]]] = {}
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
            withheld = [None if not text else WITHHELD_TEXT for text in texts]
            rows.append([capture_id, *(strings(text) for text in withheld)])
            continue
        if any(secret(text) for text in texts):
            continue
        # The entry's prompt and context first: they are shared, so they land early in the table.
        rows.append(
            [capture_id, strings(capture.prompt), strings(capture.context), strings(capture.answer), strings(second)]
        )
        if capture.transcript is not None and item.partner is None:
            transcripts[capture_id] = [[turn.role, strings(turn.content)] for turn in capture.transcript]
    data: dict[str, Any] = {
        "schema": TEXTS_SCHEMA,
        "rubric": plan.rubric.version,
        "columns": list(TEXT_COLUMNS),
        "strings": strings.table,
        "rows": rows,
    }
    if transcripts:
        data[TRANSCRIPTS] = transcripts
    return data


def texts_json(data: Mapping[str, Any]) -> str:
    """texts.json's bytes: compact (it is the largest file a run writes), one row a line, stable."""
    head = json.dumps({k: data[k] for k in ("schema", "rubric", "columns")}, ensure_ascii=False)[:-1]
    strings = ",\n".join(json.dumps(s, ensure_ascii=False) for s in data["strings"])
    rows = ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in data["rows"])
    turns = ""
    if data.get(TRANSCRIPTS):
        turns = (
            ', "transcripts": {\n'
            + ",\n".join(
                f"{json.dumps(capture_id, ensure_ascii=False)}: {json.dumps(pairs, ensure_ascii=False, separators=(',', ':'))}"
                for capture_id, pairs in data[TRANSCRIPTS].items()
            )
            + "\n}"
        )
    return f'{head}, "strings": [\n{strings}\n], "rows": [\n{rows}\n]{turns}}}\n'


def read_texts(directory: Path) -> tuple[dict[str, Any] | None, str | None]:
    """texts.json of an output directory in the page's shape, or None and why it is not shown."""
    path = directory / TEXTS_NAME
    if not path.is_file():
        return None, None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        strings, rows = data["strings"], data["rows"]
        if not isinstance(strings, list) or not all(isinstance(s, str) for s in strings):
            raise ValueError("strings must be a list of texts")
        size = len(strings)
        for number, row in enumerate(rows, start=1):
            if (
                not isinstance(row, list)
                or len(row) != len(TEXT_COLUMNS)
                or not isinstance(row[0], str)
                or not all(isinstance(i, int) and -1 <= i < size for i in row[1:])
            ):
                raise ValueError(f"row {number} is not [capture_id, prompt, context, answer, second_answer]")
        transcripts = data.get(TRANSCRIPTS) or {}
        if not isinstance(transcripts, dict) or not all(
            isinstance(turns, list)
            and all(
                isinstance(turn, list)
                and len(turn) == 2
                and isinstance(turn[0], str)
                and isinstance(turn[1], int)
                and 0 <= turn[1] < size
                for turn in turns
            )
            for turns in transcripts.values()
        ):
            raise ValueError(f"{TRANSCRIPTS} must map capture ids to [role, string index] turns")
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        return None, f"{TEXTS_NAME} is not shown: {error}"
    shown: dict[str, Any] = {"strings": strings, "rows": rows}
    if transcripts:
        shown[TRANSCRIPTS] = transcripts
    return shown, None
