"""The loopback reference judge: a TEST DOUBLE speaking the providers' wire formats, not a judge.

A real HTTP server on 127.0.0.1 that answers judge calls the way the Anthropic Messages,
OpenAI Chat Completions, OpenRouter (OpenAI-compatible) and Gemini generateContent APIs do:
same paths, auth headers, response bodies, headers and error bodies as the recorded fixtures.
The wire formats live in `wire.py`; the scores come from `scoring.judge_reply`, a deterministic
function of the packet text, so the same request bytes always get the same response bytes.
Faults (rate limits, 5xx, dropped connections, slow replies, invalid or quirky replies) can be
injected to test the clients.

    with ReferenceJudge(keys={"anthropic": "k1"}) as judge:
        judge.inject(Fault("429", retry_after="1"))
        url = judge.route("anthropic")   # http://127.0.0.1:PORT/v1/messages

Run standalone: python -m pytest_ora.testing.server --port 8765 --latency 0.5 [--rpm 120]
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import math
import random
import re
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from ..core.vocabulary import PROVIDERS
from .answers import asks_plain_text, plain_answer
from .batch import BatchStore
from .cloud import AZURE, AZURE_RESPONSES, BEDROCK, VERTEX_CLAUDE, VERTEX_GEMINI
from .judgescores import CRITERIA, judge_reply, reply_shape
from .promptcache import PromptCache
from .serverlimits import Decision, RateLimiter
from .wire import (
    BAD_GATEWAY,
    RESPONSES,
    WIRES,
    BadRequest,
    Call,
    Response,
    Wire,
    apply_quirk,
    compact_json,
    estimate_tokens,
    rate_limit_headers,
    unparsable_message,
)

__all__ = [
    "BLANK_FAULTS",
    "FAULT_KINDS",
    "HOSTILE_FAULTS",
    "INVALID_FAULTS",
    "PROVIDERS",
    "QUIRK_FAULTS",
    "STATUS_FAULTS",
    "TRANSPORT_FAULTS",
    "Fault",
    "Received",
    "ReferenceJudge",
    "main",
]


STATUS_FAULTS: tuple[str, ...] = ("401", "408", "429", "500", "502", "503", "529")
TRANSPORT_FAULTS: tuple[str, ...] = ("drop", "slow")
INVALID_FAULTS: tuple[str, ...] = (
    "out_of_range",
    "missing_criterion",
    "non_numeric",
    "wrong_echo",
    "truncated",
    "refusal",
    "empty",
    "prose",
)
BLANK_FAULTS: tuple[str, ...] = ("blank_note", "blank_impression")
"""A valid-looking reply whose criterion note (Fault.criterion) or impression is only whitespace: invalid."""
QUIRK_FAULTS: tuple[str, ...] = ("gzip", "leading_whitespace", "thinking_first", "text_before_tool", "fenced", "pretty")
HOSTILE_FAULTS: tuple[str, ...] = ("rewrite", "trickle", "bogus_gzip")
"""A mutating proxy's faults: a 2xx body rewritten by `Fault.rewrite`, a body sent one byte per
`Fault.delay` seconds, a `content-encoding: gzip` header on a body that is not gzip."""
FAULT_KINDS: tuple[str, ...] = (
    STATUS_FAULTS + TRANSPORT_FAULTS + INVALID_FAULTS + BLANK_FAULTS + QUIRK_FAULTS + HOSTILE_FAULTS
)


@dataclass(frozen=True)
class Fault:
    """A misbehaviour for the next matching judge calls (POST requests); see FAULT_KINDS."""

    kind: str
    retry_after: str | None = None
    """retry-after header (seconds) sent with a status fault; none by default."""
    retry_after_ms: str | None = None
    """retry-after-ms header sent with a status fault; none by default."""
    times: int = 1
    """How many matching calls get the fault; ignored when duration is set."""
    duration: float | None = None
    """Seconds the fault stays active after inject(), for every matching call (a 429 storm)."""
    delay: float = 5.0
    """Seconds a slow fault waits before replying."""
    criterion: str = "fidelity"
    """The criterion an invalid-reply fault (out_of_range, missing_criterion, non_numeric) spoils."""
    provider: str | None = None
    """Only calls to this provider's route; any when None."""
    model: str | None = None
    """Only calls for this model id; any when None."""
    rewrite: Callable[[bytes], bytes] | None = field(default=None, compare=False)
    """For a rewrite fault: the 2xx body as sent -> the body to send instead."""

    def __post_init__(self) -> None:
        if self.kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {self.kind!r}; known: {', '.join(FAULT_KINDS)}")
        if self.provider is not None and self.provider not in PROVIDERS:
            raise ValueError(f"unknown provider {self.provider!r}; known: {', '.join(PROVIDERS)}")
        if self.times < 1:
            raise ValueError(f"times must be at least 1 (got {self.times})")
        if self.delay < 0:
            raise ValueError(f"delay must be zero or more seconds (got {self.delay})")
        if self.duration is not None and self.duration <= 0:
            raise ValueError(f"duration must be positive seconds (got {self.duration})")
        if self.criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {self.criterion!r}; known: {', '.join(CRITERIA)}")


@dataclass(frozen=True)
class Received:
    """One request as the server received it, for assertions."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: bytes

    def json(self) -> Any:
        """The body parsed as JSON."""
        return json.loads(self.body)


@dataclass
class _Armed:
    """A queued fault and what is left of it."""

    fault: Fault
    remaining: int
    until: float | None

    def active(self, now: float) -> bool:
        return self.until > now if self.until is not None else self.remaining > 0


def _spoil(reply: dict[str, Any], fault: Fault | None) -> dict[str, Any]:
    """The reply object with an invalid-reply fault applied."""
    if fault is None:
        return reply
    scores = dict(reply["scores"])
    if fault.kind == "out_of_range":
        scores[fault.criterion] = 11.0
    elif fault.kind == "missing_criterion":
        del scores[fault.criterion]
    elif fault.kind == "non_numeric":
        scores[fault.criterion] = "seven"
    elif fault.kind == "wrong_echo":
        return {**reply, "entry_key": f"{reply['entry_key']}-other"}
    elif fault.kind == "blank_note":
        return {**reply, "notes": {**reply["notes"], fault.criterion: "  "}}
    elif fault.kind == "blank_impression":
        return {**reply, "impression": ""}
    else:
        return reply
    return {**reply, "scores": scores}


# Status faults: status code -> (problem, message).
_STATUS = {
    "401": (401, "auth", ""),
    "408": (408, "timeout", "Request timed out."),
    "429": (429, "rate_limit", "Rate limit reached: the loopback reference judge is throttling this key."),
    "500": (500, "server", "Internal server error"),
    "502": (502, "server", "Bad gateway"),
    "503": (503, "unavailable", "The model is overloaded. Please try again later."),
    "529": (529, "overloaded", "Overloaded"),
}


# --- routing -------------------------------------------------------------------------------

_GOOGLE_GENERATE = re.compile(r"^/v1beta/models/(?P<model>[^/:]+):generateContent$")
_GOOGLE_MODEL = re.compile(r"^/v1beta/models(?:/(?P<model>[^/:]+))?$")
_OPENAI_MODEL = re.compile(r"^/v1/models(?:/(?P<model>.+))?$")
_OPENROUTER_MODEL = re.compile(r"^/openrouter/api/v1/models(?:/(?P<model>.+))?$")
_AZURE_DEPLOYMENT = re.compile(r"^/openai/deployments/(?P<model>[^/]+)/chat/completions$")
_AZURE_MODELS = re.compile(r"^/openai(?:/v1)?/models(?:/(?P<model>[^/]+))?$")
_AZURE_V1 = {"/openai/v1/chat/completions": AZURE, "/openai/v1/responses": AZURE_RESPONSES}
_AZURE_API_VERSION = "2024-10-21"
_BEDROCK_CONVERSE = re.compile(r"^/model/(?P<model>[^/]+)/converse$")
_VERTEX_PREFIX = r"^/v1(?:beta1)?/projects/[^/]+/locations/[^/]+/publishers/"
_VERTEX_GENERATE = re.compile(_VERTEX_PREFIX + r"google/models/(?P<model>[^/:]+):generateContent$")
_VERTEX_RAW_PREDICT = re.compile(_VERTEX_PREFIX + r"anthropic/models/(?P<model>[^/:]+):rawPredict$")
_VERTEX_MODEL = re.compile(r"^/v1(?:beta1)?/publishers/(?:google|anthropic)/models/(?P<model>[^/:]+)$")
_BATCH_PREFIXES = ("/v1/messages/batches", "/v1/batches", "/v1/files")
_RESPONSES_PATH = "/v1/responses"
_POST_ROUTES = {
    "/v1/messages": "anthropic",
    "/v1/chat/completions": "openai",
    "/openrouter/api/v1/chat/completions": "openai-compatible",
}


class _Server(ThreadingHTTPServer):
    """ThreadingHTTPServer that tracks open connections so stop() can close keep-alive ones."""

    daemon_threads = True
    request_queue_size = 128  # benchmarks open 32+ connections at once

    def __init__(self, address: tuple[str, int], judge: ReferenceJudge) -> None:
        self.judge = judge
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout, test over) is expected; anything else is worth seeing.
        if not isinstance(sys.exc_info()[1], OSError):
            super().handle_error(request, client_address)


def _biased(reply: dict[str, Any], bias: Mapping[str, float], shape: Any) -> dict[str, Any]:
    """The reply with `bias` added to the named criteria's scores, within the scale."""
    scores = reply.get("scores")
    if not bias or not isinstance(scores, dict):
        return reply
    moved = {
        name: min(shape.high, max(shape.low, value + bias[name])) if name in bias else value
        for name, value in scores.items()
    }
    return {**reply, "scores": moved}


def _jittered(reply: dict[str, Any], jitter: float, key: str, shape: Any) -> dict[str, Any]:
    """The reply with seeded normal noise added to every score, on the scale's step and within the scale."""
    scores = reply.get("scores")
    if jitter <= 0 or not isinstance(scores, dict):
        return reply
    moved = {}
    for name, value in scores.items():
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            moved[name] = value
            continue
        draw = random.Random(f"{key}:{name}").gauss(0.0, jitter)
        step = shape.step or 1.0
        noisy = min(shape.high, max(shape.low, value + round(draw / step) * step))
        moved[name] = int(noisy) if isinstance(value, int) and float(noisy).is_integer() else noisy
    return {**reply, "scores": moved}


class _Handler(BaseHTTPRequestHandler):
    """Reads one request, asks the judge, writes the response (or nothing, for a drop)."""

    protocol_version = "HTTP/1.1"
    # Headers and body go out in separate writes; Nagle plus delayed ACK would add ~40 ms a reply.
    disable_nagle_algorithm = True
    server_version = "ora-reference-judge/1"
    sys_version = ""
    server: _Server

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def _body(self) -> bytes:
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            chunks = []
            while (size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)) > 0:
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                pass
            return b"".join(chunks)
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def _serve(self) -> None:
        body = self._body()
        headers = {name.lower(): value for name, value in self.headers.items()}
        response = self.server.judge._handle(Received(self.command, self.path, headers, body))
        if response is None:
            # A dropped connection: the body was read, so closing sends FIN, not RST.
            self.close_connection = True
            return
        self.send_response(response.status)
        for name, value in response.headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(response.body)))
        self.end_headers()
        if isinstance(response, _Trickled):
            self.wfile.flush()
            for index in range(len(response.body)):
                if self.server.judge._stopping.wait(response.pause):
                    return
                self.wfile.write(response.body[index : index + 1])
                self.wfile.flush()
            return
        self.wfile.write(response.body)

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.judge.verbose:
            super().log_message(format, *args)


class ReferenceJudge:
    """A loopback HTTP server answering judge calls in four providers' wire formats (a test double)."""

    def __init__(
        self,
        keys: Mapping[str, str] | None = None,
        latency: float = 0.0,
        *,
        models: Iterable[str] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        verbose: bool = False,
        rpm: float | None = None,
        rate_headers: bool = True,
        batch_delay: float = 0.5,
        batch_expire: bool = False,
        prefer_first: bool = False,
        bias: Mapping[str, float] | None = None,
        jitter: float = 0.0,
        jitter_seed: int = 0,
    ) -> None:
        """keys: provider -> the one accepted key (providers not listed, or keys=None, accept any
        non-empty key); models: an allowlist of model ids (others get 404), or None for any;
        rpm: requests per minute per provider and key (a token bucket, see ratelimit.py), or None;
        rate_headers: False for a header-less limit (no rate-limit headers; a 429 says retry-after only);
        prefer_first: a position-biased judge that names the first compared response the winner;
        bias: criterion -> points added to every score of it (kept on the scale): a judge built to be
        biased, to show what calibration against people finds;
        jitter: a noisy judge on purpose: every score moves by a normal draw of this standard deviation
        (points, rounded to the scale's step, kept on the scale), drawn from `jitter_seed` and the
        request's bytes, so the same request gets the same reply and a changed one (another judge
        sample) another draw."""
        unknown = sorted(set(keys or {}) - set(PROVIDERS))
        if unknown:
            raise ValueError(f"unknown provider in keys: {', '.join(unknown)}; known: {', '.join(PROVIDERS)}")
        self.keys = dict(keys or {})
        self.latency = latency
        self.models = tuple(models) if models is not None else None
        self.verbose = verbose
        self.rate_limit = RateLimiter(rpm, announce=rate_headers) if rpm is not None else None
        self.batches = BatchStore(self._answer_offline, batch_delay, batch_expire, base_url=lambda: self.url)
        """OpenAI Files + Batch and Anthropic Message Batches (see batch.py)."""
        self.prefer_first = prefer_first
        self.bias = dict(bias or {})
        if not (jitter >= 0 and math.isfinite(jitter)):
            raise ValueError(f"jitter is a standard deviation in points, 0 or more, got {jitter!r}")
        self.jitter, self.jitter_seed = jitter, jitter_seed
        self.cache = PromptCache()
        """Prompt-cache writes and reads, accounted as Anthropic and OpenAI report them (see promptcache.py)."""
        self._address = (host, port)
        self._lock = threading.Lock()
        self._faults: list[_Armed] = []
        self._requests: list[Received] = []
        self._calls = 0
        self._in_flight = 0
        self.peak_in_flight = 0
        """Most judge calls (POST requests) being answered at once so far."""
        self._stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -------------------------------------------------------------------------

    def start(self) -> ReferenceJudge:
        """Bind and serve in a daemon thread; returns self."""
        if self._server is not None:
            return self
        self._stopping.clear()
        self._server = _Server(self._address, self)
        # A short poll interval keeps stop() quick; the loop is idle otherwise.
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, name="ora-reference-judge", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake sleeping handlers and close every open connection."""
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()
        server.shutdown()
        with server.connections_lock:
            open_connections = list(server.connections)
        for connection in open_connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> ReferenceJudge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- public view -----------------------------------------------------------------------

    @property
    def url(self) -> str:
        """http://127.0.0.1:PORT"""
        if self._server is None:
            raise RuntimeError("the reference judge is not running; use it as a context manager or call start()")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def route(self, provider: str, model: str | None = None, api: str | None = None) -> str:
        """The full endpoint URL for a provider; google, bedrock and vertex need the model; openai with api="responses"
        is the Responses API; azure-openai is a deployment route (the model as the deployment), api="v1" its v1
        chat route, api="responses" its v1 Responses route; vertex with a claude-* model is Claude's rawPredict."""
        if provider in ("azure-openai", "bedrock", "vertex"):
            return self._cloud_route(provider, model, api)
        if api == "responses":
            if provider != "openai":
                raise ValueError("only openai serves the Responses API: route('openai', api='responses')")
            return f"{self.url}{_RESPONSES_PATH}"
        if provider == "google":
            if not model:
                raise ValueError("the google route names the model: route('google', model)")
            return f"{self.url}/v1beta/models/{model}:generateContent"
        paths = {path_provider: path for path, path_provider in _POST_ROUTES.items()}
        if provider not in paths:
            raise ValueError(f"unknown provider {provider!r}; known: {', '.join(PROVIDERS)}")
        return self.url + paths[provider]

    def _cloud_route(self, provider: str, model: str | None, api: str | None) -> str:
        if provider == "azure-openai":
            if api == "responses":
                return f"{self.url}/openai/v1/responses"
            if api == "v1":
                return f"{self.url}/openai/v1/chat/completions"
            if not model:
                raise ValueError("the azure-openai deployment route names the deployment: route('azure-openai', model)")
            return f"{self.url}/openai/deployments/{model}/chat/completions?api-version={_AZURE_API_VERSION}"
        if not model:
            raise ValueError(f"the {provider} route names the model: route({provider!r}, model)")
        if provider == "bedrock":
            return f"{self.url}/model/{quote(model, safe='{}')}/converse"  # {model}, as the listing prints it, kept
        location = "/v1/projects/ora-test/locations/us-central1/publishers"
        if model.startswith("claude"):
            return f"{self.url}{location}/anthropic/models/{model}:rawPredict"
        return f"{self.url}{location}/google/models/{model}:generateContent"

    def inject(self, *faults: Fault) -> None:
        """Queue faults; each applies to the next matching judge calls, in queue order."""
        now = time.monotonic()
        with self._lock:
            for fault in faults:
                until = now + fault.duration if fault.duration is not None else None
                self._faults.append(_Armed(fault, fault.times, until))

    def pending(self) -> list[Fault]:
        """Faults still queued and active."""
        now = time.monotonic()
        with self._lock:
            return [armed.fault for armed in self._faults if armed.active(now)]

    def reset(self) -> None:
        """Forget queued faults, received requests and the call count."""
        with self._lock:
            self._faults.clear()
            self._requests.clear()
            self._calls = 0

    @property
    def requests(self) -> list[Received]:
        """Every request received so far, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def calls(self) -> int:
        """How many judge calls (POST requests) arrived, faulted ones included."""
        with self._lock:
            return self._calls

    # --- request handling ------------------------------------------------------------------

    def _handle(self, request: Received) -> Response | None:
        with self._lock:
            self._requests.append(request)
            if request.method == "POST":
                self._calls += 1
                self._in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self._in_flight)
        try:
            return self._route(request)
        except Exception as error:
            traceback.print_exc()
            body = {"error": {"message": f"reference judge bug: {error!r}", "type": "server_error", "code": 500}}
            return Response(500, (("content-type", "application/json"),), compact_json(body))
        finally:
            if request.method == "POST":
                with self._lock:
                    self._in_flight -= 1

    # C901: the reference judge's one dispatch over every provider's paths, in the order a real server matches them.
    def _route(self, request: Received) -> Response | None:  # noqa: C901
        parts = urlsplit(request.path)
        path, query = unquote(parts.path), parse_qs(parts.query)
        seed = hashlib.sha256(request.path.encode() + b"\n" + request.body).hexdigest()
        if path.startswith(_BATCH_PREFIXES):
            wire = WIRES["anthropic" if path.startswith("/v1/messages/batches") else "openai"]
            refused = self._authenticate(wire, request, query, seed)
            if refused is not None:
                return refused
            answer = self.batches.handle(request.method, path, request.headers, request.body)
            if answer is not None:
                return answer
        if request.method == "POST":
            if path in _POST_ROUTES:
                return self._generate(WIRES[_POST_ROUTES[path]], request, query, None, seed)
            if path == _RESPONSES_PATH:
                return self._generate(RESPONSES, request, query, None, seed)
            if match := _GOOGLE_GENERATE.match(path):
                return self._generate(WIRES["google"], request, query, match.group("model"), seed)
            cloud = self._cloud_call(path, query)
            if cloud is not None and cloud[0] is AZURE and cloud[1] is not None and "api-version" not in query:
                return _azure_no_version()
            if cloud is not None:
                return self._generate(cloud[0], request, query, cloud[1], seed)
        elif request.method == "GET":
            if _AZURE_MODELS.match(path) and not path.startswith("/openai/v1/") and "api-version" not in query:
                return _azure_no_version()
            for pattern, wire in (
                (_AZURE_MODELS, AZURE),
                (_VERTEX_MODEL, VERTEX_GEMINI),
                (_GOOGLE_MODEL, WIRES["google"]),
                (_OPENROUTER_MODEL, WIRES["openai-compatible"]),
                (_OPENAI_MODEL, self._models_wire(request.headers)),
            ):
                if match := pattern.match(path):
                    return self._model(wire, request, query, match.group("model"), seed)
        return self._no_route(request.method, path)

    def _cloud_call(self, path: str, query: Mapping[str, list[str]]) -> tuple[Wire, str | None] | None:
        """The cloud wire format a POST path speaks, and the model the path names (None: the body names it)."""
        if path in _AZURE_V1:
            return _AZURE_V1[path], None
        if match := _AZURE_DEPLOYMENT.match(path):
            return AZURE, match.group("model")
        if match := _BEDROCK_CONVERSE.match(path):
            return BEDROCK, match.group("model")
        if match := _VERTEX_GENERATE.match(path):
            return VERTEX_GEMINI, match.group("model")
        if match := _VERTEX_RAW_PREDICT.match(path):
            return VERTEX_CLAUDE, match.group("model")
        return None

    def _models_wire(self, headers: Mapping[str, str]) -> Wire:
        # Anthropic and OpenAI share GET /v1/models: the headers say who is asking.
        anthropic = "anthropic-version" in headers or "x-api-key" in headers
        return WIRES["anthropic" if anthropic else "openai"]

    def _no_route(self, method: str, path: str) -> Response:
        body = {"error": {"message": f"no route for {method} {path}", "type": "not_found", "code": 404}}
        return Response(404, (("content-type", "application/json"),), compact_json(body))

    def _authenticate(
        self, wire: Wire, request: Received, query: Mapping[str, list[str]], seed: str
    ) -> Response | None:
        key = wire.key(request.headers, query)
        expected = self.keys.get(wire.name)
        if key and (expected is None or key == expected):
            return None
        return wire.error(wire.auth_status(key), "auth" if key else "auth_missing", wire.auth_message(key), seed)

    def _model(
        self, wire: Wire, request: Received, query: Mapping[str, list[str]], model: str | None, seed: str
    ) -> Response:
        refused = self._authenticate(wire, request, query, seed)
        if refused is not None:
            return refused
        try:
            wire.check_headers(request.headers)
        except BadRequest as problem:
            return wire.error(problem.status, "bad_request", problem.message, seed, refused=problem)
        if model is None:
            payload = wire.model_list(self.models or ())
        elif self.models is not None and model not in self.models:
            status, message = wire.not_found(model)
            return wire.error(status, "not_found" if status == 404 else "bad_request", message, seed)
        else:
            payload = wire.model_info(model)
        content_type = "application/json; charset=UTF-8" if wire.name in ("google", "vertex") else "application/json"
        return Response(200, (("content-type", content_type),), compact_json(payload))

    def _generate(
        self, wire: Wire, request: Received, query: Mapping[str, list[str]], model: str | None, seed: str
    ) -> Response | None:
        refused = self._authenticate(wire, request, query, seed)
        if refused is not None:
            return refused
        try:
            wire.check_headers(request.headers)
            try:
                body = json.loads(request.body.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                raise BadRequest(unparsable_message(wire.name)) from None
            call = wire.parse(body, model, seed, len(request.body))
        except BadRequest as problem:
            return wire.error(problem.status, "bad_request", problem.message, seed, refused=problem)
        if self.models is not None and call.model not in self.models:
            status, message = wire.not_found(call.model)
            return wire.error(status, "not_found" if status == 404 else "bad_request", message, seed)
        decision = None
        if self.rate_limit is not None:
            decision = self.rate_limit.take(wire.name, wire.key(request.headers, query) or "")
            if not decision.allowed:
                message = _STATUS["429"][2]
                return wire.error(429, "rate_limit", message, seed, self._limit_headers(decision, wire))
        if self.latency > 0:
            self._stopping.wait(self.latency)
        response = self._answer(wire, request, query, call, seed, body)
        if decision is not None and response is not None and response.status == 200:
            if self.rate_limit is not None and not self.rate_limit.announce:
                response = _unannounced(response)
            else:
                response = _announce(response, self._limit_headers(decision, wire))
        return response

    def _limit_headers(self, decision: Decision, wire: Wire) -> list[tuple[str, str]]:
        assert self.rate_limit is not None
        return decision.headers(wire.name, announce=self.rate_limit.announce)

    def _answer_offline(
        self, provider: str, body: bytes, headers: Mapping[str, str], path: str | None = None
    ) -> Response:
        """A batch request's answer: what the same request sent live would get, without latency or rate limit."""
        wire = RESPONSES if path == _RESPONSES_PATH else WIRES[provider]
        path = path or ("/v1/messages" if provider == "anthropic" else "/v1/chat/completions")
        seed = hashlib.sha256(path.encode() + b"\n" + body).hexdigest()
        parsed = json.loads(body)
        try:
            call = wire.parse(parsed, None, seed, len(body))
        except BadRequest as problem:
            return wire.error(problem.status, "bad_request", problem.message, seed, refused=problem)
        response = self._answer(wire, Received("POST", path, dict(headers), body), {}, call, seed, parsed)
        return response if response is not None else wire.error(500, "server", "dropped", seed)

    def _answer(
        self, wire: Wire, request: Received, query: Mapping[str, list[str]], call: Call, seed: str, body: Any
    ) -> Response | None:
        """The response to a parsed call (`body` the request's JSON): faults applied, the judge's reply."""
        fault = self._take_fault(call)
        if fault is not None and fault.kind in STATUS_FAULTS:
            return self._status_fault(wire, fault, wire.key(request.headers, query), seed)
        if fault is not None and fault.kind == "drop":
            return None
        if fault is not None and fault.kind == "slow":
            self._stopping.wait(fault.delay)
        spoiler = fault if fault is not None and fault.kind in INVALID_FAULTS + BLANK_FAULTS else None
        use = self.cache.account(call.provider, body, call.input_tokens)
        call = replace(call, cache_read=use.read, cache_write=use.written)
        kind = fault.kind if fault is not None else None
        limit = call.max_tokens
        if asks_plain_text(body):  # a candidate's call: a plain-text answer, built from the prompt
            call = replace(call, answer=plain_answer(call.text, call.model))
            reply: dict[str, Any] = {}
            size = estimate_tokens(call.answer or "")
        else:
            shape = reply_shape(body)
            reply = judge_reply(call.text, call.model, call.images, shape, self.prefer_first)
            reply = _spoil(
                _jittered(_biased(reply, self.bias, shape), self.jitter, f"{self.jitter_seed}:{seed}", shape), spoiler
            )
            size = estimate_tokens(compact_json(reply).decode())
        if kind is None and limit is not None and size > limit:
            kind = "truncated"  # the request's own output limit cuts the reply, as a real model's would
        response = apply_quirk(wire.success(call, reply, kind, self.latency), kind)
        return _hostile(response, fault)

    def _take_fault(self, call: Call) -> Fault | None:
        """The first queued fault matching this call, consumed once; expired ones are dropped."""
        now = time.monotonic()
        with self._lock:
            self._faults = [armed for armed in self._faults if armed.active(now)]
            for armed in self._faults:
                fault = armed.fault
                if fault.provider not in (None, call.provider) or fault.model not in (None, call.model):
                    continue
                if armed.until is None:
                    armed.remaining -= 1
                return fault
        return None

    def _status_fault(self, wire: Wire, fault: Fault, key: str | None, seed: str) -> Response:
        status, problem, message = _STATUS[fault.kind]
        extra: list[tuple[str, str]] = []
        if fault.retry_after is not None:
            extra.append(("retry-after", fault.retry_after))
        if fault.retry_after_ms is not None:
            extra.append(("retry-after-ms", fault.retry_after_ms))
        if problem == "auth":
            message = wire.auth_message(key)
        if status == 429:
            extra += rate_limit_headers(wire.name, _wait_seconds(fault))
        if status == 502 and wire.name in ("anthropic", "openai", "google"):
            # A gateway in front of the API answers, in HTML, not the API's JSON.
            headers = (("content-type", "text/html"), *tuple(extra))
            return Response(502, headers, BAD_GATEWAY)
        return wire.error(status, problem, message, seed, extra)


def _azure_no_version() -> Response:
    """Azure's answer to a deployment route without the api-version query."""
    body = {"error": {"code": "404", "message": "Resource not found"}}
    return Response(404, (("content-type", "application/json"),), compact_json(body))


@dataclass(frozen=True)
class _Trickled(Response):
    """A response whose body is written one byte every `pause` seconds."""

    pause: float = 1.0


def _hostile(response: Response, fault: Fault | None) -> Response:
    """The success response as a mutating proxy would pass it on."""
    if fault is None or fault.kind not in HOSTILE_FAULTS:
        return response
    if fault.kind == "rewrite":
        assert fault.rewrite is not None, "a rewrite fault needs Fault.rewrite"
        return replace(response, body=fault.rewrite(response.body))
    if fault.kind == "bogus_gzip":
        return replace(response, headers=(*response.headers, ("content-encoding", "gzip")))
    return _Trickled(response.status, response.headers, response.body, pause=fault.delay)


def _announce(response: Response, headers: Sequence[tuple[str, str]]) -> Response:
    """The response with its rate-limit headers replaced by the bucket's real state."""
    names = {name for name, _ in headers}
    kept = tuple(item for item in response.headers if item[0] not in names)
    return Response(response.status, kept + tuple(headers), response.body)


def _unannounced(response: Response) -> Response:
    """The response without any rate-limit header (a header-less limit announces nothing)."""
    kept = tuple(item for item in response.headers if "ratelimit" not in item[0].lower())
    return Response(response.status, kept, response.body)


def _wait_seconds(fault: Fault) -> float:
    """The wait a fault's retry headers announce, for the reset headers; 1 s when none parses."""
    for value, scale in ((fault.retry_after_ms, 0.001), (fault.retry_after, 1.0)):
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            continue
    return 1.0


# --- command line --------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The reference judge's command line (the CLI reference is generated from it)."""
    parser = argparse.ArgumentParser(
        prog="python -m pytest_ora.testing",
        description="Loopback reference judge (a test double speaking the providers' wire formats).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind")
    parser.add_argument("--port", type=int, default=0, help="port to bind (0 picks a free one)")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every judge call")
    parser.add_argument(
        "--key", action="append", default=[], metavar="PROVIDER=KEY", help="the one key a provider accepts"
    )
    parser.add_argument("--model", action="append", default=None, metavar="MODEL", help="allow only these model ids")
    parser.add_argument("--verbose", action="store_true", help="log every request")
    parser.add_argument("--rpm", type=float, default=None, help="requests per minute per provider and key (429 beyond)")
    parser.add_argument("--rps", type=float, default=None, help="requests per second per provider and key (--rpm x 60)")
    parser.add_argument(
        "--rate-headers",
        choices=("provider", "none"),
        default="provider",
        help="what a rate-limited response announces: the providers' headers, or none (a 429's retry-after only)",
    )
    parser.add_argument("--batch-delay", type=float, default=0.5, help="seconds until a submitted batch has ended")
    parser.add_argument(
        "--prefer-first", action="store_true", help="position-biased: always prefer the first compared response"
    )
    parser.add_argument(
        "--jitter",
        type=float,
        default=0.0,
        help="a noisy judge on purpose: sd in points of seeded noise added to every score (judge samples)",
    )
    parser.add_argument("--jitter-seed", type=int, default=0, help="seed of --jitter's noise")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Serve the reference judge until interrupted."""
    parser = build_parser()
    options = parser.parse_args(argv)
    if options.rpm is not None and options.rps is not None:
        parser.error("give --rpm or --rps, not both")
    rpm = options.rps * 60 if options.rps is not None else options.rpm
    keys = {}
    for item in options.key:
        provider, sep, key = item.partition("=")
        if not sep or not key:
            parser.error(f"--key takes PROVIDER=KEY (got {item!r})")
        keys[provider] = key
    try:
        judge = ReferenceJudge(
            keys,
            options.latency,
            models=options.model,
            host=options.host,
            port=options.port,
            verbose=options.verbose,
            rpm=rpm,
            rate_headers=options.rate_headers == "provider",
            batch_delay=options.batch_delay,
            prefer_first=options.prefer_first,
            jitter=options.jitter,
            jitter_seed=options.jitter_seed,
        )
    except ValueError as error:
        parser.error(str(error))
    with judge:
        print(f"reference judge (test double) at {judge.url}", flush=True)
        for provider in PROVIDERS:
            print(f"  {provider:<18} {judge.route(provider, '{model}')}", flush=True)
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            pass
    refused = judge.rate_limit.refused if judge.rate_limit is not None else 0
    print(
        f"served {judge.calls} judge calls; {refused} answered 429 by the rate limit; "
        f"{len(judge.batches.created)} batches created",
        flush=True,
    )
    for line in judge.rate_limit.summary() if judge.rate_limit is not None else ():
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
