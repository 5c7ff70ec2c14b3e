"""Collect the calls a run needs, submit or resume one batch per judge, poll, write the answers."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import httpx

from ...core.plan import JudgeSlot, PlannedCapture
from ..budget import OUTPUT_TOKENS_ESTIMATE, Price, SpendLog, cost, estimate_input_tokens, price_for
from ..cassettes import CassetteLibrary, partial_path
from ..packet import build_packet, judge_prompt
from ..panel import Judging
from ..providers import api_key_for, client_for
from . import anthropic, openai
from .base import BatchResultsError, Outcome, Pending
from .binding import bind_outcomes
from .http import BatchStopped, Caller

__all__ = [
    "BATCH_RATE",
    "BATCH_STATE_DIR",
    "MAX_WAIT",
    "BatchStopped",
    "BatchSummary",
    "Splitter",
    "run_batches",
    "split",
]

BATCH_RATE = Decimal("0.5")
"""Both providers bill batch requests at half the list price."""
BATCH_STATE_DIR = ".ora-batches"
"""Under --ora-cassettes: one file per judge naming its batch in flight."""
_MODULES: dict[str, ModuleType] = {"anthropic": anthropic, "openai": openai}
_FIRST_POLL = 1.0
_MAX_POLL = 30.0
_SLEEP: Callable[[float], None] = time.sleep
_CLOCK: Callable[[], float] = time.monotonic
"""The waits and the clock of polling; tests put a fake clock here (no real sleeps)."""
MAX_WAIT = 25 * 3600.0
"""Longest a run polls one batch: both providers end (or expire) a batch within 24 hours; one still
in progress an hour after that is stuck, and the run stops resumably instead of polling forever."""


class Splitter:
    """Where one judge's requests fall into batches, decided one request at a time as it is written.

    A batch holds at most the provider's documented number of requests (and `batch_max`) and its
    bytes stay a little below the provider's byte limit (room for the envelope, {"requests":[...]}).
    """

    def __init__(self, provider: str, batch_max: int | None = None) -> None:
        module = _MODULES[provider]
        self.most: int = min(module.MAX_REQUESTS, batch_max) if batch_max else module.MAX_REQUESTS
        self.room: int = module.MAX_BYTES - 1024
        self.count = 0
        self.size = 0

    def starts_batch(self, size: int) -> bool:
        """Whether the next request, of `size` bytes with its separator, must begin a new batch; it is counted in."""
        new = self.count > 0 and (self.count >= self.most or self.size + size > self.room)
        if new:
            self.count, self.size = 0, 0
        self.count += 1
        self.size += size
        return new


def split(pending: list[Pending], provider: str, route: str, batch_max: int | None = None) -> list[list[Pending]]:
    """The requests in batches within the provider's documented limits (requests and bytes) and `batch_max`."""
    module = _MODULES[provider]
    splitter = Splitter(provider, batch_max)
    batches: list[list[Pending]] = []
    for request in pending:
        if splitter.starts_batch(len(module.item(route, request)) + len(module.SEPARATOR)) or not batches:
            batches.append([])
        batches[-1].append(request)
    return batches


@dataclass
class _Part:
    """One batch as written to its upload file: the file, and each request's row (what binding its results needs)."""

    path: Path
    rows: list[dict[str, Any]]


class _Uploads:
    """One judge's requests written into upload files as they are built, one file a batch; no body is kept.

    A request's entry goes into the file of the batch it falls in (Splitter), between the provider's
    HEAD and TAIL: the file is byte for byte the body (Anthropic) or the input file (OpenAI) the
    batch is created from. Only its row stays in memory: ids, the body's digest and size.
    """

    def __init__(self, judge: JudgeSlot, batch_max: int | None, prefix: Path) -> None:
        self._module = _MODULES[judge.spec.provider]
        self._route = judge.spec.route
        self._splitter = Splitter(judge.spec.provider, batch_max)
        self._prefix = prefix
        self._handle: IO[bytes] | None = None
        self._urls: dict[str, str] = {}
        self.parts: list[_Part] = []

    def add(self, pending: Pending) -> None:
        item = self._module.item(self._route, pending)
        if self._splitter.starts_batch(len(item) + len(self._module.SEPARATOR)) or self._handle is None:
            self.close()
            path = self._prefix.with_name(f"{self._prefix.name}-{len(self.parts)}.body")
            self._handle = path.open("wb")
            self._handle.write(self._module.HEAD)
            self.parts.append(_Part(path, []))
        else:
            self._handle.write(self._module.SEPARATOR)
        self._handle.write(item)
        # One string for a judge's url, however many requests name it.
        self.parts[-1].rows.append(_row(pending, self._urls.setdefault(pending.url, pending.url)))

    def close(self) -> None:
        """End the batch being written (once all are added)."""
        if self._handle is not None:
            self._handle.write(self._module.TAIL)
            self._handle.close()
            self._handle = None


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
        left = (
            f"; {self.left_out} captures left out of the batches: their estimated cost did not fit --ora-budget-usd"
            if self.left_out
            else ""
        )
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
    sleep: Callable[[float], None] | None = None,
    budget: Decimal | None = None,
    batch_max: int | None = None,
    clock: Callable[[], float] | None = None,
) -> BatchSummary:
    """Resume batches in flight, then batch what is still missing; answers land in partial cassettes.

    With a `budget` (--ora-budget-usd), only the captures whose estimated batch cost fits what is left
    of it are submitted, in plan order: a batch cannot be stopped once its requests are answered.
    Each judge's requests are split into batches at the provider's limits and `batch_max`; each request
    is built when it is written into its batch's upload file, and only its row (ids, the body's digest
    and size: what binding the results needs) stays in memory. A batch
    call failing past the live calls' retry bound, or a batch not ended within MAX_WAIT, raises
    BatchStopped; the batch ids stay kept, so the next run resumes them.
    """
    caller = Caller(client, judging.policy, sleep or _SLEEP, clock or _CLOCK, say, secrets=judging.secrets())
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
        _finish(state, judge, judging, library, prices, spend, say, caller, summary, path)
    within = None if budget is None else _Budget(budget - spend.total(), judges, prices)
    submitted = []
    # Every upload is written out before any is submitted: a capture whose packet cannot be built stops
    # the run before anything is paid for.
    with tempfile.TemporaryDirectory(prefix="ora-batch-") as scratch:
        uploads = _write(root, judging, library, captures, judges, within, batch_max, Path(scratch))
        if within is not None:
            within.report(summary, say)
        for label, written in uploads.items():
            judge = judges[label]
            headers = _headers(judging, judge)
            parts = written.parts
            if len(parts) > 1:
                say(
                    f"ora: {sum(len(part.rows) for part in parts)} requests of {label} split into {len(parts)} "
                    f"batches (at most {max(len(part.rows) for part in parts)} requests each)"
                )
            stem = hashlib.sha256(label.encode()).hexdigest()[:16]
            for index, part in enumerate(parts):
                batch_id = _MODULES[judge.spec.provider].submit(caller, judge.spec.route, headers, part.path)
                part.path.unlink()
                state = {"label": label, "role": judge.role, "batch_id": batch_id, "requests": part.rows}
                # Kept at once: an interruption from here on resumes this batch instead of submitting it again.
                path = state_dir / (f"{stem}.json" if index == 0 else f"{stem}-{index}.json")
                state_dir.mkdir(parents=True, exist_ok=True)
                temporary = path.with_suffix(".tmp")
                temporary.write_text(json.dumps(state), encoding="utf-8")
                os.replace(temporary, path)
                say(f"ora: batch {batch_id} of {label} ({judge.role}) submitted: {len(part.rows)} requests")
                submitted.append((state, judge, path))
    # All submitted before any is awaited: the providers work on them side by side.
    for state, judge, path in submitted:
        _finish(state, judge, judging, library, prices, spend, say, caller, summary, path)
    return summary


def _write(
    root: Path,
    judging: Judging,
    library: CassetteLibrary,
    captures: Sequence[PlannedCapture],
    judges: dict[str, JudgeSlot],
    within: _Budget | None,
    batch_max: int | None,
    scratch: Path,
) -> dict[str, _Uploads]:
    """Per judge label (in the order first asked), its requests written into upload files under `scratch`.

    Each capture's requests are built, written into their judges' current batch files and dropped
    before the next capture's are built; a temporary directory, never the cassettes, holds the files.
    """
    uploads: dict[str, _Uploads] = {}
    try:
        for asks in _asks(root, judging, library, captures, judges):
            if within is not None and not within.admits(asks):
                continue
            for pending in asks:
                if pending.label not in uploads:
                    uploads[pending.label] = _Uploads(
                        judges[pending.label], batch_max, scratch / f"judge{len(uploads)}"
                    )
                uploads[pending.label].add(pending)
    finally:
        for written in uploads.values():
            written.close()
    return uploads


def _row(pending: Pending, url: str) -> dict[str, Any]:
    return {
        "custom_id": pending.custom_id,
        "capture_id": pending.capture_id,
        "label": pending.label,
        "url": url,
        "digest": hashlib.sha256(pending.body).hexdigest(),
        "bytes": len(pending.body),
    }


def _headers(judging: Judging, judge: JudgeSlot) -> dict[str, str]:
    """The judge's auth and version headers, as a live call sends them."""
    request = client_for(judge.spec).reachability_request(judge.spec, api_key_for(judge.spec, judging.environ))
    return {k: v for k, v in request.headers.items() if k.lower() not in ("content-type", "content-length", "host")}


def _asks(
    root: Path,
    judging: Judging,
    library: CassetteLibrary,
    captures: Sequence[PlannedCapture],
    judges: dict[str, JudgeSlot],
) -> Iterator[list[Pending]]:
    """Capture by capture in plan order, the first asks of its judges with no cassette and no kept exchange.

    A generator: each capture's request bodies are built when the caller comes to them and dropped
    once written, so the whole selection's bodies are never held at once.
    """
    for planned in captures:
        capture_id = planned.capture.capture_id
        path = library.path_for(capture_id)
        if planned.status != "judge" or path.is_file():
            continue
        kept = _kept_digests(partial_path(path))
        packet, image = build_packet(planned.capture, root, judging.rubric)
        prompt = judge_prompt(packet, image, judging.rubric, cache=judging.prompt_cache)
        asks = []
        for judge in judges.values():
            request = client_for(judge.spec).build_request(judge.spec, prompt, api_key_for(judge.spec, judging.environ))
            if "sha256:" + hashlib.sha256(request.content).hexdigest() in kept:
                continue
            custom_id = "r" + hashlib.sha256(f"{capture_id}\0{judge.label}".encode()).hexdigest()[:40]
            asks.append(Pending(custom_id, capture_id, judge.label, str(request.url), request.content))
        if asks:
            yield asks


class _Budget:
    """--ora-budget-usd over the batches: the captures, in plan order, whose estimated cost at the batch rate fits.

    A request's input tokens are estimated from its size, as a dry run does (an image counts by its
    base64 bytes, more than a provider bills), its output tokens as OUTPUT_TOKENS_ESTIMATE. The first
    capture that does not fit ends the batched ones: none after it is batched either, as with live calls.
    """

    def __init__(self, remaining: Decimal, judges: dict[str, JudgeSlot], prices: dict[str, Price]) -> None:
        self.remaining = remaining
        self._prices = {label: price_for(judge.spec.model, prices) for label, judge in judges.items()}
        self.total = Decimal(0)
        self.captures = 0
        self.kept = 0
        self._full = False

    def admits(self, asks: list[Pending]) -> bool:
        """Whether this capture's asks are batched (counted either way)."""
        self.captures += 1
        if self._full:
            return False
        usd = Decimal(0)
        for request in asks:
            price = self._prices[request.label]
            usd += (
                Decimal(0)
                if price is None
                else cost(price, estimate_input_tokens(len(request.body), 0), OUTPUT_TOKENS_ESTIMATE) * BATCH_RATE
            )
        if self.total + usd > self.remaining:
            self._full = True
            return False
        self.total += usd
        self.kept += 1
        return True

    def report(self, summary: BatchSummary, say: Callable[[str], None]) -> None:
        summary.left_out = self.captures - self.kept
        if summary.left_out:
            say(
                f"ora: --ora-budget-usd: {self.kept} of {self.captures} captures batched, estimated ${self.total:.4f} "
                f"at the batch rate of ${max(self.remaining, Decimal(0)):.4f} left; the others are judged live only "
                "while the budget allows"
            )


def _kept_digests(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return {str(i["request"]["body"]) for i in data.get("interactions", [])}


def _finish(
    state: dict[str, Any],
    judge: JudgeSlot,
    judging: Judging,
    library: CassetteLibrary,
    prices: dict[str, Price],
    spend: SpendLog,
    say: Callable[[str], None],
    caller: Caller,
    summary: BatchSummary,
    path: Path,
) -> None:
    """Poll the batch to its end, write its answers into the captures' partial cassettes, forget it."""
    module = _MODULES[judge.spec.provider]
    headers = _headers(judging, judge)
    wait, last = _FIRST_POLL, ""
    started = caller.clock()
    say(
        f"ora: polling batch {state['batch_id']} of {judge.label} until it ends, for at most {MAX_WAIT / 3600:g} hours "
        "(then the run stops and a re-run resumes polling)"
    )
    while True:
        status = module.poll(caller, judge.spec.route, headers, state["batch_id"])
        line = f"ora: batch {state['batch_id']} of {judge.label}: {status.state}, {status.done}/{status.total} done"
        if line != last:
            say(line)
            last = line
        if status.finished:
            break
        if caller.clock() - started + wait > MAX_WAIT:
            raise BatchStopped(
                f"ora: batch {state['batch_id']} of {judge.label} is still {status.state} after "
                f"{(caller.clock() - started) / 3600:.1f} hours of polling, past the providers' 24-hour window: "
                "it looks stuck; its id is kept under --ora-cassettes: re-run the same command to resume polling, "
                f"or delete {path.name} under {BATCH_STATE_DIR}/ to give up on it"
            )
        caller.sleep(wait)
        wait = min(_MAX_POLL, wait * 1.5)
    try:
        outcomes: list[Outcome] = module.fetch(caller, judge.spec.route, headers, status)
    except BatchResultsError as error:
        say(f"ora: batch {state['batch_id']} of {judge.label}: results refused ({error}); its requests are asked live")
        outcomes = []
    rows = {row["custom_id"]: row for row in state["requests"]}
    by_capture: dict[str, list[tuple[Any, bytes]]] = {}
    for row, body in bind_outcomes(outcomes, rows, judge, judging.rubric.blind, say, state["batch_id"]):
        by_capture.setdefault(row["capture_id"], []).append((row, body))
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
    # Anthropic's input_tokens leaves out cache reads and writes; OpenAI's counts include cached ones.
    read = int(usage.get("cache_read_input_tokens", 0))
    written = int(usage.get("cache_creation_input_tokens", 0))
    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
    read += int(details.get("cached_tokens", 0) or 0)
    tokens_in = int(usage.get("input_tokens", usage.get("prompt_tokens", 0)))
    if "cache_read_input_tokens" in usage or "cache_creation_input_tokens" in usage:
        tokens_in += read + written
    tokens_out = int(usage.get("output_tokens", usage.get("completion_tokens", 0)))
    return cost(price, tokens_in, tokens_out, read, written) * BATCH_RATE
