"""One rate limit per role (a judge's or a role candidate's), shared by every process of a run (xdist workers included).

Each role has a small JSON state file in a run-scoped directory, read and written under an
exclusive `fcntl` lock, so the processes of a run pace their calls as one client (a process alone
keeps the same state in memory, under a lock: no file read and written around every call): a send
slot schedule (GCRA) at a rate given by `--ora-rpm`, announced by the provider's rate-limit
headers, or learned from the pace at which calls are accepted (slow start, a cut on a 429, a slow
climb back). docs/performance.md ("How the shared rate limit paces calls") states every rule.
Calls served from a cassette never reach the limiter: replay is never paced.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import fcntl
import itertools
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from .calling import judge_of

logger = logging.getLogger("pytest_ora.judges.ratelimit")

__all__ = ["HEADROOM", "MAX_HOLD", "Limit", "PacedTransport", "SharedLimiter", "parse_reset", "request_tokens"]

HEADROOM = 0.95
"""A learned limit is paced at this fraction of what the provider announced (clock skew, jitter)."""
_MIN_RATE = 1 / 60
"""Never slower than one call a minute: a halving storm cannot stall a run for good."""
_INCREASE = 0.02
"""Increase step after each success up to the ceiling, as a fraction of the current rate."""
_PROBE_INCREASE = 0.002
"""Increase step after each success past a measured (not announced) limit: slow, since it earns a 429 at the top."""
_PACE_SAMPLES = 24
"""Accepted calls kept per role to measure the pace of successes (the run's, all processes')."""
_PACE_WINDOW = 60.0
"""Seconds of accepted calls the pace is measured over, at most."""
_PACE_MIN = 4
"""Accepted calls needed before their pace is a measurement."""
_IDLE_GAP = 3.0
"""A gap between two accepted calls longer than this many usual gaps is idle time, not the limit's pace."""
_PROBE_DOUBLING = 8
"""Successes without a refusal after which the step past a measured pace doubles."""
_MIN_ROUND_TRIP = 0.05
"""Shortest round trip slow start counts: a success adds at most 20 calls a second to the pace."""
_MIN_START = 1.0
"""Calls a second a header-less role starts at, at least, after its first call."""
_HORIZON = 1.0
"""Seconds ahead a call may reserve its slot; beyond that it sleeps and looks again (a cut applies)."""
_BURST = 30.0
"""Seconds of an announced limit's pace that may go at once at most, while the provider's headers show the room.

Anthropic and OpenAI refill a bucket that holds a minute's limit, and their remaining and reset headers
say how full it is: a run far under its limit need not trickle its calls out one slot at a time. The
allowance starts within one second of the pace (what a limit "enforced over shorter intervals" accepts) and
doubles each round trip of successes while calls wait (slow start), up to half the minute; every
response's remaining count pulls the schedule back to what the provider says is left (other clients of
the key included), and the first 429 ends bursting for the run: from then on calls go at the pace alone."""
_BURST_START = 0.5
"""Seconds of pace the first burst may take: with the one call GCRA lets go on top, within a second's calls
of the limit, which a provider enforcing it per second takes."""
_PROBE_WAIT = 0.05
_PROBE_TIMEOUT = 5.0
"""A first call that never reports back (process killed) stops blocking its role after this long."""
_IMAGE_TOKENS = 1600
_BASE64_RUN = re.compile(rb"[A-Za-z0-9+/=]{2000,}")


Mark = tuple[int, int]
"""A role's calls and tokens sent, counted as a call takes its slot: what was sent after it is the difference."""


@dataclass(frozen=True)
class Limit:
    """A role's configured limits; None means learn it from the provider."""

    rpm: float | None = None
    tpm: float | None = None


MAX_HOLD = 120.0
"""Longest wait a retry-after or a reset header may impose on the shared pace: one call's retry budget
(RetryPolicy.max_total_wait). A longer one (`retry-after: 1000000000`, a reset in year 9999, `99999h`) holds nothing."""


def request_tokens(body: bytes) -> int:
    """A request's input tokens, roughly: four bytes of JSON per token, an embedded image as one image."""
    images = len(_BASE64_RUN.findall(body))
    text = len(_BASE64_RUN.sub(b"", body))
    return text // 4 + images * _IMAGE_TOKENS


def parse_reset(value: str | None, now: float) -> float | None:
    """Seconds until a reset header's moment: RFC 3339 (Anthropic) or a duration like 1m30s / 6ms (OpenAI)."""
    if not value:
        return None
    text = value.strip()
    match = re.fullmatch(
        r"(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?!s))?(?:(\d+(?:\.\d+)?)s)?(?:(\d+(?:\.\d+)?)ms)?", text
    )
    if match and any(match.groups()):
        hours, minutes, seconds, millis = (float(part) if part else 0.0 for part in match.groups())
        return hours * 3600 + minutes * 60 + seconds + millis / 1000
    try:
        moment = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) and number >= 0 else None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    return max(0.0, moment.timestamp() - now)


def _header_number(headers: httpx.Headers, *names: str) -> float | None:
    for name in names:
        value = headers.get(name)
        if value is None:
            continue
        try:
            number = float(value)
        except ValueError:
            continue
        if math.isfinite(number) and number >= 0:
            return number
    return None


_REQUEST_LIMIT = ("anthropic-ratelimit-requests-limit", "x-ratelimit-limit-requests")
_REQUEST_REMAINING = ("anthropic-ratelimit-requests-remaining", "x-ratelimit-remaining-requests")
_REQUEST_RESET = ("anthropic-ratelimit-requests-reset", "x-ratelimit-reset-requests")
_TOKEN_LIMIT = (
    "anthropic-ratelimit-input-tokens-limit",
    "anthropic-ratelimit-tokens-limit",
    "x-ratelimit-limit-tokens",
)
_TOKEN_REMAINING = (
    "anthropic-ratelimit-input-tokens-remaining",
    "anthropic-ratelimit-tokens-remaining",
    "x-ratelimit-remaining-tokens",
)
_TOKEN_RESET = (
    "anthropic-ratelimit-input-tokens-reset",
    "anthropic-ratelimit-tokens-reset",
    "x-ratelimit-reset-tokens",
)


def _first(headers: httpx.Headers, names: tuple[str, ...]) -> str | None:
    return next((headers[name] for name in names if name in headers), None)


class SharedLimiter:
    """Paces judge calls per role across every process that shares `directory`.

    Without a directory the state stays in this process's memory, under a lock: the same rules for a
    process that is its run's only one, without a locked file read and written around every call.
    """

    def __init__(
        self,
        directory: Path | None,
        limits: Mapping[str, Limit],
        *,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.directory = directory
        self.limits = dict(limits)
        self._clock = clock
        self._sleep = sleep
        self._memory: dict[str, dict[str, Any]] = {}
        self._memory_lock = threading.Lock()

    # --- state -------------------------------------------------------------------------------

    def _fresh(self, role: str) -> dict[str, Any]:
        limit = self.limits.get(role, Limit())
        rate = limit.rpm / 60 if limit.rpm else None
        tokens = limit.tpm / 60 if limit.tpm else None
        return {
            "tat": 0.0,
            "ttat": 0.0,
            "rate": rate,
            "ceiling": rate,
            "token_rate": tokens,
            "token_ceiling": tokens,
            "cut_at": 0.0,
            "probe": None,
            "learned": rate is not None,
            "fixed": rate is not None,
            "sent": 0,
            "sent_tokens": 0,
            "limited": 0,
            "started": None,
            "accepted": [],
            "measured": None,
            "announced": False,
            "streak": 0,
            "burst": 0.0,
            "token_fixed": tokens is not None,
            "refused": False,
        }

    @contextlib.contextmanager
    def _state(self, role: str) -> Iterator[dict[str, Any]]:
        """The role's state, locked against every other process until the block ends, then written."""
        if self.directory is None:
            with self._memory_lock:
                state = self._memory.get(role)
                if state is None:
                    state = self._memory[role] = self._fresh(role)
                yield state
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        path = self.directory / f"{_safe(role)}.json"
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            raw = b""
            while chunk := os.read(fd, 65536):
                raw += chunk
            try:
                state = json.loads(raw) if raw else self._fresh(role)
            except ValueError:
                state = self._fresh(role)
            yield state
            data = json.dumps(state, sort_keys=True).encode()
            if data != raw:  # a look that changed nothing (a slot checked after its wait) writes nothing
                os.lseek(fd, 0, os.SEEK_SET)
                os.ftruncate(fd, 0)
                os.write(fd, data)
        finally:
            os.close(fd)  # closing releases the lock

    def snapshot(self, role: str) -> dict[str, Any]:
        """The role's current shared state (for tests and the run's summary)."""
        with self._state(role) as state:
            return dict(state)

    # --- pacing ------------------------------------------------------------------------------

    async def acquire(self, role: str, tokens: int = 0) -> float:
        """Wait for this call's slot in the role's shared schedule; returns the moment it goes."""
        slot, _ = await self.acquire_marked(role, tokens)
        return slot

    async def acquire_marked(self, role: str, tokens: int = 0) -> tuple[float, Mark]:
        """`acquire`, and the role's count of calls and tokens sent once this call has its slot (for `observe`)."""
        while True:
            now = self._clock()
            with self._state(role) as state:
                slot, wait = self._take(state, now, tokens)
                cuts = state.get("cuts", 0)
                mark = (int(state["sent"]), int(state.get("sent_tokens", 0)))
            if slot is None:
                await self._sleep(wait)
                continue
            if slot <= now:
                return slot, mark
            await self._sleep(slot - now)
            with self._state(role) as state:
                if state.get("cuts", 0) == cuts:
                    return slot, mark
            # The pace was cut while this call waited for a slot taken at the old pace: it takes a new one.

    def _take(self, state: dict[str, Any], now: float, tokens: int) -> tuple[float | None, float]:
        """(the slot taken, 0) when the call may go at that moment, else (None, seconds to sleep before looking again)."""
        if state["started"] is None:
            state["started"] = now
        if not state["learned"]:
            # The first call of a role goes alone: its response says what the limit is.
            probe = state["probe"]
            if probe is not None and now - probe < _PROBE_TIMEOUT:
                return None, _PROBE_WAIT
            state["probe"] = now
            state["sent"] += 1
            return now, 0.0
        burst = float(state.get("burst") or 0.0)
        slot = max(now, state["tat"] - burst)
        token_rate = state["token_rate"]
        if token_rate:  # --ora-tpm fixes the token pace: no burst runs ahead of it
            slot = max(slot, state["ttat"] - _token_burst(state, burst))
        if slot > now:
            state["held"] = now  # the schedule holds calls back: a success now may grow the burst allowance
        if slot - now > _HORIZON:
            # Far ahead: look again later, so a cut or a hold meanwhile applies to this call too.
            return None, slot - now - _HORIZON / 2
        rate = state["rate"]
        # GCRA: a call going at `slot` moves the theoretical arrival time on by its share of the pace; with a
        # burst allowance, calls may go up to `burst` seconds ahead of it.
        if rate:
            state["tat"] = max(state["tat"], slot) + 1 / rate
        if token_rate:
            state["ttat"] = max(state["ttat"], slot) + tokens / token_rate
        state["sent"] += 1
        state["sent_tokens"] = int(state.get("sent_tokens", 0)) + tokens
        return slot, 0.0

    def observe(self, role: str, sent_at: float, status: int, headers: httpx.Headers, mark: Mark | None = None) -> None:
        """Learn from a response: its rate-limit headers, a 429 (cut) or a success (grow)."""
        now = self._clock()
        with self._state(role) as state:
            state["learned"] = True
            state["probe"] = None
            if status == 429:
                _stop_bursting(state, now)
            self._learn_limits(state, headers, now)
            burst = float(state.get("burst") or 0.0)
            # Calls given a slot before this moment were scheduled at the pace of the moment: a cut
            # now does not reach them, so their refusals belong to this round (see _cut).
            scheduled = max(now, state["tat"] - burst)
            hold = self._hold(headers, status, now)
            if hold is not None:
                state["tat"] = max(state["tat"], now + hold + burst)
            if status == 429:
                state["limited"] += 1
                if sent_at > state["cut_at"]:
                    self._cut(state, now, scheduled)
                    logger.info(
                        "%s: refused (429); pace now %.3g calls/s (successes measured at %s)",
                        role,
                        state["rate"],
                        f"{state['measured']:.3g}/s" if state.get("measured") else "-",
                    )
            elif 200 <= status < 300:
                _remember(state, now)
                round_trip = now - sent_at
                if (
                    burst
                    and float(state.get("held") or 0.0) >= sent_at - round_trip
                    and now - float(state.get("grown") or 0.0) >= round_trip
                ):
                    # Calls were held back within a round trip of this one, and the allowance has not grown for a
                    # round trip: it doubles (slow start, as TCP's window doubles each round trip of successes).
                    state["burst"] = min(_BURST, 2 * burst)
                    state["grown"] = now
                state["streak"] = state.get("streak", 0) + 1
                if state["rate"] is None and not state["fixed"] and not state["announced"]:
                    # Nothing says the limit: start at the pace of one call at a time and grow from there
                    # (slow start), so the first refusals come one by one, not as a burst of every call in flight.
                    state["rate"] = max(_MIN_START, 1 / max(now - sent_at, 1e-3))
                    state["slow"] = True
                elif state["rate"] and not state["fixed"]:
                    state["rate"] = (
                        float(state["ceiling"]) if _far_from_limit(state, headers) else self._grown(state, now, sent_at)
                    )
            if state.get("burst"):  # last, at the pace and allowance this response left
                _sync_to_remaining(state, headers, sent_at, float(state["burst"]), mark)

    def forget_probe(self, role: str) -> None:
        """The first call ended without a response (network fault): let another one probe."""
        with self._state(role) as state:
            state["probe"] = None

    def _learn_limits(self, state: dict[str, Any], headers: httpx.Headers, now: float) -> None:
        announced = False
        if not state["fixed"]:
            limit = _header_number(headers, *_REQUEST_LIMIT)
            if limit:
                ceiling = limit / 60 * HEADROOM
                state["ceiling"] = ceiling
                state["announced"] = announced = True
                if state["rate"] is None or state["rate"] > ceiling:
                    state["rate"] = ceiling
        if state["token_ceiling"] is None or state.get("token_learned"):
            limit = _header_number(headers, *_TOKEN_LIMIT)
            if limit:
                state["token_learned"] = announced = True
                state["token_ceiling"] = state["token_rate"] = limit / 60 * HEADROOM
        if announced and not state["fixed"] and not state.get("refused") and not state.get("burst"):
            state["burst"] = _BURST_START

    def _hold(self, headers: httpx.Headers, status: int, now: float) -> float | None:
        """Seconds every process must wait: retry-after on a refusal, or an exhausted window's reset."""
        waits = []
        if status == 429 or status >= 500:
            for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
                value = _header_number(headers, name)
                if value is not None:
                    waits.append(value * scale)
                    break
        for remaining, reset in ((_REQUEST_REMAINING, _REQUEST_RESET), (_TOKEN_REMAINING, _TOKEN_RESET)):
            left = _header_number(headers, *remaining)
            if left is not None and left < 1:
                seconds = parse_reset(_first(headers, reset), now)
                if seconds is not None:
                    waits.append(seconds)
        # A wait longer than one call's whole retry budget cannot be waited out by any call: the call
        # that meets it fails naming it (or after its retries). Holding every other process that long
        # would hang the run instead (retry-after: 1000000000, a reset in year 9999, 99999h), so such
        # a wait does not hold the shared pace at all; waits within the budget hold it as before.
        fitting = [wait for wait in waits if wait <= MAX_HOLD]
        return max(fitting) if fitting else None

    def _grown(self, state: dict[str, Any], now: float, sent_at: float) -> float:
        """The rate after a success: in slow start one call more a round trip; else 2% more up to the ceiling, and
        past a measured pace 0.2% more."""
        rate = float(state["rate"])
        ceiling = state["ceiling"]
        if state.get("slow") and not state["announced"]:
            # Slow start, as TCP's: each success adds one call per round trip, so the pace doubles every round trip
            # while calls wait for their slots. When none waits, the run sends fewer calls than its rate allows:
            # the rate does not grow past what the run has shown it needs.
            if state["tat"] <= now:
                return rate
            return min(2 * rate, rate + 1 / max(now - sent_at, _MIN_ROUND_TRIP))
        if state["announced"] and ceiling:
            return min(rate * (1 + _INCREASE), float(ceiling))
        measured = state.get("measured")
        if measured is None:
            return rate * (1 + _INCREASE)
        target = float(measured) * HEADROOM
        if rate < target:
            return min(rate * (1 + _INCREASE), target)
        # At or past what was measured: probe upward, slowly at first (the limit is near), then
        # faster the longer no call is refused (the limit was raised, or measured low).
        streak = int(state.get("streak", 0))
        return rate * (1 + min(_INCREASE, _PROBE_INCREASE * 2 ** (streak / _PROBE_DOUBLING)))

    def _cut(self, state: dict[str, Any], now: float, scheduled: float) -> None:
        rate = state["rate"]
        guessed = rate is None or bool(state.get("slow"))
        # No refusal yet: the rate is slow start's guess, not a pace the server was known to accept.
        pace = None if state["announced"] or state["fixed"] else _measured_pace(state, now)
        if pace is not None:
            # No header says the limit, but a server refusing calls accepts them at its limit:
            # the pace of the run's recent successes measures it, and the rate goes a little under
            # it (never more than halved at once, so a short or idle sample cannot stall the run).
            state["measured"] = pace
            cut = pace * HEADROOM if guessed else max(rate / 2, min(rate, pace) * HEADROOM)
        else:
            if guessed:
                # Start from the pace actually achieved since the run began, if slower than the guess.
                started = state["started"] if state["started"] is not None else now
                achieved = state["sent"] / max(1.0, now - started)
                rate = achieved if rate is None else min(rate, achieved)
            cut = rate / 2
        state["rate"] = max(_MIN_RATE, cut)
        state["cut_at"] = scheduled
        state["streak"] = 0
        state["slow"] = False
        state["cuts"] = state.get("cuts", 0) + 1


class PacedTransport(httpx.AsyncBaseTransport):
    """Sends each judge call in its role's shared slot, and tells the limiter how it went."""

    def __init__(self, inner: httpx.AsyncBaseTransport, limiter: SharedLimiter) -> None:
        self._inner = inner
        self.limiter = limiter

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        judge = judge_of(request)
        if judge is None or request.method != "POST":
            return await self._inner.handle_async_request(request)
        role = judge.role
        tokens = request_tokens(await request.aread())
        sent_at, mark = await self.limiter.acquire_marked(role, tokens)
        try:
            response = await self._inner.handle_async_request(request)
        except BaseException:
            self.limiter.forget_probe(role)
            raise
        self.limiter.observe(role, sent_at, response.status_code, response.headers, mark)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


def _sync_to_remaining(
    state: dict[str, Any], headers: httpx.Headers, sent_at: float, burst: float, mark: Mark | None
) -> None:
    """Pull the schedule back to what the provider says was left when it took the call sent at `sent_at`.

    The provider counted `left` calls (tokens) of room then; the run's calls sent since used some of it.
    A schedule `burst` seconds ahead of a moment takes one call more (GCRA), so `left` calls fit while the
    schedule is at most sent_at + burst - (left - 1) / rate; each call sent since moves it on by its share.
    The schedule never assumes more room than that (other clients of the key included).
    """
    calls, used = (int(state["sent"]) - mark[0], int(state.get("sent_tokens", 0)) - mark[1]) if mark else (0, 0)
    rate, token_rate = state["rate"], state["token_rate"]
    left = _header_number(headers, *_REQUEST_REMAINING)
    if left is not None and rate:
        state["tat"] = max(state["tat"], sent_at + burst + (calls - left + 1) / float(rate))
    left = _header_number(headers, *_TOKEN_REMAINING)
    if left is not None and token_rate and not state.get("token_fixed"):
        state["ttat"] = max(state["ttat"], sent_at + burst + (used - left) / float(token_rate))


def _token_burst(state: dict[str, Any], burst: float) -> float:
    """The burst allowance on the token schedule: none when --ora-tpm fixed the token pace."""
    return 0.0 if state.get("token_fixed") else burst


def _stop_bursting(state: dict[str, Any], now: float) -> None:
    """A refusal: the provider does not take bursts (or no longer has the room), so calls go at the pace alone from now on."""
    burst = float(state["burst"])
    state["tat"] = max(now, state["tat"] - burst)
    state["ttat"] = max(now, state["ttat"] - _token_burst(state, burst))
    state["burst"] = 0.0
    state["refused"] = True


def _remember(state: dict[str, Any], answered_at: float) -> None:
    """Keep the moment an accepted call was answered (the latest _PACE_SAMPLES within _PACE_WINDOW)."""
    accepted = [moment for moment in state.setdefault("accepted", []) if moment >= answered_at - _PACE_WINDOW]
    accepted.append(answered_at)
    accepted.sort()
    state["accepted"] = accepted[-_PACE_SAMPLES:]


def _measured_pace(state: dict[str, Any], now: float) -> float | None:
    """Accepted calls per second over the kept samples, idle gaps left out; None with too few.

    The moments are those of the answers: a server at its limit accepts a call every 1 / limit
    seconds and answers each after the same latency, so their spacing is its limit. A gap far
    longer than the usual one is time nobody sent (the first call going alone, a retry-after
    hold) and counts as a usual gap, so an idle moment does not read as a low limit.
    """
    accepted: list[float] = [moment for moment in state.get("accepted", []) if moment >= now - _PACE_WINDOW]
    if len(accepted) < _PACE_MIN:
        return None
    gaps = sorted(later - earlier for earlier, later in itertools.pairwise(accepted))
    usual = gaps[len(gaps) // 2]
    if usual <= 0:
        return None
    span = sum(gap if gap <= _IDLE_GAP * usual else usual for gap in gaps)
    return len(gaps) / span


def _far_from_limit(state: dict[str, Any], headers: httpx.Headers) -> bool:
    """Whether a success announces a limit with at least half of its window left (the ceiling is safe)."""
    if not state["announced"] or not state["ceiling"]:
        return False
    limit = _header_number(headers, *_REQUEST_LIMIT)
    left = _header_number(headers, *_REQUEST_REMAINING)
    return limit is not None and left is not None and limit > 0 and left >= limit / 2


def _safe(role: str) -> str:
    """A file name for a role (role names come from optimum.yaml)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", role) or "_"
