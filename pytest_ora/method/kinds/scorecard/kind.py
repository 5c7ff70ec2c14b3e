"""`kind: scorecard`: axes graded mechanically from each capture's evidence (the scorecard method); no judge."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from ....core.plan import Plan, PlannedCapture
from ....core.record import CaptureRecord, base_record
from ....core.rubric import Rubric
from ..base import MechanicalKind
from ..capabilities import Graded, LedgerExtra, RubricOptions
from .axes import Card, card_of, parse_axes
from .card import SCORECARD_JSON, capture_cells, scorecard_data
from .render import RESULT, SCORECARD_RESULT

__all__ = ["KIND", "ScorecardKind"]


class ScorecardKind(MechanicalKind, Graded, LedgerExtra, RubricOptions):
    """PASS / PARTIAL / FAIL / N/A / UNKNOWN per axis; scorecard.json and SCORECARD-RESULT.md."""

    name = "scorecard"
    files = (SCORECARD_JSON, SCORECARD_RESULT, RESULT)

    def options(self, section: Mapping[str, Any]) -> Card:
        try:
            axes = parse_axes(section["axes"] or [])
        except ValueError as error:
            raise ValueError(f"field 'axes': {error}") from None
        return Card(axes, section["baseline"])

    def formula(self, rubric: Rubric) -> str:
        card = card_of(rubric)
        axes = ", ".join(f"{axis.name} ({axis.how})" for axis in card.axes)
        return (
            f"axes {axes} graded mechanically from evidence; baseline {card.baseline}; failure when an axis grades FAIL"
        )

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return ()

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        return {"grades": (dict[str, str] | None, None)}  # {axis: its cell}

    def grade_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return tuple(axis.name for axis in card_of(rubric).axes)

    def scored_by(self, rubric: Rubric) -> str:
        return f"None: rubric kind {rubric.kind} grades every capture mechanically from its evidence."

    def score_capture(self, plan: Plan, planned: PlannedCapture, suite: Any) -> CaptureRecord:
        cells = capture_cells(plan, planned)
        record = base_record(planned, "scored")
        record["grades"] = {name: cell.text() for name, cell in cells.items()}
        record["failure"] = any(cell.grade == "FAIL" for cell in cells.values())
        return record

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        data = scorecard_data(plan, (record["capture_id"] for record in records))
        # SCORECARD-RESULT.md is rendered from scorecard.json by the report registry (reports/renderers.py).
        return {SCORECARD_JSON: json.dumps(data, indent=2, ensure_ascii=False) + "\n"}


KIND = ScorecardKind()
