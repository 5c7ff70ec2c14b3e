"""OpenAI Batch: upload a JSONL of chat completion requests (Files API), create a batch, read its output file."""

from __future__ import annotations

import json
from typing import Any

import httpx

from .base import Outcome, Pending, Status, results_lines

__all__ = ["ENDPOINT", "fetch", "poll", "submit"]

ENDPOINT = "/v1/chat/completions"
_FINISHED = {"completed", "failed", "expired", "cancelled"}


def _base(route: str) -> str:
    return route.removesuffix(ENDPOINT)


def submit(client: httpx.Client, route: str, headers: dict[str, str], requests: list[Pending]) -> str:
    """Upload the requests as a batch input file and create the batch; its id."""
    lines = b"".join(
        json.dumps({"custom_id": p.custom_id, "method": "POST", "url": ENDPOINT, "body": json.loads(p.body)}).encode()
        + b"\n"
        for p in requests
    )
    upload = client.post(
        _base(route) + "/v1/files", headers=headers, data={"purpose": "batch"},
        files={"file": ("ora-batch.jsonl", lines, "application/jsonl")},
    )
    upload.raise_for_status()
    created = client.post(
        _base(route) + "/v1/batches", headers=headers,
        json={"input_file_id": upload.json()["id"], "endpoint": ENDPOINT, "completion_window": "24h"},
    )
    created.raise_for_status()
    return str(created.json()["id"])


def poll(client: httpx.Client, route: str, headers: dict[str, str], batch_id: str) -> Status:
    """The batch's status and counts."""
    response = client.get(f"{_base(route)}/v1/batches/{batch_id}", headers=headers)
    response.raise_for_status()
    data: dict[str, Any] = response.json()
    counts = data.get("request_counts") or {}
    return Status(
        state=str(data["status"]), finished=data["status"] in _FINISHED,
        done=int(counts.get("completed", 0)) + int(counts.get("failed", 0)), total=int(counts.get("total", 0)),
        results=data.get("output_file_id"),
    )


def fetch(client: httpx.Client, route: str, headers: dict[str, str], status: Status) -> list[Outcome]:
    """Each request's outcome from the output file (none when the batch produced no output)."""
    if not status.results:
        return []
    response = client.get(f"{_base(route)}/v1/files/{status.results}/content", headers=headers)
    response.raise_for_status()
    outcomes = []
    for entry in results_lines(response.content):
        answer = entry.get("response") or {}
        body = answer.get("body")
        ok = answer.get("status_code") == 200 and isinstance(body, dict)
        outcomes.append(Outcome(str(entry["custom_id"]), json.dumps(body).encode() if ok else None))
    return outcomes
