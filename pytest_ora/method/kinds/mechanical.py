"""What a kind that calls no judge supplies instead of a reply schema: the capture's record, and its own report files."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ...core.plan import Plan, PlannedCapture
from ...core.record import CaptureRecord
from ...core.rubric import Rubric
from .base import OneAnswer


class NoJudge(OneAnswer):
    """Base of the kinds that call no judge: no reply schema, judged = False (one item per capture)."""

    judged = False

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        return {}  # no judge is asked anything

__all__ = ["Mechanical", "NoJudge", "calls_judges", "mechanical"]


class Mechanical(Protocol):
    """A kind graded in this process (scorecard, python): no judge call, no network, no cassette."""

    def score_capture(self, plan: Plan, planned: PlannedCapture, suite: Any) -> CaptureRecord:
        """The record of one capture; `suite` is the eval suite's directory (a Path)."""
        ...

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        """Files this kind adds to --ora-out, by name."""
        ...


def calls_judges(kind: object) -> bool:
    """Whether captures of this kind go to the judges (kinds say judged = False otherwise)."""
    return bool(getattr(kind, "judged", True))


def mechanical(kind: object) -> Mechanical | None:
    """The kind as a Mechanical one, when it calls no judge."""
    return None if calls_judges(kind) else kind  # type: ignore[return-value]
