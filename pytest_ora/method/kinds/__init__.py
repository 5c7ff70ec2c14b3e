"""Rubric kinds, one module each, registered by name: a new kind never touches the runner."""

from __future__ import annotations

import importlib

from ...core.record import CaptureRecord
from ...core.rubric import Rubric
from ..scoring import Scores
from .base import Kind, ReplyProblem
from .mechanical import Mechanical, calls_judges, mechanical

__all__ = ["KINDS", "Kind", "Mechanical", "ReplyProblem", "calls_judges", "combined", "formula", "get_kind", "kind_files", "mechanical"]

KINDS: dict[str, str] = {
    "scores": "pytest_ora.method.kinds.scores.kind",
    "checklist": "pytest_ora.method.kinds.checklist.kind",
    "compare": "pytest_ora.method.kinds.compare.kind",
    "behavior": "pytest_ora.method.kinds.behavior.kind",
    "coherence": "pytest_ora.method.kinds.coherence.kind",
    "scorecard": "pytest_ora.method.kinds.scorecard.kind",
    "python": "pytest_ora.method.kinds.python.kind",
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


def formula(rubric: Rubric) -> str:
    """The formula as printed in the header and the methodology note (the rubric's kind says it)."""
    return get_kind(rubric.kind).formula(rubric)


def combined(record: CaptureRecord, rubric: Rubric) -> Scores:
    """A scored capture's panel combination, recomputed exactly from its judges' replies."""
    return get_kind(rubric.kind).panel(record, rubric)


def kind_files() -> tuple[str, ...]:
    """The report files every registered kind may add, in registry order."""
    return tuple(name for kind in KINDS for name in get_kind(kind).files)
