"""The pilot: every cell's response judged blind by a trio on six Likert 1-5 dimensions.

`pytest evals/examples/trio -n 2` replays the recorded judge calls; `-k cell-b` one cell.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_cell(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)

    # Three judges (labels A, B, C: the panel in bundle.yaml) score the same blind packet
    # concurrently: it holds the task, the materials (context) and the response, never the cell
    # or its model. Each reply must carry the six dimensions on 1-5 and its token usage.
    record = ora.judge(ora_capture)

    # Each judge's own overall is the mean of its six scores; the trio mean is the overall.
    # The fail vote (2 of 3 judges below 3.0) makes a LOWSCORE; strict_pass, critical and the
    # verdict band land in the ledger.
    ora.record(record)
