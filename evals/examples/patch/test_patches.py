"""The judge skill's deterministic mode: a patch in each answer compared with the capture's reference patch.

`pytest evals/examples/patch` scores every capture with patch_scorer.score (kind python): no judge, no network.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_patch(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)

    # The scorer returns {files, functions, lines} on 0-10; the rubric weights them like a judge's
    # scores, and an overall below 5 is a quality failure (LOWSCORE).
    ora.record(ora.grade(ora_capture))
