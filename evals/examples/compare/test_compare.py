"""The judge skill's compare mode: one item per entry and configuration pair, judged in both orders.

`pytest evals/examples/compare` replays the recorded judge calls.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_pair(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)

    # Each judge sees the two answers as response-1 / response-2, once in each order; its winner
    # counts only when both orders agree, and the pair's winner is the panel majority, else a tie.
    record = ora.judge(ora_capture)

    # compare.jsonl, compare.json and compare.md hold wins, ties, losses and the Wilson interval.
    ora.record(record)
