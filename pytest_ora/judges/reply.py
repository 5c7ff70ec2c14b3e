"""The judge reply schema and its validation: a reply is accepted whole or refused, never repaired."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any

from ..core.errors import show_value
from ..core.rubric import Rubric
from ..method.kinds import CheckedReply, ReplyProblem, judged_kind, mechanical_kind
from .providers.base import ProviderReply, loads_body

__all__ = ["CheckedReply", "ReplyProblem", "check_reply", "check_usage", "reply_schema"]

_FENCED = re.compile(r"\A```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?```\Z", re.DOTALL)


_SCHEMAS: dict[int, tuple[Rubric, dict[str, Any]]] = {}
"""Each rubric's reply schema, by the rubric object's identity (it holds the rubric, so the identity stays its own)."""


def reply_schema(rubric: Rubric) -> dict[str, Any]:
    """JSON Schema of the reply object, in the subset strict structured-output modes accept.

    Every judge prompt carries it: it is built once per rubric (building the reply model is most of a
    prompt's cost) and each caller gets its own copy.
    """
    kept = _SCHEMAS.get(id(rubric))
    if kept is None or kept[0] is not rubric:
        if mechanical_kind(rubric.kind) is not None:
            schema: dict[str, Any] = {}  # no judge is asked anything
        else:
            schema = judged_kind(rubric.kind).reply_schema(rubric)
        kept = _SCHEMAS[id(rubric)] = (rubric, schema)
    return copy.deepcopy(kept[1])


def check_reply(
    reply: ProviderReply,
    rubric: Rubric,
    entry_key: str,
    configuration: str | None,
    material: Mapping[str, Any] | None = None,
) -> CheckedReply | ReplyProblem:
    """The validated reply (its kind's model), or the first problem that makes it invalid."""
    if reply.stop == "truncated":
        return ReplyProblem("(reply)", show_value(reply.detail), "was cut off at the output token limit")
    if reply.stop == "refused":
        return ReplyProblem("(reply)", show_value(reply.detail), "is a refusal")
    payload = reply.payload if reply.payload is not None else _parse_text(reply.text)
    if isinstance(payload, ReplyProblem):
        return payload
    return judged_kind(rubric.kind).check(payload, rubric, entry_key, configuration, material)


def check_usage(reply: ProviderReply) -> ReplyProblem | None:
    """The judge skill: a reply without input and output token usage is invalid; usage is never estimated."""
    usage = reply.usage
    if usage["input_tokens"] > 0 and usage["output_tokens"] > 0:
        return None
    seen = f"input_tokens={usage['input_tokens']}, output_tokens={usage['output_tokens']}"
    return ReplyProblem("usage", seen, "has no token usage: not estimated")


def _parse_text(text: str | None) -> object:
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
