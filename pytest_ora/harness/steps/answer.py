"""The answer step: a candidate configuration's answer, made (or replayed from its recording) before the packet."""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from ...bundle.secrets import redact_shapes
from ...core.candidates import CandidateSpec
from ...core.errors import OraError
from ...core.plan import PlannedCapture
from ...core.record import CaptureRecord, base_record, candidate_fields
from ..candidates.answer import CandidateAnswer, CandidateFailed, CandidateFailure, request_of
from ..candidates.command import call_command
from ..candidates.python import call_python
from ..candidates.recording import CandidateRecording, request_digests
from ..candidates.summary import FAILED
from .spend import NotJudged

__all__ = ["Answering", "Generated", "NotGenerated", "answering", "generated"]

GENERATED = "answer made and recorded, not judged (--ora-generate-only)"


class AnswerGiven(OraError):
    """A capture of a candidate configuration, given to be judged with an answer of its own: refused, never replaced."""


class Generated(NotJudged):
    """--ora-generate-only: the candidate's answer is made and recorded; the capture is not judged."""

    shown = ""

    def __init__(self, capture_id: str, record: CaptureRecord) -> None:
        super().__init__(capture_id, GENERATED)
        self.record = record


class NotGenerated(NotJudged):
    """--ora-generate-only: a capture whose answer is the bundle's own; nothing to make."""

    shown = ""


def generated(planned: PlannedCapture) -> NotJudged:
    """What a generate-only run does with a capture once its candidate (if any) answered: never judged."""
    capture = planned.capture
    if capture.generated_at is None:
        return NotGenerated(capture.capture_id, "not judged (--ora-generate-only): its answer is the bundle's own")
    record = base_record(planned, "unscorable", GENERATED)
    candidate_fields(record, capture)
    return Generated(capture.capture_id, record)


class Answering:
    """Makes the answers of the candidate configurations; every other capture passes as it is."""

    def __init__(self, candidates: Mapping[str, CandidateSpec], suite: Path, cassettes: Path, mode: str,
                 secrets: Sequence[str], redact: Callable[[str], str]) -> None:
        self.candidates = candidates
        self.suite = suite
        self.cassettes = cassettes
        self.mode = mode
        self.secrets = list(secrets)
        self.redact = redact

    async def answer(self, planned: PlannedCapture) -> PlannedCapture:
        """The capture with its candidate's answer; CandidateFailed when the candidate made none."""
        capture = planned.capture
        spec = self.candidates.get(capture.configuration)
        if spec is None:
            return planned
        given = capture.loaded()
        if given.answer or given.transcript is not None or given.generated_at is not None:
            raise AnswerGiven(
                f"{capture.capture_id} was given to be judged with an answer of its own, but {capture.configuration}'s "
                "answers are made by its candidate in the run; judging would replace the answer given. Judge it under a "
                "configuration without a candidate, or leave the answer to the candidate")
        recording = CandidateRecording(self.cassettes, capture.capture_id)
        digests = request_digests(capture, spec)
        data = recording.read()
        made: CandidateAnswer | None = None
        if data is not None and self.mode != "all":
            drifted = recording.drifted(data, digests)
            if not drifted:
                made = recording.replayed(data)
            elif self.mode in ("none", "once"):
                raise recording.drift(drifted)
        elif data is None and self.mode == "none":
            raise recording.missing()
        if made is None:
            made = await self._make(spec, planned)
            recording.write(digests, made, self.secrets)
        if made.failure is not None:
            raise CandidateFailed(capture.capture_id, f"{FAILED}{made.failure}")
        return dataclasses.replace(planned, capture=made.applied(capture))

    async def _make(self, spec: CandidateSpec, planned: PlannedCapture) -> CandidateAnswer:
        """Call the candidate once, timed; a failure is an answer too (recorded, so a replay says it again)."""
        request = request_of(planned.capture)
        generated_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
        started = time.monotonic()
        try:
            if spec.python is not None:
                made = await call_python(spec, request, self.suite)
            elif spec.command is not None:
                made = await call_command(spec, request, self.suite, self.redact)
            else:
                raise CandidateFailure("role candidates are not answered by this version of pytest-ora yet")
        except CandidateFailure as failure:
            latency = round((time.monotonic() - started) * 1000)
            return CandidateAnswer(answer=None, failure=self.redact(str(failure)), latency_ms=latency, generated_at=generated_at)
        latency = round((time.monotonic() - started) * 1000)
        return dataclasses.replace(made, latency_ms=latency, generated_at=generated_at)


def answering(candidates: Mapping[str, CandidateSpec] | None, suite: Path, cassettes: Path, mode: str,
              secrets: Sequence[object]) -> Answering | None:
    """The answer step of a bundle with candidates; None without (every answer is the bundle's own)."""
    if not candidates:
        return None
    values = [str.__str__(secret) for secret in secrets if str(secret)]

    def redact(text: str) -> str:
        for value in values:
            text = text.replace(value, "[REDACTED]")
        return redact_shapes(text)

    return Answering(candidates, suite, cassettes, mode, values, redact)
