"""Anthropic Message Batches: create a batch of Messages requests, poll it, read its results JSONL."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .base import Outcome, Pending, Status, results_lines

__all__ = ["fetch", "poll", "submit"]

_MESSAGES = "/v1/messages"


def _batches(route: str) -> str:
    return route.removesuffix(_MESSAGES) + "/v1/messages/batches"


def submit(client: httpx.Client, route: str, headers: dict[str, str], requests: list[Pending]) -> str:
    """Create the batch; its id."""
    payload = {"requests": [{"custom_id": p.custom_id, "params": json.loads(p.body)} for p in requests]}
    response = client.post(_batches(route), headers=headers, json=payload)
    response.raise_for_status()
    return str(response.json()["id"])


def poll(client: httpx.Client, route: str, headers: dict[str, str], batch_id: str) -> Status:
    """The batch's processing status and counts."""
    response = client.get(f"{_batches(route)}/{batch_id}", headers=headers)
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    counts = data.get("request_counts") or {}
    processing = int(counts.get("processing", 0))
    total = processing + sum(int(counts.get(k, 0)) for k in ("succeeded", "errored", "canceled", "expired"))
    return Status(
        state=str(data["processing_status"]), finished=data["processing_status"] == "ended",
        done=total - processing, total=total, results=f"{_batches(route)}/{batch_id}/results",
    )


def fetch(client: httpx.Client, route: str, headers: dict[str, str], status: Status) -> list[Outcome]:
    """Each request's outcome from the results JSONL: the message when it succeeded."""
    assert status.results is not None
    response = client.get(status.results, headers=headers)
    response.raise_for_status()
    outcomes = []
    for entry in results_lines(response.content):
        result = entry.get("result") or {}
        message = result.get("message") if result.get("type") == "succeeded" else None
        outcomes.append(Outcome(str(entry["custom_id"]), json.dumps(message).encode() if message else None))
    return outcomes
