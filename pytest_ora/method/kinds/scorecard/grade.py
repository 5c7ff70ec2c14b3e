"""Grading one capture's evidence on one axis, mechanically (the scorecard method).

PASS / PARTIAL / FAIL come only from complete, well-formed evidence. A missing source is
`N/A (<reason>)` and stays out of aggregation; a malformed value, a duplicate key, a field the
scorecard does not know or a secret-bearing capture is `UNKNOWN`, never PASS or FAIL.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ....core.errors import OraError
from ....core.numbers import round_half_away
from .axes import Axis, Band, Condition

__all__ = ["Cell", "Evidence", "grade_axis", "ratio_text"]

GRADES = ("PASS", "PARTIAL", "FAIL", "N/A", "UNKNOWN")


@dataclass(frozen=True)
class Cell:
    """One axis of one capture: the grade, what is shown beside it, the raw values."""

    grade: str
    detail: str = ""
    """The raw value (PASS (0 blockers)) or the reason (N/A (telemetry unavailable))."""
    raw: Any = None

    def text(self) -> str:
        return f"{self.grade} ({self.detail})" if self.detail else self.grade

    def data(self) -> dict[str, Any]:
        return {"grade": self.grade, "cell": self.text(), "raw": self.raw}


@dataclass(frozen=True)
class Evidence:
    """A capture's evidence as the scorecard sees it."""

    values: Mapping[str, Any] | None
    configuration: str
    baseline: bool
    """Whether the capture belongs to the rubric's baseline configuration."""
    duplicates: tuple[str, ...] = ()
    """Dotted paths of keys written twice in the capture's evidence object."""
    secret: str | None = None
    """The secret-bearing field, when the capture holds credential-shaped text."""
    known: frozenset[str] = field(default_factory=frozenset)
    """Every evidence field some axis reads: others under the same sections are unsupported."""


class _Missing(OraError):
    def __init__(self, path: str) -> None:
        self.path = path


class _Malformed(OraError):
    def __init__(self, path: str, why: str) -> None:
        self.path = path
        self.why = why


def _lookup(evidence: Mapping[str, Any], path: str) -> Any:
    value: Any = evidence
    parts = path.split(".")
    for index, part in enumerate(parts):
        if not isinstance(value, Mapping):
            raise _Malformed(".".join(parts[:index]), f"{_kind(value)}, expected an object")
        if part not in value:
            raise _Missing(path)
        value = value[part]
        if value is None:
            break
    if value is None:
        raise _Missing(path)  # null is how a capture framework writes "not measured"
    return value


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, float) and not math.isfinite(value):
        return "a non-finite number"
    return type(value).__name__


def _number(value: Any, path: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise _Malformed(path, f"{_kind(value)}, expected a number")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Malformed(path, "a non-finite number")
        return Fraction(repr(value))
    if isinstance(value, Decimal) and not value.is_finite():
        raise _Malformed(path, "a non-finite number")
    return Fraction(value)


def _holds(condition: Condition, evidence: Mapping[str, Any]) -> bool:
    left = _lookup(evidence, condition.field)
    if condition.other is not None:
        right = _lookup(evidence, condition.other)
        if condition.op in ("eq", "ne") and isinstance(left, bool) and isinstance(right, bool):
            return (left == right) == (condition.op == "eq")
        return _compare(condition.op, _number(left, condition.field), _number(right, condition.other))
    if isinstance(condition.value, bool):
        if not isinstance(left, bool):
            raise _Malformed(condition.field, f"{_kind(left)}, expected a boolean")
        return (left == condition.value) == (condition.op == "eq")
    assert isinstance(condition.value, Fraction)
    return _compare(condition.op, _number(left, condition.field), condition.value)


def _compare(op: str, left: Fraction, right: Fraction) -> bool:
    return {
        "eq": left == right,
        "ne": left != right,
        "lt": left < right,
        "le": left <= right,
        "gt": left > right,
        "ge": left >= right,
    }[op]


def _band(bands: Sequence[Band], value: Fraction) -> str:
    return next(band.grade for band in bands if band.max is None or value <= band.max)


def _plain(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(round_half_away(value, 2)).rstrip("0").rstrip(".")


def ratio_text(value: Fraction) -> str:
    """A ratio to at most two places, at least one (1.7x, 1.35x, 2.0x)."""
    text = str(round_half_away(value, 2))
    return text[:-1] if text.endswith("0") else text


def _with_unit(value: Fraction, unit: str) -> str:
    first, _, rest = unit.partition(" ")
    if value == 1 and first.endswith("s") and not first.endswith("ss"):
        unit = f"{first[:-1]} {rest}".strip()  # 1 blocker, 1 violation, 1 call before rail entry
    return f"{_plain(value)} {unit}".strip()


def _sections(axis: Axis) -> set[str]:
    return {path.split(".")[0] for path in axis.paths()}


def _unsupported(axis: Axis, evidence: Evidence) -> str | None:
    """The first field under a section this axis reads that no axis knows, in file order."""
    assert evidence.values is not None

    def walk(value: Any, prefix: str) -> str | None:
        if not isinstance(value, Mapping):
            return None
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if path in evidence.known:
                continue
            if not any(known.startswith(path + ".") for known in evidence.known):
                return path
            found = walk(item, path)
            if found:
                return found
        return None

    for section in sorted(_sections(axis)):
        if section in evidence.values:
            found = walk(evidence.values[section], section)
            if found:
                return found
    return None


def grade_axis(axis: Axis, evidence: Evidence, baseline: Evidence | None) -> Cell:
    """The capture's cell on this axis; `baseline` is the same entry's baseline capture (ratio axes)."""
    if evidence.secret is not None:
        return Cell("UNKNOWN", f"secret-bearing input in {evidence.secret}")
    if evidence.values is None:
        return Cell("N/A", axis.missing or "no evidence")
    sections = _sections(axis)
    duplicates = [path for path in evidence.duplicates if path.split(".")[0] in sections]
    if duplicates:
        return Cell("UNKNOWN", f"duplicate {duplicates[0]}")
    unsupported = _unsupported(axis, evidence)
    if unsupported:
        return Cell("UNKNOWN", f"unsupported field {unsupported}")
    also = {path: _raw(evidence.values, path) for path in axis.also}
    try:
        cell = _GRADERS[axis.how](axis, evidence, baseline)
    except _Missing as missing:
        return Cell("N/A", axis.missing or f"no {missing.path}", _with_also(None, also))
    except _Malformed as bad:
        return Cell("UNKNOWN", f"malformed {bad.path}: {bad.why}", _with_also(None, also))
    return Cell(cell.grade, cell.detail, _with_also(cell.raw, also))


def _with_also(raw: Any, also: dict[str, Any]) -> Any:
    return {"value": raw, **also} if also else raw


def _raw(values: Mapping[str, Any], path: str) -> Any:
    try:
        return _json(_lookup(values, path))
    except (_Missing, _Malformed):
        return None  # recorded raw only: the graded field says what is wrong


def _json(value: Any) -> Any:
    """Evidence values as JSON numbers (exact decimals become int or float)."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, Mapping):
        return {str(key): _json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json(item) for item in value]
    return value


def _well_formed(conditions: Sequence[Condition], evidence: Mapping[str, Any]) -> None:
    """Raise _Malformed for any present field a condition reads with the wrong kind of value.

    Rules are ordered and stop at the first that holds, and `all` stops at the first false
    condition: without this check `reports_filled: "yes"` behind an earlier false condition would
    never be read, and the capture would be graded as if its evidence were sound.
    """

    def present(path: str) -> tuple[bool, Any]:
        try:
            return True, _lookup(evidence, path)
        except _Missing:
            return False, None  # a missing field is N/A only where a rule needs it

    for condition in conditions:
        found, left = present(condition.field)
        if condition.other is None:
            if not found:
                continue
            if isinstance(condition.value, bool):
                if not isinstance(left, bool):
                    raise _Malformed(condition.field, f"{_kind(left)}, expected a boolean")
            else:
                _number(left, condition.field)
            continue
        found_other, right = present(condition.other)
        if (
            condition.op in ("eq", "ne")
            and (not found or isinstance(left, bool))
            and (not found_other or isinstance(right, bool))
        ):
            continue  # booleans compared with booleans
        if found:
            _number(left, condition.field)
        if found_other:
            _number(right, condition.other)


def _by_rules(axis: Axis, evidence: Evidence, baseline: Evidence | None) -> Cell:
    assert evidence.values is not None
    _well_formed([condition for rule in axis.rules for condition in rule.when], evidence.values)
    for rule in axis.rules:
        if all(_holds(condition, evidence.values) for condition in rule.when):
            break
    if axis.field is None:
        return Cell(rule.grade)
    try:
        value = _lookup(evidence.values, axis.field)
    except _Missing:
        return Cell(rule.grade)  # the grade stands; there is no raw value to show beside it
    if isinstance(value, bool):
        return Cell(rule.grade, f"{axis.unit} {'yes' if value else 'no'}".strip(), value)
    return Cell(rule.grade, _with_unit(_number(value, axis.field), axis.unit), _json(value))


def _by_count(axis: Axis, evidence: Evidence, baseline: Evidence | None) -> Cell:
    assert evidence.values is not None and axis.field is not None
    value = _lookup(evidence.values, axis.field)
    if isinstance(value, (list, tuple)):
        count = Fraction(len(value))
    else:
        count = _number(value, axis.field)
        if count < 0 or count.denominator != 1:
            raise _Malformed(axis.field, "not a whole count")
    return Cell(_band(axis.bands, count), _with_unit(count, axis.unit), _json(value))


def _by_ratio(axis: Axis, evidence: Evidence, baseline: Evidence | None) -> Cell:
    assert evidence.values is not None and axis.field is not None
    value = _positive(_lookup(evidence.values, axis.field), axis.field)
    if evidence.baseline:
        return Cell("N/A", f"baseline, {_with_unit(value, axis.unit)}", _json(_lookup(evidence.values, axis.field)))
    if baseline is None:
        return Cell("N/A", "no paired baseline capture")
    if baseline.secret is not None:
        return Cell("UNKNOWN", "paired baseline capture is secret-bearing input")
    if baseline.values is None:
        raise _Missing(axis.field)
    paired = _positive(_lookup(baseline.values, axis.field), axis.field)
    if paired == 0:
        raise _Malformed(axis.field, "the baseline's value is 0, no ratio")
    ratio = value / paired
    raw = {
        "value": _json(_lookup(evidence.values, axis.field)),
        "baseline": _json(_lookup(baseline.values, axis.field)),
        "ratio": float(ratio),
    }
    return Cell(_band(axis.bands, ratio), f"{ratio_text(ratio)}x {axis.unit}".strip(), raw)


def _positive(value: Any, path: str) -> Fraction:
    number = _number(value, path)
    if number < 0:
        raise _Malformed(path, "a negative number")
    return number


def _by_checklist(axis: Axis, evidence: Evidence, baseline: Evidence | None) -> Cell:
    assert evidence.values is not None
    applying = [c for c in axis.checklist if c.on_baseline or not evidence.baseline]
    results = {condition.text(): _holds(condition, evidence.values) for condition in applying}
    failing = [name for name, held in results.items() if not held]
    if not failing:
        return Cell("PASS", f"all {len(results)} hold", results)
    return Cell("FAIL", f"{len(results) - len(failing)} of {len(results)} hold; not: {'; '.join(failing)}", results)


_GRADERS = {"rules": _by_rules, "count": _by_count, "ratio": _by_ratio, "checklist": _by_checklist}
