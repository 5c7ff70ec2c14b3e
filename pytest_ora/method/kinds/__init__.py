"""Rubric kinds, one module each, registered by name: a new kind never touches the runner."""

from __future__ import annotations

import importlib

from .base import Kind, ReplyProblem
from .mechanical import Mechanical, calls_judges, mechanical

__all__ = ["KINDS", "Kind", "Mechanical", "ReplyProblem", "calls_judges", "get_kind", "mechanical"]

KINDS: dict[str, str] = {
    "scores": "pytest_ora.method.kinds.scores",
    "checklist": "pytest_ora.method.kinds.checklist",
    "compare": "pytest_ora.method.kinds.compare",
    "behavior": "pytest_ora.method.kinds.behavior",
    "coherence": "pytest_ora.method.kinds.coherence",
    "scorecard": "pytest_ora.method.kinds.scorecard",
    "python": "pytest_ora.method.kinds.python",
    "advisory": "pytest_ora.method.kinds.advisory",
}
"""Kind name -> the module defining KIND. A new kind adds a line."""


def get_kind(name: str) -> Kind:
    """The kind of that name; ValueError naming the known ones otherwise."""
    try:
        module = KINDS[name]
    except KeyError:
        raise ValueError(f"unknown rubric kind {name!r}; known: {', '.join(sorted(KINDS))}") from None
    kind: Kind = importlib.import_module(module).KIND
    return kind
