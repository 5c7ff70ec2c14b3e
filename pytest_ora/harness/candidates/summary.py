"""The candidates' line in the ora summary: answers made, their reported spend, the candidates that failed."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from ...core.candidates import CANDIDATE_FAILED
from ...core.record import CaptureRecord

__all__ = ["FAILED", "candidate_lines", "generated_lines"]

FAILED = CANDIDATE_FAILED
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


def generated_lines(records: Iterable[CaptureRecord], out: object) -> list[str]:
    """--ora-generate-only's summary: the answers made, the candidates that failed, where captures.jsonl is."""
    made = 0
    failed: list[str] = []
    for record in records:
        if "answered" in record:
            made += 1
        elif (record["reason"] or "").startswith(FAILED):
            failed.append(record["capture_id"])
    line = f"ora: generate only: {made} candidate answer{'s' if made != 1 else ''} (made and recorded, or replayed), nothing judged"
    if failed:
        shown = ", ".join(sorted(failed)[:_NAMED]) + (f" and {len(failed) - _NAMED} more" if len(failed) > _NAMED else "")
        line += f"; {len(failed)} candidate{'s' if len(failed) != 1 else ''} failed: {shown}"
    return [line, f"ora: captures written to {out}/captures.jsonl (the last report there is untouched)"]
