"""Check a JSON value against an official SDK's request TypedDict, and a reply against its response model, strictly.

pydantic's TypeAdapter cannot validate the SDKs' request TypedDicts here (their `Iterable[...]`
fields validate lazily, and recursive ones abort), so request bodies are walked against the
TypedDicts' own annotations: every key must be one the type declares, every required key present,
literals matched, unions tried member by member. Replies are validated by the SDKs' pydantic
models with strict=True, and no field may be one the model does not declare (the models
themselves allow extras).
"""

from __future__ import annotations

import collections.abc
import json
import types
import typing
from typing import Any

import pydantic
import typing_extensions

from pytest_ora.judges.providers.base import JudgePrompt, Sampling, TextPart

__all__ = ["GEMINI_FIELDS", "candidate_prompt", "gemini_request_problems", "request_problems", "response_problems"]

_WRAPPERS = {
    typing.Required,
    typing.NotRequired,
    typing_extensions.Required,
    typing_extensions.NotRequired,
    typing.ReadOnly if hasattr(typing, "ReadOnly") else typing.Required,
}


def _unwrap(tp: Any) -> Any:
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated or origin in _WRAPPERS:
            tp = typing.get_args(tp)[0]
        elif isinstance(tp, typing_extensions.TypeAliasType) or type(tp).__name__ == "TypeAliasType":
            tp = tp.__value__
        else:
            return tp


# C901: one pass over a request's fields against every SDK's request type, each a branch.
def request_problems(value: Any, tp: Any, path: str = "body") -> list[str]:  # noqa: C901
    """What does not fit `tp` in `value` (empty when it fits)."""
    tp = _unwrap(tp)
    if tp is Any or tp is object:
        return []
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        tries = [request_problems(value, member, path) for member in typing.get_args(tp)]
        if any(not problems for problems in tries):
            return []
        best = max(tries, key=lambda found: len(found[0].split(": ")[0]))  # the member that fit deepest
        return best if len(tries) == 1 else [f"{path}: fits no member of the union; closest: {best[0]}"]
    if origin is typing.Literal:
        return [] if value in typing.get_args(tp) else [f"{path}: {value!r} is not one of {typing.get_args(tp)}"]
    if tp is type(None):
        return [] if value is None else [f"{path}: expected null"]
    if typing_extensions.is_typeddict(tp):
        if not isinstance(value, dict):
            return [f"{path}: expected an object for {tp.__name__}"]
        hints = typing.get_type_hints(tp, include_extras=True)
        problems = [f"{path}.{key}: not a field of {tp.__name__}" for key in value if key not in hints]
        problems += [f"{path}.{key}: required by {tp.__name__}" for key in _required(tp, hints) if key not in value]
        for key, item in value.items():
            if key in hints:
                problems += request_problems(item, hints[key], f"{path}.{key}")
        return problems
    if origin in (collections.abc.Iterable, collections.abc.Sequence, list, tuple, list, collections.abc.Collection):
        if not isinstance(value, list):
            return [f"{path}: expected an array"]
        args = typing.get_args(tp)
        member = args[0] if args else Any
        return [
            problem
            for index, item in enumerate(value)
            for problem in request_problems(item, member, f"{path}[{index}]")
        ]
    if origin in (dict, collections.abc.Mapping, dict):
        if not isinstance(value, dict):
            return [f"{path}: expected an object"]
        args = typing.get_args(tp)
        member = args[1] if len(args) == 2 else Any
        return [problem for key, item in value.items() for problem in request_problems(item, member, f"{path}.{key}")]
    if tp is bool:
        return [] if isinstance(value, bool) else [f"{path}: expected a boolean, got {value!r}"]
    if tp is int:
        return (
            []
            if isinstance(value, int) and not isinstance(value, bool)
            else [f"{path}: expected an integer, got {value!r}"]
        )
    if tp is float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        return [] if ok else [f"{path}: expected a number, got {value!r}"]
    if tp is str:
        return [] if isinstance(value, str) else [f"{path}: expected a string, got {value!r}"]
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        return response_problems(value, tp, path)
    return []  # file types and the like: not JSON, nothing to check


def _required(tp: Any, hints: dict[str, Any]) -> set[str]:
    """The TypedDict's required keys, read from the annotations themselves.

    With postponed annotations (the SDKs' modules) `__required_keys__` misses `Required[...]` on
    Python 3.11, so Required/NotRequired are read from the resolved hints.
    """
    required: set[str] = set()
    for key, hint in hints.items():
        origin = typing.get_origin(hint)
        if origin in (typing.Required, typing_extensions.Required) or (
            origin not in (typing.NotRequired, typing_extensions.NotRequired) and tp.__total__
        ):
            required.add(key)
    return required


def response_problems(value: Any, model: type[pydantic.BaseModel], path: str = "reply") -> list[str]:
    """What does not fit the SDK's response model strictly: validation errors, or fields the model does not know.

    Validated from JSON text in strict mode: no coercion but what JSON itself needs (timestamps as ISO strings).
    """
    text = value if isinstance(value, str) else json.dumps(value)
    try:
        parsed = model.model_validate_json(text, strict=True)
    except pydantic.ValidationError as error:
        return [f"{path}.{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()]
    return _extras(parsed, path)


def _extras(node: Any, path: str) -> list[str]:
    if isinstance(node, pydantic.BaseModel):
        problems = [f"{path}.{key}: not a field of {type(node).__name__}" for key in (node.model_extra or {})]
        for name in type(node).model_fields:
            problems += _extras(getattr(node, name), f"{path}.{name}")
        return problems
    if isinstance(node, (list, tuple)):
        return [problem for index, item in enumerate(node) for problem in _extras(item, f"{path}[{index}]")]
    if isinstance(node, dict):
        return [problem for key, item in node.items() for problem in _extras(item, f"{path}.{key}")]
    return []


GEMINI_FIELDS = ("systemInstruction", "contents", "generationConfig", "tools", "toolConfig")
"""The GenerateContentRequest fields pytest-ora may send."""


def gemini_request_problems(body: dict[str, Any], fields: tuple[str, ...] = GEMINI_FIELDS) -> list[str]:
    """google-genai's models forbid unknown fields: each part of the body must validate as the SDK's type."""
    from google.genai import types as genai_types

    problems = []
    checks: list[tuple[str, Any, Any]] = [("generationConfig", genai_types.GenerationConfig, body["generationConfig"])]
    if "systemInstruction" in body:  # a candidate without a system prompt sends none
        checks.insert(0, ("systemInstruction", genai_types.Content, body["systemInstruction"]))
    checks += [(f"contents[{i}]", genai_types.Content, c) for i, c in enumerate(body["contents"])]
    for where, model, value in checks:
        try:
            model.model_validate(value)
        except Exception as error:
            problems.append(f"{where}: {error}")
    problems += [f"{key}: not a field of GenerateContentRequest" for key in sorted(set(body) - set(fields))]
    return problems


def candidate_prompt(cache: bool, system: str, claude: bool = False) -> JudgePrompt:
    """A role candidate's call: no reply schema, no tool, its own sampling parameters (Claude's Messages API takes none)."""
    parts = (
        TextPart("The team runs two warehouses; rent rises 30% next year.", cache_break=cache),
        TextPart("Should they consolidate? Answer in numbered steps."),
    )
    return JudgePrompt(
        system=system,
        parts=parts,
        reply_schema=None,
        max_tokens=2048,
        cache_key="ora-candidate-solo" if cache else None,
        sampling=Sampling() if claude else Sampling(temperature=0.2, top_p=0.9),
    )
