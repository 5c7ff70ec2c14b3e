"""The per-capture record: plain builtins, so it travels on a pytest report between xdist processes.

Scores travel as decimal strings and are recomputed exactly where they are aggregated.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterator, Sequence
from typing import Any, TypedDict, overload

from typing_extensions import NotRequired

from .plan import PlannedCapture
from .usage import Usage

__all__ = [
    "CaptureRecord", "JudgeRecord", "RecordStore", "Usage", "base_record", "in_plan_order", "record_from_text", "record_text",
]


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


def record_text(record: CaptureRecord) -> str:
    """A record as compact JSON: how it travels from a worker and how the controller keeps it."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def record_from_text(text: str) -> CaptureRecord:
    record: CaptureRecord = json.loads(text)
    return record


class RecordStore(Sequence[CaptureRecord]):
    """The controller's records, each kept as compressed JSON and read back when a report needs it.

    A record arrives as a dict of about 13 KB of Python objects (judges' notes and impressions);
    11,850 of them (a 10x bundle) would hold 150 MB until the session ends. Kept as compressed JSON,
    one is under 1 KB. Iteration is in `order` (capture ids in plan order, then any others by
    arrival) and decodes one record at a time, so a pass over the run never holds more than one.
    JSON keeps what a record is made of (strings, numbers, booleans, lists, dicts): a record read
    back equals the record kept, in one process or under xdist alike.
    """

    def __init__(self, order: Sequence[str] = ()) -> None:
        self._blobs: dict[str, bytes] = {}
        self._lines: dict[str, bytes] = {}
        self._position = {capture_id: index for index, capture_id in enumerate(order)}
        self._ids: list[str] | None = None

    def add(self, record: CaptureRecord, ledger_line: str | None = None, text: str | None = None) -> None:
        """Keep a record; with the ledger line it was journaled as, so the ledger is not built twice.

        `text`: the record's record_text() when the caller has it already (it came so from a worker).
        """
        capture_id = record["capture_id"]
        if text is None:
            text = record_text(record)
        self._blobs[capture_id] = zlib.compress(text.encode("utf-8"), 1)
        if ledger_line is None:
            self._lines.pop(capture_id, None)
        else:
            self._lines[capture_id] = zlib.compress(ledger_line.encode("utf-8"), 1)
        self._ids = None

    def ledger_lines(self) -> Iterator[str] | None:
        """Every record's ledger line as it was kept, in the records' order; None unless every record has one."""
        if len(self._lines) != len(self._blobs):
            return None
        return (zlib.decompress(self._lines[capture_id]).decode("utf-8") for capture_id in self._ordered())

    def _ordered(self) -> list[str]:
        if self._ids is None:
            last = len(self._position)
            arrival = {capture_id: index for index, capture_id in enumerate(self._blobs)}
            self._ids = sorted(self._blobs, key=lambda c: (self._position.get(c, last), arrival[c]))
        return self._ids

    def _decode(self, capture_id: str) -> CaptureRecord:
        record: CaptureRecord = json.loads(zlib.decompress(self._blobs[capture_id]))
        return record

    def __len__(self) -> int:
        return len(self._blobs)

    @overload
    def __getitem__(self, index: int) -> CaptureRecord: ...

    @overload
    def __getitem__(self, index: slice) -> list[CaptureRecord]: ...

    def __getitem__(self, index: int | slice) -> CaptureRecord | list[CaptureRecord]:
        if isinstance(index, slice):
            return [self._decode(capture_id) for capture_id in self._ordered()[index]]
        return self._decode(self._ordered()[index])

    def __iter__(self) -> Iterator[CaptureRecord]:
        for capture_id in self._ordered():
            yield self._decode(capture_id)


def in_plan_order(records: Sequence[CaptureRecord], order: Sequence[str]) -> Sequence[CaptureRecord]:
    """The records in plan order (capture ids not in the plan last, as they came): a store is kept so already."""
    if isinstance(records, RecordStore):
        return records
    position = {capture_id: index for index, capture_id in enumerate(order)}
    return sorted(records, key=lambda record: position.get(record["capture_id"], len(position)))
