"""A candidate's answer as made (or replayed), and why a candidate failed."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ...core.candidates import CandidateSpec, TranscriptError, transcript_of, transcript_text
from ...core.errors import OraError
from ...core.fastload import loaded
from ...core.models import Capture
from ..steps.spend import NotJudged

__all__ = ["CandidateAnswer", "CandidateFailed", "CandidateFailure", "answer_from_output", "request_of"]


class CandidateFailed(NotJudged):
    """The candidate made no answer (an error, a timeout, invalid or empty output): never judged, counted."""

    shown = ""  # the reason says "candidate failed" itself

    def __init__(self, capture_id: str, reason: str, live: bool = False) -> None:
        super().__init__(capture_id, reason)
        self.live = live
        """The candidate was called this run (not the recorded failure replayed)."""


class CandidateFailure(OraError):
    """Raised by a candidate's call: the reason kept in the recording, credentials already redacted."""


@dataclass(frozen=True)
class CandidateAnswer:
    """What a candidate answered, with what it cost; `failure` when it made no answer."""

    answer: str | None
    """The answer's text (a transcript's turns as one text)."""
    model: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: str | None = None
    latency_ms: int = 0
    generated_at: str = ""
    failure: str | None = None
    transcript: list[dict[str, str]] | None = None
    """The answer as a list of {role, content} turns, when the candidate gave a transcript."""

    def to_json(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        if data["transcript"] is None:
            del data["transcript"]  # recordings without a transcript stay as they were
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CandidateAnswer:
        """As recorded; a value of the wrong type is read as absent."""

        def text(name: str) -> str | None:
            value = data.get(name)
            return value if isinstance(value, str) else None

        def count(name: str) -> int | None:
            value = data.get(name)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        transcript = None
        if data.get("transcript") is not None:
            try:
                transcript = [turn.model_dump() for turn in transcript_of(data["transcript"])]
            except TranscriptError:
                transcript = None
        answer = text("answer") if transcript is None else transcript_text(transcript_of(transcript))
        return cls(
            answer=answer,
            model=text("model"),
            tokens_in=count("tokens_in"),
            tokens_out=count("tokens_out"),
            cost_usd=text("cost_usd"),
            latency_ms=count("latency_ms") or 0,
            generated_at=text("generated_at") or "",
            failure=text("failure"),
            transcript=transcript,
        )

    def applied(self, capture: Capture) -> Capture:
        """The capture holding this answer and its candidate fields (cost and minutes default to the candidate's)."""
        assert self.answer is not None
        cost = None if self.cost_usd is None else Decimal(self.cost_usd)
        minutes = Decimal(self.latency_ms) / Decimal(60000)
        return loaded(capture).model_copy(
            update={
                "answer": self.answer,
                "transcript": None if self.transcript is None else transcript_of(self.transcript),
                "candidate_model": self.model,
                "candidate_latency_ms": self.latency_ms,
                "candidate_tokens_in": self.tokens_in,
                "candidate_tokens_out": self.tokens_out,
                "candidate_cost_usd": cost,
                "generated_at": self.generated_at,
                "cost_usd": capture.cost_usd if capture.cost_usd is not None else cost,
                "wall_clock_minutes": capture.wall_clock_minutes if capture.wall_clock_minutes is not None else minutes,
            }
        )


def request_of(capture: Capture, attempt: int = 1) -> dict[str, Any]:
    """The dict a Python or command candidate is given (with repeated answers, `repeat`: which one, 1..K)."""
    request = {
        "entry_key": capture.entry_key,
        "configuration": capture.configuration,
        "prompt": capture.prompt,
        "context": capture.context,
        "messages": None if capture.messages is None else [turn.model_dump() for turn in capture.messages],
        "metadata": capture.metadata,
        "attempt": attempt,
    }
    if capture.repeat is not None:
        request["repeat"] = capture.repeat
    return request


# C901: each shape a candidate may return (text, transcript, object with usage, cost and model) checked in turn; split,
# the first problem named could change.
def answer_from_output(output: Any, spec: CandidateSpec, default_model: str) -> CandidateAnswer:  # noqa: C901
    """A string, or {answer | transcript, usage: {input, output}, cost_usd, model}; CandidateFailure for anything else."""
    if isinstance(output, str):
        if not output.strip():
            raise CandidateFailure("the answer is empty")
        return CandidateAnswer(answer=output, model=default_model)
    if isinstance(output, list):
        output = {"transcript": output}  # a list of turns alone
    if isinstance(output, dict) and isinstance(output.get("answer"), list) and "transcript" not in output:
        output = {("transcript" if key == "answer" else key): value for key, value in output.items()}
    if not isinstance(output, dict):
        raise CandidateFailure(f"returned {type(output).__name__}, not a string or an object with `answer`")
    if "transcript" in output and "answer" in output:
        raise CandidateFailure("returned both `answer` and `transcript`: give one")
    unknown = sorted(set(output) - {"answer", "transcript", "usage", "cost_usd", "model"})
    if unknown:
        raise CandidateFailure(
            f"returned unknown field(s) {', '.join(unknown)}; allowed: answer or transcript, usage, cost_usd, model"
        )
    transcript = None
    if "transcript" in output:
        try:
            turns = transcript_of(output["transcript"])
        except TranscriptError as error:
            raise CandidateFailure(f"returned a `transcript` that {error}") from None
        if not any(turn.content.strip() for turn in turns):
            raise CandidateFailure("the transcript is empty: every turn is blank")
        transcript = [turn.model_dump() for turn in turns]
        answer = transcript_text(turns)
    else:
        given = output.get("answer")
        if not isinstance(given, str):
            raise CandidateFailure("returned an object without a string `answer` (or a `transcript` list of turns)")
        answer = given
        if not answer.strip():
            raise CandidateFailure("the answer is empty")
    usage = output.get("usage") or {}
    if not isinstance(usage, dict) or any(
        not (value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0))
        for value in (usage.get("input"), usage.get("output"))
    ):
        raise CandidateFailure("`usage` must be {input: tokens, output: tokens}, non-negative integers")
    cost = output.get("cost_usd")
    if cost is not None and (isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost < 0):
        raise CandidateFailure("`cost_usd` must be a non-negative number")
    model = output.get("model", default_model)
    if not isinstance(model, str):
        raise CandidateFailure("`model` must be a string")
    return CandidateAnswer(
        answer=answer,
        model=model,
        tokens_in=usage.get("input"),
        tokens_out=usage.get("output"),
        transcript=transcript,
        cost_usd=None if cost is None else str(Decimal(repr(cost)) if isinstance(cost, float) else Decimal(cost)),
    )
