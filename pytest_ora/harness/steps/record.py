"""The record step: a judged capture's record, with its judges, its material and its live calls."""

from __future__ import annotations

from ...core.plan import PlannedCapture
from ...core.record import CaptureRecord, JudgeRecord, base_record, candidate_fields, note_blindness
from ...core.rubric import Rubric
from .judging import Replies
from .packets import ItemPackets

__all__ = ["count_live_calls", "judged_record"]


def judged_record(
    planned: PlannedCapture, item: ItemPackets, judges: list[JudgeRecord], rubric: Rubric
) -> CaptureRecord:
    """The scored record, before its scores and live calls."""
    record = base_record(planned, "scored")
    record["judges"] = judges
    note_blindness(record, planned, rubric)
    candidate_fields(record, planned.capture)
    material = item.packets[0][1].material
    if material is not None:
        record["material"] = material
    return record


def count_live_calls(record: CaptureRecord, replies: Replies) -> None:
    """The record's `live_calls`: every ask made, less those replay served."""
    record["live_calls"] = sum(judge["asks"] for judge in record["judges"]) - replies.replayed
