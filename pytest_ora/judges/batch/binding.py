"""Batch results bound to the requests actually sent, or refused (asked live instead), never scored by id alone.

A results file is matched to requests by `custom_id`. Nothing else in it names the request, and a
blind reply echoes no configuration, so a file whose ids were swapped, duplicated or forged
would score each capture with another's reply. What can be tied to the request is checked:

- the custom_id is one this run submitted in that batch (the local state file keeps the mapping);
- it appears exactly once: a repeated id is refused every time it appears, never first- or last-wins;
- the reply's echoed entry_key (and configuration, when the rubric is not blind) is the request's;
- across the requests of one entry answered in the batch, the reported input tokens keep the
  order of the requests' sizes: a reply swapped between two captures of one entry shows as a
  larger request billed for fewer tokens.

A refused result is not written to any cassette: its request is asked live, as an unanswered one is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from ...core.plan import JudgeSlot
from ...core.strictjson import strict_loads
from ..providers import client_for
from .base import Outcome

__all__ = ["SIZE_MARGIN", "bind_outcomes"]

SIZE_MARGIN = 1.1
"""A request counts as larger than another only when it is at least 10% larger: token counts follow
byte counts closely within one request format, but not exactly."""


def _echo(body: bytes, judge: JudgeSlot) -> tuple[Mapping[str, Any] | None, int]:
    """The reply object the body carries (None when it cannot be read: validation then re-asks) and its input tokens."""
    try:
        reply = client_for(judge.spec).parse_reply(httpx.Response(200, content=body))
    except (ValueError, TypeError, KeyError):
        return None, 0
    payload = reply.payload
    if payload is None and reply.text:
        try:
            payload = strict_loads(reply.text.strip())
        except ValueError:
            payload = None
    return (payload if isinstance(payload, Mapping) else None), reply.usage["input_tokens"]


def _split(capture_id: str) -> tuple[str, str]:
    entry_key, _, configuration = capture_id.rpartition("/")
    return entry_key, configuration


def bind_outcomes(
    outcomes: Sequence[Outcome],
    rows: Mapping[str, Mapping[str, Any]],
    judge: JudgeSlot,
    blind: bool,
    say: Callable[[str], None],
    batch_id: str,
) -> list[tuple[Mapping[str, Any], bytes]]:
    """(request row, response body) of each result bound to its request; every refusal said on the terminal."""
    counts = Counter(outcome.custom_id for outcome in outcomes)
    refused: list[str] = []
    bound: list[tuple[Mapping[str, Any], bytes, int]] = []
    for outcome in outcomes:
        row = rows.get(outcome.custom_id)
        if row is None:
            refused.append(f"{outcome.custom_id[:24]} is not a request of this batch")
            continue
        if counts[outcome.custom_id] > 1:
            refused.append(f"{row['capture_id']} is answered {counts[outcome.custom_id]} times")
            continue
        if outcome.body is None:
            continue  # unanswered: asked live
        echoed, tokens = _echo(outcome.body, judge)
        entry_key, configuration = _split(str(row["capture_id"]))
        if echoed is not None:
            if "entry_key" in echoed and echoed["entry_key"] != entry_key:
                refused.append(f"{row['capture_id']} got the reply of entry {str(echoed['entry_key'])[:60]!r}")
                continue
            if not blind and "configuration" in echoed and echoed["configuration"] != configuration:
                refused.append(
                    f"{row['capture_id']} got the reply of configuration {str(echoed['configuration'])[:60]!r}"
                )
                continue
        bound.append((row, outcome.body, tokens))
    swapped = _out_of_order(bound)
    for row, _, _ in bound:
        if id(row) in swapped:
            refused.append(
                f"{row['capture_id']}'s input tokens contradict its request's size (a reply swapped "
                "between two captures of one entry)"
            )
    if refused:
        say(
            f"ora: batch {batch_id} of {judge.label}: {len(refused)} results refused, their requests are asked live: "
            + "; ".join(sorted(set(refused))[:8])
        )
    return [(row, body) for row, body, _ in bound if id(row) not in swapped]


def _out_of_order(bound: Sequence[tuple[Mapping[str, Any], bytes, int]]) -> set[int]:
    """Rows (by id) whose tokens and request size disagree in order with another request of the same entry."""
    by_entry: dict[str, list[tuple[Mapping[str, Any], int]]] = {}
    for row, _, tokens in bound:
        if isinstance(row.get("bytes"), int) and tokens > 0:
            by_entry.setdefault(_split(str(row["capture_id"]))[0], []).append((row, tokens))
    out: set[int] = set()
    for group in by_entry.values():
        for row, tokens in group:
            for other, other_tokens in group:
                if row["bytes"] * SIZE_MARGIN <= other["bytes"] and tokens > other_tokens:
                    out.update((id(row), id(other)))
    return out
