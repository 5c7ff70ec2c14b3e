"""The judge skill's solo mode: one judge, four criteria x 2.5 on a 1-10 scale, reported 0-100.

`pytest evals/examples/solo` replays the recorded judge calls.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_response(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)

    # One judge scores correctness, depth, quality and persona against the behavioural anchors;
    # where the capture has a gold standard, the packet carries it as a calibration anchor.
    record = ora.judge(ora_capture)

    # overall = 2.5 * (correctness + depth + quality + persona): below 60 is a LOWSCORE.
    ora.record(record)
