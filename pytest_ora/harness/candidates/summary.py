"""The candidates' line in the ora summary: answers made, their reported spend, the candidates that failed."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from ...core.candidates import CANDIDATE_FAILED
from ...core.record import CaptureRecord

__all__ = ["FAILED", "call_line", "candidate_lines", "generated_lines"]

FAILED = CANDIDATE_FAILED
_NAMED = 5
"""Failed captures named on the line; beyond, the ledger lists them."""


def candidate_lines(records: Iterable[CaptureRecord]) -> list[str]:
    """The answers made and the candidates that failed, then the run's calls; nothing when no candidate answered or failed."""
    answered = 0
    spend = Decimal(0)
    priced = 0
    failed: list[str] = []
    records = list(records)
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
    # The answers' cost as recorded with them (this run's spend, answers made live, is on its own line).
    cost = (
        f"cost as recorded with the answers: ${spend:.4f} for {priced} of them"
        if priced
        else "no cost recorded with the answers"
    )
    line = f"ora: candidates answered {answered} judged capture{'s' if answered != 1 else ''} ({cost})"
    if failed:
        shown = ", ".join(sorted(failed)[:_NAMED]) + (
            f" and {len(failed) - _NAMED} more" if len(failed) > _NAMED else ""
        )
        line += f"; {len(failed)} candidate{'s' if len(failed) != 1 else ''} failed (unscorable, never judged): {shown}"
    return [line, call_line(records)]


def call_line(records: Iterable[CaptureRecord]) -> str:
    """The run's calls: every candidate call (its failures included) and every judge call, how many of each went live."""
    candidate_calls = candidate_live = judge_calls = judge_live = 0
    for record in records:
        if record.get("candidate") is not None or (record["reason"] or "").startswith(FAILED):
            candidate_calls += 1
            candidate_live += bool(record.get("candidate_live"))
        judge_calls += sum(judge["asks"] for judge in record["judges"])
        judge_live += record.get("live_calls", 0)
    return (
        f"ora: candidate calls {candidate_calls} ({candidate_live} live, {candidate_calls - candidate_live} replayed), "
        f"judge calls {judge_calls} ({judge_live} live, {judge_calls - judge_live} replayed)"
    )


def generated_lines(records: Iterable[CaptureRecord], out: object) -> list[str]:
    """--ora-generate-only's summary: the answers made, the candidates that failed, where captures.jsonl is."""
    made = 0
    failed: list[str] = []
    for record in records:
        if "answer" in record:
            made += 1
        elif (record["reason"] or "").startswith(FAILED):
            failed.append(record["capture_id"])
    line = f"ora: generate only: {made} candidate answer{'s' if made != 1 else ''} (made and recorded, or replayed), nothing judged"
    if failed:
        shown = ", ".join(sorted(failed)[:_NAMED]) + (
            f" and {len(failed) - _NAMED} more" if len(failed) > _NAMED else ""
        )
        line += f"; {len(failed)} candidate{'s' if len(failed) != 1 else ''} failed: {shown}"
    return [line, f"ora: captures written to {out}/captures.jsonl (the last report there is untouched)"]
