"""The judge skill's checklist v2 mode: two judges answer per listed issue; pytest-ora computes the rest.

`pytest evals/examples/checklist` replays the recorded judge calls.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_review(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)

    # Each judge says found / evidence for every listed id, lists novel findings and false
    # positives and scores four criteria; a reply that omits or invents an id is re-asked.
    record = ora.judge(ora_capture)

    # recall, precision, F2, detection, quality, persona and total are computed exactly per judge;
    # the capture's overall is the judges' mean total: below 60 is a LOWSCORE.
    ora.record(record)
