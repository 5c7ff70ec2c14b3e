"""One test per capture of the bundle, scored as the Ora Performance framework prescribes.

`pytest evals/ -n 8` runs them all; `-k "lens and optimum"` or `-m "lens and optimum"` a subset;
`-k "mode:argument-audit/optimum"` one capture.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_capture(ora_capture: PlannedCapture, ora: Any) -> None:
    # Invalid captures, collision losers and captures without a technique specification are
    # skipped with their reason: never judged, never counted as quality failures.
    ora.skip_unless_scorable(ora_capture)

    # Judge A (Optimum Big 1) and Judge B (Optimum Big 2) score the same packet, specification
    # included, independently and concurrently. Each reply must match the reply schema; an
    # invalid one is asked again at most --ora-reasks times, then the test fails naming it.
    record = ora.judge(ora_capture)

    # The criteria are averaged across the judges, weighted, and capped: overall =
    # min(weighted, fidelity). Overall below 4.0 is reported as LOWSCORE, not as a failure.
    ora.record(record)
