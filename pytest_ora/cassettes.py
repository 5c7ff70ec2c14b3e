"""Replayable judge calls: one vcrpy cassette per capture, credentials never written.

A cassette stores each successful exchange with its request body as a SHA-256 (the packet is
reproducible from the bundle) and its response body as readable JSON. Requests match on method,
URL and body, so a changed packet or prompt fails loudly instead of replaying a stale score.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from vcr.errors import CannotOverwriteExistingCassetteException
from vcr.request import Request

from .errors import MissingCassette, OraError, PacketDrift
from .vocabulary import RECORD_MODES

__all__ = [
    "REDACTED_HEADERS",
    "CassetteLibrary",
    "cassette_path",
]

REDACTED_HEADERS = ("authorization", "x-api-key", "api-key", "x-goog-api-key", "openai-organization", "cookie")
_KEPT_REQUEST_HEADERS = ("content-type", "anthropic-version", "anthropic-beta")
"""Request headers are kept by allowlist: an unknown credential header can never reach a cassette."""
_KEPT_RESPONSE_HEADERS = ("content-type", "request-id", "x-request-id")
_REDACTED_QUERY = ("key", "api_key", "api-key")
_PATCHERS_SKIPPED = ("httplib", "requests", "boto3", "urllib3", "httplib2", "tornado", "aiohttp", "httpx2")


def cassette_path(directory: Path, capture_id: str) -> Path:
    """cassettes/<family>/<technique>/<configuration>.json for mode:technique/configuration."""
    entry_key, _, configuration = capture_id.partition("/")
    family, _, technique = entry_key.partition(":")
    return directory / family / technique / f"{configuration}.json"


def _reduce_request(request: Request) -> Request:
    """Keep allowlisted headers and store the body as its SHA-256 (matching compares the hashes)."""
    for name in list(request.headers):
        if name.lower() not in _KEPT_REQUEST_HEADERS:
            del request.headers[name]
    body = request.body or b""
    if isinstance(body, str):
        body = body.encode("utf-8")
    if not body.startswith(b"sha256:"):
        request.body = b"sha256:" + hashlib.sha256(body).hexdigest().encode("ascii")
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
        for interaction in data["interactions"]:
            body = interaction["response"]["body"]
            text = body.get("string")
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
            body = interaction["response"]["body"]
            if "json" in body:
                interaction["response"]["body"] = {"string": json.dumps(body["json"], ensure_ascii=False)}
        return data


class _SafePersister:
    """Writes cassettes atomically and refuses to write one that holds a configured secret."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self._secrets = tuple(s for s in secrets if s)
        self.failure: Exception | None = None
        """The last save's error, raised by CassetteLibrary.use once vcrpy has removed its httpx patches."""

    def load_cassette(self, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import FilesystemPersister

        return FilesystemPersister.load_cassette(cassette_path, serializer)

    def save_cassette(self, cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        # vcrpy saves before it unpatches httpx: an error raised here would leave httpx patched
        # for later captures (so replay could reach the network). It is raised after the exit.
        try:
            self._write(cassette_path, cassette_dict, serializer)
        except Exception as error:
            self.failure = error

    def _write(self, cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        from vcr.serialize import serialize

        data = serialize(cassette_dict, serializer)
        for secret in self._secrets:
            if secret in data:
                raise OraError(f"refusing to write cassette {cassette_path}: it would contain an API key")
        path = Path(cassette_path)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(data)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class CassetteLibrary:
    """The cassettes directory of a run: where each capture's judge calls are recorded."""

    def __init__(self, directory: Path, mode: str, secrets: Sequence[str] = ()) -> None:
        if mode not in RECORD_MODES:
            raise ValueError(f"record mode must be one of {', '.join(RECORD_MODES)}, got {mode!r}")
        self.directory = directory
        self.mode = mode
        import vcr

        self._vcr = vcr.VCR(
            serializer="ora-json",
            record_mode=mode,
            match_on=("method", "scheme", "host", "port", "path", "query", "body"),
            filter_headers=[(name, None) for name in REDACTED_HEADERS],
            filter_query_parameters=[(name, None) for name in _REDACTED_QUERY],
            before_record_request=_reduce_request,
            before_record_response=_keep_success,
            decode_compressed_response=True,
            skip_patchers=_PATCHERS_SKIPPED,
            # `all` is a clean re-record: interactions the new run did not make are dropped.
            drop_unused_requests=mode == "all",
        )
        self._vcr.register_serializer("ora-json", _ReadableJson)
        self._persister = _SafePersister(secrets)
        self._vcr.register_persister(self._persister)

    def path_for(self, capture_id: str) -> Path:
        return cassette_path(self.directory, capture_id)

    @contextmanager
    def use(self, capture_id: str) -> Iterator[Any]:
        """Record or replay this capture's judge calls (yields vcrpy's cassette); refusals become our errors."""
        path = self.path_for(capture_id)
        self._persister.failure = None
        try:
            # A capture that failed keeps no cassette: a partial one would make `once` refuse the retry as drift.
            with self._vcr.use_cassette(str(path), record_on_exception=False) as cassette:
                yield cassette
        except CannotOverwriteExistingCassetteException:
            raise self._refusal(capture_id, path) from None
        failure, self._persister.failure = self._persister.failure, None
        if failure is not None:
            raise failure

    def refusal(self, capture_id: str) -> OraError:
        """The error for a judge call that replay cannot serve."""
        return self._refusal(capture_id, self.path_for(capture_id))

    def _refusal(self, capture_id: str, path: Path) -> OraError:
        if not path.is_file():
            return MissingCassette(
                f"no recorded judge call for {capture_id} (expected {path}); record it with "
                "--ora-record once and the judges' API keys set",
                capture_id=capture_id,
            )
        return PacketDrift(
            f"the cassette {path} was recorded for a different packet or judge request than {capture_id} "
            "sends now (bundle, specification, rubric or judge changed); re-record with --ora-record all "
            "(or delete the file and use --ora-record once)",
            capture_id=capture_id,
        )
