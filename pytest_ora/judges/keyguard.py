"""Checks on the configured API keys before any judge call: a key that could leak is refused unpaid."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ..core.errors import OraError
from ..core.plan import Plan
from ..core.pngtext import PngTextError, png_texts
from .providers import api_key_for, key_env_for, secrets_for

__all__ = ["MIN_KEY_LENGTH", "check_keys", "configured_keys"]

MIN_KEY_LENGTH = 12
"""Shorter values occur in ordinary text: redacting them would mangle reports and still not hide them.
Providers' keys are 39 characters or more; a keyless local judge needs no key at all."""


def configured_keys(panel: Any, environ: Mapping[str, str]) -> tuple[str, ...]:
    """Every API key the panel's judges would send, as set in `environ`: user text holding one is refused.

    A key shorter than MIN_KEY_LENGTH is left out: it would match ordinary text, and a live run refuses it
    on its own (check_keys) before any call.
    Only credentials set in `environ` are read (a cloud credential chain may refresh a token over the
    network, which a replay never does).
    """
    keys = (key for judge in panel.judges for key in secrets_for(judge.spec, environ, chains=False))
    return tuple(dict.fromkeys(str.__str__(key) for key in keys if key and len(key) >= MIN_KEY_LENGTH))


def check_keys(plan: Plan, environ: Mapping[str, str]) -> None:
    """Raise OraError (the run stops, exit 4) for a key too short to redact or present in the bundle."""
    keys: dict[str, str] = {}
    problems = []
    roles = plan.bundle.optimum.roles
    callers = [(judge.label, judge.spec) for judge in plan.panel.judges]
    # Role candidates send their keys as judges do: checked the same way.
    callers += [
        (f"candidate {name}", roles[spec.role])
        for name, spec in (plan.bundle.manifest.candidates or {}).items()
        if spec.role is not None and spec.role in roles
    ]
    for label, role in callers:
        key = api_key_for(role, environ)
        name = key_env_for(role)
        if key is None or name in keys:
            continue
        if len(key) < MIN_KEY_LENGTH:
            problems.append(
                f"{name} ({label}) is {len(key)} characters, too short to redact safely (at least "
                f"{MIN_KEY_LENGTH}): set the provider's real key, or unset it for a keyless local judge"
            )
            continue
        keys[name] = str.__str__(key)
        for part in secrets_for(role, environ):
            if part != key:
                keys[f"{name} ({'a part of ' if len(part) < len(key) else ''}the credentials)"] = str.__str__(part)
    for name, value in keys.items():
        where = _find(plan, value.encode("utf-8"))
        if where is not None:
            problems.append(
                f"the value of {name} occurs in the bundle ({where}): a packet would carry the key to the "
                "judges; remove it from the bundle (and rotate the key)"
            )
    if problems:
        raise OraError("API key check failed before any judge call: " + "; ".join(problems))


def _find(plan: Plan, needle: bytes) -> str | None:
    """Where in the bundle's judged text the bytes occur (file, and line for captures.jsonl and entries.jsonl), or None."""
    root = plan.bundle.root
    for name in (
        "captures.jsonl",
        "entries.jsonl",
    ):  # a bundle whose candidates make every answer has no captures.jsonl
        try:
            with (root / name).open("rb") as stream:
                for number, line in enumerate(stream, start=1):
                    if needle in line:
                        return f"{name}:{number}"
        except FileNotFoundError:
            continue
    for relative in _judged_files(plan):
        try:
            data = (root / relative).read_bytes()
        except OSError:
            continue  # intake already made such a capture unscorable
        if needle in data or needle.decode("utf-8") in "\x00".join(_png_texts(data)):
            return relative  # a key deflated into a PNG zTXt chunk is found too
    return None


def _png_texts(data: bytes) -> list[str]:
    try:
        return png_texts(data)
    except PngTextError:
        return []  # intake excluded such a capture: its image was never to be sent


def _judged_files(plan: Plan) -> Iterator[str]:
    seen: set[str] = set()
    for planned in plan.captures:
        if planned.status != "judge":
            continue
        for relative in (planned.capture.spec_path, planned.capture.visual_artifact):
            if relative is not None and relative not in seen and not Path(relative).is_absolute():
                seen.add(relative)
                yield relative
