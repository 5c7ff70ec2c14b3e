"""Replayable judge calls: one vcrpy cassette per capture, credentials never written.

Judge calls go through `CassetteTransport`, an httpx transport that consults the vcrpy
cassette of the capture being judged (a context variable names it), so captures judged
concurrently in one process each use their own cassette and nothing is patched globally.

A cassette stores each successful exchange with its request body as a SHA-256 (the packet is
reproducible from the bundle) and its response body as readable JSON. Requests match on method,
URL and body, so a changed packet or prompt fails loudly instead of replaying a stale score.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
from vcr.cassette import Cassette
from vcr.errors import UnhandledHTTPRequestError
from vcr.matchers import host, method, path, port, query, scheme
from vcr.record_mode import RecordMode
from vcr.request import Request

from ..errors import MissingCassette, OraError, PacketDrift
from ..fileio import file_mode
from ..vocabulary import RECORD_MODES

__all__ = [
    "REDACTED_HEADERS",
    "CaptureCassette",
    "CassetteLibrary",
    "CassetteTransport",
    "cassette_path",
]

REDACTED_HEADERS = ("authorization", "x-api-key", "api-key", "x-goog-api-key", "openai-organization", "cookie")
"""Credential headers; never stored (request headers are kept by allowlist anyway)."""
_KEPT_REQUEST_HEADERS = ("content-type", "anthropic-version", "anthropic-beta")
"""Request headers are kept by allowlist: an unknown credential header can never reach a cassette."""
_KEPT_RESPONSE_HEADERS = ("content-type", "request-id", "x-request-id")
_REDACTED_QUERY = frozenset({"key", "api_key", "api-key"})


def _same_body(recorded: Request, sent: Request) -> None:
    """vcrpy matcher: the body digests are equal (bytes compared as stored, no JSON parsing)."""
    if recorded.body != sent.body:
        raise AssertionError("the request body differs from the recorded one")


_MATCH_ON = (method, scheme, host, port, path, query, _same_body)
_CURRENT: contextvars.ContextVar[CaptureCassette] = contextvars.ContextVar("ora_cassette")


def cassette_path(directory: Path, capture_id: str) -> Path:
    """cassettes/<family>/<technique>/<configuration>.json for mode:technique/configuration."""
    entry_key, _, configuration = capture_id.partition("/")
    family, _, technique = entry_key.partition(":")
    return directory / family / technique / f"{configuration}.json"


def _safe_uri(uri: str) -> str:
    parts = urlsplit(uri)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in _REDACTED_QUERY]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(kept), ""))


def _digest(content: bytes) -> bytes:
    return b"sha256:" + hashlib.sha256(content).hexdigest().encode("ascii")


def _reduce_request(request: Request) -> Request:
    """Allowlisted headers, no key in the query, the body as its SHA-256 (matching compares hashes).

    Idempotent: requests built by the transport and requests loaded from a cassette pass unchanged.
    """
    for name in list(request.headers):
        if name.lower() not in _KEPT_REQUEST_HEADERS:
            del request.headers[name]
    content = request.body or b""
    if isinstance(content, str):
        content = content.encode("utf-8")
    if not content.startswith(b"sha256:"):
        request.body = _digest(content)
    if "?" in request.uri:
        request.uri = _safe_uri(request.uri)
    return request


def _keep_success(response: dict[str, Any]) -> dict[str, Any] | None:
    """Only 2xx exchanges are kept, so replay never waits out a recorded 429."""
    if not 200 <= int(response["status"]["code"]) < 300:
        return None
    headers = {k: v for k, v in response["headers"].items() if k.lower() in _KEPT_RESPONSE_HEADERS}
    return {**response, "headers": headers}


class _ReadableJson:
    """vcrpy serializer: JSON cassettes with response bodies stored as JSON, not escaped strings."""

    @staticmethod
    def serialize(data: dict[str, Any]) -> str:
        # Both judges answer concurrently; a stable order keeps re-recordings diff-free. Identical
        # requests keep their relative order (replay serves them in that order).
        data["interactions"].sort(key=lambda i: (str(i["request"]["uri"]), str(i["request"]["body"])))
        for interaction in data["interactions"]:
            stored = interaction["response"]["body"]
            text = stored.get("string")
            if isinstance(text, str):
                try:
                    interaction["response"]["body"] = {"json": json.loads(text)}
                except ValueError:
                    pass
        return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        data: dict[str, Any] = json.loads(text)
        for interaction in data.get("interactions", []):
            stored = interaction["response"]["body"]
            if "json" in stored:
                interaction["response"]["body"] = {"string": json.dumps(stored["json"], ensure_ascii=False)}
        return data


class _SafePersister:
    """Writes cassettes atomically and refuses to write one that holds a configured secret."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self._secrets = tuple(str.__str__(s) for s in secrets if s)

    def load_cassette(self, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    def save_cassette(self, cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        from vcr.serialize import serialize

        data = serialize(cassette_dict, serializer)
        for secret in self._secrets:
            if secret in data:
                raise OraError(f"refusing to write cassette {cassette_path}: it would contain an API key")
        target = Path(cassette_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            os.fchmod(handle, file_mode())  # mkstemp's 0600 would ignore the user's umask
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(data)
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class CaptureCassette:
    """One capture's vcrpy cassette while its judges are called."""

    def __init__(self, capture_id: str, cassette: Any) -> None:
        self.capture_id = capture_id
        self.cassette = cassette

    @property
    def path(self) -> Path:
        return Path(self.cassette.path)

    @property
    def play_count(self) -> int:
        """Responses served from the cassette so far."""
        return int(self.cassette.play_count)

    def refusal(self) -> OraError:
        """The error for a judge call that this cassette cannot serve and may not record."""
        if not self.path.is_file():
            return MissingCassette(
                f"no recorded judge call for {self.capture_id} (expected {self.path}); record it with "
                "--ora-record once and the judges' API keys set",
                capture_id=self.capture_id,
            )
        return PacketDrift(
            f"the cassette {self.path} was recorded for a different packet or judge request than "
            f"{self.capture_id} sends now (bundle, specification, rubric or judge changed); re-record with "
            "--ora-record all (or delete the file and use --ora-record once)",
            capture_id=self.capture_id,
        )

    def save(self) -> None:
        """Write what was recorded; called only when the capture was judged, so a failure keeps no partial file."""
        # vcrpy's context manager calls this same method on exit; pytest-ora scopes cassettes itself.
        self.cassette._save()

    def activate(self) -> contextvars.Token[CaptureCassette]:
        """Route this task's judge calls (and the tasks it starts) through this cassette."""
        return _CURRENT.set(self)


class CassetteLibrary:
    """The cassettes directory of a run: where each capture's judge calls are recorded."""

    def __init__(self, directory: Path, mode: str, secrets: Sequence[str] = ()) -> None:
        if mode not in RECORD_MODES:
            raise ValueError(f"record mode must be one of {', '.join(RECORD_MODES)}, got {mode!r}")
        self.directory = directory
        self.mode = mode
        self._persister = _SafePersister(secrets)

    def path_for(self, capture_id: str) -> Path:
        return cassette_path(self.directory, capture_id)

    def open(self, capture_id: str) -> CaptureCassette:
        """Load (or start) the capture's cassette."""
        cassette = Cassette.load(
            path=str(self.path_for(capture_id)),
            serializer=_ReadableJson,
            persister=self._persister,
            record_mode=RecordMode(self.mode),
            match_on=_MATCH_ON,
            before_record_request=_reduce_request,
            before_record_response=_keep_success,
            # `all` is a clean re-record: interactions the new run did not make are dropped.
            drop_unused_requests=self.mode == "all",
        )
        return CaptureCassette(capture_id, cassette)


class CassetteTransport(httpx.AsyncBaseTransport):
    """Serves judge calls from the active capture's cassette, or sends and records them."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        active = _CURRENT.get(None)
        if active is None:
            return await self._inner.handle_async_request(request)
        content = await request.aread()
        headers = {k: v for k, v in request.headers.items() if k.lower() in _KEPT_REQUEST_HEADERS}
        recorded = Request(request.method, _safe_uri(str(request.url)), _digest(content), headers)
        cassette = active.cassette
        # vcrpy's can_play_response_for, without matching the request twice: replay what the file
        # holds, never in `all` mode, and never what this run itself just recorded.
        if cassette.rewound and cassette.record_mode != RecordMode.ALL:
            try:
                return _response(cassette.play_response(recorded), request)
            except UnhandledHTTPRequestError:
                pass  # not recorded, or every matching response already played
        if cassette.write_protected:
            raise active.refusal()
        response = await self._inner.handle_async_request(request)
        try:
            body_bytes = await response.aread()  # decoded: gzip is undone here, once
        finally:
            await response.aclose()
        stored = _stored(response, body_bytes)
        cassette.append(recorded, stored)
        return _response(stored, request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _stored(response: httpx.Response, content: bytes) -> dict[str, Any]:
    headers: dict[str, list[str]] = {}
    for name, value in response.headers.multi_items():
        if name.lower() not in ("content-encoding", "content-length", "transfer-encoding"):
            headers.setdefault(name.lower(), []).append(value)
    return {
        "status": {"code": response.status_code, "message": response.reason_phrase},
        "headers": headers,
        "body": {"string": content},
    }


def _response(stored: dict[str, Any], request: httpx.Request) -> httpx.Response:
    headers = [(name, value) for name, values in stored["headers"].items() for value in values]
    content = stored["body"]["string"]
    if isinstance(content, str):
        content = content.encode("utf-8")
    return httpx.Response(stored["status"]["code"], headers=headers, content=content, request=request)
