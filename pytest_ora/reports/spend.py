"""What a live run paid: its judges (tokens billed times the price table, per judge) and, apart, its candidates."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from ..core.record import CaptureRecord
from ..core.usage import Usage, add_usage, reported_usage
from ..judges.budget import Price, cost, price_for

__all__ = [
    "CandidateSpend",
    "JudgeSpend",
    "candidate_spend",
    "candidate_spend_lines",
    "judge_spend",
    "priced_total",
    "spend_lines",
]


@dataclass(frozen=True)
class JudgeSpend:
    """One judge's live calls this run: tokens billed and their price (None when the model has no price)."""

    label: str
    model: str
    usage: Usage
    """The tokens of its live calls, added up (cached and written ones priced at their cache rates)."""
    usd: Decimal | None


def judge_spend(records: Sequence[CaptureRecord], prices: Mapping[str, Price]) -> list[JudgeSpend]:
    """Per judge, over the captures that called the judges live this run (replayed calls are free)."""
    totals: dict[str, Usage] = {}
    usd_by: dict[str, Decimal | None] = {}
    models: dict[str, str] = {}
    for record in records:
        if not record["live_calls"]:
            continue
        for judge in record["judges"]:
            usage, label = judge["usage"], judge["label"]
            totals[label] = add_usage(totals.get(label, reported_usage()), usage)
            models[label] = judge["model"]
            price = price_for(judge["model"], prices)
            # Priced call by call: a cache rate applies to each call's own cached share.
            so_far = usd_by.get(label, Decimal(0))
            usd_by[label] = (
                None
                if price is None or so_far is None
                else so_far
                + cost(
                    price,
                    usage["input_tokens"],
                    usage["output_tokens"],
                    usage["cached_input_tokens"],
                    usage.get("cache_write_input_tokens", 0),
                )
            )
    return [JudgeSpend(label, models[label], totals[label], usd_by[label]) for label in sorted(totals)]


def spend_lines(spends: Sequence[JudgeSpend], batched: Decimal | None = None) -> list[str]:
    """One line per judge, what provider batches cost, and a total: 'Judge A claude-opus-4-7: $1.23 (12,000 in / 3,000 out tokens)'."""
    lines = []
    for spend in spends:
        usd = "no price (add it with --ora-prices)" if spend.usd is None else f"${spend.usd:.2f}"
        cache = ""
        tokens = spend.usage
        cached, written = tokens["cached_input_tokens"], tokens.get("cache_write_input_tokens", 0)
        if cached or written:
            cache = f", {cached:,} of them read from the prompt cache, {written:,} written to it"
        lines.append(
            f"{spend.label} {spend.model}: {usd} ({tokens['input_tokens']:,} input{cache} / {tokens['output_tokens']:,} output tokens)"
        )
    priced = [spend.usd for spend in spends if spend.usd is not None]
    if batched:
        lines.append(f"provider batches: ${batched:.2f} at the batch rate")
        priced.append(batched)
    if spends or batched:
        unpriced = " (unpriced judges not included)" if len(priced) < len(spends) + bool(batched) else ""
        lines.append(f"total: ${sum(priced, Decimal(0)):.2f}{unpriced}")
    return lines


@dataclass(frozen=True)
class CandidateSpend:
    """One candidate configuration's answers made live this run: tokens and cost (None when any answer had no price)."""

    configuration: str
    model: str
    answers: int
    tokens_in: int
    tokens_out: int
    usd: Decimal | None


def candidate_spend(records: Sequence[CaptureRecord]) -> list[CandidateSpend]:
    """Per candidate configuration, over the answers made live this run (a replayed answer is free)."""
    by: dict[str, list[dict[str, object]]] = {}
    for record in records:
        candidate = record.get("candidate")
        if candidate is not None and record.get("candidate_live"):
            by.setdefault(record["configuration"], []).append(candidate)
    spends = []
    for configuration in sorted(by):
        answers = by[configuration]
        costs = [answer.get("candidate_cost_usd") for answer in answers]
        usd = None if any(c is None for c in costs) else sum((Decimal(str(c)) for c in costs), Decimal(0))
        models = sorted({str(answer.get("candidate_model")) for answer in answers})
        spends.append(
            CandidateSpend(
                configuration,
                ", ".join(models),
                len(answers),
                sum(int(str(answer.get("candidate_tokens_in") or 0)) for answer in answers),
                sum(int(str(answer.get("candidate_tokens_out") or 0)) for answer in answers),
                usd,
            )
        )
    return spends


def candidate_spend_lines(spends: Sequence[CandidateSpend], judges_usd: Decimal | None = None) -> list[str]:
    """One line per candidate configuration and a total, apart from the judges'; with the judges' total, both together."""
    lines = []
    for spend in spends:
        usd = (
            "no cost known (price the model with --ora-prices, or report cost_usd from the candidate)"
            if spend.usd is None
            else f"${spend.usd:.4f}"
        )
        answers = f"{spend.answers} answer{'s' if spend.answers != 1 else ''}"
        lines.append(
            f"candidate {spend.configuration} {spend.model}: {usd} ({answers}, "
            f"{spend.tokens_in:,} input / {spend.tokens_out:,} output tokens)"
        )
    if not spends:
        return lines
    priced = [spend.usd for spend in spends if spend.usd is not None]
    unpriced = " (unpriced candidates not included)" if len(priced) < len(spends) else ""
    total = sum(priced, Decimal(0))
    lines.append(f"candidates total: ${total:.4f}{unpriced}")
    if judges_usd is not None:
        lines.append(f"judges and candidates together: ${judges_usd + total:.4f} (one --ora-budget-usd caps both)")
    return lines


def priced_total(spends: Sequence[JudgeSpend], batched: Decimal | None = None) -> Decimal:
    """The judges' priced spend, provider batches included."""
    return sum((spend.usd for spend in spends if spend.usd is not None), batched or Decimal(0))
