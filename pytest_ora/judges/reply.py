"""The judge reply schema and its validation: a reply is accepted whole or refused, never repaired."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from pydantic import ValidationError

from ..errors import show_value
from ..method.rubric import Rubric
from ..models import JudgeReply
from .providers.base import ProviderReply, loads_body

__all__ = ["ReplyProblem", "check_reply", "reply_schema"]

_FENCED = re.compile(r"\A```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?```\Z", re.DOTALL)


def reply_schema(rubric: Rubric) -> dict[str, Any]:
    """JSON Schema of the reply object, in the subset strict structured-output modes accept."""
    low, high = float(rubric.scale_min), float(rubric.scale_max)
    score = {"type": "number", "minimum": low, "maximum": high}
    note = {"type": "string"}
    names = list(rubric.names)
    return {
        "type": "object",
        "properties": {
            "entry_key": {"type": "string"},
            "configuration": {"type": "string"},
            "judge_model": {"type": "string"},
            "scores": _object_of(names, score),
            "notes": _object_of(names, note),
            "impression": {"type": "string"},
        },
        "required": ["entry_key", "configuration", "judge_model", "scores", "notes", "impression"],
        "additionalProperties": False,
    }


def _object_of(names: list[str], item: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {name: dict(item) for name in names},
        "required": names,
        "additionalProperties": False,
    }


@dataclass(frozen=True)
class ReplyProblem:
    """Why a reply was refused: the field, the value seen, the reason."""

    field: str
    value: str
    reason: str

    def sentence(self) -> str:
        return f"field '{self.field}' {self.reason} (got {self.value})"


def check_reply(
    reply: ProviderReply, rubric: Rubric, entry_key: str, configuration: str
) -> JudgeReply | ReplyProblem:
    """The validated reply, or the first problem that makes it invalid."""
    if reply.stop == "truncated":
        return ReplyProblem("(reply)", show_value(reply.detail), "was cut off at the output token limit")
    if reply.stop == "refused":
        return ReplyProblem("(reply)", show_value(reply.detail), "is a refusal")
    payload = reply.payload if reply.payload is not None else _parse_text(reply.text)
    if isinstance(payload, ReplyProblem):
        return payload
    try:
        parsed = JudgeReply.model_validate(payload)
    except ValidationError as error:
        return _first_error(error, payload)
    return _check_against(parsed, rubric, entry_key, configuration)


def _parse_text(text: str | None) -> Any:
    if text is None or not text.strip():
        return ReplyProblem("(reply)", show_value(text or ""), "is empty")
    body = text.strip()
    fenced = _FENCED.match(body)
    if fenced:
        body = fenced.group("body").strip()
    try:
        return loads_body(body)
    except ValueError as error:
        return ReplyProblem("(reply)", show_value(body), f"is not a single JSON object ({error})")


def _first_error(error: ValidationError, payload: Any) -> ReplyProblem:
    first = error.errors(include_url=False)[0]
    location = ".".join(str(part) for part in first["loc"]) or "(reply)"
    if first["type"] == "missing":
        return ReplyProblem(location, "nothing", "is missing")
    if first["type"] == "extra_forbidden":
        return ReplyProblem(location, show_value(first.get("input")), "is not a field of the reply schema")
    if not isinstance(payload, dict):
        return ReplyProblem("(reply)", show_value(payload), "is not a JSON object")
    message = str(first["msg"]).removeprefix("Value error, ").lower()
    return ReplyProblem(location, show_value(first.get("input")), message)


def _check_against(reply: JudgeReply, rubric: Rubric, entry_key: str, configuration: str) -> JudgeReply | ReplyProblem:
    for group, values in (("scores", reply.scores), ("notes", reply.notes)):
        for name in rubric.names:
            if name not in values:
                return ReplyProblem(f"{group}.{name}", "nothing", "is missing")
        for name in values:
            if name not in rubric.names:
                return ReplyProblem(f"{group}.{name}", show_value(values[name]), f"is not a criterion of rubric {rubric.version}")
    for name in rubric.names:
        score = reply.scores[name]
        if not rubric.scale_min <= Fraction(score) <= rubric.scale_max:
            scale = f"{rubric.scale_min}-{rubric.scale_max}"
            return ReplyProblem(f"scores.{name}", str(score), f"is outside the scale {scale}")
    if reply.entry_key != entry_key:
        return ReplyProblem("entry_key", show_value(reply.entry_key), f"does not match the packet's {entry_key!r}")
    if reply.configuration != configuration:
        return ReplyProblem(
            "configuration", show_value(reply.configuration), f"does not match the packet's {configuration!r}"
        )
    return reply
