"""Reading a capture bundle from disk, with every bad input named by file, line and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from ..core.bundle import Bundle, CaptureLine
from ..core.candidates import Entry
from ..core.errors import IntakeError, Problem, show_value
from ..core.fastload import DEFERRED_TEXTS, LineSource, deferred
from ..core.jsonl import jsonl_line
from ..core.models import Acceptance, BundleManifest, Capture, OptimumSnapshot
from ..core.paths import BundlePathError, bundle_file
from ..core.strictjson import StrictJsonError, key_of, lone_surrogate, strict_loads
from .entries import candidate_captures, entry_of, is_entry_line, read_entries
from .secrets import redact_shapes, text_secret

__all__ = ["MAX_YAML_ALIASES", "load_bundle", "read_bundle", "read_yaml", "yaml_line"]

MAX_YAML_ALIASES = 64
"""More aliases than this in a manifest is treated as an alias bomb, not a manifest."""
MAX_YAML_BYTES = 1024 * 1024
"""A manifest is a few kilobytes; a larger one is refused unread."""
MAX_YAML_NODES = 1_000_000
"""Nodes a manifest may expand to, aliases counted at every use: a bomb under the alias limit still stops."""

_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Model = TypeVar("_Model", bound=BaseModel)


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
        what = "is not a directory" if root.exists() else "does not exist"
        problems.append(
            Problem(
                str(root), what, fix="point --ora-bundle at a capture bundle (python -m pytest_ora init DIR makes one)"
            )
        )
        return None
    manifest = _read_model(root, "bundle.yaml", BundleManifest, problems)
    optimum = _read_model(root, "optimum.yaml", OptimumSnapshot, problems)
    candidates = manifest.candidates if manifest is not None else None
    entries = read_entries(root, problems) if candidates else None
    inline: list[tuple[Entry, int]] | None = [] if candidates else None
    captures = _read_captures(root, "captures.jsonl", problems, inline, optional=entries is not None)
    if manifest is None or optimum is None:
        return None
    if candidates:
        for item in captures:
            if item.capture.configuration in candidates:
                problems.append(
                    Problem(
                        "captures.jsonl",
                        f"holds an answer of {item.capture.configuration}, which its candidate makes in the run",
                        line=item.line,
                        capture_id=item.capture.capture_id,
                        field="configuration",
                        fix="give the prompt once, without configuration and answer (or in entries.jsonl)",
                    )
                )
        captures += candidate_captures(manifest, [*(entries or []), *(inline or [])])
        _check_candidate_roles(root, manifest, optimum, problems)
        _check_role_conversations(manifest, entries or [], inline or [], problems)
    return Bundle(root=root, manifest=manifest, optimum=optimum, captures=tuple(captures))


def _check_candidate_roles(
    root: Path, manifest: BundleManifest, optimum: OptimumSnapshot, problems: list[Problem]
) -> None:
    """A role candidate names a role of optimum.yaml."""
    unknown = [
        (name, spec.role)
        for name, spec in (manifest.candidates or {}).items()
        if spec.role is not None and spec.role not in optimum.roles
    ]
    if not unknown:
        return
    try:
        _, node = read_yaml(root / "bundle.yaml")
    except (OSError, ValueError, yaml.YAMLError):
        node = None
    for name, role in unknown:
        problems.append(
            Problem(
                "bundle.yaml",
                f"names role {role!r}, which optimum.yaml does not define",
                line=_yaml_line(node, ("candidates", name, "role")),
                field=f"candidates.{name}.role",
                value=show_value(role),
                fix=f"roles defined: {', '.join(sorted(optimum.roles)) or 'none'}",
            )
        )


def _check_role_conversations(
    manifest: BundleManifest, entries: list[tuple[Entry, int]], inline: list[tuple[Entry, int]], problems: list[Problem]
) -> None:
    """A role candidate sends the context and the prompt: an entry's `messages` would not reach it, so it is refused."""
    roles = sorted(name for name, spec in (manifest.candidates or {}).items() if spec.role is not None)
    if not roles:
        return
    for file, lines in (("entries.jsonl", entries), ("captures.jsonl", inline)):
        for entry, line in lines:
            if entry.messages:
                problems.append(
                    Problem(
                        file,
                        f"gives a conversation, which role candidate{'s' if len(roles) > 1 else ''} {', '.join(roles)} "
                        "would not be sent (a role candidate's request is its system prompt, the context and the prompt)",
                        line=line,
                        capture_id=entry.entry_key,
                        field="messages",
                        fix="give the conversation's text as context and its last question as prompt, or answer it with a "
                        "python or command candidate (they receive messages)",
                    )
                )


def read_yaml(path: Path) -> tuple[Any, yaml.Node | None]:
    """A YAML file's data and node tree; size, aliases and expansion are bounded, so a bomb is refused unread."""
    size = path.stat().st_size
    if size > MAX_YAML_BYTES:
        raise ValueError(f"is {size} bytes (more than {MAX_YAML_BYTES}): refusing to read it as a manifest")
    text = path.read_text(encoding="utf-8-sig")  # editors on Windows may start the file with a BOM
    events = list(yaml.parse(text, Loader=_Loader))
    aliases = sum(isinstance(event, yaml.AliasEvent) for event in events)
    if aliases > MAX_YAML_ALIASES:
        raise ValueError(f"uses {aliases} aliases (more than {MAX_YAML_ALIASES}): refusing a possible alias bomb")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        expanded = _expanded_size(node, {})
        if expanded > MAX_YAML_NODES:
            raise ValueError(
                f"expands to {expanded} nodes through its aliases (more than {MAX_YAML_NODES}): "
                "refusing a possible alias bomb"
            )
        # The data is constructed from the node tree already checked: the text is not parsed a third time.
        data = loader.construct_document(node) if node is not None else None
    finally:
        loader.dispose()
    return data, node


def _expanded_size(node: yaml.Node | None, sizes: dict[int, int]) -> int:
    """Nodes `node` stands for once every alias is expanded (an alias reuses its anchor's node object)."""
    if node is None:
        return 0
    known = sizes.get(id(node))
    if known is not None:
        return known
    sizes[id(node)] = 1  # a recursive alias counts once, never loops
    total = 1
    if isinstance(node, yaml.SequenceNode):
        total += sum(_expanded_size(child, sizes) for child in node.value)
    elif isinstance(node, yaml.MappingNode):
        total += sum(_expanded_size(key, sizes) + _expanded_size(value, sizes) for key, value in node.value)
    sizes[id(node)] = min(total, MAX_YAML_NODES + 1)
    return sizes[id(node)]


# C901: each way a line can be bad, in the order intake names them; split, another problem could be named first.
def _read_model(root: Path, name: str, model: type[_Model], problems: list[Problem]) -> _Model | None:  # noqa: C901
    try:
        data, node = read_yaml(bundle_file(root, name))
    except FileNotFoundError:
        problems.append(Problem(name, "is missing", fix="every bundle needs bundle.yaml and optimum.yaml"))
        return None
    except BundlePathError as error:
        problems.append(Problem(name, str(error), fix="the bundle's manifests must be regular files inside it"))
        return None
    except OSError as error:
        problems.append(Problem(name, f"cannot be read ({error.strerror or error})"))
        return None
    except RecursionError:
        problems.append(Problem(name, "is nested too deeply to read"))
        return None
    except UnicodeDecodeError as error:
        problems.append(Problem(name, f"is not UTF-8 text (byte {error.start})", fix="save it as UTF-8"))
        return None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        problem = str(getattr(error, "problem", error))
        if _tab_at(mark, root / name) or "'\\t'" in problem:
            column = mark.column + 1 if mark is not None else None
            problem = (
                f"has a tab character (column {column}): YAML indents with spaces only; replace the tab with spaces"
            )
        else:
            problem = f"is not valid YAML: {problem}"
        problems.append(Problem(name, problem, line=line))
        return None
    except ValueError as error:
        problems.append(Problem(name, str(error)))
        return None
    if not isinstance(data, dict):
        problems.append(Problem(name, "must be a mapping of fields", value=show_value(data)))
        return None
    where = lone_surrogate(data)  # the pure-Python YAML loader accepts "\ud800"; no output could hold it
    if where is not None:
        problems.append(Problem(name, "holds a lone surrogate (\\ud800-\\udfff), which is not text", field=where))
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


def _tab_at(mark: Any, path: Path) -> bool:
    """Whether the parser stopped at a tab (YAML indents with spaces; libyaml's message does not say so)."""
    if mark is None:
        return False
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
        return bool(lines[mark.line][mark.column : mark.column + 1] == "\t")
    except (OSError, UnicodeDecodeError, IndexError):
        return False


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


def _read_captures(
    root: Path,
    name: str,
    problems: list[Problem],
    entries: list[tuple[Entry, int]] | None = None,
    optional: bool = False,
) -> list[CaptureLine]:
    """The captures; with candidates, lines without answer and configuration go to `entries` instead."""
    captures: list[CaptureLine] = []
    try:
        stream = bundle_file(root, name).open("rb")
    except FileNotFoundError:
        if optional:
            return []  # the candidates answer entries.jsonl's prompts
        problems.append(Problem(name, "is missing", fix="a bundle holds its captures in captures.jsonl"))
        return []
    except BundlePathError as error:
        problems.append(Problem(name, str(error), fix="captures.jsonl must be a regular file inside the bundle"))
        return []
    except OSError as error:
        problems.append(Problem(name, f"cannot be read ({error.strerror or error})"))
        return []
    lines = 0
    shared: dict[str, str] = {}
    gates: dict[tuple[Any, ...], Acceptance] = {}
    offset = 0
    values: dict[Any, Any] = {}
    with stream:
        source = LineSource.opened(root, name, stream)  # line by line: a large bundle is never held twice in memory
        for number, raw in enumerate(stream, start=1):
            start, offset = offset, offset + len(raw)
            data = jsonl_line(number, raw)
            if not data.strip():
                continue
            lines += 1
            capture = _read_capture_line(name, number, data, problems, shared, gates, entries)
            if capture is not None:
                # Checked whole, and scanned for credentials while whole; the prompt and answer may be read again
                # from this line when needed (core.fastload).
                light = deferred(capture, source, number, start, raw, values)
                captures.append(CaptureLine(light, number, text_secret(capture)))
    if lines == 0 and not optional:
        problems.append(
            Problem(name, "is empty: it holds no capture", fix="write one JSON object per line, one per capture")
        )
    return captures


def _shared_strings(obj: dict[str, Any], shared: dict[str, str]) -> dict[str, Any]:
    """`obj` with its strings (and those of its objects one level down) replaced by equal ones read before.

    A bundle repeats most of its strings: an entry's prompt on every configuration, the entry keys,
    configuration names, model ids, acceptance notes. Kept once, a 100x bundle's plan holds a
    copy of each instead of one per capture (the validated capture keeps the string it is given).
    """

    def one(value: Any) -> Any:
        return shared.setdefault(value, value) if isinstance(value, str) else value

    # The deferred texts are not kept after the line is checked: sharing them would hold them all while reading.
    return {
        one(key): value
        if key in DEFERRED_TEXTS
        else {one(k): one(v) for k, v in value.items()}
        if isinstance(value, dict)
        else one(value)
        for key, value in obj.items()
    }


_ACCEPTANCE_CACHE = 1024


def _shared_acceptance(obj: dict[str, Any], models: dict[tuple[Any, ...], Acceptance]) -> dict[str, Any]:
    """`obj` with a valid acceptance gate replaced by an equal one read before (most captures share a few).

    A capture keeps the Acceptance instance it is given (it is frozen); an invalid gate stays a
    mapping, so the capture's validation names it exactly as before.
    """
    gate = obj.get("acceptance")
    if not isinstance(gate, dict) or not all(isinstance(v, (str, bool, int, float, type(None))) for v in gate.values()):
        return obj
    key = tuple(sorted((k, type(v).__name__, v) for k, v in gate.items()))
    model = models.get(key)
    if model is None:
        try:
            model = Acceptance.model_validate(gate)
        except ValidationError:
            return obj
        if len(models) < _ACCEPTANCE_CACHE:
            models[key] = model
    return {**obj, "acceptance": model}


def _read_capture_line(
    name: str,
    number: int,
    data: bytes,
    problems: list[Problem],
    shared: dict[str, str] | None = None,
    shared_acceptance: dict[tuple[Any, ...], Acceptance] | None = None,
    entries: list[tuple[Entry, int]] | None = None,
) -> Capture | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        problems.append(
            Problem(name, f"is not UTF-8 at byte {error.start} of the line", line=number, fix="save the file as UTF-8")
        )
        return None
    try:
        obj = strict_loads(text, lenient=("evidence",))  # a scorecard grades repeats in evidence UNKNOWN
    except json.JSONDecodeError as error:
        problems.append(
            Problem(
                name,
                f"is not valid JSON: {error.msg} at column {error.colno}",
                line=number,
                fix="each line must hold exactly one JSON object",
            )
        )
        return None
    except StrictJsonError as error:
        field = error.field or (key_of(text, error.literal) if error.literal else None)
        problems.append(
            Problem(
                name,
                redact_shapes(str(error)),
                line=number,
                field=None if field is None else redact_shapes(field),
                fix="each line must hold one unambiguous JSON object",
            )
        )
        return None
    if not isinstance(obj, dict):
        problems.append(Problem(name, "must be a JSON object", line=number, value=show_value(obj)))
        return None
    if entries is not None and is_entry_line(obj):
        entry = entry_of(name, number, obj, problems)
        if entry is not None:
            entries.append((entry, number))
        return None
    if shared is not None:
        obj = _shared_strings(obj, shared)
    if shared_acceptance is not None:
        obj = _shared_acceptance(obj, shared_acceptance)
    try:
        return Capture.model_validate(obj)
    except RecursionError:
        problems.append(Problem(name, "is nested too deeply to read", line=number))
        return None
    except ValidationError as error:
        capture_id = _guess_id(obj)
        for detail in error.errors(include_url=False):
            problems.append(
                Problem(
                    name,
                    _message(detail),
                    line=number,
                    capture_id=capture_id,
                    # A key may be a token: the path and the value are shown with credential shapes redacted.
                    field=redact_shapes(".".join(str(part) for part in detail["loc"])) or None,
                    value=None if detail["type"] == "missing" else redact_shapes(show_value(detail.get("input"))),
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
        if "https?" in pattern:  # before the slug test: this pattern has a ':' too
            return (
                "must be a full http(s) URL: a judge route is called over http:// or https:// only (file, ftp, "
                "javascript and other schemes are refused)"
            )
        if "\\w" in pattern:  # a Python candidate's target
            return "must be module:function (a dotted module path, a colon, then the function's name)"
        if ":" in pattern:
            return "must be family:technique, both slugs ([a-z0-9][a-z0-9-]*)"
        if "A-Z" in pattern:
            return "must be a name of letters, digits, '_', '.', '+' and '-', starting with a letter or digit"
        return "must be a slug: lowercase letters, digits and hyphens, starting with a letter or digit"
    return (
        str(detail["msg"]).replace("Value error, ", "").lower() if kind == "value_error" else str(detail["msg"]).lower()
    )
