"""The reference judge's batch interfaces: OpenAI Files + Batch, Anthropic Message Batches (a test double).

OpenAI: `POST /v1/files` (multipart, purpose=batch, a JSONL of {custom_id, method, url, body}),
`POST /v1/batches` {input_file_id, endpoint, completion_window}, `GET /v1/batches/{id}` (status
validating -> in_progress -> finalizing -> completed, or failed / expired), and
`GET /v1/files/{id}/content` for the output file: one line per request, {id, custom_id,
response: {status_code, request_id, body}, error}.

Anthropic: `POST /v1/messages/batches` {requests: [{custom_id, params}]}, `GET
/v1/messages/batches/{id}` (processing_status in_progress -> ended, request_counts, results_url)
and `GET /v1/messages/batches/{id}/results`: one line per request, {custom_id, result: {type:
succeeded, message} | {type: errored, error} | {type: expired}}.

Each request of a batch is answered exactly as the same request sent live would be (same bytes,
the judge's scoring and faults), without latency or rate limit. A batch is done `delay` seconds
after it was created; `expire` makes every batch expire instead.
"""

from __future__ import annotations

import email.parser
import email.policy
import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .wire import Response, compact_json

__all__ = ["BatchStore"]

_JSON = (("content-type", "application/json"),)
_JSONL = (("content-type", "application/binary"),)
_CREATED = 1767225600

Answer = Callable[[str, bytes, Mapping[str, str], str], Response]
"""(provider, request body, request headers, endpoint path) -> the live response to that request."""
_OPENAI_ENDPOINTS = ("/v1/chat/completions", "/v1/responses")


@dataclass
class _Batch:
    provider: str
    id: str
    created: float
    lines: list[tuple[str, bytes]]
    """(custom_id, request body) in submission order."""
    headers: dict[str, str]
    input_file_id: str | None = None
    endpoint: str = "/v1/chat/completions"
    output_file_id: str | None = None
    error_file_id: str | None = None
    results: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False
    expired: bool = False


def _error(status: int, kind: str, message: str, provider: str) -> Response:
    if provider == "anthropic":
        body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    else:
        body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
    return Response(status, _JSON, compact_json(body))


class BatchStore:
    """Files and batches of the reference judge; thread-safe."""

    def __init__(
        self, answer: Answer, delay: float = 0.5, expire: bool = False, base_url: Callable[[], str] | None = None
    ) -> None:
        self._answer = answer
        self._base_url = base_url or (lambda: "")
        """The server's origin: Anthropic's results_url is absolute."""
        self.delay = delay
        self.expire = expire
        self._lock = threading.Lock()
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, _Batch] = {}
        self.created: list[str] = []
        """Ids of every batch created, in order (tests assert a resumed run submits nothing new)."""
        self.tamper: Callable[[str, list[bytes]], list[bytes]] | None = None
        """(provider, the results file's lines) -> the lines it holds instead: a forged, swapped or broken file."""
        self._faults: list[tuple[int, str | None]] = []
        self.faulted = 0
        """Batch and file requests answered with an injected fault so far."""

    def fail_next(self, *statuses: int, method: str | None = None) -> None:
        """Answer the next batch or file requests (of `method` only, GET for polls) with these statuses, in order."""
        with self._lock:
            self._faults.extend((status, method) for status in statuses)

    def clear_faults(self) -> None:
        """Forget the faults not yet met."""
        with self._lock:
            self._faults.clear()

    def _fault(self, method: str, path: str) -> Response | None:
        with self._lock:
            if not self._faults or self._faults[0][1] not in (None, method):
                return None
            status = self._faults.pop(0)[0]
            self.faulted += 1
        anthropic = path.startswith("/v1/messages/batches")
        kinds = {529: "overloaded_error", 429: "rate_limit_error", 503: "api_error"}
        kind = kinds.get(status, "api_error") if anthropic else ("server_error" if status >= 500 else "requests")
        message = "Overloaded" if status == 529 else "Internal server error" if status >= 500 else "Rate limit reached"
        response = _error(status, kind, message, "anthropic" if anthropic else "openai")
        retry = (("x-should-retry", "true"),) if anthropic else ()
        return Response(status, response.headers + retry, response.body)

    # --- routing ---------------------------------------------------------------------------

    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes) -> Response | None:
        """The response for a batch or file route, or None when the path is not one."""
        parts = path.strip("/").split("/")
        if parts[:3] == ["v1", "messages", "batches"] or parts[:2] in (["v1", "batches"], ["v1", "files"]):
            fault = self._fault(method, path)
            if fault is not None:
                return fault
        if parts[:3] == ["v1", "messages", "batches"]:
            return self._anthropic(method, parts[3:], headers, body)
        if parts[:2] == ["v1", "batches"]:
            return self._openai_batch(method, parts[2:], headers, body)
        if parts[:2] == ["v1", "files"]:
            return self._openai_file(method, parts[2:], headers, body)
        return None

    # --- OpenAI ----------------------------------------------------------------------------

    def _openai_file(self, method: str, rest: list[str], headers: Mapping[str, str], body: bytes) -> Response:
        if method == "POST" and not rest:
            fields, filenames = _multipart(headers.get("content-type", ""), body)
            if fields.get("purpose") != b"batch" or "file" not in fields:
                return _error(400, "invalid_request_error", "purpose must be 'batch' and a file must be sent", "openai")
            content = fields["file"]
            file_id = "file-" + hashlib.sha256(content).hexdigest()[:24]
            with self._lock:
                self._files[file_id] = content
            return Response(
                200,
                _JSON,
                compact_json(
                    {
                        "id": file_id,
                        "object": "file",
                        "bytes": len(content),
                        "created_at": _CREATED,
                        "filename": filenames.get("file", "upload"),
                        "purpose": "batch",
                        "status": "processed",
                    }
                ),
            )
        if method == "GET" and len(rest) == 2 and rest[1] == "content":
            with self._lock:
                stored = self._files.get(rest[0])
            if stored is None:
                return _error(404, "invalid_request_error", f"No such File object: {rest[0]}", "openai")
            return Response(200, _JSONL, stored)
        return _error(404, "invalid_request_error", f"no route for {method} /v1/files/{'/'.join(rest)}", "openai")

    def _openai_batch(self, method: str, rest: list[str], headers: Mapping[str, str], body: bytes) -> Response:
        if method == "POST" and not rest:
            try:
                request = json.loads(body)
                content = self._files[request["input_file_id"]]
            except (ValueError, KeyError, TypeError):
                return _error(400, "invalid_request_error", "input_file_id must name an uploaded file", "openai")
            endpoint = request.get("endpoint")
            if endpoint not in _OPENAI_ENDPOINTS or request.get("completion_window") != "24h":
                return _error(
                    400,
                    "invalid_request_error",
                    f"endpoint must be one of {', '.join(_OPENAI_ENDPOINTS)}, window 24h",
                    "openai",
                )
            lines = []
            for number, line in enumerate(content.splitlines(), start=1):
                if line.strip():
                    entry = json.loads(line)
                    if entry.get("url") != endpoint:
                        # OpenAI validates every line against the batch's endpoint before it starts.
                        return _error(
                            400,
                            "invalid_request_error",
                            f"line {number}: url {entry.get('url')!r} does not match the batch endpoint {endpoint}",
                            "openai",
                        )
                    lines.append((str(entry["custom_id"]), compact_json(entry["body"])))
            batch = self._new("openai", "batch_", lines, headers, request["input_file_id"])
            batch.endpoint = str(endpoint)
            return Response(200, _JSON, compact_json(self._openai_view(batch)))
        if method == "GET" and len(rest) == 1:
            found = self._get(rest[0])
            if found is None or found.provider != "openai":
                return _error(404, "invalid_request_error", f"No batch found with id '{rest[0]}'", "openai")
            return Response(200, _JSON, compact_json(self._openai_view(found)))
        return _error(404, "invalid_request_error", f"no route for {method} /v1/batches/{'/'.join(rest)}", "openai")

    def _openai_view(self, batch: _Batch) -> dict[str, Any]:
        self._progress(batch)
        status = "expired" if batch.expired else "completed" if batch.done else "in_progress"
        done = sum(1 for r in batch.results if r["response"] is not None and r["response"]["status_code"] == 200)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": batch.endpoint,
            "errors": None,
            "input_file_id": batch.input_file_id,
            "completion_window": "24h",
            "status": status,
            "output_file_id": batch.output_file_id,
            "error_file_id": batch.error_file_id,
            "created_at": int(batch.created),
            "in_progress_at": int(batch.created),
            "expires_at": int(batch.created) + 86400,
            "completed_at": int(batch.created + self.delay) if batch.done else None,
            "expired_at": int(batch.created + self.delay) if batch.expired else None,
            "request_counts": {
                "total": len(batch.lines),
                "completed": done if batch.done else 0,
                "failed": (len(batch.results) - done) if batch.done else 0,
            },
            "metadata": None,
        }

    # --- Anthropic -------------------------------------------------------------------------

    def _anthropic(self, method: str, rest: list[str], headers: Mapping[str, str], body: bytes) -> Response:
        if method == "POST" and not rest:
            try:
                requests = json.loads(body)["requests"]
                lines = [(str(r["custom_id"]), compact_json(r["params"])) for r in requests]
            except (ValueError, KeyError, TypeError):
                return _error(400, "invalid_request_error", "requests: each needs custom_id and params", "anthropic")
            batch = self._new("anthropic", "msgbatch_", lines, headers, None)
            return Response(200, _JSON, compact_json(self._anthropic_view(batch)))
        found = self._get(rest[0]) if rest else None
        if found is None or found.provider != "anthropic":
            return _error(404, "not_found_error", f"batch {rest[0] if rest else ''} not found", "anthropic")
        if method == "GET" and len(rest) == 1:
            return Response(200, _JSON, compact_json(self._anthropic_view(found)))
        if method == "GET" and len(rest) == 2 and rest[1] == "results":
            self._progress(found)
            if not (found.done or found.expired):
                return _error(400, "invalid_request_error", "batch is still processing", "anthropic")
            return Response(200, _JSONL, self._results_text(found.provider, found.results))
        return _error(404, "not_found_error", f"no route for {method}", "anthropic")

    def _anthropic_view(self, batch: _Batch) -> dict[str, Any]:
        self._progress(batch)
        ended = batch.done or batch.expired
        kinds = [r["result"]["type"] for r in batch.results]
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else len(batch.lines),
                "succeeded": kinds.count("succeeded"),
                "errored": kinds.count("errored"),
                "canceled": 0,
                "expired": kinds.count("expired"),
            },
            "ended_at": _iso(batch.created + self.delay) if ended else None,
            "created_at": _iso(batch.created),
            "expires_at": _iso(batch.created + 86400),
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": f"{self._base_url()}/v1/messages/batches/{batch.id}/results" if ended else None,
        }

    # --- processing ------------------------------------------------------------------------

    def _new(
        self,
        provider: str,
        prefix: str,
        lines: list[tuple[str, bytes]],
        headers: Mapping[str, str],
        input_file_id: str | None,
    ) -> _Batch:
        with self._lock:
            batch_id = prefix + hashlib.sha256(f"{provider}{len(self._batches)}".encode()).hexdigest()[:24]
            kept = {k: v for k, v in headers.items() if k in ("x-api-key", "authorization", "anthropic-version")}
            batch = _Batch(provider, batch_id, time.time(), lines, kept, input_file_id)
            self._batches[batch_id] = batch
            self.created.append(batch_id)
            return batch

    def _get(self, batch_id: str) -> _Batch | None:
        with self._lock:
            return self._batches.get(batch_id)

    def _progress(self, batch: _Batch) -> None:
        """Answer every request once the batch's time has come (or expire them all)."""
        with self._lock:
            if batch.done or batch.expired or time.time() < batch.created + self.delay:
                return
            if self.expire:
                batch.expired = True
                batch.results = [_expired(batch.provider, custom_id) for custom_id, _ in batch.lines]
                if batch.provider == "openai" and batch.results:
                    # OpenAI writes the requests an expired batch never ran to its error file.
                    text = b"".join(compact_json(result) + b"\n" for result in batch.results)
                    file_id = "file-" + hashlib.sha256(text).hexdigest()[:24]
                    self._files[file_id] = text
                    batch.error_file_id = file_id
                return
        results = [self._result(batch, custom_id, body) for custom_id, body in batch.lines]
        with self._lock:
            batch.results = results
            batch.done = True
            if batch.provider == "openai":
                # Answered requests go to the output file, failed ones to the error file (either may be absent).
                answered = [r for r in results if r["response"] is not None and r["response"]["status_code"] == 200]
                failed = [r for r in results if r not in answered]
                for chosen, slot in ((answered, "output_file_id"), (failed, "error_file_id")):
                    if not chosen:
                        continue
                    if slot == "output_file_id":
                        text = self._results_text(batch.provider, chosen)
                    else:
                        text = b"".join(compact_json(result) + b"\n" for result in chosen)
                    file_id = "file-" + hashlib.sha256(text).hexdigest()[:24]
                    self._files[file_id] = text
                    setattr(batch, slot, file_id)

    def _results_text(self, provider: str, results: list[dict[str, Any]]) -> bytes:
        lines = [compact_json(result) for result in results]
        if self.tamper is not None:
            lines = self.tamper(provider, lines)
        return b"".join(line + b"\n" for line in lines)

    def _result(self, batch: _Batch, custom_id: str, body: bytes) -> dict[str, Any]:
        response = self._answer(
            batch.provider, body, batch.headers, batch.endpoint if batch.provider == "openai" else ""
        )
        payload = json.loads(response.body)
        if batch.provider == "anthropic":
            if response.status == 200:
                return {"custom_id": custom_id, "result": {"type": "succeeded", "message": payload}}
            return {"custom_id": custom_id, "result": {"type": "errored", "error": payload}}
        request_id = "req_" + hashlib.sha256(body).hexdigest()[:32]
        return {
            "id": "batch_req_" + hashlib.sha256(custom_id.encode()).hexdigest()[:24],
            "custom_id": custom_id,
            "response": {"status_code": response.status, "request_id": request_id, "body": payload},
            "error": None,
        }


def _expired(provider: str, custom_id: str) -> dict[str, Any]:
    if provider == "anthropic":
        return {"custom_id": custom_id, "result": {"type": "expired"}}
    return {
        "id": "batch_req_" + hashlib.sha256(custom_id.encode()).hexdigest()[:24],
        "custom_id": custom_id,
        "response": None,
        "error": {
            "code": "batch_expired",
            "message": "This request could not be executed before the completion window expired.",
        },
    }


def _iso(moment: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


def _multipart(content_type: str, body: bytes) -> tuple[dict[str, bytes], dict[str, str]]:
    """The fields of a multipart/form-data body by name, and the file names of those that are files."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"content-type: {content_type}\r\n\r\n".encode() + body
    )
    fields: dict[str, bytes] = {}
    names: dict[str, str] = {}
    if not message.is_multipart():
        return fields, names
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        if name:
            fields[str(name)] = payload if isinstance(payload, bytes) else b""
            filename = part.get_filename()
            if filename is not None:
                names[str(name)] = str(filename)
    return fields, names
