"""The answer step: a candidate configuration's answer, made (or replayed from its recording) before the packet."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from ...bundle.secrets import redact_shapes
from ...core.candidates import CandidateSpec
from ...core.errors import OraError
from ...core.fastload import loaded
from ...core.models import RoleSpec
from ...core.plan import JudgeSlot, PlannedCapture
from ...core.record import CaptureRecord, base_record, candidate_fields
from ...judges.cassettes import CassetteLibrary
from ..candidates.answer import CandidateAnswer, CandidateFailed, CandidateFailure, request_of
from ..candidates.command import call_command
from ..candidates.python import call_python
from ..candidates.recording import CANDIDATE_CALLS_DIR, CandidateRecording, request_digests
from ..candidates.role import RoleCall, call_role, candidate_slot
from ..candidates.summary import FAILED
from .spend import NotJudged

__all__ = [
    "AnswerGiven",
    "Answered",
    "Answering",
    "Generated",
    "NotGenerated",
    "RoleCandidates",
    "answering",
    "generated",
]


@dataclasses.dataclass(frozen=True)
class Answered:
    """A capture with its answer, and whether its candidate was called this run (not replayed)."""

    planned: PlannedCapture
    live: bool = False


@dataclasses.dataclass(frozen=True)
class RoleCandidates:
    """What role candidates need: the roles of optimum.yaml, and how this process calls them."""

    roles: Mapping[str, RoleSpec]
    call: RoleCall


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


def generated(planned: PlannedCapture, live: bool = False) -> NotJudged:
    """What a generate-only run does with a capture once its candidate (if any) answered: never judged."""
    capture = planned.capture
    if capture.generated_at is None:
        return NotGenerated(capture.capture_id, "not judged (--ora-generate-only): its answer is the bundle's own")
    record = base_record(planned, "unscorable", GENERATED)
    candidate_fields(record, capture)
    if live:
        record["candidate_live"] = True
    return Generated(capture.capture_id, record)


class Answering:
    """Makes the answers of the candidate configurations; every other capture passes as it is."""

    def __init__(
        self,
        candidates: Mapping[str, CandidateSpec],
        suite: Path,
        cassettes: Path,
        mode: str,
        secrets: Sequence[str],
        redact: Callable[[str], str],
        roles: RoleCandidates | None = None,
        places: int = 1,
    ) -> None:
        self.candidates = candidates
        self.suite = suite
        self.cassettes = cassettes
        self.mode = mode
        self.secrets = list(secrets)
        self.redact = redact
        self.roles = roles
        self.calls = CassetteLibrary(cassettes / CANDIDATE_CALLS_DIR, mode, secrets=self.secrets)
        """The role candidates' HTTP exchanges, one vcrpy cassette per capture, as a judge's are."""
        self._played: set[str] = set()
        """Captures whose role candidate's exchange its cassette served (nothing sent, nothing spent)."""
        self.places = max(1, places)
        """Python and command candidates answering at once, at most (a role's calls are held by the calls limit)."""
        self._local: asyncio.Semaphore | None = None
        self._threads: ThreadPoolExecutor | None = None
        """Where sync Python candidates run: a thread for each place (the default executor has a few per core)."""

    def slot(self, configuration: str) -> JudgeSlot | None:
        """The role candidate of a configuration as a caller of its provider; None for any other."""
        spec = self.candidates.get(configuration)
        if spec is None or spec.role is None or self.roles is None or spec.role not in self.roles.roles:
            return None
        return candidate_slot(configuration, spec.role, self.roles.roles[spec.role])

    async def answer(self, planned: PlannedCapture, client: httpx.AsyncClient | None = None) -> Answered:
        """The capture with its candidate's answer; CandidateFailed when the candidate made none."""
        capture = planned.capture
        spec = self.candidates.get(capture.configuration)
        if spec is None:
            return Answered(planned)
        given = loaded(capture)
        if given.answer or given.transcript is not None or given.generated_at is not None:
            raise AnswerGiven(
                f"{capture.capture_id} was given to be judged with an answer of its own, but {capture.configuration}'s "
                "answers are made by its candidate in the run; judging would replace the answer given. Judge it under a "
                "configuration without a candidate, or leave the answer to the candidate"
            )
        recording = CandidateRecording(self.cassettes, capture.capture_id)
        slot = self.slot(capture.configuration)
        digests = request_digests(capture, spec, None if slot is None else slot.spec)
        data = recording.read()
        made: CandidateAnswer | None = None
        replayed = False
        if data is not None and self.mode != "all":
            drifted = recording.drifted(data, digests)
            if not drifted:
                made, replayed = recording.replayed(data), True
            elif self.mode in ("none", "once"):
                raise recording.drift(drifted)
        elif data is None and self.mode == "none":
            raise recording.missing()
        if made is not None and slot is not None and made.failure is None:
            # A role's answer is its recorded exchange, replayed through the same client: never sent again.
            made = await self._make(spec, planned, client, slot, made)
        elif made is None:
            made = await self._make(spec, planned, client, slot)
        if not replayed:
            recording.write(digests, made, self.secrets)
        live = not replayed and capture.capture_id not in self._played
        self._played.discard(capture.capture_id)
        if made.failure is not None:
            raise CandidateFailed(capture.capture_id, f"{FAILED}{made.failure}", live=live)
        return Answered(dataclasses.replace(planned, capture=made.applied(capture)), live=live)

    async def _make(
        self,
        spec: CandidateSpec,
        planned: PlannedCapture,
        client: httpx.AsyncClient | None,
        slot: JudgeSlot | None,
        recorded: CandidateAnswer | None = None,
    ) -> CandidateAnswer:
        """Call the candidate once, timed; a failure is an answer too (recorded, so a replay says it again).

        `recorded`: a role's replay, whose time and latency are the recording's."""
        request = request_of(planned.capture)
        async with self._place(spec):  # timed once it has its place: the latency is the candidate's own
            generated_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")
            started = time.monotonic()
            try:
                if spec.python is not None:
                    made = await call_python(spec, request, self.suite, self._executor())
                elif spec.command is not None:
                    made = await call_command(spec, request, self.suite, self.redact)
                else:
                    made = await self._role(spec, planned, client, slot)
            except CandidateFailure as failure:
                latency = round((time.monotonic() - started) * 1000)
                return CandidateAnswer(
                    answer=None, failure=self.redact(str(failure)), latency_ms=latency, generated_at=generated_at
                )
            latency = round((time.monotonic() - started) * 1000)
        if recorded is not None:
            return dataclasses.replace(made, latency_ms=recorded.latency_ms, generated_at=recorded.generated_at)
        return dataclasses.replace(made, latency_ms=latency, generated_at=generated_at)

    def _place(self, spec: CandidateSpec) -> contextlib.AbstractAsyncContextManager[object]:
        """A Python or command candidate's place among `places` (made in the loop that answers); a role needs none."""
        if spec.python is None and spec.command is None:
            return contextlib.nullcontext()
        if self._local is None:
            self._local = asyncio.Semaphore(self.places)
        return self._local

    def _executor(self) -> ThreadPoolExecutor:
        if self._threads is None:
            self._threads = ThreadPoolExecutor(max_workers=self.places, thread_name_prefix="ora-candidate")
        return self._threads

    def close(self) -> None:
        """Let the threads of sync Python candidates go (any still answering finish on their own)."""
        if self._threads is not None:
            self._threads.shutdown(wait=False)
            self._threads = None

    async def _role(
        self, spec: CandidateSpec, planned: PlannedCapture, client: httpx.AsyncClient | None, slot: JudgeSlot | None
    ) -> CandidateAnswer:
        """The role's answer under the capture's candidate cassette, saved once the answer is made."""
        if slot is None or client is None or self.roles is None:
            raise CandidateFailure(f"role {spec.role} is not a role of optimum.yaml")
        capture_id = planned.capture.capture_id
        async with self.calls.hold(capture_id):
            cassette = self.calls.open(capture_id)
            try:
                made = await call_role(self.roles.call, slot, planned.capture, spec, client, cassette)
            finally:
                if cassette.play_count:  # served by the cassette: not a call of this run
                    self._played.add(capture_id)
            cassette.save()
        return made


def answering(
    candidates: Mapping[str, CandidateSpec] | None,
    suite: Path,
    cassettes: Path,
    mode: str,
    secrets: Sequence[object],
    roles: RoleCandidates | None = None,
    places: int = 1,
) -> Answering | None:
    """The answer step of a bundle with candidates; None without (every answer is the bundle's own).

    `places`: Python and command candidates answering at once, at most (the captures in flight)."""
    if not candidates:
        return None
    values = [str.__str__(secret) for secret in secrets if str(secret)]

    def redact(text: str) -> str:
        for value in values:
            text = text.replace(value, "[REDACTED]")
        return redact_shapes(text)

    return Answering(candidates, suite, cassettes, mode, values, redact, roles, places)
