"""How a configuration answers the bundle's prompts inside the run: a role, a Python function or a command."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, TypeAdapter, ValidationError, model_validator

from .errors import OraError

__all__ = [
    "CANDIDATE_FAILED",
    "DEFAULT_MAX_TOKENS",
    "CandidateParams",
    "CandidateSpec",
    "Entry",
    "TranscriptError",
    "Turn",
    "transcript_of",
    "transcript_text",
]

DEFAULT_MAX_TOKENS = 4096
"""A role candidate's output limit when its params set none."""

CANDIDATE_FAILED = "candidate failed: "
"""How a failed candidate's capture reason starts (harness/steps/answer.py)."""


class Turn(BaseModel):
    """One turn of a conversation: who spoke, and what."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["system", "user", "assistant", "tool"]
    content: StrictStr


class CandidateParams(BaseModel):
    """A role candidate's request parameters, sent under each provider's own names; only those given are sent."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1, le=1_000_000)
    """The answer's output limit (default 4096)."""


MAX_TURNS = 10_000
"""Most turns a transcript answer holds."""
_TURNS: TypeAdapter[list[Turn]] = TypeAdapter(list[Turn])


class TranscriptError(OraError, ValueError):
    """A transcript answer that is not a list of {role, content} turns: the turn and the field named."""


def transcript_of(value: Any) -> list[Turn]:
    """The turns of a transcript answer (a list of {role, content}); TranscriptError naming the first bad turn."""
    if not isinstance(value, list):
        raise TranscriptError(f"must be a text or a list of {{role, content}} turns, not {type(value).__name__}")
    if not value:
        raise TranscriptError("is an empty list of turns: a transcript holds at least one turn")
    if len(value) > MAX_TURNS:
        raise TranscriptError(f"holds {len(value)} turns, more than {MAX_TURNS}")
    try:
        return _TURNS.validate_python(value)
    except ValidationError as error:
        detail = error.errors(include_url=False)[0]
        where = [str(part) for part in detail["loc"]]
        turn = f"turn {int(where[0]) + 1}" if where and where[0].isdigit() else "a turn"
        field = f" field {where[1]!r}" if len(where) > 1 else ""
        message = {
            "missing": "is required but missing",
            "extra_forbidden": "is not a turn's field (role, content)",
        }.get(detail["type"], str(detail["msg"]).lower())
        raise TranscriptError(f"{turn}{field} {message}") from None


def transcript_text(turns: Sequence[Turn]) -> str:
    """A transcript as one text, turn by turn: what a text-only reader (a table, a compare response) shows."""
    return "\n\n".join(f"[turn {number}, {turn.role}]\n{turn.content}" for number, turn in enumerate(turns, start=1))


class CandidateSpec(BaseModel):
    """bundle.yaml `candidates.<configuration>`: exactly one of `role`, `python`, `command`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    role: str | None = Field(default=None, min_length=1)
    """A role of optimum.yaml, called through the judges' provider clients."""
    system: str | None = None
    """A role candidate's system prompt."""
    params: CandidateParams | None = None
    """A role candidate's request parameters: temperature, top_p, max_tokens."""
    python: str | None = Field(default=None, pattern=r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")
    """module:function, importable from the suite's directory."""
    command: list[Annotated[str, Field(min_length=1)]] | None = Field(default=None, min_length=1)
    """argv of a command: the request as JSON on stdin, the answer on stdout."""
    timeout_s: float = Field(default=600.0, gt=0, le=86_400)
    """A command's longest run, in seconds."""

    @model_validator(mode="after")
    def _one_way(self) -> CandidateSpec:
        ways = [name for name in ("role", "python", "command") if getattr(self, name) is not None]
        if len(ways) != 1:
            raise ValueError(
                "must name exactly one of role, python or command" + (f" (names {', '.join(ways)})" if ways else "")
            )
        if self.role is None and (self.system is not None or self.params is not None):
            raise ValueError("system and params are for role candidates only")
        return self

    @property
    def way(self) -> str:
        """role, python or command."""
        return "role" if self.role is not None else "python" if self.python is not None else "command"


class Entry(BaseModel):
    """One line of entries.jsonl: a prompt every candidate configuration answers."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entry_key: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*$")
    prompt: StrictStr
    context: str | None = None
    messages: list[Turn] | None = None
    reference: str | None = None
    metadata: dict[str, Any] | None = None
