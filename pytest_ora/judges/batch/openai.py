"""OpenAI Batch: upload a JSONL of requests (Files API), create a batch, read its output and error files.

The batch follows the route's API: a Responses route (`.../v1/responses`) batches to
`/v1/responses`, any other to `/v1/chat/completions`; the JSONL lines' `url` and the batch's
`endpoint` are that path. Files and batches live at the API root (`.../v1/files`,
`.../v1/batches`) whatever the route's endpoint. Requests that failed are in the batch's
`error_file_id` file, not the output file.

Limits (OpenAI API reference, "Batch": create; "Batch API" guide): an input file holds up to
50,000 requests and up to 200 MB.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from ..providers._wire import sibling_url
from .base import Outcome, Pending, Status, results_lines
from .http import Caller

__all__ = [
    "HEAD",
    "MAX_BYTES",
    "MAX_REQUESTS",
    "SEPARATOR",
    "TAIL",
    "endpoint",
    "fetch",
    "item",
    "line",
    "poll",
    "submit",
]

MAX_REQUESTS = 50_000
MAX_BYTES = 200 * 1000 * 1000
HEAD, SEPARATOR, TAIL = b"", b"", b""
"""The input file is its lines, each ending in a newline: nothing around or between them."""
_ENDINGS = ("chat/completions", "responses")
_FINISHED = {"completed", "failed", "expired", "cancelled"}


def endpoint(route: str) -> str:
    """The batch endpoint of the route's API."""
    return "/v1/responses" if httpx.URL(route).path.rstrip("/").endswith("/responses") else "/v1/chat/completions"


def _at_root(route: str, path: str) -> httpx.URL:
    """`files`, `batches/...` beside the route's endpoint (the API root's /v1/...)."""
    return sibling_url(route, _ENDINGS, path)


def line(route: str, pending: Pending) -> bytes:
    """One JSONL line of the batch input file."""
    entry = {"custom_id": pending.custom_id, "method": "POST", "url": endpoint(route), "body": json.loads(pending.body)}
    return json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def item(route: str, pending: Pending) -> bytes:
    """One request as the input file holds it: its line."""
    return line(route, pending)


def submit(caller: Caller, route: str, headers: dict[str, str], path: Path) -> str:
    """Upload the input file written to `path` (its lines), streamed from it, and create the batch; its id."""
    with path.open("rb") as lines:
        # httpx seeks the file back to its start each time the multipart body is sent: a retry sends it whole.
        upload = caller.call(
            "POST",
            _at_root(route, "files"),
            "OpenAI file upload",
            headers=headers,
            data={"purpose": "batch"},
            files={"file": ("ora-batch.jsonl", lines, "application/jsonl")},
        )
    created = caller.call(
        "POST",
        _at_root(route, "batches"),
        "OpenAI batch creation",
        headers=headers,
        json={"input_file_id": upload.json()["id"], "endpoint": endpoint(route), "completion_window": "24h"},
    )
    return str(created.json()["id"])


def poll(caller: Caller, route: str, headers: dict[str, str], batch_id: str) -> Status:
    """The batch's status and counts."""
    response = caller.call("GET", _at_root(route, f"batches/{batch_id}"), f"polling batch {batch_id}", headers=headers)
    data: dict[str, Any] = response.json()
    counts = data.get("request_counts") or {}
    return Status(
        state=str(data["status"]),
        finished=data["status"] in _FINISHED,
        done=int(counts.get("completed", 0)) + int(counts.get("failed", 0)),
        total=int(counts.get("total", 0)),
        results=data.get("output_file_id"),
        errors=data.get("error_file_id"),
    )


def fetch(caller: Caller, route: str, headers: dict[str, str], status: Status) -> list[Outcome]:
    """Each request's outcome: answered ones from the output file, failed ones (error file) as None."""
    outcomes = []
    for file_id in (status.results, status.errors):
        if not file_id:
            continue
        response = caller.call(
            "GET", _at_root(route, f"files/{file_id}/content"), f"reading batch file {file_id}", headers=headers
        )
        for entry in results_lines(response.content):
            answer = entry.get("response") or {}
            body = answer.get("body")
            ok = answer.get("status_code") == 200 and isinstance(body, dict)
            outcomes.append(Outcome(str(entry["custom_id"]), json.dumps(body).encode() if ok else None))
    return outcomes
