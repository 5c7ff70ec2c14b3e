"""The per-capture record: plain builtins, so it travels on a pytest report between xdist processes.

Scores travel as decimal strings and are recomputed exactly where they are aggregated.
"""

from __future__ import annotations

from typing import Any, TypedDict

from typing_extensions import NotRequired

from .bundle.intake import PlannedCapture

__all__ = ["CaptureRecord", "JudgeRecord", "Usage", "base_record"]


class Usage(TypedDict):
    """Tokens billed for one judge's calls on one capture, re-asks included."""

    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    reasoning_tokens: int


class JudgeRecord(TypedDict):
    """One judge's validated reply and what it took to get it."""

    label: str
    slot: str
    role: str
    provider: str
    model: str
    resolved_model: str | None
    judge_model: str
    """The judge_model the reply echoed."""
    scores: dict[str, str]
    notes: dict[str, str]
    impression: str
    asks: int
    attempts: int
    """HTTP attempts, transport retries included."""
    usage: Usage
    answers: NotRequired[dict[str, Any]]
    """The kind's per-item answers beside the scores (checklist: findings, novel, false positives)."""


class CaptureRecord(TypedDict):
    """Everything the controller needs about one capture to write the ledger and the tables."""

    capture_id: str
    entry_key: str
    family: str
    technique: str
    configuration: str
    status: str
    """scored, excluded, unscorable or error."""
    reason: str | None
    judges: list[JudgeRecord]
    cost_usd: str | None
    wall_clock_minutes: str | None
    failure: bool | None
    """Whether the capture is a quality failure (for display; the controller recomputes it)."""
    live_calls: int
    """Judge calls sent to the network in this run (0 when every call replayed from its cassette)."""
    material: NotRequired[dict[str, Any]]
    """What the packet carried for the kind (checklist: the listed items), for the panel combination."""
    grades: NotRequired[dict[str, str]]
    """kind scorecard: axis -> its cell (PASS (0 blockers), N/A (telemetry unavailable), ...)."""


def base_record(planned: PlannedCapture, status: str, reason: str | None = None) -> CaptureRecord:
    """A record for a capture before any judge result is attached."""
    capture = planned.capture
    return CaptureRecord(
        capture_id=capture.capture_id,
        entry_key=capture.entry_key,
        family=capture.family,
        technique=capture.technique,
        configuration=capture.configuration,
        status=status,
        reason=reason,
        judges=[],
        cost_usd=None if capture.cost_usd is None else str(capture.cost_usd),
        wall_clock_minutes=None if capture.wall_clock_minutes is None else str(capture.wall_clock_minutes),
        failure=None,
        live_calls=0,
    )
