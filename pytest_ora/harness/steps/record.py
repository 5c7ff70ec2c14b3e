"""The record step: a judged capture's record, with its judges, its material and its live calls."""

from __future__ import annotations

from ...core.plan import PlannedCapture
from ...core.record import CaptureRecord, JudgeRecord, base_record, note_blindness
from ...core.rubric import Rubric
from .judging import Replies
from .packets import ItemPackets

__all__ = ["count_live_calls", "judged_record"]


def judged_record(planned: PlannedCapture, item: ItemPackets, judges: list[JudgeRecord], rubric: Rubric) -> CaptureRecord:
    """The scored record, before its scores and live calls."""
    record = base_record(planned, "scored")
    record["judges"] = judges
    note_blindness(record, planned, rubric)
    capture = planned.capture
    if capture.generated_at is not None:
        record["candidate"] = {
            "candidate_model": capture.candidate_model,
            "candidate_latency_ms": capture.candidate_latency_ms,
            "candidate_tokens_in": capture.candidate_tokens_in,
            "candidate_tokens_out": capture.candidate_tokens_out,
            "candidate_cost_usd": None if capture.candidate_cost_usd is None else str(capture.candidate_cost_usd),
            "generated_at": capture.generated_at,
        }
        record["answer"] = capture.answer
    material = item.packets[0][1].material
    if material is not None:
        record["material"] = material
    return record


def count_live_calls(record: CaptureRecord, replies: Replies) -> None:
    """The record's `live_calls`: every ask made, less those replay served."""
    record["live_calls"] = sum(judge["asks"] for judge in record["judges"]) - replies.replayed
