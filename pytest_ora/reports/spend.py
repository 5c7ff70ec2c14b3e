"""What a live run paid its judges: tokens billed times the price table, per judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..core.record import CaptureRecord
from ..judges.budget import Price, cost, price_for

__all__ = ["JudgeSpend", "judge_spend", "spend_lines"]


@dataclass(frozen=True)
class JudgeSpend:
    """One judge's live calls this run: tokens billed and their price (None when the model has no price)."""

    label: str
    model: str
    input_tokens: int
    output_tokens: int
    usd: Decimal | None
    cached_input_tokens: int = 0
    """Of the input, read from the provider's prompt cache (priced at its cache rate)."""
    cache_write_input_tokens: int = 0
    """Of the input, written to the prompt cache (Anthropic prices writes above the input rate)."""


def judge_spend(records: Sequence[CaptureRecord], prices: Mapping[str, Price]) -> list[JudgeSpend]:
    """Per judge, over the captures that called the judges live this run (replayed calls are free)."""
    totals: dict[str, list[int]] = {}
    usd_by: dict[str, Decimal | None] = {}
    models: dict[str, str] = {}
    for record in records:
        if not record["live_calls"]:
            continue
        for judge in record["judges"]:
            usage = judge["usage"]
            tokens = totals.setdefault(judge["label"], [0, 0, 0, 0])
            cached, written = usage.get("cached_input_tokens", 0), usage.get("cache_write_input_tokens", 0)
            tokens[0] += usage["input_tokens"]
            tokens[1] += usage["output_tokens"]
            tokens[2] += cached
            tokens[3] += written
            models[judge["label"]] = judge["model"]
            price = price_for(judge["model"], prices)
            # Priced call by call: a cache rate applies to each call's own cached share.
            so_far = usd_by.get(judge["label"], Decimal(0))
            usd_by[judge["label"]] = None if price is None or so_far is None else so_far + cost(
                price, usage["input_tokens"], usage["output_tokens"], cached, written)
    spends = []
    for label in sorted(totals):
        tokens_in, tokens_out, cached, written = totals[label]
        spends.append(JudgeSpend(label, models[label], tokens_in, tokens_out, usd_by[label], cached, written))
    return spends


def spend_lines(spends: Sequence[JudgeSpend], batched: Decimal | None = None) -> list[str]:
    """One line per judge, what provider batches cost, and a total: 'Judge A claude-opus-4-7: $1.23 (12,000 in / 3,000 out tokens)'."""
    lines = []
    for spend in spends:
        usd = "no price (add it with --ora-prices)" if spend.usd is None else f"${spend.usd:.2f}"
        cache = ""
        if spend.cached_input_tokens or spend.cache_write_input_tokens:
            cache = (f", {spend.cached_input_tokens:,} of them read from the prompt cache, "
                     f"{spend.cache_write_input_tokens:,} written to it")
        lines.append(
            f"{spend.label} {spend.model}: {usd} ({spend.input_tokens:,} input{cache} / {spend.output_tokens:,} output tokens)"
        )
    priced = [spend.usd for spend in spends if spend.usd is not None]
    if batched:
        lines.append(f"provider batches: ${batched:.2f} at the batch rate")
        priced.append(batched)
    if spends or batched:
        unpriced = " (unpriced judges not included)" if len(priced) < len(spends) + bool(batched) else ""
        lines.append(f"total: ${sum(priced, Decimal(0)):.2f}{unpriced}")
    return lines
