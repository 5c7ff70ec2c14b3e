"""The scores step: the capture's failure verdict, recomputed exactly from its judges' replies."""

from __future__ import annotations

from ...core.record import CaptureRecord
from ...core.rubric import Rubric
from ...method.kinds import combined

__all__ = ["score"]


def score(record: CaptureRecord, rubric: Rubric) -> None:
    """Set the record's `failure` from the panel's combination."""
    record["failure"] = combined(record, rubric).failure
