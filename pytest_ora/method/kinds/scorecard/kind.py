"""`kind: scorecard`: axes graded mechanically from each capture's evidence (seed 004, SPEC 11); no judge."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ....core.plan import Plan, PlannedCapture
from ....core.record import CaptureRecord, base_record
from ....core.rubric import Rubric
from ...scoring import Scores
from ..base import ReplyProblem
from ..mechanical import NoJudge
from .card import SCORECARD_JSON, capture_cells, scorecard_data
from .render import SCORECARD_RESULT, scorecard_markdown

__all__ = ["KIND", "ScorecardKind"]


class ScorecardKind(NoJudge):
    """PASS / PARTIAL / FAIL / N/A / UNKNOWN per axis; scorecard.json and SCORECARD-RESULT.md."""

    name = "scorecard"
    files = (SCORECARD_JSON, SCORECARD_RESULT)

    def check(self, payload: Any, rubric: Rubric, entry_key: str, configuration: str | None) -> Any:
        return ReplyProblem("(reply)", "a reply", f"is never asked for: rubric {rubric.version} calls no judge")

    def judge_overall(self, scores: Mapping[str, str], rubric: Rubric) -> Fraction:
        raise TypeError(f"rubric {rubric.version} has no judges and no overall")

    def combine(self, judges: Sequence[Mapping[str, str]], rubric: Rubric) -> Scores:
        raise TypeError(f"rubric {rubric.version} grades axes; it has no scores to combine")

    def formula(self, rubric: Rubric) -> str:
        axes = ", ".join(f"{axis.name} ({axis.how})" for axis in rubric.axes)
        return f"axes {axes} graded mechanically from evidence; baseline {rubric.baseline}; failure when an axis grades FAIL"

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        raise TypeError(f"rubric {rubric.version} grades axes; it has no scores to combine")

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {}

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return ()

    def score_capture(self, plan: Plan, planned: PlannedCapture, suite: Any) -> CaptureRecord:
        cells = capture_cells(plan, planned)
        record = base_record(planned, "scored")
        record["grades"] = {name: cell.text() for name, cell in cells.items()}
        record["failure"] = any(cell.grade == "FAIL" for cell in cells.values())
        return record

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        data = scorecard_data(plan, (record["capture_id"] for record in records))
        return {
            SCORECARD_JSON: json.dumps(data, indent=2, ensure_ascii=False) + "\n",
            SCORECARD_RESULT: scorecard_markdown(data),
        }


KIND = ScorecardKind()
