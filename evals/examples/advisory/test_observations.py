"""The scorecard method's OpenCode advisory observation records, evaluated against profile-adherence-v1.

`pytest evals/examples/advisory` evaluates every record from its capture's evidence: no judge, no
network. A FAIL is reported, never failed: the result is advisory only.
"""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_capture(ora_capture: PlannedCapture, ora: Any) -> None:
    # A capture holding credential-shaped text is excluded before anything else (UNKNOWN, secret-bearing).
    ora.skip_unless_scorable(ora_capture)

    # The record is bound exactly to binding.yaml and checked against the fixed threshold.
    ora.record(ora.grade(ora_capture))
