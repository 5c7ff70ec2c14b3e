"""The trio pilot end to end: each cell's candidate answers the task, then a trio judges the answer blind.

`pytest evals/examples/pilot -n 2` replays the recorded answers and judge calls; `-k cell-b` one cell.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_cell(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)

    # The cell's candidate (bundle.yaml `candidates:`) has answered before the test runs: a role of
    # optimum.yaml (cells A and C), a Python harness (B) or a command (D). Its answer, recorded under
    # cassettes/, is what the three judges score; a candidate that failed is skipped, never judged.
    record = ora.judge(ora_capture)
    ora.record(record)
