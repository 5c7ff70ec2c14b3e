"""The candidates' line in the ora summary: answers made, their reported spend, the candidates that failed."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from ...core.record import CaptureRecord

__all__ = ["FAILED", "candidate_lines"]

FAILED = "candidate failed: "
"""How a failed candidate's capture reason starts (harness/steps/answer.py)."""
_NAMED = 5
"""Failed captures named on the line; beyond, the ledger lists them."""


def candidate_lines(records: Iterable[CaptureRecord]) -> list[str]:
    """One line when the run made answers or a candidate failed; nothing otherwise."""
    answered = 0
    spend = Decimal(0)
    priced = 0
    failed: list[str] = []
    for record in records:
        candidate = record.get("candidate")
        if candidate is not None:
            answered += 1
            if candidate.get("candidate_cost_usd") is not None:
                spend += Decimal(str(candidate["candidate_cost_usd"]))
                priced += 1
        elif (record["reason"] or "").startswith(FAILED):
            failed.append(record["capture_id"])
    if not answered and not failed:
        return []
    cost = f"candidate spend ${spend:.4f} as reported for {priced} of them" if priced else "no candidate spend reported"
    line = f"ora: candidates answered {answered} judged capture{'s' if answered != 1 else ''} ({cost})"
    if failed:
        shown = ", ".join(sorted(failed)[:_NAMED]) + (f" and {len(failed) - _NAMED} more" if len(failed) > _NAMED else "")
        line += f"; {len(failed)} candidate{'s' if len(failed) != 1 else ''} failed (unscorable, never judged): {shown}"
    return [line]
