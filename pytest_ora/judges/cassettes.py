"""Replayable judge calls: one vcrpy cassette per capture, credentials never written.

Judge calls go through `CassetteTransport`, an httpx transport that consults the vcrpy
cassette of the capture being judged (the request carries it in its extensions, see
judges/calling.py), so captures judged concurrently in one process each use their own cassette
and nothing is patched globally.

A cassette stores each successful exchange with its request body as a SHA-256 (the packet is
reproducible from the bundle) and its response body as readable JSON (base64 when it is not
UTF-8), with a SHA-256 of each recorded response beside it, so an edited score is refused, not
replayed. Requests match on method, URL and body, so a changed packet or prompt fails loudly
instead of replaying a stale score; the cassette's metadata keeps a digest of each packet field,
so the message names the field that changed. A file that is not a cassette is named as corrupt.

Recording is coordinated through the cassettes directory: a capture that may be recorded is
judged under an exclusive lock file beside its cassette, so two runs sharing --ora-cassettes
never pay twice for one capture (the second waits, then replays what the first recorded).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import json
import os
import stat
import tempfile
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import httpx
from vcr.cassette import Cassette
from vcr.errors import UnhandledHTTPRequestError
from vcr.matchers import host, method, path, port, query, scheme
from vcr.record_mode import RecordMode
from vcr.request import Request

try:
    import fcntl
except ImportError:  # not POSIX: runs sharing a cassettes directory are not coordinated
    fcntl = None  # type: ignore[assignment]

from ..core.errors import CorruptCassette, MissingCassette, OraError, PacketDrift
from ..core.fileio import file_mode
from ..core.filenames import capture_relpath
from ..core.strictjson import lone_surrogate
from ..core.vocabulary import RECORD_MODES
from .calling import CASSETTE_EXTENSION, judge_of
from .transport import MAX_REPLY_BYTES, ReplyTooLarge

__all__ = [
    "REDACTED_HEADERS",
    "CaptureCassette",
    "CassetteLibrary",
    "CassetteTransport",
    "cassette_path",
    "packet_digests",
    "partial_path",
]

REDACTED_HEADERS = (
    "authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "openai-organization",
    "cookie",
    "x-amz-security-token",
    "x-amz-date",
    "x-amz-content-sha256",
    "x-goog-user-project",
)
"""Credential and signature headers (SigV4's date and token change with every signing); never stored, never
matched on: request headers are kept by allowlist, and replay matches method, URL and body only."""
_KEPT_REQUEST_HEADERS = ("content-type", "anthropic-version", "anthropic-beta")
"""Request headers are kept by allowlist: an unknown credential header can never reach a cassette."""
_KEPT_RESPONSE_HEADERS = ("content-type", "request-id", "x-request-id")
_REDACTED_QUERY = frozenset({"key", "api_key", "api-key"})


def _same_body(recorded: Request, sent: Request) -> None:
    """vcrpy matcher: the body digests are equal (bytes compared as stored, no JSON parsing)."""
    if recorded.body != sent.body:
        raise AssertionError("the request body differs from the recorded one")


_MATCH_ON = (method, scheme, host, port, path, query, _same_body)


def cassette_path(directory: Path, capture_id: str) -> Path:
    """cassettes/<family>/<technique>/<configuration>.json for mode:technique/configuration (names as file names: core/filenames)."""
    return directory / capture_relpath(capture_id, ".json")


def partial_path(path: Path) -> Path:
    """Where the valid exchanges of a capture that was not fully judged wait for the next live run."""
    return path.with_name(path.name + ".partial")


def _safe_uri(uri: str) -> str:
    """The URI without credentials: no user info (a basic-auth gateway's password), no key parameter."""
    parts = urlsplit(uri)
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.lower() not in _REDACTED_QUERY]
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, host, parts.path, urlencode(kept), ""))


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
    request.uri = _safe_uri(request.uri)
    return request


def _keep_success(response: dict[str, Any]) -> dict[str, Any] | None:
    """Only 2xx exchanges are kept, so replay never waits out a recorded 429."""
    if not 200 <= int(response["status"]["code"]) < 300:
        return None
    headers = {k: v for k, v in response["headers"].items() if k.lower() in _KEPT_RESPONSE_HEADERS}
    return {**response, "headers": headers}


def _response_digest(response: Any) -> str:
    """SHA-256 of a response as stored (canonical JSON), kept beside it to detect an edit."""
    canonical = json.dumps(response, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8", "surrogatepass")).hexdigest()


class _Corrupt(OraError, ValueError):
    """The cassette text is not a cassette (the persister adds the file's name)."""


class _ReadableJson:
    """vcrpy serializer: JSON cassettes with response bodies stored as JSON, not escaped strings."""

    @staticmethod
    def serialize(data: dict[str, Any]) -> str:
        # Both judges answer concurrently; a stable order keeps re-recordings diff-free. Identical
        # requests keep their relative order (replay serves them in that order).
        data["interactions"].sort(key=lambda i: (str(i["request"]["uri"]), str(i["request"]["body"])))
        for interaction in data["interactions"]:
            response = interaction["response"]
            stored = response["body"]
            text = stored.get("string")
            if isinstance(text, bytes):
                # Not UTF-8 (vcrpy left it as bytes): kept exactly, as base64, never a crash at save.
                response["body"] = {"base64": base64.b64encode(text).decode("ascii")}
            elif isinstance(text, str):
                try:
                    parsed = json.loads(text)
                except (ValueError, RecursionError):
                    parsed = text
                # A lone surrogate escape stays escaped in the text form; decoded it could not be written.
                if parsed is not text and lone_surrogate(parsed) is None:
                    response["body"] = {"json": parsed}
            interaction["response_sha256"] = _response_digest(response)
        return json.dumps(data, indent=1, ensure_ascii=False, sort_keys=True) + "\n"

    @staticmethod
    def deserialize(text: str) -> dict[str, Any]:
        data = json.loads(text)
        if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
            raise _Corrupt("it has no list of interactions")
        for index, interaction in enumerate(data["interactions"], start=1):
            _check_interaction(index, interaction)
            response = interaction["response"]
            recorded = interaction.pop("response_sha256", None)
            # Cassettes written before digests existed carry none and still replay.
            if recorded is not None and recorded != _response_digest(response):
                raise _Corrupt(f"interaction {index}'s recorded response was edited (its SHA-256 no longer matches)")
            stored = response["body"]
            if "json" in stored:
                response["body"] = {"string": json.dumps(stored["json"], ensure_ascii=False)}
            elif "base64" in stored:
                response["body"] = {"string": base64.b64decode(stored["base64"], validate=True)}
        return data


def _check_interaction(index: int, interaction: Any) -> None:
    """Every key replay reads is present, with the right type."""
    request = interaction.get("request") if isinstance(interaction, dict) else None
    response = interaction.get("response") if isinstance(interaction, dict) else None
    if not isinstance(request, dict) or not all(key in request for key in ("method", "uri", "body", "headers")):
        raise _Corrupt(f"interaction {index} has no complete request")
    if not isinstance(response, dict) or not isinstance(response.get("status"), dict):
        raise _Corrupt(f"interaction {index} has no response status")
    if not isinstance(response["status"].get("code"), int) or not isinstance(response.get("headers"), dict):
        raise _Corrupt(f"interaction {index}'s response has no status code or headers")
    body = response.get("body")
    if not isinstance(body, dict) or not any(key in body for key in ("json", "string", "base64")):
        raise _Corrupt(f"interaction {index}'s response has no body")


class _SafePersister:
    """Writes cassettes atomically and refuses to write one that holds a configured secret."""

    def __init__(self, secrets: Sequence[str]) -> None:
        self._secrets = tuple(str.__str__(s) for s in secrets if s)

    def load_cassette(self, cassette_path: str | Path, serializer: Any) -> Any:
        from vcr.persisters.filesystem import CassetteNotFoundError
        from vcr.serialize import deserialize

        path = Path(cassette_path)
        try:
            return deserialize(_read_cassette(path), serializer)
        except FileNotFoundError:
            raise CassetteNotFoundError() from None
        except _Corrupt as error:  # an OraError, but one this persister words with the file name
            raise _corrupt(path, error) from None
        except OraError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError, IndexError, OSError, RecursionError) as error:
            # vcrpy would treat an unreadable file as empty, and the failure would read as packet drift.
            raise _corrupt(path, error) from None

    def save_cassette(self, cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        from vcr.serialize import serialize

        data = serialize(cassette_dict, serializer)
        for secret in self._secrets:
            if secret in data:
                raise OraError(f"refusing to write cassette {cassette_path}: it would contain an API key")
        target = Path(cassette_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        except OSError as error:
            raise _unsaved(target, error) from None
        try:
            os.fchmod(handle, file_mode())  # mkstemp's 0600 would ignore the user's umask
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(data)
            os.replace(temporary, target)
        except OSError as error:
            Path(temporary).unlink(missing_ok=True)
            raise _unsaved(target, error) from None
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


def _unsaved(target: Path, error: OSError) -> OraError:
    """A cassette that could not be written (a full disk, say): the calls were paid, say so plainly."""
    return OraError(
        f"could not write the cassette {target}: {error.strerror or error}; this capture's judge calls were "
        "made but not recorded: free space and re-run (only captures without a cassette are sent again)"
    )


def _read_cassette(path: Path) -> str:
    """A cassette's text; a directory or anything but a regular file is corrupt, never read.

    FileNotFoundError when there is none. Opened without blocking (a FIFO where the cassette belongs
    would otherwise wait for a writer), then checked on the open descriptor: one open, one fstat.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        regular = stat.S_ISREG(os.fstat(descriptor).st_mode)
    except BaseException:
        os.close(descriptor)
        raise
    if not regular:
        os.close(descriptor)
        raise CorruptCassette(
            f"the cassette {path} is not a file (a directory or a special file stands where it belongs); "
            "remove it, then record the capture with --ora-record once"
        )
    with open(descriptor, encoding="utf-8") as stream:
        return stream.read()


def _corrupt(path: Path, error: BaseException) -> CorruptCassette:
    detail = str(error) if isinstance(error, _Corrupt) else _why(error)
    return CorruptCassette(
        f"the cassette {path} is corrupt ({detail}); delete it and record the capture again with "
        "--ora-record once (only this capture is paid for)"
    )


def _why(error: BaseException) -> str:
    if isinstance(error, UnicodeDecodeError):
        return f"not UTF-8 text at byte {error.start}"
    if isinstance(error, json.JSONDecodeError):
        return f"not valid JSON: {error.msg} at line {error.lineno} column {error.colno}"
    if isinstance(error, OSError):
        return f"cannot be read: {error.strerror or error}"
    if isinstance(error, RecursionError):
        return "nested too deeply to read"
    return f"not a cassette: {type(error).__name__} {str(error)[:120]}"


def packet_digests(fields: Mapping[str, Any]) -> dict[str, str]:
    """A SHA-256 of each packet field, kept in the cassette so a refusal can name what changed."""
    return {
        name: "sha256:"
        + hashlib.sha256(
            json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass")
        ).hexdigest()
        for name, value in sorted(fields.items())
    }


class _PartialReader:
    """Loads a capture's partial cassette in place of its (missing) cassette; writes as usual."""

    def __init__(self, persister: _SafePersister) -> None:
        self._persister = persister

    def load_cassette(self, cassette_path: str | Path, serializer: Any) -> Any:
        return self._persister.load_cassette(partial_path(Path(cassette_path)), serializer)

    def save_cassette(self, cassette_path: str | Path, cassette_dict: dict[str, Any], serializer: Any) -> None:
        self._persister.save_cassette(cassette_path, cassette_dict, serializer)


class CaptureCassette:
    """One capture's vcrpy cassette while its judges are called."""

    def __init__(
        self, capture_id: str, cassette: Any, persister: _SafePersister | None = None, resumed: bool = False
    ) -> None:
        self.capture_id = capture_id
        self.resumed = resumed
        """Loaded from a partial cassette: saving writes the whole one even when nothing new was recorded."""
        self.cassette = cassette
        metadata = getattr(cassette, "_metadata", {})
        recorded = metadata.get("packet_sha256") if isinstance(metadata, dict) else None
        self._recorded_fields: dict[str, str] | None = recorded if isinstance(recorded, dict) else None
        self._fields: dict[str, str] | None = None
        self._persister = persister
        self._loaded = len(cassette.data)
        self._judges: dict[int, str] = {}
        """Index in the cassette's data -> label of the judge whose call recorded it."""

    def expect(self, fields: Mapping[str, Any]) -> None:
        """The packet this capture sends now: its field digests are saved with the cassette."""
        self._fields = packet_digests(fields)
        self.cassette._metadata = {**getattr(self.cassette, "_metadata", {}), "packet_sha256": self._fields}

    def changed_fields(self) -> str:
        """Which packet fields differ from the recording, in words."""
        if self._fields is None:
            return "the packet was not described"
        if self._recorded_fields is None:
            return "the cassette predates per-field digests, so the changed field cannot be named"
        changed = sorted(
            name
            for name in set(self._fields) | set(self._recorded_fields)
            if self._fields.get(name) != self._recorded_fields.get(name)
        )
        if not changed:
            return "no packet field changed: the judge request did (judge, model, route, rubric or prompt format)"
        return f"packet field{'s' if len(changed) > 1 else ''} {', '.join(repr(name) for name in changed)} changed"

    def tag(self, label: str) -> None:
        """The exchange just appended was made by this judge."""
        self._judges[len(self.cassette.data) - 1] = label

    def add(self, url: str, body_sha256: str, headers: dict[str, str], body: bytes, label: str) -> None:
        """Record an exchange made outside this process's transport (a batch result) as this judge's."""
        kept = {k: v for k, v in headers.items() if k.lower() in _KEPT_REQUEST_HEADERS}
        recorded = Request("POST", _safe_uri(url), b"sha256:" + body_sha256.encode("ascii"), kept)
        response = httpx.Response(200, headers={"content-type": "application/json"}, content=body)
        self.cassette.append(recorded, _stored(response, body))
        self.tag(label)

    def save_partial(self, valid: Sequence[str]) -> None:
        """Keep what the judges with a valid reply recorded, so a rerun pays only for the others."""
        if self._persister is None or self.cassette.record_mode == RecordMode.ALL:
            return  # `all` re-records every call anyway
        kept = [
            pair
            for index, pair in enumerate(self.cassette.data)
            if index < self._loaded or self._judges.get(index) in valid
        ]
        if len(kept) > self._loaded:
            data = {"requests": [request for request, _ in kept], "responses": [response for _, response in kept]}
            self._persister.save_cassette(partial_path(self.path), data, _ReadableJson)

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
            f"{self.capture_id} sends now ({self.changed_fields()}): re-record with --ora-record new_episodes "
            f'-k "{self.capture_id}" (only this capture is sent again; or delete the file and use '
            "--ora-record once); --ora-record all would pay again for every selected capture",
            capture_id=self.capture_id,
        )

    def save(self) -> None:
        """Write what was recorded; called only when the capture was judged, so a failure keeps no partial file."""
        # vcrpy's context manager calls this same method on exit; pytest-ora scopes cassettes itself.
        self.cassette._save(force=self.resumed)
        partial_path(self.path).unlink(missing_ok=True)


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

    def may_record_any(self) -> bool:
        """Whether any judge call of this run may go to the network: not in a replay (`none`)."""
        return self.mode != "none"

    def may_record(self, capture_id: str) -> bool:
        """Whether judging this capture may record (and so pay for) a call."""
        return self.mode in ("new_episodes", "all") or (self.mode == "once" and not self.path_for(capture_id).exists())

    @contextlib.asynccontextmanager
    async def hold(self, capture_id: str) -> AsyncIterator[None]:
        """Judge a capture that may be recorded under its lock file, shared by every run on this directory."""
        if not self.may_record(capture_id) or fcntl is None:
            yield
            return
        path = self.path_for(capture_id)
        lock = await _CaptureLock.acquire(path.with_name(f".{path.name}.lock"))
        try:
            # A run killed mid-save leaves its temporary file; only the lock holder writes this cassette.
            for stale in path.parent.glob(f".{path.name}.*.tmp"):
                stale.unlink(missing_ok=True)
            yield
        finally:
            lock.release()

    def open(self, capture_id: str) -> CaptureCassette:
        """Load (or start) the capture's cassette; a directory where it belongs is refused before any call;
        a live run resumes from the capture's partial cassette, if any."""
        path = self.path_for(capture_id)
        try:
            regular = stat.S_ISREG(os.stat(path).st_mode)  # a replay's case, in one system call
        except OSError:
            regular = False
        if not regular:
            _refuse_what_stands_in_the_way(self.directory, path, capture_id)
        mode, persister = self.mode, self._persister
        persister_used: _SafePersister | _PartialReader = persister
        if mode in ("once", "new_episodes") and not regular and partial_path(path).is_file():
            # Replay the judges that answered validly last time; record the rest.
            mode, persister_used = "new_episodes", _PartialReader(persister)
        cassette = Cassette.load(
            path=str(path),
            serializer=_ReadableJson,
            persister=persister_used,
            record_mode=RecordMode(mode),
            match_on=_MATCH_ON,
            before_record_request=_reduce_request,
            before_record_response=_keep_success,
            # `all` is a clean re-record: interactions the new run did not make are dropped.
            drop_unused_requests=self.mode == "all",
        )
        return CaptureCassette(capture_id, cassette, self._persister, persister_used is not persister)


def _refuse_what_stands_in_the_way(directory: Path, path: Path, capture_id: str) -> None:
    """CorruptCassette when something other than a file (the cassette) or a directory (its folders) is there."""
    for place in (path, *path.parents):
        if place == directory or place in directory.parents:
            break
        if place.exists() and not (place.is_file() if place == path else place.is_dir()):
            raise CorruptCassette(
                f"cannot use the cassette {path}: {place} is not a {'file' if place == path else 'directory'}; "
                "remove it, then record the capture with --ora-record once (nothing was sent)",
                capture_id=capture_id,
            )


class _CaptureLock:
    """An exclusive flock on a lock file; the kernel drops it if the process dies (no stale lock)."""

    def __init__(self, path: Path, descriptor: int) -> None:
        self.path = path
        self._descriptor = descriptor

    @classmethod
    async def acquire(cls, path: Path) -> _CaptureLock:
        delay = 0.02
        while True:
            path.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(descriptor)
                await asyncio.sleep(delay)  # polled, so a wait never blocks the event loop or a thread
                delay = min(delay * 2, 0.5)
                continue
            # The previous holder unlinks the file as it releases: a lock on an unlinked file is no lock.
            try:
                current = os.stat(path).st_ino == os.fstat(descriptor).st_ino
            except FileNotFoundError:
                current = False
            if current:
                return cls(path, descriptor)
            os.close(descriptor)

    def release(self) -> None:
        self.path.unlink(missing_ok=True)
        os.close(self._descriptor)


class CassetteTransport(httpx.AsyncBaseTransport):
    """Serves judge calls from the active capture's cassette, or sends and records them."""

    def __init__(self, network: Callable[[], httpx.AsyncBaseTransport]) -> None:
        # How to make the network's transport, on the first call that goes out: a replay never makes
        # one (its SSL context and connection pool cost each process tens of milliseconds).
        self._make = network
        self._inner: httpx.AsyncBaseTransport | None = None

    def _network(self) -> httpx.AsyncBaseTransport:
        if self._inner is None:
            self._inner = self._make()
        return self._inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        active = request.extensions.get(CASSETTE_EXTENSION)
        if not isinstance(active, CaptureCassette):
            return await self._network().handle_async_request(request)
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
        response = await self._network().handle_async_request(request)
        try:
            body_bytes = await _read_capped(response, request)  # decoded: gzip is undone here, once
        finally:
            await response.aclose()
        stored = _stored(response, body_bytes)
        before = len(cassette.data)
        cassette.append(recorded, stored)
        judge = judge_of(request)
        # Only successful exchanges are kept: a refused one must not take the tag of the last kept one.
        if judge is not None and len(cassette.data) > before:
            active.tag(judge.label)
        return _response(stored, request)

    async def aclose(self) -> None:
        if self._inner is not None:
            await self._inner.aclose()


async def _read_capped(response: httpx.Response, request: httpx.Request) -> bytes:
    """The decoded body, read in chunks and refused past MAX_REPLY_BYTES (a decompression bomb included)."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > MAX_REPLY_BYTES:
            raise ReplyTooLarge(
                f"the reply body passed {MAX_REPLY_BYTES} bytes, far beyond any judge reply; nothing was kept",
                request=request,
            )
        chunks.append(chunk)
    return b"".join(chunks)


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
