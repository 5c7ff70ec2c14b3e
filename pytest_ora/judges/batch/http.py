"""The batch flows' HTTP calls, retried like live judge calls; a fault past the bound stops the run resumably.

A batch runs for up to 24 hours; one 529 or dropped connection while polling must not lose it.
Each call (upload, create, poll, results) is retried on the same transient faults as a live
judge call (408, 409, 429, 5xx with Anthropic's 529, timeouts, dropped connections), with the
same bounded backoff (transport.RetryPolicy, server retry-after honoured). Past the bound the
call raises BatchStopped: the batch ids are already kept under --ora-cassettes, so the next run
resumes polling them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from ...core.errors import OraError
from ..transport import RETRYABLE_EXCEPTIONS, RetryPolicy, is_retryable_status, server_delay, should_retry_header

__all__ = ["BatchStopped", "Caller"]

_RESUME = "the batch ids are kept under --ora-cassettes: re-run the same command to resume polling"


class BatchStopped(OraError):
    """A batch call failed past the retry bound, or a batch did not end in time; the run stops resumably."""


@dataclass
class Caller:
    """Sends the batch flows' requests with the live calls' retry policy; injectable sleep and clock for tests."""

    client: httpx.Client
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    say: Callable[[str], None] = lambda line: None
    rng: random.Random = field(default_factory=random.Random)
    secrets: tuple[str, ...] = field(default=(), repr=False)
    """Key values removed from any provider text a message quotes."""
    retried: int = 0
    """Transient faults met and retried so far (for tests and the terminal)."""

    def call(self, method: str, url: str | httpx.URL, what: str, **kwargs: Any) -> httpx.Response:
        """The 2xx response to the request; BatchStopped past the retry bound or on a refusal."""
        waited = 0.0
        for attempt in range(1, self.policy.max_attempts + 1):
            try:
                response = self.client.request(method, url, **kwargs)
            except RETRYABLE_EXCEPTIONS as error:
                fault, delay = type(error).__name__, self.policy.backoff(attempt, self.rng)
            else:
                if response.is_success:
                    return response
                verdict = should_retry_header(response)
                retryable = verdict if verdict is not None else is_retryable_status(response.status_code)
                fault = f"HTTP {response.status_code}"
                if not retryable:
                    raise BatchStopped(f"ora: {what} failed: {fault}: {_snippet(response, self.secrets)}; {_RESUME}")
                asked = server_delay(response)
                delay = asked if asked is not None else self.policy.backoff(attempt, self.rng)
            if attempt == self.policy.max_attempts or waited + delay > self.policy.max_total_wait:
                raise BatchStopped(
                    f"ora: {what} failed after {attempt} attempts ({fault}, waited {waited:.1f} s, the retry "
                    f"bound of --ora-retries); {_RESUME}"
                )
            self.retried += 1
            self.say(
                f"ora: {what}: {fault}, retrying in {delay:.1f} s (attempt {attempt} of {self.policy.max_attempts})"
            )
            self.sleep(delay)
            waited += delay
        raise AssertionError("unreachable: the loop returns or raises")  # pragma: no cover


def _snippet(response: httpx.Response, secrets: tuple[str, ...]) -> str:
    text = " ".join(response.text.split())
    for secret in sorted((s for s in secrets if s), key=len, reverse=True):
        text = text.replace(secret, "[redacted]")
    return text[:300] or "(empty body)"
