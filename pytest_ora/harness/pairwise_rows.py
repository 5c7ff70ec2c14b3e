"""`init --from` with pairwise rows: prompt, answer_1, answer_2, an optional winner, optional configuration names.

Each row becomes one entry answered by two configurations (configuration_1 and configuration_2, the
same on every row; `answer-1` and `answer-2` when not given), the suite compares them with the
generic pairwise rubric, and a row's winner (column `winner` or `label`: 1, 2, tie, first, second,
answer_1, answer_2, or a configuration's name) becomes a preference label of rater `gold` (or the
row's `rater`) in bundle/labels.jsonl. Every bad row is listed (file, line, column) and nothing is written.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["PAIRWISE_RUBRIC", "PairwiseImport", "is_pairwise", "pairwise_import"]

PAIRWISE_RUBRIC = "pairwise-1.0"
ANSWERS = ("answer_1", "answer_2")
NAMES = ("configuration_1", "configuration_2")
DEFAULT_NAMES = ("answer-1", "answer-2")
_PAIRWISE_ONLY = frozenset({*ANSWERS, *NAMES, "winner", "label", "rater"})


@dataclass(frozen=True)
class PairwiseImport:
    """The captures (two per row), the pair compared, and the preference labels the rows carried."""

    rows: list[Any]
    pair: tuple[str, str]
    labels: list[dict[str, str]]


def _read(path: Path) -> list[tuple[int, dict[str, Any]]]:
    from .importrows import InitError, _csv_rows, _jsonl_rows

    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InitError([f"{path}: cannot be read ({error})"]) from None
    problems: list[str] = []
    raw = _csv_rows(path, text, problems) if path.suffix.lower() == ".csv" else _jsonl_rows(path, text, problems)
    if problems:
        raise InitError(problems)
    return raw


def is_pairwise(path: Path) -> bool:
    """Whether the file's rows are pairwise (answer_1 and answer_2 columns) rather than one answer a row."""
    try:
        raw = _read(path)
    except ValueError:
        return False
    return bool(raw) and all(name in raw[0][1] for name in ANSWERS)


def _winner(value: Any, pair: tuple[str, str]) -> str | None:
    text = str(value).strip()
    names = {
        "1": "first",
        "2": "second",
        "tie": "tie",
        "first": "first",
        "second": "second",
        "answer_1": "first",
        "answer_2": "second",
        pair[0]: "first",
        pair[1]: "second",
    }
    return names.get(text if text in pair else text.lower())


# C901: the pair rows' checks in the order their problems are named; split, another could be named first.
def pairwise_import(path: Path) -> PairwiseImport:  # noqa: C901
    """The pairwise rows as captures and labels; InitError listing every bad row (file, line, column)."""
    from .importrows import InitError, Row, _row

    raw = _read(path)
    problems: list[str] = []
    given = {tuple(str(data.get(name) or default) for name, default in zip(NAMES, DEFAULT_NAMES)) for _, data in raw}
    if len(given) > 1:
        raise InitError(
            [
                f"{path}: columns configuration_1 / configuration_2 name different pairs on different rows "
                f"({', '.join(' vs '.join(p) for p in sorted(given))}); one suite compares one pair"
            ]
        )
    rows: list[Row] = []
    labels: list[dict[str, str]] = []
    pair: tuple[str, str] = DEFAULT_NAMES
    seen: dict[str, int] = {}
    for line, data in raw:
        names = tuple(str(data.get(name) or default) for name, default in zip(NAMES, DEFAULT_NAMES))
        bad = len(problems)
        for name in ANSWERS:
            if not isinstance(data.get(name), str):
                problems.append(f"{path}:{line}: column {name}: must be text, got {type(data.get(name)).__name__}")
        if len(problems) > bad:
            continue
        base = {k: v for k, v in data.items() if k not in _PAIRWISE_ONLY}
        if "id" not in base and "entry_key" not in base:
            base["id"] = f"pair-{line}"
        made = [
            _row(path, line, {**base, "configuration": name, "answer": data[answer]}, problems)
            for name, answer in zip(names, ANSWERS)
        ]
        if any(row is None for row in made):
            continue
        first, second = made[0], made[1]
        assert first is not None and second is not None
        pair = (first.capture["configuration"], second.capture["configuration"])
        if pair[0] == pair[1]:
            problems.append(f"{path}:{line}: column configuration_2: names the same configuration as configuration_1")
            continue
        entry = first.capture["entry_key"]
        if entry in seen:
            problems.append(f"{path}:{line}: column id: the entry {entry} is already on line {seen[entry]}")
            continue
        seen[entry] = line
        rows += [first, second]
        value = data.get("winner", data.get("label"))
        if value is not None and str(value).strip() != "":
            winner = _winner(value, (names[0], names[1]))
            column = "winner" if "winner" in data else "label"
            if winner is None:
                problems.append(
                    f"{path}:{line}: column {column}: must be 1, 2, tie, first, second, answer_1, answer_2 "
                    f"or a configuration's name, got {value!r}"
                )
                continue
            rater = str(data.get("rater") or "gold")
            labels.append({"capture_id": f"{entry}/{pair[0]}+{pair[1]}", "rater": rater, "winner": winner})
    if not raw:
        problems.append(f"{path}: holds no rows")
    if problems:
        raise InitError(problems)
    return PairwiseImport(rows, pair, labels)


def labels_text(labels: list[dict[str, str]]) -> str:
    """bundle/labels.jsonl: one preference label a line, in row order."""
    return "".join(json.dumps(label, ensure_ascii=False) + "\n" for label in labels)


def readme_gate(labelled: bool) -> str:
    """The README's CI-gate step for a compare suite (a compare run has no mean overall to gate on)."""
    if labelled:
        return (
            "5. CI gate: exit 1 (and a failed `ora-gate::--ora-fail-calibration` testcase in JUnit) when the panel's\n"
            "   Cohen's kappa against the labels in bundle/labels.jsonl is below 0.4 (a compare run has no\n"
            "   overall score; --ora-fail-under does not apply):\n\n"
            "       pytest --ora-fail-calibration 0.4 --junitxml=ora-junit.xml\n"
        )
    return (
        "5. Results: compare.md gives wins, ties, losses and the win rate with its interval. A compare run has no\n"
        "   overall score, so --ora-fail-under does not apply; add preference labels (bundle/labels.jsonl, or\n"
        "   `python -m pytest_ora label bundle` to make them) and gate on --ora-fail-calibration.\n"
    )
