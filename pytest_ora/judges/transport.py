"""Send one judge call over httpx, retrying transport faults within a bounded policy.

Retried: HTTP 408, 409, 429 and 5xx (Anthropic's 529 included), timeouts and dropped
connections. Any other non-2xx fails at once. The provider's ``x-should-retry`` header
overrides the status rule; ``retry-after-ms`` and ``retry-after`` set the wait, else
capped exponential backoff with full jitter. Errors never carry request headers, and any
secret passed in is redacted from them.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import math
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import timezone
from email.utils import parsedate_to_datetime

import httpx

from ..core.errors import TransportError

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_REPLY_BYTES",
    "RETRYABLE_EXCEPTIONS",
    "CallTimeout",
    "ReplyTooLarge",
    "RetryPolicy",
    "SendResult",
    "is_retryable_status",
    "send",
    "server_delay",
    "should_retry_header",
]

logger = logging.getLogger("pytest_ora.judges.transport")

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=120.0, write=30.0, pool=10.0)
"""Connect fast or fail; judges may think for a long time before the first byte."""

MAX_REPLY_BYTES = 8 * 1024 * 1024
"""Largest reply body accepted (decoded): a judge's reply is a few kilobytes; 100 MB is a fault, not a reply."""


class CallTimeout(httpx.TimeoutException):
    """One attempt, reply body included, took longer than the timeout (a trickled body, say)."""


class ReplyTooLarge(httpx.TransportError):
    """The reply body passed MAX_REPLY_BYTES; reading stopped there."""


RETRYABLE_EXCEPTIONS: tuple[type[httpx.RequestError], ...] = (
    httpx.TimeoutException,
    httpx.ConnectError,
    httpx.ReadError,
    httpx.WriteError,
    httpx.RemoteProtocolError,
    httpx.DecodingError,
)
"""Network faults worth another attempt: timeouts, refused or dropped connections, a body that
does not decode as its content-encoding says (a proxy's fault, not the judge's answer)."""

_RETRYABLE_STATUSES = frozenset({408, 409, 429})
_PROVIDER_MESSAGE_LIMIT = 300
_REDACTED = "[redacted]"


def _default_timeout() -> httpx.Timeout:
    """A fresh copy of the default timeout (httpx.Timeout is not a safe shared default)."""
    return httpx.Timeout(DEFAULT_TIMEOUT)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry one judge call."""

    max_attempts: int = 6
    """Sends in all, the first included."""
    base_delay: float = 0.5
    """Backoff before the second attempt; doubles each retry."""
    max_delay: float = 30.0
    """Cap on one computed backoff wait (a server's retry-after is bounded by the budget instead)."""
    max_total_wait: float = 120.0
    """Budget for all waits of one call; a wait that would exceed it fails the call instead."""
    jitter: float = 0.5
    """Fraction of the backoff randomised away: 1.0 is full jitter, 0.5 (the default) equal jitter,
    which keeps at least half of each wait so six retries outlast a 10 s rate-limit storm."""
    timeout: httpx.Timeout = field(default_factory=_default_timeout, hash=False)
    """Per-attempt httpx timeouts (left out of the hash: httpx.Timeout is unhashable)."""

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError(f"max_attempts must be at least 1 (got {self.max_attempts})")
        for name in ("base_delay", "max_delay", "max_total_wait"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0 (got {value!r})")
        if not 0.0 <= self.jitter <= 1.0:
            raise ValueError(f"jitter must be between 0 and 1 (got {self.jitter!r})")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """The wait before retry number `retry` (1-based) when the server gave none."""
        # Cap before jitter so every value stays within [0, max_delay]; the exponent is
        # clamped so a large max_attempts cannot overflow the float.
        ceiling = min(self.max_delay, self.base_delay * 2.0 ** min(retry - 1, 64))
        return ceiling - ceiling * self.jitter * rng.random()


@dataclass(frozen=True)
class SendResult:
    """A successful judge call: the 2xx response (body read) and what it took."""

    response: httpx.Response
    attempts: int
    waited: float
    """Seconds slept between attempts, in all."""


def is_retryable_status(status: int) -> bool:
    """Whether a status is a transient fault by default (before x-should-retry)."""
    return status in _RETRYABLE_STATUSES or 500 <= status <= 599


async def send(
    client: httpx.AsyncClient,
    request: httpx.Request,
    *,
    policy: RetryPolicy,
    judge: str,
    error_message: Callable[[httpx.Response], str],
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    rng: random.Random | None = None,
    secrets: Sequence[str] = (),
) -> SendResult:
    """Send `request` until a 2xx response, retrying transient faults within `policy`."""
    body = await request.aread()
    waited = 0.0
    attempt = 0
    while True:
        attempt += 1
        last = attempt >= policy.max_attempts
        fail: Callable[[str | None], TransportError]
        cause: BaseException | None = None
        try:
            response = await _within(client.send(_fresh_request(request, body, policy.timeout)), policy, request)
        except (httpx.TransportError, httpx.DecodingError) as exc:
            fail = functools.partial(_network_error, judge, exc, attempt, waited, secrets)
            # Non-transient faults (bad URL, unsupported protocol, proxy) fail at once.
            if last or not isinstance(exc, RETRYABLE_EXCEPTIONS):
                raise fail(None) from exc
            fault, cause = type(exc).__name__, exc
            rng = rng if rng is not None else random.Random()  # seeded only when a retry needs it
            delay, directed = policy.backoff(attempt, rng), False
        else:
            if response.is_success:
                return SendResult(response=response, attempts=attempt, waited=waited)
            fail = functools.partial(_status_error, judge, response, error_message, attempt, waited, secrets)
            verdict = _should_retry_header(response)
            if verdict is False and is_retryable_status(response.status_code):
                raise fail("the provider said not to retry (x-should-retry: false)")
            if last or not (verdict or is_retryable_status(response.status_code)):
                raise fail(None)
            fault = f"HTTP {response.status_code}"
            server_delay = _server_delay(response)
            directed = server_delay is not None
            if server_delay is not None:
                delay = server_delay
            else:
                rng = rng if rng is not None else random.Random()
                delay = policy.backoff(attempt, rng)

        remaining = policy.max_total_wait - waited
        if delay > remaining:
            # Sleeping less than the server asked would only earn another refusal.
            source = "the server asked to wait" if directed else "the next backoff is"
            raise fail(
                f"{source} {delay:.1f} s, past the remaining retry budget of {max(remaining, 0.0):.1f} s"
            ) from cause
        logger.info("%s: %s on attempt %d of %d; retrying in %.2f s", judge, fault, attempt, policy.max_attempts, delay)
        await sleep(delay)
        waited += delay


async def _within(call: Awaitable[httpx.Response], policy: RetryPolicy, request: httpx.Request) -> httpx.Response:
    """The call, bounded as a whole: httpx's read timeout bounds each read, so a body sent a byte at a time never ends."""
    deadline = policy.timeout.read
    if deadline is None:
        return await call
    try:
        return await asyncio.wait_for(call, deadline + (policy.timeout.connect or 0.0))
    except asyncio.TimeoutError:
        raise CallTimeout(
            f"the reply was not complete within {deadline:g} s (--ora-timeout bounds the whole reply)", request=request
        ) from None


def should_retry_header(response: httpx.Response) -> bool | None:
    """The provider's x-should-retry verdict, or None when absent or unreadable."""
    return _should_retry_header(response)


def server_delay(response: httpx.Response) -> float | None:
    """Seconds the server asked to wait (retry-after-ms, then retry-after), or None."""
    return _server_delay(response)


def _fresh_request(request: httpx.Request, body: bytes, timeout: httpx.Timeout) -> httpx.Request:
    """A copy of `request` with a new byte stream, so every attempt sends identical bytes."""
    # Framing headers are recomputed from the bytes: a streamed original may carry
    # Transfer-Encoding, which must not sit beside the Content-Length httpx adds.
    headers = httpx.Headers(
        [(k, v) for k, v in request.headers.multi_items() if k.lower() not in ("content-length", "transfer-encoding")]
    )
    extensions = dict(request.extensions)
    extensions["timeout"] = timeout.as_dict()
    return httpx.Request(request.method, request.url, headers=headers, content=body, extensions=extensions)


def _should_retry_header(response: httpx.Response) -> bool | None:
    """The provider's x-should-retry verdict, or None when absent or unreadable."""
    value = response.headers.get("x-should-retry", "").strip().lower()
    if value == "true":
        return True
    if value == "false":
        return False
    return None


def _server_delay(response: httpx.Response) -> float | None:
    """Seconds the server asked to wait (retry-after-ms, then retry-after), or None."""
    millis = _parse_seconds(response.headers.get("retry-after-ms"))
    if millis is not None:
        return millis / 1000.0
    value = response.headers.get("retry-after")
    if value is None:
        return None
    seconds = _parse_seconds(value)
    if seconds is not None:
        return seconds
    return _parse_http_date_delay(value, response.headers.get("date"))


def _parse_seconds(value: str | None) -> float | None:
    """A non-negative finite number from a header, or None for anything else."""
    if value is None:
        return None
    try:
        number = float(value.strip())
    except ValueError:
        return None
    if not math.isfinite(number) or number < 0:
        return None
    return number


def _parse_http_date_delay(value: str, date_header: str | None) -> float | None:
    """Seconds until an HTTP-date retry-after, measured from the response's Date (else now)."""
    target = _parse_http_date(value)
    if target is None:
        return None
    # The server's own clock is the right reference: ours may be skewed against it.
    reference = _parse_http_date(date_header) if date_header else None
    now = reference if reference is not None else time.time()
    return max(0.0, target - now)


def _parse_http_date(value: str) -> float | None:
    """A POSIX timestamp from an HTTP date, or None when it does not parse."""
    try:
        moment = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if moment.tzinfo is None:
        # RFC 9110 dates are GMT; "-0000" parses as naive.
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return moment.timestamp()
    except (OverflowError, OSError, ValueError):
        return None


_NETWORK_FIX = (
    "network fault: check connectivity and the judge's base URL, then re-run; recorded calls are not repeated"
)
_PROVIDER_FIX = "provider error: re-run later; recorded calls are not repeated"
_RATE_FIX = "rate limited: lower -n or raise --ora-retries"


def _status_fix(status: int) -> str:
    """What the user should do about a final HTTP status."""
    if status in (401, 403):
        return "check the judge's API key (and, for 403, its access to the model)"
    if status == 404:
        return "check the model id and route"
    if status == 413:
        return "the packet is too large for this judge: shrink the artifact or the answer"
    if status == 429:
        return _RATE_FIX
    if status >= 500 or status in (408, 409):
        return _PROVIDER_FIX
    if 300 <= status < 400:
        return "unexpected redirect: check the judge's base URL"
    return "the judge refused the request: check the model id, request options and packet size"


def _status_error(
    judge: str,
    response: httpx.Response,
    error_message: Callable[[httpx.Response], str],
    attempts: int,
    waited: float,
    secrets: Sequence[str],
    reason: str | None,
) -> TransportError:
    """The TransportError for a final non-2xx response."""
    status = response.status_code
    provider = _clip(_redact(_provider_message(response, error_message), secrets))
    text = f"{judge}: HTTP {status} after {_attempts(attempts)}"
    if waited:
        text += f" (waited {waited:.1f} s)"
    text += f": {provider or '(no message)'}"
    if reason:
        text += f"; {reason}"
    text += f"; {_status_fix(status)}"
    return TransportError(
        _redact(text, secrets),
        judge=judge,
        status=status,
        provider_message=provider,
        attempts=attempts,
    )


def _network_error(
    judge: str,
    exc: httpx.RequestError,
    attempts: int,
    waited: float,
    secrets: Sequence[str],
    reason: str | None = None,
) -> TransportError:
    """The TransportError for a network fault that ended the call."""
    # The exception text is the socket-level reason; the URL is left out because some
    # providers accept the key as a query parameter.
    detail = _clip(_redact(str(exc).strip(), secrets))
    text = f"{judge}: {type(exc).__name__} after {_attempts(attempts)}"
    if waited:
        text += f" (waited {waited:.1f} s)"
    if detail:
        text += f": {detail}"
    if reason:
        text += f"; {reason}"
    fix = _NETWORK_FIX if isinstance(exc, RETRYABLE_EXCEPTIONS) else "check the judge's base URL and proxy settings"
    text += f"; {fix}"
    return TransportError(_redact(text, secrets), judge=judge, attempts=attempts)


def _provider_message(response: httpx.Response, error_message: Callable[[httpx.Response], str]) -> str:
    """The provider's message, falling back to the raw body if the client cannot read it."""
    try:
        return error_message(response).strip()
    except Exception:  # an error-message bug must not hide the HTTP failure itself
        return response.text.strip()


def _redact(text: str, secrets: Sequence[str]) -> str:
    """`text` with every non-empty secret replaced by a marker."""
    # Longest first, so a secret containing another is removed whole.
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, _REDACTED)
    return text


def _clip(text: str, limit: int = _PROVIDER_MESSAGE_LIMIT) -> str:
    """`text` cut to `limit` characters, marked when cut (redact before clipping)."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[: limit - 3] + "..."


def _attempts(count: int) -> str:
    """'1 attempt' / 'n attempts'."""
    return f"{count} attempt{'s' if count != 1 else ''}"
