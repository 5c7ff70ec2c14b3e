"""Report wording that must not contradict itself: each sentence says one thing, once, about this run."""

from __future__ import annotations

from typing import Any

from pytest_ora.core.record import CaptureRecord
from pytest_ora.method.rubric import get_rubric
from pytest_ora.reports.notes import scored_share
from pytest_ora.reports.statistics import _agreement_lines
from pytest_ora.reports.tables import _rate_index, fit_table


def _row(criterion: str, alpha: float | None, note: str | None) -> dict[str, Any]:
    return {"criterion": criterion, "krippendorff_alpha": alpha, "exact": 0.5, "within_one": 0.9,
            "quadratic_kappa": None, "note": note}


def test_an_alpha_computed_in_closed_form_is_not_listed_as_not_computed() -> None:
    closed = "alpha in closed form: 600 distinct values over 600 captures exceed what krippendorff.alpha holds"
    lines = _agreement_lines({"criteria": [_row("accuracy", None, "alpha undefined: fewer than two captures or no variation")],
                              "overall": _row("overall", 0.928, closed)})
    text = "\n".join(lines)
    assert f"How computed:\n- overall: {closed}" in text
    assert "Not computed:\n- accuracy: alpha undefined" in text
    assert "- overall: alpha in closed form" not in text.partition("Not computed:")[2]


def test_a_configuration_with_nothing_judged_has_no_failure_rate_percent_sign() -> None:
    rubric = get_rubric("ora-1.0")
    rate = _rate_index(rubric)
    empty = ["base", "0", "0", "0", "0", "", *[""] * (rate - 6), "", "", ""]
    judged = ["solo", "3", "0", "0", "0", "7.1", *[""] * (rate - 6), "33", "", ""]
    assert fit_table([empty, judged], width=10, rubric=rubric) == [
        "base: overall -, judged 0, failure rate -", "solo: overall 7.1, judged 3, failure rate 33%"]


def _record(configuration: str, status: str) -> CaptureRecord:
    return CaptureRecord(capture_id=f"e:x/{configuration}", entry_key="e:x", family="e", technique="x",
                         configuration=configuration, status=status, reason=None, judges=[], cost_usd=None,
                         wall_clock_minutes=None, failure=None, live_calls=0)


def test_an_overall_from_part_of_a_configurations_captures_is_said_plainly() -> None:
    records = [*(_record("gpt4", "scored") for _ in range(7)), *(_record("gpt4", "error") for _ in range(143)),
               _record("qwen", "scored"), _record("qwen", "excluded")]
    assert scored_share(records) == [
        "**Overall from part of the captures: gpt4 from 7 of 150.** The others failed (the Errors column; ledger "
        "status error, with the reason); each mean covers only the captures scored."]
    assert scored_share(records[:7]) == []
