"""The scorecard method's scorecard: an A/B pair (off = baseline, on) graded mechanically on axes A-E.

`pytest evals/examples/scorecard` grades every capture from its evidence: no judge, no network.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_capture(ora_capture: PlannedCapture, ora: Any) -> None:
    # A capture holding credential-shaped text is excluded before anything else (UNKNOWN on every axis).
    ora.skip_unless_scorable(ora_capture)

    # Each axis reads the capture's evidence: rules, bands, the paired ratio against the same
    # task's `off` capture, the checklist. An axis grading FAIL is reported as LOWSCORE.
    ora.record(ora.grade(ora_capture))
