"""Rubric kinds, one package each, registered by name: a new kind never touches the runner.

A kind is a JudgedKind or a MechanicalKind (base.py); what only some kinds do is an optional
capability (capabilities.py), asked for here, with its default when the kind does not have it.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

from ...core.errors import Problem
from ...core.plan import Plan
from ...core.record import CaptureRecord
from ...core.rubric import Rubric
from ..scoring import Scores
from .base import CheckedReply, JudgedKind, Kind, MechanicalKind, PanelScores, ReplyProblem
from .capabilities import (
    ONE_ANSWER,
    BundleFile,
    Graded,
    ItemShape,
    LedgerExtra,
    Material,
    OwnReports,
    OwnRubric,
    RubricOptions,
    Terminal,
)

__all__ = [
    "KINDS",
    "CheckedReply",
    "JudgedKind",
    "Kind",
    "MechanicalKind",
    "PanelScores",
    "ReplyProblem",
    "bundle_problems",
    "calls_judges",
    "combined",
    "formula",
    "forwards_texts",
    "get_kind",
    "graded",
    "item_shape",
    "judged_kind",
    "kind_files",
    "ledger_extra",
    "material_of",
    "mechanical_kind",
    "panel_kind",
    "report_files",
    "rubric_options",
    "rubric_problem",
    "terminal_lines",
]

KINDS: dict[str, str] = {
    "scores": "pytest_ora.method.kinds.scores.kind",
    "checklist": "pytest_ora.method.kinds.checklist.kind",
    "compare": "pytest_ora.method.kinds.compare.kind",
    "behavior": "pytest_ora.method.kinds.behavior.kind",
    "coherence": "pytest_ora.method.kinds.coherence.kind",
    "scorecard": "pytest_ora.method.kinds.scorecard.kind",
    "python": "pytest_ora.method.kinds.python.kind",
    "advisory": "pytest_ora.method.kinds.advisory.kind",
}
"""Kind name -> the module defining KIND. A new kind adds a line."""


_CAPABLE: dict[tuple[type, type], bool] = {}
"""(kind class, protocol) -> whether the kind has it: a runtime protocol check is slow, and a kind's
capabilities are its class's (asked for per record)."""


def _has(kind: object, capability: type) -> bool:
    key = (type(kind), capability)
    found = _CAPABLE.get(key)
    if found is None:
        found = _CAPABLE[key] = isinstance(kind, capability)
    return found


def get_kind(name: str) -> JudgedKind[CheckedReply] | MechanicalKind:
    """The kind of that name; ValueError naming the known ones otherwise."""
    try:
        module = KINDS[name]
    except KeyError:
        raise ValueError(f"unknown rubric kind {name!r}; known: {', '.join(sorted(KINDS))}") from None
    kind: JudgedKind[CheckedReply] | MechanicalKind = importlib.import_module(module).KIND
    return kind


def mechanical_kind(name: str) -> MechanicalKind | None:
    """The kind as a mechanical one (graded in this process), or None when the judges score it."""
    kind = get_kind(name)
    return cast(MechanicalKind, kind) if _has(kind, MechanicalKind) else None


def calls_judges(name: str) -> bool:
    """Whether captures of this kind go to the judges."""
    return mechanical_kind(name) is None


def judged_kind(name: str) -> JudgedKind[CheckedReply]:
    """The kind as a judged one; TypeError for a kind that calls no judge."""
    kind = get_kind(name)
    if _has(kind, MechanicalKind):
        raise TypeError(f"rubric kind {name} calls no judge")
    # A kind's check gives the reply model its record_fields takes: the pair is one kind's, never mixed.
    return cast(JudgedKind[CheckedReply], kind)


def panel_kind(name: str) -> PanelScores:
    """The kind's panel combination; TypeError for a kind that grades (its records have no scores)."""
    kind = get_kind(name)
    if not _has(kind, PanelScores):
        raise TypeError(f"rubric kind {name} grades captures; it has no scores to combine")
    return cast(PanelScores, kind)


def graded(name: str) -> Graded | None:
    """The kind as one whose scored records carry `grades` and `failure` instead of scores, or None."""
    kind = get_kind(name)
    return cast(Graded, kind) if _has(kind, Graded) else None


def item_shape(name: str) -> ItemShape:
    """How captures become items and packets: the kind's own, else one item and one packet per capture."""
    kind = get_kind(name)
    return cast(ItemShape, kind) if _has(kind, ItemShape) else ONE_ANSWER


def forwards_texts(name: str) -> bool:
    """Whether a capture's prompt, context and answer may be written to an output (an advisory record's never are)."""
    return bool(getattr(get_kind(name), "forwards_texts", True))


def material_of(name: str) -> Material | None:
    """What the kind shows the judges beside the answer, or None (the answer alone)."""
    kind = get_kind(name)
    return cast(Material, kind) if _has(kind, Material) else None


def rubric_problem(rubric: Rubric) -> str | None:
    """Why the rubric cannot be used, by its kind's own check, or None."""
    kind = get_kind(rubric.kind)
    return cast(OwnRubric, kind).check_rubric(rubric) if _has(kind, OwnRubric) else None


def rubric_options(name: str, section: Mapping[str, Any]) -> object:
    """The kind's own section of a rubric file, parsed by the kind (None for a kind without one)."""
    kind = get_kind(name)
    return cast(RubricOptions, kind).options(section) if _has(kind, RubricOptions) else None


def bundle_problems(rubric: Rubric, root: Path, problems: list[Problem]) -> None:
    """Intake's check of a bundle file the kind reads itself (kind advisory: binding.yaml)."""
    kind = get_kind(rubric.kind)
    if _has(kind, BundleFile):
        cast(BundleFile, kind).check_bundle(root, problems)


def ledger_extra(rubric: Rubric) -> dict[str, Any]:
    """Ledger fields the kind adds after the fixed ones: name -> (type, default)."""
    kind = get_kind(rubric.kind)
    return cast(LedgerExtra, kind).ledger_extra(rubric) if _has(kind, LedgerExtra) else {}


def report_files(plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
    """The kind's own report files for a run, by name (records in plan order)."""
    rubric = plan.rubric
    kind = get_kind(rubric.kind)
    if _has(kind, MechanicalKind):
        return cast(MechanicalKind, kind).report_files(plan, records)
    return cast(OwnReports, kind).outputs(records, rubric) if _has(kind, OwnReports) else {}


def terminal_lines(records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
    """Lines the kind adds to the terminal after the summary table."""
    kind = get_kind(rubric.kind)
    return [
        *(cast(Terminal, kind).terminal(records, rubric) if _has(kind, Terminal) else []),
        *blind_lines(records, rubric),
    ]


def blind_lines(records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
    """A blind run's one line: the captures whose own text names their configuration or model, and what was done."""
    if not rubric.blind:
        return []
    judged = [record for record in records if "names_itself" in record]
    naming = [record for record in judged if record["names_itself"]]
    if rubric.blind_strict:
        withheld = sum(record.get("withheld", 0) for record in judged)
        touched = sum(1 for record in judged if record.get("withheld"))
        return [
            f"ora: blind (strict): {withheld} name{'s' if withheld != 1 else ''} replaced by [withheld] in "
            f"{touched} of {len(judged)} judged captures' texts (ledger field withheld)"
        ]
    if not naming:
        return []
    return [
        f"ora: blind: {len(naming)} of {len(judged)} judged captures name their own configuration or model in "
        "their text; judged as written (ledger field names_itself; `blind: strict` in the rubric withholds such names)"
    ]


def formula(rubric: Rubric) -> str:
    """The formula as printed in the header and the methodology note (the rubric's kind says it)."""
    return get_kind(rubric.kind).formula(rubric)


def combined(record: CaptureRecord, rubric: Rubric) -> Scores:
    """A scored capture's panel combination, recomputed exactly from its judges' replies."""
    return panel_kind(rubric.kind).panel(record, rubric)


def kind_files() -> tuple[str, ...]:
    """The report files every registered kind may add, in registry order."""
    return tuple(name for kind in KINDS for name in _files(get_kind(kind)))


def _files(kind: JudgedKind[CheckedReply] | MechanicalKind) -> tuple[str, ...]:
    if isinstance(kind, (MechanicalKind, OwnReports)):
        return kind.files
    return ()
