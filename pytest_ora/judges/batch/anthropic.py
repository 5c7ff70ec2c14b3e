"""Anthropic Message Batches: create a batch of Messages requests, poll it, read its results JSONL.

The results are read from the batch's `results_url` as Anthropic gives it (an absolute URL; a
relative one is taken against the route).

Limits (Anthropic's "Batch processing" guide, "Batch limitations"; API reference "Create a
Message Batch"): a batch holds up to 100,000 requests or 256 MB, whichever comes first.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from ..providers._wire import sibling_url
from .base import FileBody, Outcome, Pending, Status, results_lines
from .http import Caller

__all__ = ["HEAD", "MAX_BYTES", "MAX_REQUESTS", "SEPARATOR", "TAIL", "entry", "fetch", "item", "poll", "submit"]

MAX_REQUESTS = 100_000
MAX_BYTES = 256 * 1000 * 1000
HEAD, SEPARATOR, TAIL = b'{"requests":[', b",", b"]}"
"""The batch body is HEAD, the requests' entries joined by SEPARATOR, then TAIL."""


def _batches(route: str, rest: str = "") -> httpx.URL:
    return sibling_url(route, ("messages",), "messages/batches" + rest)


def entry(pending: Pending) -> bytes:
    """One request of the batch body, as it is serialised there (for the byte limit)."""
    return json.dumps(
        {"custom_id": pending.custom_id, "params": json.loads(pending.body)}, ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")


def item(route: str, pending: Pending) -> bytes:
    """One request as the batch body holds it (the route plays no part)."""
    return entry(pending)


def submit(caller: Caller, route: str, headers: dict[str, str], path: Path) -> str:
    """Create the batch whose body was written to `path` (HEAD, the items, TAIL), streamed from it; its id."""
    body = FileBody(path)
    response = caller.call(
        "POST",
        _batches(route),
        "Anthropic batch creation",
        headers={**headers, "content-type": "application/json", **body.headers},
        content=body,
    )
    return str(response.json()["id"])


def poll(caller: Caller, route: str, headers: dict[str, str], batch_id: str) -> Status:
    """The batch's processing status and counts."""
    response = caller.call("GET", _batches(route, f"/{batch_id}"), f"polling batch {batch_id}", headers=headers)
    data: dict[str, Any] = response.json()
    counts = data.get("request_counts") or {}
    processing = int(counts.get("processing", 0))
    total = processing + sum(int(counts.get(k, 0)) for k in ("succeeded", "errored", "canceled", "expired"))
    given = data.get("results_url")
    results = str(httpx.URL(route).join(given)) if given else str(_batches(route, f"/{batch_id}/results"))
    return Status(
        state=str(data["processing_status"]),
        finished=data["processing_status"] == "ended",
        done=total - processing,
        total=total,
        results=results,
    )


def fetch(caller: Caller, route: str, headers: dict[str, str], status: Status) -> list[Outcome]:
    """Each request's outcome from the results JSONL: the message when it succeeded."""
    assert status.results is not None
    response = caller.call("GET", status.results, "reading batch results", headers=headers)
    outcomes = []
    for line in results_lines(response.content):
        result = line.get("result") or {}
        message = result.get("message") if result.get("type") == "succeeded" else None
        outcomes.append(Outcome(str(line["custom_id"]), json.dumps(message).encode() if message else None))
    return outcomes
