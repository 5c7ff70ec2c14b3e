"""The reference judge's rate limit: a token bucket per provider and key, announced as the providers do.

A bucket holds at most one second's requests (at least two) and refills continuously at
rpm / 60 a second, as Anthropic documents its limits ("enforced over shorter intervals"). Every
judge call's response carries the provider's rate-limit headers with the bucket's real state;
a call finding the bucket empty is refused with 429, `retry-after` (and OpenAI's
`retry-after-ms`) saying when the next request fits.

With `announce=False` the limiter is header-less, as OpenRouter, vLLM behind a proxy, local
servers and Gemini are: no rate-limit header on any response, and a refusal carries only
`retry-after` in whole seconds. A client then has to learn the limit from the refusals and
the pace of its successes.
"""

from __future__ import annotations

import datetime as dt
import math
import threading
import time
from dataclasses import dataclass

__all__ = ["Bucket", "Decision", "RateLimiter"]


@dataclass(frozen=True)
class Decision:
    """Whether a call fits, and the state to announce."""

    allowed: bool
    limit: int
    remaining: int
    reset: float
    """Seconds until the bucket is full again."""
    retry: float
    """Seconds until one request fits (0 when allowed)."""

    def headers(self, provider: str, announce: bool = True) -> list[tuple[str, str]]:
        """The provider's rate-limit headers for this state (Gemini announces none; header-less: retry-after only)."""
        if not announce:
            return [] if self.allowed else [("retry-after", str(max(1, math.ceil(self.retry))))]
        if provider == "anthropic":
            moment = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=self.reset)
            headers = [
                ("anthropic-ratelimit-requests-limit", str(self.limit)),
                ("anthropic-ratelimit-requests-remaining", str(self.remaining)),
                ("anthropic-ratelimit-requests-reset", moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")),
            ]
        elif provider in ("openai", "openai-compatible", "azure-openai"):
            headers = [
                ("x-ratelimit-limit-requests", str(self.limit)),
                ("x-ratelimit-remaining-requests", str(self.remaining)),
                (
                    "x-ratelimit-reset-requests",
                    f"{int(self.reset * 1000)}ms" if self.reset < 1 else f"{self.reset:.3f}s",
                ),
            ]
        else:
            headers = []
        if not self.allowed:
            headers.append(("retry-after", str(max(1, math.ceil(self.retry)))))
            if provider in ("openai", "openai-compatible", "azure-openai"):
                headers.append(("retry-after-ms", str(max(1, math.ceil(self.retry * 1000)))))
        return headers


class Bucket:
    """One key's token bucket."""

    def __init__(self, rpm: float, now: float) -> None:
        self.rate = rpm / 60
        self.capacity = max(2.0, self.rate)
        self.tokens = self.capacity
        self.stamp = now
        self.accepted = 0
        self.refused = 0
        self.first: float | None = None
        self.last = now

    def take(self, now: float, limit: int) -> Decision:
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        allowed = self.tokens >= 1
        if allowed:
            self.tokens -= 1
            self.accepted += 1
            self.first = now if self.first is None else self.first
            self.last = now
        else:
            self.refused += 1
        reset = (self.capacity - self.tokens) / self.rate
        retry = 0.0 if allowed else (1 - self.tokens) / self.rate
        return Decision(allowed, limit, int(self.tokens), reset, retry)


class RateLimiter:
    """Buckets per (provider, key), thread-safe; counts what it refused."""

    def __init__(self, rpm: float, announce: bool = True) -> None:
        if not (math.isfinite(rpm) and rpm > 0):
            raise ValueError(f"rpm must be a positive number (got {rpm!r})")
        self.rpm = rpm
        self.announce = announce
        """Whether responses carry the providers' rate-limit headers (False: a 429's retry-after only)."""
        self._buckets: dict[tuple[str, str], Bucket] = {}
        self._lock = threading.Lock()
        self.refused = 0

    def take(self, provider: str, key: str) -> Decision:
        now = time.monotonic()
        with self._lock:
            bucket = self._buckets.get((provider, key))
            if bucket is None:
                bucket = self._buckets[(provider, key)] = Bucket(self.rpm, now)
            decision = bucket.take(now, int(self.rpm))
            if not decision.allowed:
                self.refused += 1
            return decision

    def summary(self) -> list[str]:
        """One line per provider and key: calls accepted, the pace they came at, calls refused."""
        with self._lock:
            buckets = sorted(self._buckets.items())
        lines = []
        for index, ((provider, _), bucket) in enumerate(buckets):
            span = bucket.last - bucket.first if bucket.first is not None else 0.0
            pace = (bucket.accepted - 1) / span * 60 if span > 0 else 0.0
            lines.append(
                f"rate limit {provider} key {index + 1}: {bucket.accepted} accepted over {span:.1f} s "
                f"({pace:.1f} per minute of {self.rpm:g}), {bucket.refused} answered 429"
            )
        return lines
