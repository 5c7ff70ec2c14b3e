"""A run's scorecard: every selected capture graded on every axis, paired with its baseline (scorecard.json).

Grades are recomputed from the bundle by whichever process needs them (an item's test, the
controller's report): the same evidence gives the same cells, at -n 0 or under xdist.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ....core.jsonl import jsonl_lines
from ....core.plan import Plan, PlannedCapture
from ....core.vocabulary import SECRET_REASON
from .axes import card_of
from .grade import GRADES, Cell, Evidence, grade_axis

__all__ = ["SCORECARD_JSON", "capture_cells", "duplicate_paths", "scorecard_data"]

SCORECARD_JSON = "scorecard.json"


def _lines(path: Path) -> tuple[bytes, ...]:
    stat = path.stat()
    return _read_lines(path, stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _read_lines(path: Path, mtime_ns: int, size: int) -> tuple[bytes, ...]:
    # Keyed by modification time and size too: a rewritten captures.jsonl is read again.
    return tuple(jsonl_lines(path.read_bytes()))


class _Pairs(dict[str, Any]):
    """A JSON object that remembers the keys written more than once."""

    repeated: tuple[str, ...] = ()


def _pairs(items: list[tuple[str, Any]]) -> _Pairs:
    result = _Pairs(items)
    keys = [key for key, _ in items]
    result.repeated = tuple(dict.fromkeys(key for key in keys if keys.count(key) > 1))
    return result


def duplicate_paths(root: Path, line: int) -> tuple[str, ...]:
    """Dotted paths of keys written twice in the evidence object of captures.jsonl's line (json keeps only the last)."""
    try:
        data = json.loads(_lines(root / "captures.jsonl")[line - 1], object_pairs_hook=_pairs)
    except (OSError, IndexError, ValueError):
        return ()
    found: list[str] = []

    def walk(value: Any, prefix: str) -> None:
        if isinstance(value, _Pairs):
            found.extend(f"{prefix}.{key}".removeprefix(".") for key in value.repeated)
            for key, item in value.items():
                walk(item, f"{prefix}.{key}".removeprefix("."))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                walk(item, f"{prefix}.{index}")

    evidence = data.get("evidence") if isinstance(data, dict) else None
    walk(evidence, "")
    return tuple(found)


def _evidence(plan: Plan, planned: PlannedCapture) -> Evidence:
    rubric = plan.rubric
    known = frozenset(path for axis in card_of(rubric).axes for path in axis.paths())
    secret = None
    if planned.status == "excluded" and (planned.reason or "").startswith(SECRET_REASON):
        secret = (planned.reason or "").split("'")[1] if "'" in (planned.reason or "") else "the capture"
    return Evidence(
        values=planned.capture.evidence,
        configuration=planned.capture.configuration,
        baseline=planned.capture.configuration == card_of(rubric).baseline,
        duplicates=duplicate_paths(plan.bundle.root, planned.line),
        secret=secret,
        known=known,
    )


def _baseline_of(plan: Plan, planned: PlannedCapture) -> PlannedCapture | None:
    for other in plan.captures:
        if (
            other.capture.entry_key == planned.capture.entry_key
            and other.capture.configuration == card_of(plan.rubric).baseline
        ):
            return other
    return None


def capture_cells(plan: Plan, planned: PlannedCapture) -> dict[str, Cell]:
    """The capture's cell on every axis, in the rubric's order."""
    evidence = _evidence(plan, planned)
    paired = _baseline_of(plan, planned)
    baseline = None
    if paired is not None and (paired.status == "judge" or (paired.reason or "").startswith(SECRET_REASON)):
        baseline = _evidence(plan, paired)
    return {axis.name: grade_axis(axis, evidence, baseline) for axis in card_of(plan.rubric).axes}


def _graded(planned: PlannedCapture) -> bool:
    """Scored captures and secret-bearing ones (UNKNOWN on every axis) appear with cells."""
    return planned.status == "judge" or (planned.reason or "").startswith(SECRET_REASON)


def scorecard_data(plan: Plan, selected: Iterable[str]) -> dict[str, Any]:
    """scorecard.json: per capture and per pair, grade and raw value; the aggregate leaves N/A out."""
    rubric = plan.rubric
    chosen = set(selected)
    configurations = list(plan.bundle.manifest.configurations)
    captures = []
    pairs: dict[str, dict[str, Any]] = {}
    counts: dict[str, dict[str, dict[str, int]]] = {
        name: {axis.name: dict.fromkeys(GRADES, 0) for axis in card_of(rubric).axes} for name in configurations
    }
    for planned in plan.captures:
        capture = planned.capture
        if capture.capture_id not in chosen:
            continue
        cells = capture_cells(plan, planned) if _graded(planned) else {}
        status = "scored" if planned.status == "judge" else planned.status
        captures.append(
            {
                "capture_id": capture.capture_id,
                "entry_key": capture.entry_key,
                "configuration": capture.configuration,
                "status": status,
                "reason": planned.reason,
                "axes": {name: cell.data() for name, cell in cells.items()},
            }
        )
        pair = pairs.setdefault(capture.entry_key, {"entry_key": capture.entry_key, "captures": {}})
        pair["captures"][capture.configuration] = capture.capture_id
        for name, cell in cells.items():
            pair.setdefault("axes", {}).setdefault(name, {})[capture.configuration] = cell.data()
            counts[capture.configuration][name][cell.grade] += 1
    aggregate = {
        configuration: {
            axis: {**grades, "graded": sum(grades[g] for g in GRADES if g != "N/A")} for axis, grades in by_axis.items()
        }
        for configuration, by_axis in counts.items()
    }
    return {
        "scorecardVersion": rubric.version,
        "rubric": rubric.version,
        "rubric_digest": rubric.digest,
        "title": rubric.title,
        "bundle": plan.bundle.manifest.bundle,
        "baseline": card_of(rubric).baseline,
        "configurations": configurations,
        "axes": [{"name": a.name, "title": a.title, "source": a.source, "how": a.how} for a in card_of(rubric).axes],
        "history": list(rubric.history),
        "captures": captures,
        "pairs": [_ordered_pair(pair, configurations) for pair in pairs.values()],
        "aggregate": aggregate,
    }


def _ordered_pair(pair: Mapping[str, Any], configurations: list[str]) -> dict[str, Any]:
    axes = {name: {c: cells[c] for c in configurations if c in cells} for name, cells in pair.get("axes", {}).items()}
    return {"entry_key": pair["entry_key"], "captures": pair["captures"], "axes": axes}
