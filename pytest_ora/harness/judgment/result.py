"""The judgment's result (the judge skill's Step 6 object plus `evaluation`) and its Step 5 validation."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ...core.errors import OraError

__all__ = [
    "MIN_REPLY_CHARS",
    "JudgmentFailed",
    "JudgmentFailure",
    "JudgmentResult",
    "TokenUsage",
    "timestamp",
    "validate",
]

MIN_REPLY_CHARS = 200
"""Step 5: a judge's reply shorter than this is not a judgment."""
SCORE_RANGE = (0, 100)
"""Every score the modes report (weighted totals, checklist and behaviour totals, SWE-bench totals) is 0-100."""
RATINGS = ("excellent", "good", "poor")


class TokenUsage(BaseModel):
    """Tokens the judges reported, summed over every judge and every ask."""

    model_config = ConfigDict(frozen=True)

    input: int
    output: int


class JudgmentResult(BaseModel):
    """A validated judgment: Step 6's fields, and the mode's evaluation object per judge and for the panel."""

    model_config = ConfigDict(frozen=True)

    success: Literal[True] = True
    mode: str
    timestamp: str
    """When judging started, ISO 8601 UTC."""
    scores: dict[str, int | float]
    """Name (spec, team, instance_id) -> its weighted total computed by pytest-ora (0-100); empty for coherence."""
    winner: str | None = None
    """compare and phase modes: the name with the higher total, or "tie"."""
    rating: str | None = None
    """coherence: the panel's rating."""
    token_usage: TokenUsage
    response_text: str | None
    """The first judge's reply object as canonical JSON (sorted keys; each judge's is under evaluation.replies);
    None for swebench and ground-truth."""
    evaluation: dict[str, Any]


class JudgmentFailure(BaseModel):
    """A judgment that failed validation or could not be made: never an estimate."""

    model_config = ConfigDict(frozen=True)

    success: Literal[False] = False
    mode: str
    error: str


class JudgmentFailed(OraError):
    """Raised by pytest_ora.judge when the judgment fails; `failure` is the object the command line prints."""

    def __init__(self, failure: JudgmentFailure) -> None:
        super().__init__(failure.error)
        self.failure = failure


def timestamp() -> str:
    """Now, ISO 8601 UTC with a Z."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def validate(result: JudgmentResult, replies: Mapping[str, Sequence[str]], judged: bool) -> str | None:
    """Step 5: the first reason the result fails, or None. `replies`: each judge's reply texts."""
    try:
        dt.datetime.fromisoformat(result.timestamp.replace("Z", "+00:00"))
    except ValueError:
        return f"timestamp {result.timestamp!r} is not ISO 8601"
    for label, texts in replies.items():
        for text in texts:
            if len(text) < MIN_REPLY_CHARS:
                return f"the reply of judge {label} has {len(text)} characters; at least {MIN_REPLY_CHARS} are required"
    low, high = SCORE_RANGE
    for name, score in result.scores.items():
        if not low <= score <= high:
            return f"the score of {name} is {score}, outside {low}-{high}"
    if result.mode == "coherence" and result.rating not in RATINGS:
        return f"the rating {result.rating!r} is not one of {', '.join(RATINGS)}"
    if judged and (result.token_usage.input <= 0 or result.token_usage.output <= 0):
        return (
            f"token usage input={result.token_usage.input}, output={result.token_usage.output}: "
            "input and output tokens must be reported (> 0); not estimated"
        )
    return None
