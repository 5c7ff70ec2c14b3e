"""Preference labels: a JSONL file of people's choices between the two answers of a compare item.

One object per line: `{capture_id | entry_key + pair, rater, winner, notes, shown}`. `capture_id` is the
compare item's id (`<entry_key>/<first>+<second>`); instead, `entry_key` with `pair` (`"A:B"` or
`["A", "B"]`) names it. `winner` is `first`, `second` or `tie`, or the name of one of the pair's two
configurations. `shown` (optional) records the order a labelling page showed the answers in. A line
must name a compare item of this run, and a rater labels an item once. Every bad line is a usage
error naming the file, the line and the field: a preference is never guessed.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from ..core.errors import IntakeError, Problem, show_value
from ..core.plan import Pair
from .labels import json_lines

__all__ = ["PREFERENCE_FIELDS", "WINNERS", "Preference", "PreferenceSet", "check_preference", "read_preferences"]

PREFERENCE_FIELDS = ("capture_id", "entry_key", "pair", "rater", "winner", "notes", "shown")
WINNERS = ("first", "second", "tie")
SHOWN = ("first-second", "second-first")
MAX_LINE = 1 << 20
"""Longest line read (1 MiB): a preference is a choice and a note."""

Winner = Literal["first", "second", "tie"]


@dataclass(frozen=True)
class Preference:
    """One rater's choice on one compare item: the first configuration, the second, or a tie."""

    capture_id: str
    rater: str
    winner: Winner
    line: int


@dataclass(frozen=True)
class PreferenceSet:
    """A checked preference-labels file: its name as the user gave it, and its labels in file order."""

    source: str
    labels: tuple[Preference, ...]

    @property
    def raters(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(label.rater for label in self.labels))

    def by_capture(self) -> dict[str, list[Preference]]:
        grouped: dict[str, list[Preference]] = {}
        for label in self.labels:
            grouped.setdefault(label.capture_id, []).append(label)
        return grouped


def _pair_of(value: Any) -> Pair | None:
    if isinstance(value, str) and value.count(":") == 1:
        first, _, second = value.partition(":")
    elif isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        first, second = value
    else:
        return None
    return Pair(first, second) if first and second else None


# C901: a label line's checks in the order its first problem is named; split, another problem could be named first.
def check_preference(data: Any, items: dict[str, Pair]) -> tuple[Preference | None, str | None, str | None]:  # noqa: C901
    """A preference from one parsed line, or (None, field, why it is refused); items maps compare item ids to pairs."""
    if not isinstance(data, dict):
        return None, None, "is not a JSON object"
    unknown = sorted(set(data) - set(PREFERENCE_FIELDS))
    if unknown:
        return None, unknown[0], f"is not a preference-label field (a line holds {', '.join(PREFERENCE_FIELDS)})"
    rater = data.get("rater")
    if not isinstance(rater, str) or not rater.strip():
        return None, "rater", f"must be a non-empty string (got {show_value(rater) if 'rater' in data else 'nothing'})"
    if "capture_id" in data:
        if "entry_key" in data or "pair" in data:
            return None, "capture_id", "names the item twice: give capture_id, or entry_key with pair"
        capture_id = data["capture_id"]
        if not isinstance(capture_id, str) or capture_id not in items:
            return None, "capture_id", f"names no compare item of this run (got {show_value(capture_id)})"
    else:
        entry_key = data.get("entry_key")
        if not isinstance(entry_key, str) or not entry_key:
            return None, "entry_key", "must name the entry (or give capture_id)"
        pair = _pair_of(data.get("pair"))
        if pair is None:
            return (
                None,
                "pair",
                f'must be "A:B" or ["A", "B"] (got {show_value(data.get("pair")) if "pair" in data else "nothing"})',
            )
        capture_id = f"{entry_key}/{pair.lane}"
        if capture_id not in items:
            return None, "pair", f"entry {entry_key!r} has no compare item {pair.first} vs {pair.second} in this run"
    pair = items[capture_id]
    winner = data.get("winner")
    names = {"first": "first", "second": "second", "tie": "tie", pair.first: "first", pair.second: "second"}
    if not isinstance(winner, str) or winner not in names:
        choices = f"first, second, tie, {pair.first!r} or {pair.second!r}"
        return None, "winner", f"must be {choices} (got {show_value(winner) if 'winner' in data else 'nothing'})"
    notes = data.get("notes")
    if notes is not None and not isinstance(notes, str):
        return None, "notes", "must be text"
    shown = data.get("shown")
    if shown is not None and shown not in SHOWN:
        return None, "shown", f"must be {' or '.join(SHOWN)} (got {show_value(shown)})"
    side: Winner = names[winner]  # type: ignore[assignment]
    return Preference(capture_id, rater.strip(), side, 0), None, None


def read_preferences(
    path: Path, name: str, pairs: Sequence[tuple[str, Pair]], secrets: Collection[str] = ()
) -> PreferenceSet:
    """Every preference of the file, checked; IntakeError listing each bad line (file, line, field)."""
    if not path.is_file():
        what = "does not exist" if not path.exists() else "is not a regular file"
        raise IntakeError([Problem(name, what, fix="--ora-labels names a JSONL file of preference labels")])
    items = dict(pairs)
    problems: list[Problem] = []
    labels: list[Preference] = []
    seen: dict[tuple[str, str], int] = {}
    for number, parsed in json_lines(
        path, name, problems, max_line=MAX_LINE, what="a preference label", secrets=secrets
    ):

        def problem(message: str, field: str | None = None, capture_id: str | None = None, line: int = number) -> None:
            problems.append(Problem(name, message, line=line, field=field, capture_id=capture_id))

        label, field, why = check_preference(parsed, items)
        if label is None:
            problem(str(why), field)
            continue
        key = (label.capture_id, label.rater)
        if key in seen:
            problem(f"rater {label.rater!r} already labelled this pair on line {seen[key]}", "rater", label.capture_id)
            continue
        seen[key] = number
        labels.append(Preference(label.capture_id, label.rater, label.winner, number))
    if problems:
        raise IntakeError(problems)
    if not labels:
        raise IntakeError(
            [
                Problem(
                    name,
                    "holds no label",
                    fix="write one JSON object per line: capture_id (or entry_key and pair), rater, winner",
                )
            ]
        )
    return PreferenceSet(name, tuple(labels))
