"""`init --candidates NAME=PROVIDER:MODEL | NAME=python:module:function ...`: the configurations that answer the prompts."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import ValidationError

from ..core.candidates import CandidateSpec
from ..core.models import CONFIGURATION_PATTERN
from .importrows import InitError

__all__ = ["InitCandidate", "candidates_yaml", "parse_candidate"]

_PROVIDERS = ("anthropic", "openai", "google", "openai-compatible")


@dataclass(frozen=True)
class InitCandidate:
    """One candidate configuration: a Python function, or a model called as a role of optimum.yaml."""

    name: str
    python: str | None = None
    """module:function, importable from the suite's directory."""
    role: str | None = None
    """The optimum.yaml role it answers through (its provider and model in `judge_text`)."""
    judge_text: str | None = None
    """ROLE=PROVIDER:MODEL[@ROUTE], as --judges takes a role."""


def parse_candidate(text: str, taken_roles: set[str]) -> InitCandidate:
    """NAME=python:module:function or NAME=PROVIDER:MODEL[@ROUTE]; InitError naming the argument otherwise."""
    name, sep, rest = text.partition("=")
    usage = (
        f"--candidates {text!r}: takes NAME=PROVIDER:MODEL or NAME=python:module:function "
        "(e.g. opus-solo=anthropic:claude-opus-4-7, harness=python:agents:answer)"
    )
    if not sep or not rest:
        raise InitError([usage])
    if not re.fullmatch(CONFIGURATION_PATTERN, name):
        raise InitError(
            [
                f"--candidates {text!r}: {name!r} is not a configuration name (letters, digits, '_', '.', '+', "
                "'-', starting with a letter or digit)"
            ]
        )
    way, _, target = rest.partition(":")
    if way == "python":
        try:
            CandidateSpec(python=target)
        except ValidationError:
            raise InitError(
                [f"--candidates {text!r}: python:{target} is not module:function (e.g. python:agents:answer)"]
            ) from None
        return InitCandidate(name, python=target)
    if way not in _PROVIDERS:
        raise InitError([usage + f"; unknown provider {way!r} (known: {', '.join(_PROVIDERS)}, or python)"])
    role = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "candidate"
    if role in taken_roles:
        raise InitError(
            [f"--candidates {text!r}: role {role!r} is a judge's role already; name the candidate otherwise"]
        )
    return InitCandidate(name, role=role, judge_text=f"{role}={rest}")


def candidates_yaml(candidates: list[InitCandidate]) -> str:
    """bundle.yaml's `candidates:` section."""
    lines = [
        "# Configurations whose answers are made inside the run, to entries.jsonl's prompts; each answer is",
        "# recorded under the cassettes directory and replayed offline (--ora-record none).",
        "candidates:",
    ]
    for candidate in candidates:
        way = {"python": candidate.python} if candidate.python is not None else {"role": candidate.role}
        lines.append(f"  {json.dumps(candidate.name)}: {json.dumps(way)}")
    return "\n".join(lines) + "\n"
