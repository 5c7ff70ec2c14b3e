"""A kind's reply JSON Schema, generated from its reply model as one rubric asks for it.

The rubric fixes what the model leaves open (the criteria under `scores`, the scale, the verdict bands), so
a kind specialises its model (`asked`), and pydantic's schema of that is put in the subset the providers'
strict structured-output modes accept (`strict_schema`): every object closed with every property required,
an optional field asked for as its type, no titles, defaults or references, keys in the order judges have
always been sent them (a request body's bytes are what its cassette matches)."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

__all__ = ["asked", "closed_model", "one_of", "strict_schema", "whole_score"]

_ORDER = (
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minimum",
    "maximum",
    "multipleOf",
    "enum",
    "description",
)
"""Every keyword a reply schema uses, in the order it is written."""

_DROPPED = ("title", "default")
"""What pydantic writes that a strict reply schema leaves out."""

_CLOSED = ConfigDict(extra="forbid", frozen=True)


def closed_model(name: str, fields: Mapping[str, object]) -> type[BaseModel]:
    """A closed model with exactly these fields, by any name (criterion names, contestant labels), all required."""
    definitions: dict[str, Any] = {
        f"field_{index}": (annotation, Field(alias=key)) for index, (key, annotation) in enumerate(fields.items())
    }
    return create_model(name, __config__=_CLOSED, **definitions)


def asked(model: type[BaseModel], overrides: Mapping[str, object], omit: Collection[str] = ()) -> type[BaseModel]:
    """The reply model as one rubric asks for it: its fields in order, some given the rubric's types, some left out."""
    fields: dict[str, Any] = {
        name: (overrides.get(name, field.annotation), ...)
        for name, field in model.model_fields.items()
        if name not in omit
    }
    return create_model(model.__name__, __config__=_CLOSED, **fields)


def whole_score(low: int, high: int) -> object:
    """A score on a scale of whole numbers."""
    return Annotated[int, Field(ge=low, le=high)]


def one_of(values: Sequence[str], description: str | None = None) -> object:
    """One of these strings (a verdict band, a rating, a winner)."""
    choice = Literal.__getitem__(tuple(values))
    return Annotated[choice, Field(description=description)] if description is not None else choice


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON Schema in the strict subset, key order fixed."""
    generated = model.model_json_schema(mode="validation")
    definitions = generated.pop("$defs", {})
    return _strict(generated, definitions)


def _strict(node: dict[str, Any], definitions: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    if "$ref" in node:
        # A model's docstring is for the reader of its code; a field's description is for the judge.
        model = {
            key: value for key, value in definitions[node["$ref"].rsplit("/", 1)[-1]].items() if key != "description"
        }
        node = {**model, **{key: value for key, value in node.items() if key != "$ref"}}
    if "anyOf" in node:
        kept = [branch for branch in node["anyOf"] if branch != {"type": "null"}]
        if len(kept) != 1:
            raise ValueError(f"a reply schema has no union of several types: {node}")
        node = {**{key: value for key, value in node.items() if key != "anyOf"}, **_strict(kept[0], definitions)}
    if "const" in node:
        node = {**{key: value for key, value in node.items() if key != "const"}, "enum": [node["const"]]}
    unknown = set(node) - set(_ORDER) - set(_DROPPED)
    if unknown:
        raise ValueError(f"a reply schema has no keyword {', '.join(sorted(unknown))}: {node}")
    strict: dict[str, Any] = {}
    for key in _ORDER:
        if key == "properties" and "properties" in node:
            strict["properties"] = {name: _strict(value, definitions) for name, value in node["properties"].items()}
            strict["required"] = list(strict["properties"])
            strict["additionalProperties"] = False
        elif key == "items" and "items" in node:
            strict["items"] = _strict(node["items"], definitions)
        elif key in node and key not in strict:
            strict[key] = node[key]
    return strict
