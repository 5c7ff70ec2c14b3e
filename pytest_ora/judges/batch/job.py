"""Collect the calls a run needs, submit or resume one batch per judge, poll, write the answers."""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from ...core.plan import JudgeSlot, PlannedCapture
from ..budget import OUTPUT_TOKENS_ESTIMATE, Price, SpendLog, cost, estimate_input_tokens, price_for
from ..cassettes import CassetteLibrary, partial_path
from ..packet import build_packet, judge_prompt
from ..panel import Judging
from ..providers import api_key_for, client_for
from . import anthropic, openai
from .base import Outcome, Pending

__all__ = ["BATCH_RATE", "BATCH_STATE_DIR", "BatchSummary", "run_batches"]

BATCH_RATE = Decimal("0.5")
"""Both providers bill batch requests at half the list price."""
BATCH_STATE_DIR = ".ora-batches"
"""Under --ora-cassettes: one file per judge naming its batch in flight."""
_MODULES: dict[str, ModuleType] = {"anthropic": anthropic, "openai": openai}
_FIRST_POLL = 1.0
_MAX_POLL = 30.0


@dataclass
class BatchSummary:
    """What the batches of this run did, for the terminal and the methodology note."""

    batches: int = 0
    resumed: int = 0
    requests: int = 0
    answered: int = 0
    usd: Decimal = Decimal(0)
    left_out: int = 0
    """Captures not batched because their estimated cost did not fit --ora-budget-usd."""

    def sentence(self) -> str:
        resumed = f" ({self.resumed} resumed after an interruption, not submitted again)" if self.resumed else ""
        left = (f"; {self.left_out} captures left out of the batches: their estimated cost did not fit "
                "--ora-budget-usd" if self.left_out else "")
        return (
            f"judged through provider batch APIs: {self.requests} requests in {self.batches} batches{resumed}, "
            f"{self.answered} answered; ${self.usd:.4f} at the batch rate ({BATCH_RATE:.0%} of list prices){left}; "
            "unanswered requests and re-asks of invalid replies were made live"
        )


def run_batches(
    root: Path,
    judging: Judging,
    library: CassetteLibrary,
    captures: Sequence[PlannedCapture],
    prices: dict[str, Price],
    spend: SpendLog,
    say: Callable[[str], None],
    client: httpx.Client,
    sleep: Callable[[float], None] = time.sleep,
    budget: Decimal | None = None,
) -> BatchSummary:
    """Resume batches in flight, then batch what is still missing; answers land in partial cassettes.

    With a `budget` (--ora-budget-usd), only the captures whose estimated batch cost fits what is left
    of it are submitted, in plan order: a batch cannot be stopped once its requests are answered.
    """
    summary = BatchSummary()
    state_dir = library.directory / BATCH_STATE_DIR
    # Keyed by label: two judges of a panel may share a role (and a model) yet are asked apart.
    judges = {judge.label: judge for judge in judging.panel.judges if judge.spec.provider in _MODULES}
    for path in sorted(state_dir.glob("*.json")):
        state = json.loads(path.read_text(encoding="utf-8"))
        judge = judges.get(state["label"])
        if judge is None:
            continue  # the panel changed since: that batch's answers no longer match any request
        say(f"ora: batch {state['batch_id']} of {judge.label} ({judge.role}) found: resuming polling")
        summary.resumed += 1
        _finish(state, judge, judging, library, prices, spend, say, client, sleep, summary, path)
    needed = _needed(root, judging, library, captures, judges)
    if budget is not None:
        needed = _within(needed, judges, captures, prices, budget - spend.total(), summary, say)
    submitted = []
    for label, pending in needed.items():
        judge = judges[label]
        headers = _headers(judging, judge)
        batch_id = _MODULES[judge.spec.provider].submit(client, judge.spec.route, headers, pending)
        state = {"label": label, "role": judge.role, "batch_id": batch_id, "requests": [_row(p) for p in pending]}
        path = state_dir / f"{hashlib.sha256(label.encode()).hexdigest()[:16]}.json"
        state_dir.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps(state), encoding="utf-8")
        os.replace(temporary, path)
        say(f"ora: batch {batch_id} of {label} ({judge.role}) submitted: {len(pending)} requests")
        submitted.append((state, judge, path))
    # All submitted before any is awaited: the providers work on them side by side.
    for state, judge, path in submitted:
        _finish(state, judge, judging, library, prices, spend, say, client, sleep, summary, path)
    return summary


def _row(pending: Pending) -> dict[str, str]:
    return {"custom_id": pending.custom_id, "capture_id": pending.capture_id, "label": pending.label,
            "url": pending.url, "digest": hashlib.sha256(pending.body).hexdigest()}


def _headers(judging: Judging, judge: JudgeSlot) -> dict[str, str]:
    """The judge's auth and version headers, as a live call sends them."""
    request = client_for(judge.spec).reachability_request(judge.spec, api_key_for(judge.spec, judging.environ))
    return {k: v for k, v in request.headers.items() if k.lower() not in ("content-type", "content-length", "host")}


def _needed(
    root: Path, judging: Judging, library: CassetteLibrary, captures: Sequence[PlannedCapture],
    judges: dict[str, JudgeSlot],
) -> dict[str, list[Pending]]:
    """Per judge label, the first asks of captures with no cassette and no kept exchange for that judge."""
    needed: dict[str, list[Pending]] = {}
    for planned in captures:
        capture_id = planned.capture.capture_id
        path = library.path_for(capture_id)
        if planned.status != "judge" or path.is_file():
            continue
        kept = _kept_digests(partial_path(path))
        packet, image = build_packet(planned.capture, root, judging.rubric)
        prompt = judge_prompt(packet, image, judging.rubric)
        for judge in judges.values():
            request = client_for(judge.spec).build_request(judge.spec, prompt, api_key_for(judge.spec, judging.environ))
            if "sha256:" + hashlib.sha256(request.content).hexdigest() in kept:
                continue
            custom_id = "r" + hashlib.sha256(f"{capture_id}\0{judge.label}".encode()).hexdigest()[:40]
            needed.setdefault(judge.label, []).append(
                Pending(custom_id, capture_id, judge.label, str(request.url), request.content)
            )
    return needed


def _within(
    needed: dict[str, list[Pending]], judges: dict[str, JudgeSlot], captures: Sequence[PlannedCapture],
    prices: dict[str, Price], remaining: Decimal, summary: BatchSummary, say: Callable[[str], None],
) -> dict[str, list[Pending]]:
    """The requests of the captures, in plan order, whose estimated cost at the batch rate fits `remaining`.

    A request's input tokens are estimated from its size, as a dry run does (an image counts by its
    base64 bytes, more than a provider bills), its output tokens as OUTPUT_TOKENS_ESTIMATE.
    """
    estimates: dict[str, Decimal] = {}
    for label, pending in needed.items():
        price = price_for(judges[label].spec.model, prices)
        for request in pending:
            usd = Decimal(0) if price is None else cost(
                price, estimate_input_tokens(len(request.body), 0), OUTPUT_TOKENS_ESTIMATE
            ) * BATCH_RATE
            estimates[request.capture_id] = estimates.get(request.capture_id, Decimal(0)) + usd
    kept: set[str] = set()
    total = Decimal(0)
    for capture_id in (planned.capture.capture_id for planned in captures):
        if capture_id not in estimates:
            continue
        if total + estimates[capture_id] > remaining:
            break  # the next in plan order does not fit: none after it is batched either, as with live calls
        total += estimates[capture_id]
        kept.add(capture_id)
    summary.left_out = len(estimates) - len(kept)
    if summary.left_out:
        say(f"ora: --ora-budget-usd: {len(kept)} of {len(estimates)} captures batched, estimated ${total:.4f} at "
            f"the batch rate of ${max(remaining, Decimal(0)):.4f} left; the others are judged live only while "
            "the budget allows")
    within = {label: [r for r in pending if r.capture_id in kept] for label, pending in needed.items()}
    return {label: pending for label, pending in within.items() if pending}


def _kept_digests(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {str(i["request"]["body"]) for i in data.get("interactions", [])}


def _finish(
    state: dict[str, Any], judge: JudgeSlot, judging: Judging, library: CassetteLibrary, prices: dict[str, Price],
    spend: SpendLog, say: Callable[[str], None], client: httpx.Client, sleep: Callable[[float], None],
    summary: BatchSummary, path: Path,
) -> None:
    """Poll the batch to its end, write its answers into the captures' partial cassettes, forget it."""
    module = _MODULES[judge.spec.provider]
    headers = _headers(judging, judge)
    wait, last = _FIRST_POLL, ""
    while True:
        status = module.poll(client, judge.spec.route, headers, state["batch_id"])
        line = f"ora: batch {state['batch_id']} of {judge.label}: {status.state}, {status.done}/{status.total} done"
        if line != last:
            say(line)
            last = line
        if status.finished:
            break
        sleep(wait)
        wait = min(_MAX_POLL, wait * 1.5)
    outcomes: list[Outcome] = module.fetch(client, judge.spec.route, headers, status)
    rows = {row["custom_id"]: row for row in state["requests"]}
    by_capture: dict[str, list[tuple[dict[str, str], bytes]]] = {}
    for outcome in outcomes:
        row = rows.get(outcome.custom_id)
        if row is not None and outcome.body is not None:
            by_capture.setdefault(row["capture_id"], []).append((row, outcome.body))
    recorded_headers = {**headers, "content-type": "application/json"}
    usd = Decimal(0)
    for capture_id, answers in sorted(by_capture.items()):
        cassette = library.open(capture_id)
        if cassette.path.is_file():
            continue  # recorded meanwhile by a live run: that recording stands
        for row, body in answers:
            # A packet changed since submission no longer matches this digest: that call goes live.
            cassette.add(row["url"], row["digest"], recorded_headers, body, row["label"])
            usd += _cost(body, judge, prices)
            summary.answered += 1
        cassette.save_partial([judge.label])
    summary.batches += 1
    summary.requests += len(rows)
    summary.usd += usd
    if usd:
        spend.add(usd)
    path.unlink(missing_ok=True)


def _cost(body: bytes, judge: JudgeSlot, prices: dict[str, Price]) -> Decimal:
    price = price_for(judge.spec.model, prices)
    if price is None:
        return Decimal(0)
    usage = json.loads(body).get("usage") or {}
    tokens_in = int(usage.get("input_tokens", usage.get("prompt_tokens", 0)))
    tokens_out = int(usage.get("output_tokens", usage.get("completion_tokens", 0)))
    return cost(price, tokens_in, tokens_out) * BATCH_RATE
