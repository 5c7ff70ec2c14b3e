"""Tests for the judge transport: what is retried, how long it waits, how it fails."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest
from support.virtual_time import VirtualLoop, run_virtual

from pytest_ora.core.errors import TransportError
from pytest_ora.harness.options import _DEFAULTS
from pytest_ora.judges.transport import RetryPolicy, SendResult, is_retryable_status, send

URL = "https://judge.example/v1/messages"
API_KEY = "sk-test-0123456789abcdef"
BODY = b'{"model":"judge-1","messages":[{"role":"user","content":"score this"}]}'

Step = httpx.Response | Exception


class FakeSleep:
    """Records requested waits instead of sleeping."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


class Script:
    """A MockTransport handler that plays back responses or raises exceptions in order."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self._steps: Iterator[Step] = iter(steps)
        self.requests: list[httpx.Request] = []
        self.bodies: list[bytes] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        self.bodies.append(request.read())
        step = next(self._steps)
        if isinstance(step, Exception):
            raise step
        return step


def reply(status: int, message: str = "", headers: dict[str, str] | None = None) -> httpx.Response:
    """A provider response whose JSON body carries `message` as the error message."""
    body = {"type": "error", "error": {"message": message}} if status >= 300 else {"ok": True}
    return httpx.Response(status, headers=headers, json=body)


def error_message(response: httpx.Response) -> str:
    """The test provider's error-message reader."""
    return str(response.json()["error"]["message"])


def make_request() -> httpx.Request:
    """A judge call carrying the API key in a header, as the real clients do."""
    return httpx.Request("POST", URL, headers={"x-api-key": API_KEY, "content-type": "application/json"}, content=BODY)


def run(
    steps: Sequence[Step],
    *,
    policy: RetryPolicy | None = None,
    rng: random.Random | None = None,
    secrets: Sequence[str] = (),
    reader: Callable[[httpx.Response], str] = error_message,
) -> tuple[SendResult | TransportError, Script, FakeSleep]:
    """Run `send` against a scripted transport; return its result or error, the script and the waits."""
    script = Script(steps)
    sleep = FakeSleep()

    async def go() -> SendResult:
        async with httpx.AsyncClient(transport=httpx.MockTransport(script)) as client:
            return await send(
                client,
                make_request(),
                policy=policy or RetryPolicy(),
                judge="judge-a",
                error_message=reader,
                sleep=sleep,
                rng=rng or random.Random(0),
                secrets=secrets,
            )

    try:
        outcome: SendResult | TransportError = asyncio.run(go())
    except TransportError as exc:
        outcome = exc
    return outcome, script, sleep


def ok(outcome: SendResult | TransportError) -> SendResult:
    """The outcome as a success, failing the test with the error otherwise."""
    if isinstance(outcome, TransportError):
        pytest.fail(f"expected success, got TransportError: {outcome}")
    return outcome


def failed(outcome: SendResult | TransportError) -> TransportError:
    """The outcome as an error, failing the test if it succeeded."""
    if not isinstance(outcome, TransportError):
        pytest.fail(f"expected TransportError, got success after {outcome.attempts} attempts")
    return outcome


# --- server-directed waits -------------------------------------------------------------


def test_429_with_retry_after_then_success_waits_exactly_that() -> None:
    outcome, script, sleep = run([reply(429, "slow down", {"retry-after": "2"}), reply(200)])
    result = ok(outcome)
    assert result.response.status_code == 200
    assert result.response.json() == {"ok": True}
    assert (result.attempts, result.waited) == (2, 2.0)
    assert sleep.waits == [2.0]
    assert len(script.requests) == 2


def test_retry_after_ms_wins_over_retry_after() -> None:
    headers = {"retry-after-ms": "1500", "retry-after": "9"}
    outcome, _, sleep = run([reply(429, "slow down", headers), reply(200)])
    assert ok(outcome).waited == 1.5
    assert sleep.waits == [1.5]


def test_fractional_retry_after_seconds() -> None:
    outcome, _, sleep = run([reply(503, "busy", {"retry-after": "0.25"}), reply(200)])
    ok(outcome)
    assert sleep.waits == [0.25]


def test_retry_after_http_date_is_measured_from_the_response_date() -> None:
    served = datetime(2025, 3, 1, 12, 0, 0, tzinfo=timezone.utc)
    headers = {
        "date": format_datetime(served, usegmt=True),
        "retry-after": format_datetime(served + timedelta(seconds=7), usegmt=True),
    }
    outcome, _, sleep = run([reply(429, "slow down", headers), reply(200)])
    assert ok(outcome).attempts == 2
    assert sleep.waits == [7.0]


def test_retry_after_http_date_without_date_header_uses_the_clock() -> None:
    target = datetime.now(timezone.utc) + timedelta(seconds=30)
    headers = {"retry-after": format_datetime(target, usegmt=True)}
    outcome, _, sleep = run([reply(429, "slow down", headers), reply(200)])
    ok(outcome)
    # The header has whole-second resolution and the clock moves while the test runs.
    assert len(sleep.waits) == 1 and 27.0 <= sleep.waits[0] <= 30.0


def test_retry_after_date_in_the_past_retries_at_once() -> None:
    headers = {"date": "Sat, 01 Mar 2025 12:00:10 GMT", "retry-after": "Sat, 01 Mar 2025 12:00:00 GMT"}
    outcome, _, sleep = run([reply(429, "slow down", headers), reply(200)])
    ok(outcome)
    assert sleep.waits == [0.0]


@pytest.mark.parametrize(
    "headers",
    [
        {"retry-after": "soon"},
        {"retry-after": "-5"},
        {"retry-after": "nan"},
        {"retry-after": "inf"},
        {"retry-after-ms": "lots"},
        {"retry-after": "Blursday, 99 Foo 2025 25:61:00 GMT"},
        {"retry-after": ""},
        {"x-should-retry": "maybe"},
    ],
)
def test_garbage_retry_headers_are_ignored(headers: dict[str, str]) -> None:
    policy = RetryPolicy(base_delay=0.5, jitter=0.0)
    outcome, _, sleep = run([reply(429, "slow down", headers), reply(200)], policy=policy)
    assert ok(outcome).attempts == 2
    # Falls back to plain backoff: base_delay for the first retry.
    assert sleep.waits == [0.5]


def test_garbage_retry_after_ms_falls_through_to_retry_after() -> None:
    outcome, _, sleep = run([reply(429, "slow down", {"retry-after-ms": "x", "retry-after": "3"}), reply(200)])
    ok(outcome)
    assert sleep.waits == [3.0]


# --- which statuses retry --------------------------------------------------------------


def test_anthropic_529_overloaded_is_retried() -> None:
    outcome, script, _ = run([reply(529, "Overloaded"), reply(200)])
    assert ok(outcome).attempts == 2
    assert len(script.requests) == 2


def test_server_errors_retried_until_success() -> None:
    outcome, _, sleep = run([reply(500, "boom"), reply(502, "bad gateway"), reply(503, "unavailable"), reply(200)])
    result = ok(outcome)
    assert result.attempts == 4
    assert len(sleep.waits) == 3
    assert result.waited == pytest.approx(sum(sleep.waits))


@pytest.mark.parametrize("status", [408, 409])
def test_timeout_and_conflict_statuses_are_retried(status: int) -> None:
    outcome, _, _ = run([reply(status, "try again"), reply(200)])
    assert ok(outcome).attempts == 2


@pytest.mark.parametrize(
    ("status", "hint"),
    [
        (400, "the judge refused the request"),
        (401, "check the judge's API key"),
        (403, "check the judge's API key"),
        (404, "check the model id and route"),
        (422, "the judge refused the request"),
        (413, "too large"),
    ],
)
def test_client_errors_fail_at_once_with_the_provider_message(status: int, hint: str) -> None:
    outcome, script, sleep = run([reply(status, f"provider says {status} is wrong"), reply(200)])
    error = failed(outcome)
    assert len(script.requests) == 1
    assert sleep.waits == []
    assert (error.status, error.attempts, error.judge) == (status, 1, "judge-a")
    assert error.provider_message == f"provider says {status} is wrong"
    text = str(error)
    assert text.startswith("judge-a: ")
    assert f"HTTP {status}" in text
    assert f"provider says {status} is wrong" in text
    assert "1 attempt" in text
    assert hint in text


def test_x_should_retry_false_on_a_500_fails_at_once() -> None:
    outcome, script, sleep = run([reply(500, "do not retry me", {"x-should-retry": "false"}), reply(200)])
    error = failed(outcome)
    assert (error.status, error.attempts) == (500, 1)
    assert len(script.requests) == 1 and sleep.waits == []
    assert "x-should-retry: false" in str(error)
    assert "do not retry me" in str(error)


def test_x_should_retry_true_on_a_400_retries() -> None:
    outcome, script, _ = run([reply(400, "transient", {"x-should-retry": "True"}), reply(200)])
    assert ok(outcome).attempts == 2
    assert len(script.requests) == 2


def test_x_should_retry_true_still_honours_retry_after() -> None:
    outcome, _, sleep = run([reply(409, "lock", {"x-should-retry": "true", "retry-after": "4"}), reply(200)])
    ok(outcome)
    assert sleep.waits == [4.0]


def test_is_retryable_status() -> None:
    assert all(is_retryable_status(s) for s in (408, 409, 429, 500, 502, 503, 504, 529, 599))
    assert not any(is_retryable_status(s) for s in (200, 301, 400, 401, 403, 404, 413, 422, 600))


# --- the bound -------------------------------------------------------------------------


def test_429_storm_exhausts_max_attempts() -> None:
    policy = RetryPolicy(max_attempts=4)
    storm = [reply(429, "rate limit exceeded", {"retry-after": "1"}) for _ in range(10)]
    outcome, script, sleep = run(storm, policy=policy)
    error = failed(outcome)
    assert len(script.requests) == 4
    assert sleep.waits == [1.0, 1.0, 1.0]
    assert (error.status, error.attempts) == (429, 4)
    text = str(error)
    assert "HTTP 429" in text and "4 attempts" in text and "waited 3.0 s" in text
    assert "rate limit exceeded" in text
    assert "rate limited: lower -n or raise --ora-retries" in text


@pytest.mark.parametrize("seed", range(50))
def test_a_ten_second_429_storm_passes_within_the_default_bound_on_a_virtual_clock(seed: int) -> None:
    """Every call gets 429 (no retry-after) for 10 s: the defaults (7 attempts, equal jitter from 0.5 s)
    wait at least 0.25 + 0.5 + 1 + 2 + 4 + 8 = 15.75 s in all, so the storm passes before the bound,
    whatever the jitter draws. The clock is the event loop's virtual one: the test takes no real time."""
    policy = RetryPolicy(max_attempts=int(_DEFAULTS["retries"]) + 1)  # a run's default: --ora-retries 6
    loop = VirtualLoop()
    storm_ends = loop.time() + 10.0
    sent: list[float] = []

    def storm(request: httpx.Request) -> httpx.Response:
        sent.append(loop.time())
        return reply(429, "rate limit exceeded") if loop.time() < storm_ends else reply(200)

    async def go() -> SendResult:
        async with httpx.AsyncClient(transport=httpx.MockTransport(storm)) as client:
            return await send(
                client,
                make_request(),
                policy=policy,
                judge="judge-a",
                error_message=error_message,
                rng=random.Random(seed),
            )

    result = run_virtual(go(), loop)

    assert result.response.status_code == 200
    assert 2 < result.attempts <= policy.max_attempts == 7
    assert sent[-1] >= storm_ends > sent[-2]  # answered by the first call after the storm
    assert result.waited == pytest.approx(sent[-1] - sent[0])


def test_5xx_after_bound_says_re_run_later() -> None:
    outcome, _, _ = run([reply(503, "unavailable")] * 3, policy=RetryPolicy(max_attempts=3))
    error = failed(outcome)
    assert error.attempts == 3
    assert "provider error: re-run later; recorded calls are not repeated" in str(error)


def test_huge_retry_after_beyond_budget_fails_without_sleeping() -> None:
    policy = RetryPolicy(max_total_wait=120.0)
    steps = [reply(429, "come back tomorrow", {"retry-after": "86400"}), reply(200)]
    outcome, script, sleep = run(steps, policy=policy)
    error = failed(outcome)
    assert sleep.waits == []
    assert len(script.requests) == 1
    assert (error.status, error.attempts) == (429, 1)
    assert "86400.0 s" in str(error) and "retry budget" in str(error)


def test_budget_counts_waits_already_made() -> None:
    policy = RetryPolicy(max_total_wait=10.0)
    steps = [reply(429, "a", {"retry-after": "6"}), reply(429, "b", {"retry-after": "6"}), reply(200)]
    outcome, script, sleep = run(steps, policy=policy)
    error = failed(outcome)
    assert sleep.waits == [6.0]
    assert len(script.requests) == 2
    assert error.attempts == 2
    assert "remaining retry budget of 4.0 s" in str(error)


def test_max_attempts_one_never_retries() -> None:
    outcome, script, sleep = run([reply(503, "busy"), reply(200)], policy=RetryPolicy(max_attempts=1))
    assert failed(outcome).attempts == 1
    assert len(script.requests) == 1 and sleep.waits == []


# --- network faults --------------------------------------------------------------------


@pytest.mark.parametrize(
    "fault",
    [
        httpx.ReadTimeout("timed out"),
        httpx.ConnectTimeout("connect timed out"),
        httpx.RemoteProtocolError("Server disconnected without sending a response."),
        httpx.ConnectError("connection refused"),
        httpx.ReadError("connection reset by peer"),
        httpx.WriteError("broken pipe"),
    ],
)
def test_network_faults_are_retried_then_succeed(fault: Exception) -> None:
    outcome, script, sleep = run([fault, fault, reply(200)])
    result = ok(outcome)
    assert result.attempts == 3
    assert len(script.requests) == 3 and len(sleep.waits) == 2


def test_timeouts_past_the_bound_name_the_exception() -> None:
    outcome, _, _ = run([httpx.ReadTimeout("timed out")] * 3, policy=RetryPolicy(max_attempts=3))
    error = failed(outcome)
    assert error.status is None and error.attempts == 3
    assert isinstance(error.__cause__, httpx.ReadTimeout)
    text = str(error)
    assert "ReadTimeout" in text and "3 attempts" in text and "network fault" in text


def test_non_transient_network_error_fails_at_once() -> None:
    outcome, script, _ = run([httpx.UnsupportedProtocol("Request URL has an unsupported protocol"), reply(200)])
    error = failed(outcome)
    assert error.attempts == 1 and len(script.requests) == 1
    assert "UnsupportedProtocol" in str(error)


def test_other_exceptions_propagate_untouched() -> None:
    with pytest.raises(KeyError):
        run([KeyError("handler bug")])


# --- backoff ---------------------------------------------------------------------------


def test_backoff_is_exponential_without_jitter() -> None:
    policy = RetryPolicy(base_delay=0.5, max_delay=30.0, jitter=0.0, max_attempts=10, max_total_wait=1000.0)
    outcome, _, sleep = run([reply(500, "boom")] * 9 + [reply(200)], policy=policy)
    assert ok(outcome).attempts == 10
    assert sleep.waits == [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0, 30.0]


def test_jittered_backoff_is_seeded_and_bounded_by_max_delay() -> None:
    policy = RetryPolicy(base_delay=1.0, max_delay=5.0, jitter=1.0, max_attempts=12, max_total_wait=1000.0)
    steps = [reply(503, "busy")] * 11 + [reply(200)]
    first, _, sleep_a = run(steps, policy=policy, rng=random.Random(42))
    second, _, sleep_b = run(steps, policy=policy, rng=random.Random(42))
    ok(first), ok(second)
    assert sleep_a.waits == sleep_b.waits
    assert len(sleep_a.waits) == 11
    ceilings = [min(5.0, 1.0 * 2 ** (retry - 1)) for retry in range(1, 12)]
    assert all(0.0 <= wait <= ceiling for wait, ceiling in zip(sleep_a.waits, ceilings))
    # Jitter is really applied: full jitter spreads waits below their ceilings.
    assert sum(sleep_a.waits) < 0.8 * sum(ceilings)
    assert sleep_a.waits != run(steps, policy=policy, rng=random.Random(43))[2].waits


def test_partial_jitter_keeps_the_floor() -> None:
    policy = RetryPolicy(base_delay=4.0, jitter=0.25)
    rng = random.Random(7)
    for _ in range(200):
        assert 3.0 <= policy.backoff(1, rng) <= 4.0


def test_backoff_does_not_overflow_for_many_attempts() -> None:
    policy = RetryPolicy(max_delay=30.0, jitter=0.0)
    assert policy.backoff(5000, random.Random(0)) == 30.0


def test_server_wait_is_not_capped_by_max_delay() -> None:
    # max_delay caps computed backoff only; retrying before the server's time earns another 429.
    policy = RetryPolicy(max_delay=5.0, max_total_wait=120.0)
    outcome, _, sleep = run([reply(429, "slow", {"retry-after": "45"}), reply(200)], policy=policy)
    ok(outcome)
    assert sleep.waits == [45.0]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_attempts": 0},
        {"base_delay": -1.0},
        {"max_delay": float("inf")},
        {"max_total_wait": float("nan")},
        {"jitter": 1.5},
    ],
)
def test_policy_rejects_bad_values(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_policy_defaults() -> None:
    policy = RetryPolicy()
    assert (policy.max_attempts, policy.base_delay, policy.max_delay, policy.max_total_wait) == (6, 0.5, 30.0, 120.0)
    assert (policy.timeout.connect, policy.timeout.read) == (10.0, 120.0)
    assert hash(policy) == hash(RetryPolicy()) and policy == RetryPolicy()


# --- the request -----------------------------------------------------------------------


def test_every_attempt_sends_identical_bytes_and_headers() -> None:
    outcome, script, _ = run([reply(500, "boom"), httpx.RemoteProtocolError("dropped"), reply(429, "slow"), reply(200)])
    assert ok(outcome).attempts == 4
    assert script.bodies == [BODY] * 4
    for sent in script.requests:
        assert sent.method == "POST" and str(sent.url) == URL
        assert sent.headers["x-api-key"] == API_KEY
        assert sent.headers["content-length"] == str(len(BODY))
    # A fresh Request per attempt, never the same object re-sent.
    assert len({id(r) for r in script.requests}) == 4


def test_streamed_request_body_is_replayed() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield BODY[:10]
        yield BODY[10:]

    script = Script([reply(503, "busy"), reply(200)])
    request = httpx.Request("POST", URL, content=chunks())

    async def go() -> SendResult:
        async with httpx.AsyncClient(transport=httpx.MockTransport(script)) as client:
            return await send(
                client, request, policy=RetryPolicy(), judge="j", error_message=error_message, sleep=FakeSleep()
            )

    assert asyncio.run(go()).attempts == 2
    assert script.bodies == [BODY, BODY]
    assert all("transfer-encoding" not in r.headers for r in script.requests)


def test_policy_timeout_is_applied_to_each_attempt() -> None:
    timeout = httpx.Timeout(connect=3.0, read=7.0, write=5.0, pool=1.0)
    outcome, script, _ = run([reply(500, "boom"), reply(200)], policy=RetryPolicy(timeout=timeout))
    ok(outcome)
    for sent in script.requests:
        assert sent.extensions["timeout"] == {"connect": 3.0, "read": 7.0, "write": 5.0, "pool": 1.0}


# --- error messages --------------------------------------------------------------------


def test_secret_in_provider_message_is_redacted() -> None:
    message = f"invalid x-api-key: {API_KEY} is not a valid key"
    outcome, _, _ = run([reply(401, message)], secrets=[API_KEY])
    error = failed(outcome)
    assert API_KEY not in str(error)
    assert error.provider_message is not None and API_KEY not in error.provider_message
    assert "[redacted]" in str(error)
    assert "check the judge's API key" in str(error)


def test_secret_in_network_error_is_redacted() -> None:
    fault = httpx.ConnectError(f"cannot reach https://judge.example/?key={API_KEY}")
    outcome, _, _ = run([fault] * 2, policy=RetryPolicy(max_attempts=2), secrets=[API_KEY])
    assert API_KEY not in str(failed(outcome))


def test_secret_straddling_the_cut_is_still_redacted() -> None:
    message = "x" * 280 + API_KEY + "y" * 50
    outcome, _, _ = run([reply(403, message)], secrets=[API_KEY, ""])
    text = str(failed(outcome))
    assert API_KEY[:12] not in text


def test_request_headers_never_reach_the_message() -> None:
    outcome, _, _ = run([reply(400, "bad request")])
    text = str(failed(outcome))
    assert API_KEY not in text and "x-api-key" not in text


def test_long_provider_message_is_cut() -> None:
    outcome, _, _ = run([reply(400, "z" * 5000)])
    error = failed(outcome)
    assert error.provider_message is not None and len(error.provider_message) <= 300
    assert len(str(error)) < 600


def test_broken_error_reader_falls_back_to_the_body() -> None:
    def broken(response: httpx.Response) -> str:
        raise KeyError("error")

    outcome, _, _ = run([httpx.Response(404, text="no such model: judge-9")], reader=broken)
    assert "no such model: judge-9" in str(failed(outcome))


def test_retries_are_logged_without_headers(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="pytest_ora.judges.transport"):
        outcome, _, _ = run([reply(429, "slow", {"retry-after": "2"}), reply(200)])
    ok(outcome)
    records = [r for r in caplog.records if r.name == "pytest_ora.judges.transport"]
    assert len(records) == 1
    text = records[0].getMessage()
    assert "judge-a" in text and "HTTP 429" in text and "2.00 s" in text
    assert API_KEY not in text


def test_success_response_body_is_read() -> None:
    outcome, _, _ = run([httpx.Response(200, content=json.dumps({"ok": 1}).encode())])
    response = ok(outcome).response
    assert response.is_closed
    assert response.json() == {"ok": 1}
