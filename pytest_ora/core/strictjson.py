"""JSON read strictly and cheaply: duplicate keys, absurd numbers, lone surrogates and deep nesting refused.

A reply or a capture line is read once, by rules that make every later step safe: a number is
checked as text before any exact conversion (``1e-99999999`` would otherwise cost 10**99999999),
a key given twice is ambiguous (never last-wins), a lone surrogate cannot be written to any output,
and nesting beyond Python's recursion limit is an error, not a crash.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from decimal import Decimal
from fractions import Fraction
from typing import Any

from .errors import OraError

__all__ = [
    "MAX_EXPONENT",
    "MAX_NUMBER_CHARS",
    "StrictJsonError",
    "bounded_fraction",
    "exact_number",
    "key_of",
    "lone_surrogate",
    "repeated_names",
    "strict_loads",
    "unique_pairs",
]

MAX_NUMBER_CHARS = 64
"""Longest number literal accepted (sign, digits, point and exponent)."""
MAX_EXPONENT = 100
"""Largest exponent magnitude accepted in a number literal."""

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_KEY_BEFORE = re.compile(r'"([^"\\]{1,100})"\s*:\s*')


class StrictJsonError(OraError, ValueError):
    """JSON refused by the strict rules; `field` names where, when known."""

    def __init__(self, message: str, field: str | None = None, literal: str | None = None) -> None:
        self.field = field
        self.literal = literal
        """The refused number as written, so a reader can find its key in the text."""
        super().__init__(message)


def _check_literal(literal: str) -> None:
    if len(literal) > MAX_NUMBER_CHARS:
        raise StrictJsonError(
            f"number {literal[:20]}... has {len(literal)} characters (more than {MAX_NUMBER_CHARS})", literal=literal
        )
    _, _, exponent = literal.lower().partition("e")
    if exponent and abs(int(exponent)) > MAX_EXPONENT:
        raise StrictJsonError(f"number {literal} has an exponent beyond +-{MAX_EXPONENT}", literal=literal)


def bounded_fraction(text: str) -> Fraction:
    """A number or fraction string ("1/6", "2.5e3") exactly, its length and exponent checked as text first.

    Fraction("1e999999999") would build 10**999999999 (minutes of CPU, gigabytes): a file's number
    is refused by the same bounds as a reply's before any exact conversion.
    """
    text = text.strip()
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"number {text[:20]}... has {len(text)} characters (more than {MAX_NUMBER_CHARS})")
    for part in text.split("/"):
        _, _, exponent = part.strip().lower().partition("e")
        digits = exponent.lstrip("+-")
        if digits.isdigit() and int(digits) > MAX_EXPONENT:
            raise ValueError(f"number {text} has an exponent beyond +-{MAX_EXPONENT}")
    return Fraction(text)


def exact_number(value: object) -> Fraction | None:
    """A file's number (an int, a float through its decimal text, or a number or fraction string) exactly;
    None when it is none (a bool, another type, "1/0", text that is no number).

    A number refused for its length or exponent raises that ValueError: the message says why, where a
    caller's "must be a number" would not.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        return Fraction(repr(value))
    if isinstance(value, (int, str)):
        try:
            return bounded_fraction(str(value))
        except ZeroDivisionError:
            return None
        except ValueError as error:
            if "exponent" in str(error) or "characters" in str(error):
                raise  # "1e999999999" is refused at once, never expanded
    return None


def _decimal(literal: str) -> Decimal:
    _check_literal(literal)
    return Decimal(literal)


def _int(literal: str) -> int:
    _check_literal(literal)
    return int(literal)


def _constant(name: str) -> Any:
    raise StrictJsonError(f"non-finite number {name} in JSON")


class _Repeated(dict):  # type: ignore[type-arg]
    """An object in which a key was written twice (last wins); `repeated` names those keys."""

    repeated: tuple[str, ...] = ()


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = dict(pairs)
    if len(result) == len(pairs):
        return result
    seen: set[str] = set()
    repeated: list[str] = []
    for key, _ in pairs:
        if key in seen:
            repeated.append(key)
        seen.add(key)
    marked = _Repeated(result)
    marked.repeated = tuple(repeated)
    return marked


def repeated_names(names: Iterable[str]) -> list[str]:
    """The names given more than once (a CSV header's, an object's keys), each once, in order of first repeat."""
    seen: set[str] = set()
    repeated: list[str] = []
    for name in names:
        if name in seen and name not in repeated:
            repeated.append(name)
        seen.add(name)
    return repeated


def unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads' object_pairs_hook for every JSONL reader: a key given twice is refused, never last-wins."""
    result = dict(pairs)
    if len(result) != len(pairs):
        key = repeated_names(key for key, _ in pairs)[0]
        raise StrictJsonError(
            f"key {key!r} given twice in one object (ambiguous; the tool never takes the last)", field=key
        )
    return result


def _first_repeated(value: Any, path: str, lenient: tuple[str, ...]) -> tuple[str, str] | None:
    """(path, key) of the first key written twice outside the `lenient` top-level fields."""
    if isinstance(value, dict):
        if isinstance(value, _Repeated):
            return (f"{path}.{value.repeated[0]}" if path else value.repeated[0]), value.repeated[0]
        for key, item in value.items():
            if not path and key in lenient:
                continue
            found = _first_repeated(item, f"{path}.{key}" if path else str(key), lenient)
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _first_repeated(item, f"{path}.{index}" if path else str(index), lenient)
            if found:
                return found
    return None


def key_of(text: str, literal: str) -> str | None:
    """The key whose value is `literal` in JSON `text` (first occurrence), to name a refused number's field."""
    at = text.find(literal)
    match = _KEY_BEFORE.search(text, 0, at) if at >= 0 else None
    found = None
    while match is not None:  # the last key before the literal
        found = match.group(1)
        match = _KEY_BEFORE.search(text, match.end(), at)
    return found


def lone_surrogate(value: Any, path: str = "") -> str | None:
    """The path of the first string holding a lone surrogate (unwritable as UTF-8), or None."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return path or "(value)"
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            found = lone_surrogate(key, path) or lone_surrogate(item, f"{path}.{key}" if path else str(key))
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = lone_surrogate(item, f"{path}.{index}" if path else str(index))
            if found:
                return found
    return None


def strict_loads(text: str, lenient: tuple[str, ...] = ()) -> Any:
    """Parse `text` (exact decimals, bounded ints); StrictJsonError or json.JSONDecodeError on refusal.

    A key written twice is refused, except under the top-level fields named in `lenient`, where
    the last one wins and the reader of that field judges it (a scorecard grades it UNKNOWN).
    """
    repeats: list[bool] = []

    def pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        made = _object(pairs)
        if isinstance(made, _Repeated):
            repeats.append(True)  # the tree is walked for the path only when a key was repeated
        return made

    try:
        data = json.loads(
            text, parse_float=_decimal, parse_int=_int, parse_constant=_constant, object_pairs_hook=pairs_hook
        )
        repeated = _first_repeated(data, "", lenient) if repeats else None
    except RecursionError:
        raise StrictJsonError("is nested too deeply to read") from None
    if repeated is not None:
        where, key = repeated
        raise StrictJsonError(f"key {key!r} appears twice in one object (ambiguous JSON)", field=where)
    # Surrogates can only arrive as \u escapes (the text itself came from strict UTF-8): look first.
    if _SURROGATE_ESCAPE.search(text):
        surrogate = lone_surrogate(data)
        if surrogate is not None:
            raise StrictJsonError("holds a lone surrogate (\\ud800-\\udfff), which is not text", field=surrogate)
    return data
