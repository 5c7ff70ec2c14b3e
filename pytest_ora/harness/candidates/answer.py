"""A candidate's answer as made (or replayed), and why a candidate failed."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ...core.candidates import CandidateSpec
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
    model: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: str | None = None
    latency_ms: int = 0
    generated_at: str = ""
    failure: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CandidateAnswer:
        """As recorded; a value of the wrong type is read as absent."""

        def text(name: str) -> str | None:
            value = data.get(name)
            return value if isinstance(value, str) else None

        def count(name: str) -> int | None:
            value = data.get(name)
            return value if isinstance(value, int) and not isinstance(value, bool) else None

        return cls(answer=text("answer"), model=text("model"), tokens_in=count("tokens_in"), tokens_out=count("tokens_out"),
                   cost_usd=text("cost_usd"), latency_ms=count("latency_ms") or 0, generated_at=text("generated_at") or "",
                   failure=text("failure"))

    def applied(self, capture: Capture) -> Capture:
        """The capture holding this answer and its candidate fields (cost and minutes default to the candidate's)."""
        assert self.answer is not None
        cost = None if self.cost_usd is None else Decimal(self.cost_usd)
        minutes = Decimal(self.latency_ms) / Decimal(60000)
        return loaded(capture).model_copy(update={
            "answer": self.answer,
            "candidate_model": self.model,
            "candidate_latency_ms": self.latency_ms,
            "candidate_tokens_in": self.tokens_in,
            "candidate_tokens_out": self.tokens_out,
            "candidate_cost_usd": cost,
            "generated_at": self.generated_at,
            "cost_usd": capture.cost_usd if capture.cost_usd is not None else cost,
            "wall_clock_minutes": capture.wall_clock_minutes if capture.wall_clock_minutes is not None else minutes,
        })


def request_of(capture: Capture, attempt: int = 1) -> dict[str, Any]:
    """The dict a Python or command candidate is given."""
    return {
        "entry_key": capture.entry_key,
        "configuration": capture.configuration,
        "prompt": capture.prompt,
        "context": capture.context,
        "messages": None if capture.messages is None else [turn.model_dump() for turn in capture.messages],
        "metadata": capture.metadata,
        "attempt": attempt,
    }


def answer_from_output(output: Any, spec: CandidateSpec, default_model: str) -> CandidateAnswer:
    """A string, or {answer, usage: {input, output}, cost_usd, model}; CandidateFailure for anything else."""
    if isinstance(output, str):
        if not output.strip():
            raise CandidateFailure("the answer is empty")
        return CandidateAnswer(answer=output, model=default_model)
    if not isinstance(output, dict):
        raise CandidateFailure(f"returned {type(output).__name__}, not a string or an object with `answer`")
    if "transcript" in output and "answer" not in output:
        raise CandidateFailure("returned a transcript: transcripts as answers are not supported yet; return `answer`")
    answer = output.get("answer")
    if not isinstance(answer, str):
        raise CandidateFailure("returned an object without a string `answer`")
    if not answer.strip():
        raise CandidateFailure("the answer is empty")
    unknown = sorted(set(output) - {"answer", "usage", "cost_usd", "model"})
    if unknown:
        raise CandidateFailure(f"returned unknown field(s) {', '.join(unknown)}; allowed: answer, usage, cost_usd, model")
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
        answer=answer, model=model, tokens_in=usage.get("input"), tokens_out=usage.get("output"),
        cost_usd=None if cost is None else str(Decimal(repr(cost)) if isinstance(cost, float) else Decimal(cost)),
    )
