"""The per-capture record: plain builtins, so it travels on a pytest report between xdist processes.

Scores travel as decimal strings and are recomputed exactly where they are aggregated.
"""

from __future__ import annotations

import dataclasses
import json
import zlib
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any, TypedDict, overload

from typing_extensions import NotRequired

from .blind import names_itself, withheld_count
from .candidates import transcript_of
from .fastload import loaded
from .models import Capture
from .plan import Plan, PlannedCapture
from .rubric import Rubric
from .usage import Usage

__all__ = [
    "CaptureRecord",
    "JudgeRecord",
    "RecordStore",
    "Usage",
    "answered_plan",
    "base_record",
    "candidate_fields",
    "in_plan_order",
    "note_blindness",
    "record_from_text",
    "record_text",
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
    samples: NotRequired[list[dict[str, str]]]
    """With judge samples (K > 1): each sample's scores, sample order; `scores` is their reduction."""
    rationale: NotRequired[str]
    """A judge_verdict rubric's: the judge's lowest dimension in 1-2 sentences."""
    overall_verdict: NotRequired[str]
    """A judge_verdict rubric's: the verdict band the judge states."""
    computed_verdict: NotRequired[str | None]
    """A judge_verdict rubric's: the band pytest-ora computes from that judge's own scores."""


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
    candidate: NotRequired[dict[str, Any]]
    """The candidate fields of a capture whose answer was made in the run (candidate_model, ..., generated_at)."""
    answer: NotRequired[str]
    """The answer its candidate made in the run (the bundle holds none), as the judges read it."""
    candidate_live: NotRequired[bool]
    """The candidate was called this run (its answer not replayed from a recording): its cost is this run's spend."""
    transcript: NotRequired[list[dict[str, str]]]
    """The answer its candidate made as a conversation ({role, content} turns); `answer` holds it as one text."""
    names_itself: NotRequired[list[str]]
    """Blind rubrics: the configuration names and model ids the capture's own text carries (judged as written)."""
    withheld: NotRequired[int]
    """`blind: strict`: names replaced by [withheld] in the capture's prompt, answer and context."""


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


def candidate_fields(record: CaptureRecord, capture: Capture) -> None:
    """A capture whose answer its candidate made: the candidate fields and the answer, on its record."""
    if capture.generated_at is None:
        return
    record["candidate"] = {
        "candidate_model": capture.candidate_model,
        "candidate_latency_ms": capture.candidate_latency_ms,
        "candidate_tokens_in": capture.candidate_tokens_in,
        "candidate_tokens_out": capture.candidate_tokens_out,
        "candidate_cost_usd": None if capture.candidate_cost_usd is None else str(capture.candidate_cost_usd),
        "generated_at": capture.generated_at,
    }
    record["answer"] = capture.answer
    if capture.transcript is not None:
        record["transcript"] = [turn.model_dump() for turn in capture.transcript]


def answered_plan(plan: Plan, records: Sequence[CaptureRecord]) -> Plan:
    """The plan whose candidate captures hold the answers their candidates made in the run (as the records say)."""
    made = {record["capture_id"]: record for record in records if "answer" in record}
    if not made:
        return plan
    captures = []
    for planned in plan.captures:
        record = made.get(planned.capture.capture_id)
        if record is not None and planned.pair is None:
            candidate, transcript = record.get("candidate") or {}, record.get("transcript")
            capture = loaded(planned.capture).model_copy(
                update={
                    **candidate,
                    "candidate_cost_usd": None
                    if candidate.get("candidate_cost_usd") is None
                    else Decimal(candidate["candidate_cost_usd"]),
                    "answer": record["answer"],
                    "transcript": None if transcript is None else transcript_of(transcript),
                    "cost_usd": None if record["cost_usd"] is None else Decimal(record["cost_usd"]),
                    "wall_clock_minutes": None
                    if record["wall_clock_minutes"] is None
                    else Decimal(record["wall_clock_minutes"]),
                }
            )
            planned = dataclasses.replace(planned, capture=capture)
        captures.append(planned)
    return dataclasses.replace(plan, captures=tuple(captures))


def note_blindness(record: CaptureRecord, planned: PlannedCapture, rubric: Rubric) -> None:
    """A blind rubric's record says which names the capture's own text carries (and, strict, how many were withheld)."""
    if not rubric.blind:
        return
    captures = (loaded(planned.capture), *(() if planned.partner is None else (loaded(planned.partner),)))
    record["names_itself"] = names_itself(*captures)
    if rubric.blind_strict:
        record["withheld"] = withheld_count(*captures)


def record_text(record: CaptureRecord) -> str:
    """A record as compact JSON: how it travels from a worker and how the controller keeps it."""
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False)


def record_from_text(text: str) -> CaptureRecord:
    record: CaptureRecord = json.loads(text)
    return record


class RecordStore(Sequence[CaptureRecord]):
    """The controller's records in plan order; compressed JSON once the run is large.

    A record arrives as a dict of Python objects (judges' notes and impressions) about four times
    the size of its JSON text (docs/performance.md has the sample's figures). While the records' texts
    total at most `DECODED_BYTES` they are kept as they came, so the
    session end's dozen passes over them decode nothing. Past that, every record is
    kept as compressed JSON (one is under 1 KB) and each pass decodes one record at a time, so it
    never holds more than one. Iteration is in `order` (capture ids in plan order, then any others
    by arrival). JSON keeps what a record is made of (strings, numbers, booleans, lists, dicts): a
    record read back equals the record kept, in one process or under xdist alike. Readers do not
    change what they read.
    """

    DECODED_BYTES = 8 << 20

    def __init__(self, order: Sequence[str] = ()) -> None:
        self._kept: dict[str, CaptureRecord | bytes] = {}
        self._lines: dict[str, str | bytes] = {}
        self._position = {capture_id: index for index, capture_id in enumerate(order)}
        self._ids: list[str] | None = None
        self._text_bytes: int | None = 0
        """The kept records' text size while they are kept decoded; None once compressed."""

    def add(self, record: CaptureRecord, ledger_line: str | None = None, text: str | None = None) -> None:
        """Keep a record; with the ledger line it was journaled as, so the ledger is not built twice.

        `text`: the record's record_text() when the caller has it already (it came so from a worker).
        """
        capture_id = record["capture_id"]
        if text is None:
            text = record_text(record)
        if self._text_bytes is not None:
            self._text_bytes += len(text)
            if self._text_bytes > self.DECODED_BYTES:
                self._compress_all()
        self._kept[capture_id] = record if self._text_bytes is not None else _compressed(text)
        if ledger_line is None:
            self._lines.pop(capture_id, None)
        else:
            self._lines[capture_id] = ledger_line if self._text_bytes is not None else _compressed(ledger_line)
        self._ids = None

    def _compress_all(self) -> None:
        self._text_bytes = None
        for capture_id, kept in self._kept.items():
            if not isinstance(kept, bytes):
                self._kept[capture_id] = _compressed(record_text(kept))
        for capture_id, line in self._lines.items():
            if not isinstance(line, bytes):
                self._lines[capture_id] = _compressed(line)

    def ledger_lines(self) -> Iterator[str] | None:
        """Every record's ledger line as it was kept, in the records' order; None unless every record has one."""
        if len(self._lines) != len(self._kept):
            return None
        return (_text(self._lines[capture_id]) for capture_id in self._ordered())

    def _ordered(self) -> list[str]:
        if self._ids is None:
            last = len(self._position)
            arrival = {capture_id: index for index, capture_id in enumerate(self._kept)}
            self._ids = sorted(self._kept, key=lambda c: (self._position.get(c, last), arrival[c]))
        return self._ids

    def _decode(self, capture_id: str) -> CaptureRecord:
        kept = self._kept[capture_id]
        if not isinstance(kept, bytes):
            return kept
        record: CaptureRecord = json.loads(zlib.decompress(kept))
        return record

    def __len__(self) -> int:
        return len(self._kept)

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


def _compressed(text: str) -> bytes:
    return zlib.compress(text.encode("utf-8"), 1)


def _text(kept: str | bytes) -> str:
    return kept if isinstance(kept, str) else zlib.decompress(kept).decode("utf-8")


def in_plan_order(records: Sequence[CaptureRecord], order: Sequence[str]) -> Sequence[CaptureRecord]:
    """The records in plan order (capture ids not in the plan last, as they came): a store is kept so already."""
    if isinstance(records, RecordStore):
        return records
    position = {capture_id: index for index, capture_id in enumerate(order)}
    return sorted(records, key=lambda record: position.get(record["capture_id"], len(position)))
