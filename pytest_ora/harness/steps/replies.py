"""The checked-replies step: each judge's valid replies over the item's packets, merged as one record per judge."""

from __future__ import annotations

from ...core.record import JudgeRecord
from ...core.rubric import Rubric
from ...method.kinds import item_shape
from .judging import Replies

__all__ = ["checked_replies"]


def checked_replies(replies: Replies, rubric: Rubric) -> list[JudgeRecord]:
    """One record per judge (compare: both orders merged), in panel order."""
    return item_shape(rubric.kind).merge(replies.per_packet, rubric)
