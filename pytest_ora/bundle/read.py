"""Reading a capture bundle from disk, with every bad input named by file, line and field."""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ..errors import IntakeError, Problem, show_value
from ..models import BundleManifest, Capture, OptimumSnapshot

__all__ = ["Bundle", "CaptureLine", "MAX_YAML_ALIASES", "load_bundle", "read_bundle", "read_yaml", "yaml_line"]

MAX_YAML_ALIASES = 64
"""More aliases than this in a manifest is treated as an alias bomb, not a manifest."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Model = TypeVar("_Model", bound=BaseModel)


@dataclass(frozen=True)
class CaptureLine:
    """A capture and the line of captures.jsonl it came from."""

    capture: Capture
    line: int


@dataclass(frozen=True)
class Bundle:
    """A bundle as read from disk, before intake decides what gets judged."""

    root: Path
    manifest: BundleManifest
    optimum: OptimumSnapshot
    captures: tuple[CaptureLine, ...]


def load_bundle(root: Path) -> Bundle:
    """Read the three bundle files; raise IntakeError listing every problem found."""
    problems: list[Problem] = []
    bundle = read_bundle(root, problems)
    if problems or bundle is None:
        raise IntakeError(problems)
    return bundle


def read_bundle(root: Path, problems: list[Problem]) -> Bundle | None:
    """Read what can be read, adding every problem found; None when a manifest is unusable."""
    if not root.is_dir():
        problems.append(Problem(str(root), "is not a directory", fix="point --ora-bundle at a capture bundle"))
        return None
    manifest = _read_model(root / "bundle.yaml", BundleManifest, problems)
    optimum = _read_model(root / "optimum.yaml", OptimumSnapshot, problems)
    captures = _read_captures(root / "captures.jsonl", problems)
    if manifest is None or optimum is None:
        return None
    return Bundle(root=root, manifest=manifest, optimum=optimum, captures=tuple(captures))


def read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """A YAML file's data and node tree; aliases are bounded, so a bomb is refused unread."""
    text = path.read_text(encoding="utf-8")
    events = list(yaml.parse(text, Loader=_Loader))
    aliases = sum(isinstance(event, yaml.AliasEvent) for event in events)
    if aliases > MAX_YAML_ALIASES:
        raise ValueError(f"uses {aliases} aliases (more than {MAX_YAML_ALIASES}): refusing a possible alias bomb")
    node = yaml.compose(text, Loader=_Loader)
    return yaml.load(text, Loader=_Loader), node


def _read_model(path: Path, model: type[_Model], problems: list[Problem]) -> _Model | None:
    name = path.name
    try:
        data, node = read_yaml(path)
    except FileNotFoundError:
        problems.append(Problem(name, "is missing", fix="every bundle needs bundle.yaml and optimum.yaml"))
        return None
    except UnicodeDecodeError as error:
        problems.append(Problem(name, f"is not UTF-8 text (byte {error.start})", fix="save it as UTF-8"))
        return None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problems.append(Problem(name, f"is not valid YAML: {getattr(error, 'problem', error)}", line=line))
        return None
    except ValueError as error:
        problems.append(Problem(name, str(error)))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(name, "must be a mapping of fields", value=show_value(data)))
        return None
    try:
        return model.model_validate(data)
    except ValidationError as error:
        for detail in error.errors(include_url=False):
            location = tuple(detail["loc"])
            problems.append(
                Problem(
                    name,
                    _message(detail),
                    line=_yaml_line(node, location),
                    field=".".join(str(part) for part in location) or None,
                    value=None if detail["type"] == "missing" else show_value(detail.get("input")),
                )
            )
        return None


def _yaml_line(node: yaml.Node | None, location: tuple[Any, ...]) -> int | None:
    """The 1-based line of the deepest node on a validation error's path."""
    line = node.start_mark.line + 1 if node is not None else None
    for part in location:
        if isinstance(node, yaml.MappingNode):
            found = next((pair for pair in node.value if pair[0].value == str(part)), None)
            if found is None:
                break
            node = found[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and part < len(node.value):
            node = node.value[part]
        else:
            break
        if node is not None:
            line = node.start_mark.line + 1
    return line


def yaml_line(node: yaml.Node | None, location: tuple[Any, ...]) -> int | None:
    """The 1-based line of the deepest node on a path through a YAML document (None without a node)."""
    return _yaml_line(node, location)


def _read_captures(path: Path, problems: list[Problem]) -> list[CaptureLine]:
    name = path.name
    captures: list[CaptureLine] = []
    try:
        stream = path.open("rb")
    except FileNotFoundError:
        problems.append(Problem(name, "is missing", fix="a bundle holds its captures in captures.jsonl"))
        return []
    with stream:  # line by line: a large bundle is never held twice in memory
        for number, data in enumerate(stream, start=1):
            if not data.strip():
                continue
            capture = _read_capture_line(name, number, data.rstrip(b"\r\n"), problems)
            if capture is not None:
                captures.append(CaptureLine(capture, number))
    return captures


def _read_capture_line(name: str, number: int, data: bytes, problems: list[Problem]) -> Capture | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        problems.append(
            Problem(name, f"is not UTF-8 at byte {error.start} of the line", line=number, fix="save the file as UTF-8")
        )
        return None
    try:
        obj = json.loads(text, parse_float=Decimal)
    except json.JSONDecodeError as error:
        problems.append(
            Problem(name, f"is not valid JSON: {error.msg} at column {error.colno}", line=number,
                    fix="each line must hold exactly one JSON object")
        )
        return None
    if not isinstance(obj, dict):
        problems.append(Problem(name, "must be a JSON object", line=number, value=show_value(obj)))
        return None
    try:
        return Capture.model_validate(obj)
    except ValidationError as error:
        capture_id = _guess_id(obj)
        for detail in error.errors(include_url=False):
            problems.append(
                Problem(
                    name,
                    _message(detail),
                    line=number,
                    capture_id=capture_id,
                    field=".".join(str(part) for part in detail["loc"]) or None,
                    value=None if detail["type"] == "missing" else show_value(detail.get("input")),
                )
            )
        return None


def _guess_id(obj: dict[str, Any]) -> str | None:
    key, configuration = obj.get("entry_key"), obj.get("configuration")
    if isinstance(key, str) and isinstance(configuration, str):
        return f"{key}/{configuration}"
    return None


def _message(detail: Any) -> str:
    kind = detail["type"]
    if kind == "missing":
        return "is required but missing"
    if kind == "extra_forbidden":
        return "is not a known field"
    if kind == "string_pattern_mismatch":
        pattern = detail.get("ctx", {}).get("pattern", "")
        if ":" in pattern:
            return "must be family:technique, both slugs ([a-z0-9][a-z0-9-]*)"
        if "https?" in pattern:
            return "must be a full http(s) URL"
        return "must be a slug: lowercase letters, digits and hyphens, starting with a letter or digit"
    return str(detail["msg"]).replace("Value error, ", "").lower() if kind == "value_error" else str(detail["msg"]).lower()
