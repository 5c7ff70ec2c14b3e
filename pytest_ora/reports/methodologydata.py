"""run.json's `methodology` block as typed data: everything methodology.md says, written from this model and read
back into it (so `verify` re-renders the note, a later run's baseline reads who judged and how).

Field order is the block's key order. A fact written only when it applies (candidate spend, prompt-cache use,
blind texts, judge samples, stated verdicts...) defaults to None and stays unwritten when it was not set, so a
block read and written again is the same bytes.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["JudgeFacts", "JudgeSamples", "MethodologyFacts", "RubricFacts"]

Listed = list[tuple[str, str | None]]
"""Captures named with their reason: [capture_id, reason] pairs."""
Counted = list[tuple[str, int]]
"""Names with a count: [name, count] pairs, in the order the note shows them."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class JudgeFacts(_Data):
    """One judge of the panel, as the note names it."""

    label: str
    model: str
    provider: str
    route: str
    """Where its calls went, without query string or user info."""
    origin: str
    """Its Optimum slot, or what it was substituted for."""


class RubricFacts(_Data):
    """The rubric the run scored with."""

    version: str
    title: str
    formula: str
    digest: str
    source: str
    """builtin:<id>, bundle:<path inside the bundle>, or a path as given."""
    kind: str
    rules: str
    """Verdict bands and votes in one line (empty: none)."""
    blind: bool
    history: list[str]


class JudgeSamples(_Data):
    """Judgments per judge and capture, and how they became one score."""

    samples: int
    reducer: str


class MethodologyFacts(_Data):
    """run.json's `methodology`: who judged, with what, the counts, what was left out and why."""

    bundle: str
    pytest_ora_version: str | None = None
    """The version that wrote the files (unwritten when unknown)."""
    panel: str
    snapshot: str | None
    frozen_at: str | None
    no_judge: str | None
    """How a mechanical kind scores without judges; None when judges were called."""
    judges: list[JudgeFacts]
    scoring_date: str
    record_mode: str
    rubric: RubricFacts
    scored_entry_count: int
    entries: Counted
    """Family -> entries of the scored set."""
    scored_set_captures: int
    selected: int
    records: int
    outcomes: Counted
    """Status -> records: scored, excluded, unscorable, error."""
    budget: int
    """Captures not started because the budget was reached."""
    spend: list[str]
    candidate_spend: list[str] | None = None
    spend_priced_only: bool | None = None
    """Every judge ran on this machine: the spend is a price, not money paid."""
    reasks: Counted
    tokens: Counted
    cached_tokens: Counted | None = None
    exclusions: Listed
    secret_bearing: int
    names_itself: int | None = None
    """Blind rubrics: judged captures whose text names their own configuration or model."""
    withheld: int | None = None
    """Strict blind rubrics: names replaced by [withheld]."""
    unscorable: Listed
    errors: Listed
    lanes_missing: list[tuple[str, list[str]]]
    """Entry key -> the lanes it was not captured on."""
    collision_losers: list[str]
    deviations: list[str]
    complete: bool
    stopped_by: str | None
    notices: list[str]
    recorded_under: str | None = None
    judge_samples: JudgeSamples | None = None
    verdict_disagreements: list[str] | None = None
