"""The shared rate limiter: pacing, the providers' headers, a limit learned without them, one schedule for many processes."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import multiprocessing
import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.virtual_time import VirtualLoop, run_virtual

from pytest_ora.core.errors import TransportError
from pytest_ora.core.models import RoleSpec
from pytest_ora.core.plan import JudgeSlot
from pytest_ora.judges.calling import JUDGE_EXTENSION
from pytest_ora.judges.ratelimit import HEADROOM, Limit, PacedTransport, SharedLimiter, parse_reset, request_tokens
from pytest_ora.judges.transport import RetryPolicy, send
from pytest_ora.testing.server import ReferenceJudge
from pytest_ora.testing.serverlimits import Bucket, RateLimiter

BIG = JudgeSlot(
    label="Judge A",
    slot="big",
    role="big",
    spec=RoleSpec(model="m", provider="openai", route="http://judge.test/v1/chat/completions"),
)
"""The judge a paced call is sent for (the pacing transport reads it off the request)."""


class Clock:
    """A fake clock that sleeping moves forward."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def limiter(tmp_path: Path, clock: Clock, **limits: Limit) -> SharedLimiter:
    return SharedLimiter(tmp_path, limits, clock=clock, sleep=clock.sleep)


def send_times(shared: SharedLimiter, role: str, count: int) -> list[float]:
    async def run() -> list[float]:
        return [await shared.acquire(role) for _ in range(count)]

    return asyncio.run(run())


def test_a_given_rpm_spaces_calls_evenly(tmp_path: Path) -> None:
    # Given --ora-rpm big=120 (two a second)
    clock = Clock()
    shared = limiter(tmp_path, clock, big=Limit(rpm=120))
    # When five calls are sent one after the other
    times = send_times(shared, "big", 5)
    # Then they go half a second apart, the first at once
    assert [round(t - times[0], 3) for t in times] == [0.0, 0.5, 1.0, 1.5, 2.0]


def test_a_token_limit_spaces_calls_by_their_tokens(tmp_path: Path) -> None:
    clock = Clock()
    shared = limiter(tmp_path, clock, big=Limit(tpm=60_000))  # 1,000 tokens a second

    async def run() -> list[float]:
        await shared.acquire("big")  # the first call probes: no limit known yet
        shared.observe("big", clock.now, 200, httpx.Headers())
        return [await shared.acquire("big", tokens=500) for _ in range(3)]

    times = asyncio.run(run())
    assert [round(t - times[0], 3) for t in times] == [0.0, 0.5, 1.0]


def test_without_options_the_first_call_probes_and_the_headers_set_the_pace(tmp_path: Path) -> None:
    # Given no option: the first call goes alone
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    assert shared.snapshot("big")["probe"] == first
    # When its response announces Anthropic's limit of 60 a minute
    shared.observe(
        "big",
        first,
        200,
        httpx.Headers({"anthropic-ratelimit-requests-limit": "60", "anthropic-ratelimit-requests-remaining": "59"}),
    )
    # Then past the first second's allowance the role is paced a little under it
    times = send_times(shared, "big", 5)
    gap = 1 / HEADROOM
    assert times[1] - times[0] < gap
    assert [round(later - earlier, 3) for earlier, later in itertools.pairwise(times[1:])] == [round(gap, 3)] * 3


def test_a_second_call_waits_for_the_probe_to_answer(tmp_path: Path) -> None:
    clock = Clock()
    shared = limiter(tmp_path, clock)
    send_times(shared, "big", 1)

    async def second() -> float:
        task = asyncio.ensure_future(shared.acquire("big"))
        await asyncio.sleep(0)
        for _ in range(3):
            await asyncio.sleep(0)
        shared.observe("big", clock.now, 200, httpx.Headers())
        return await task

    asyncio.run(second())
    assert clock.slept, "the second call slept while the probe was out"


def test_exhausted_remaining_holds_every_caller_until_the_reset(tmp_path: Path) -> None:
    clock = Clock()
    shared = limiter(tmp_path, clock, big=Limit(rpm=6000))
    sent = send_times(shared, "big", 1)[0]
    shared.observe(
        "big", sent, 200, httpx.Headers({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "2.5s"})
    )
    assert send_times(shared, "big", 1)[0] >= sent + 2.5


def test_a_429_halves_the_rate_once_per_round_and_successes_grow_it_back(tmp_path: Path) -> None:
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    shared.observe("big", first, 200, httpx.Headers({"x-ratelimit-limit-requests": "600"}))
    ceiling = shared.snapshot("big")["rate"]
    assert ceiling == pytest.approx(10 * HEADROOM)
    sent = send_times(shared, "big", 4)
    # When every in-flight call of the round comes back 429
    for moment in sent:
        shared.observe("big", moment, 429, httpx.Headers({"retry-after": "1"}))
    # Then the rate was cut once, not four times, and every caller is held for the retry-after
    state = shared.snapshot("big")
    assert state["rate"] == pytest.approx(ceiling / 2)
    assert state["limited"] == 4
    assert state["tat"] >= clock.now + 1
    # And successes grow it back to the ceiling, never past it
    for _ in range(200):
        shared.observe("big", clock.now, 200, httpx.Headers())
    assert shared.snapshot("big")["rate"] == pytest.approx(ceiling)


def test_a_success_with_most_of_the_window_left_restores_the_announced_ceiling_at_once(tmp_path: Path) -> None:
    """After a storm of 429s that announced a low limit, the provider's successes announce 4,000 a
    minute with nearly all of it left: the pace goes back to that ceiling, not up 2% a call (a 3 s storm
    used to leave a run at a fifth of a call a second for the rest of it)."""
    clock = Clock()
    shared = limiter(tmp_path, clock)
    low = httpx.Headers({"anthropic-ratelimit-requests-limit": "50", "anthropic-ratelimit-requests-remaining": "0"})
    first = send_times(shared, "big", 1)[0]
    shared.observe("big", first, 429, low)
    for _ in range(3):  # three rounds of refusals: the rate is halved each round
        clock.now += 1
        shared.observe("big", send_times(shared, "big", 1)[0], 429, low)
    assert shared.snapshot("big")["rate"] < 50 / 60 * HEADROOM / 4
    # When a success announces a far higher limit with most of its window left
    plenty = httpx.Headers(
        {"anthropic-ratelimit-requests-limit": "4000", "anthropic-ratelimit-requests-remaining": "3999"}
    )
    shared.observe("big", clock.now, 200, plenty)
    # Then the rate is that limit's ceiling at once
    assert shared.snapshot("big")["rate"] == pytest.approx(4000 / 60 * HEADROOM)


def test_a_success_near_the_end_of_the_window_grows_the_rate_slowly(tmp_path: Path) -> None:
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    shared.observe("big", first, 200, httpx.Headers({"x-ratelimit-limit-requests": "600"}))
    shared.observe("big", send_times(shared, "big", 1)[0], 429, httpx.Headers())
    cut = shared.snapshot("big")["rate"]
    # When a success says less than half the window is left
    shared.observe(
        "big",
        clock.now,
        200,
        httpx.Headers({"x-ratelimit-limit-requests": "600", "x-ratelimit-remaining-requests": "200"}),
    )
    # Then the rate grows by the usual step only
    assert shared.snapshot("big")["rate"] == pytest.approx(cut * 1.02)


def test_a_429_without_any_known_limit_starts_pacing_at_half_the_achieved_rate(tmp_path: Path) -> None:
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    shared.observe("big", first, 200, httpx.Headers())  # no headers: unpaced
    send_times(shared, "big", 39)  # 40 calls ...
    clock.now += 10  # ... over ten seconds
    shared.observe("big", clock.now, 429, httpx.Headers())
    assert shared.snapshot("big")["rate"] == pytest.approx(2.0, rel=0.01)


def test_without_headers_the_first_answer_sets_the_pace_of_one_call_at_a_time_and_successes_grow_it(
    tmp_path: Path,
) -> None:
    # Given a role no header paces, whose first call was answered after half a second
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    clock.now = first + 0.5
    shared.observe("big", first, 200, httpx.Headers())
    # Then the calls in flight do not all go at once: the pace is that of one call at a time
    assert shared.snapshot("big")["rate"] == pytest.approx(2.0)
    times = send_times(shared, "big", 3)
    assert [round(t - times[0], 3) for t in times] == [0.0, 0.5, 1.0]
    # And while calls wait for their slots, each success adds one call per round trip (slow start: the pace
    # doubles every round trip) ...
    clock.now = times[0] + 0.5
    shared.observe("big", times[0], 200, httpx.Headers())
    assert shared.snapshot("big")["rate"] == pytest.approx(4.0)
    clock.now = times[0] + 0.55
    shared.observe("big", times[0] + 0.05, 200, httpx.Headers())
    assert shared.snapshot("big")["rate"] == pytest.approx(6.0)
    # ... but once no call waits (the run sends fewer calls than its rate allows), a success does not grow it
    clock.now = times[0] + 10
    shared.observe("big", clock.now - 0.5, 200, httpx.Headers())
    assert shared.snapshot("big")["rate"] == pytest.approx(6.0)


def test_a_cut_makes_calls_waiting_on_a_slot_of_the_old_pace_take_a_new_one(tmp_path: Path) -> None:
    # Given a role paced at 4 calls a second whose next call waits for a slot a quarter of a second ahead
    clock = Clock()
    shared = limiter(tmp_path, clock)

    async def run() -> list[float]:
        first = await shared.acquire("big")
        clock.now = first + 0.25
        shared.observe("big", first, 200, httpx.Headers())
        taken = [await shared.acquire("big")]
        waiting = asyncio.ensure_future(shared.acquire("big"))
        await asyncio.sleep(0)  # it took its slot and sleeps until it
        # When a call is refused meanwhile (a retry-after of 2 s)
        shared.observe("big", taken[0], 429, httpx.Headers({"retry-after": "2"}))
        taken.append(await waiting)
        return taken

    with pytest.MonkeyPatch.context() as patch:

        async def sleep(seconds: float) -> None:
            await asyncio.sleep(0)
            clock.now += seconds

        patch.setattr(shared, "_sleep", sleep)
        taken = asyncio.run(run())
    # Then the waiting call was not sent in its old slot but after the hold
    assert taken[1] >= taken[0] + 2


def _worker(directory: str, count: int, queue: multiprocessing.Queue[list[float]]) -> None:
    shared = SharedLimiter(Path(directory), {"big": Limit(rpm=1200)})  # 20 a second, real clock

    async def run() -> list[float]:
        return [await shared.acquire("big") for _ in range(count)]

    queue.put(asyncio.run(run()))


def test_processes_sharing_the_directory_share_one_schedule(tmp_path: Path) -> None:
    # Given four processes pacing the same role at 20 calls a second in all
    queue: multiprocessing.Queue[list[float]] = multiprocessing.Queue()
    processes = [multiprocessing.Process(target=_worker, args=(str(tmp_path), 10, queue)) for _ in range(4)]
    for process in processes:
        process.start()
    times = sorted(t for _ in processes for t in queue.get(timeout=30))
    for process in processes:
        process.join(timeout=30)
    # Then their 40 calls took about two seconds together, never two in the same slot
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    assert min(gaps) > 0.04
    assert times[-1] - times[0] == pytest.approx(39 / 20, abs=0.2)


def test_reset_headers_of_both_providers_parse() -> None:
    now = time.time()
    assert parse_reset("6ms", now) == pytest.approx(0.006)
    assert parse_reset("1m30s", now) == pytest.approx(90)
    assert parse_reset("2.5s", now) == pytest.approx(2.5)
    moment = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now + 30))
    assert parse_reset(moment, now) == pytest.approx(30, abs=1.5)
    assert parse_reset("soon", now) is None


def test_an_image_counts_as_an_image_not_as_its_base64() -> None:
    body = b'{"text": "' + b"x" * 400 + b'", "image": "' + b"A" * 100_000 + b'"}'
    assert request_tokens(body) < 2000


# --- the reference judge's limit -----------------------------------------------------------------


def test_the_reference_judge_refuses_past_its_bucket_with_the_providers_headers() -> None:
    with ReferenceJudge(rpm=60) as judge:  # one a second, a burst of two
        url = judge.route("anthropic")
        body = {
            "model": "claude-opus-4-7",
            "max_tokens": 1024,
            "messages": [{"role": "user", "content": "entry_key: mode:x\nconfiguration: c\nanswer"}],
        }
        headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
        responses = [httpx.post(url, json=body, headers=headers) for _ in range(3)]
    assert [r.status_code for r in responses][:2] != [429, 429]
    refused = responses[2]
    assert refused.status_code == 429
    assert refused.json()["error"]["type"] == "rate_limit_error"
    assert refused.headers["anthropic-ratelimit-requests-limit"] == "60"
    assert refused.headers["anthropic-ratelimit-requests-remaining"] == "0"
    assert int(refused.headers["retry-after"]) >= 1
    assert judge.rate_limit is not None and judge.rate_limit.refused == 1


def test_the_bucket_refills_at_its_rate() -> None:
    limit = RateLimiter(rpm=120)
    first = [limit.take("openai", "k").allowed for _ in range(3)]
    assert first == [True, True, False]
    headers = dict(limit.take("openai", "k").headers("openai"))
    assert headers["x-ratelimit-limit-requests"] == "120"
    assert "retry-after-ms" in headers
    time.sleep(0.55)
    assert limit.take("openai", "k").allowed


# --- a header-less limit, simulated on a virtual clock ----------------------------------------


_RTT = 0.005
"""Seconds a request takes to reach the loopback judge, and its answer to come back (a refusal too)."""


class _LimitedJudge(httpx.AsyncBaseTransport):
    """The reference judge's token bucket on the loop's virtual clock, answering after `latency`.

    Every request and every answer travels `_RTT / 2`: a refusal is not known the moment a call
    leaves, so every call sent together meets the bucket before the first refusal comes back, as
    over a real connection (with no travel time the calls of a burst would be refused one by one,
    each refusal slowing the next call down before it is sent).
    """

    def __init__(
        self, loop: VirtualLoop, rps: float, latency: float, announce: bool, capacity: float | None, claims_full: bool
    ) -> None:
        self.loop, self.latency, self.announce, self.claims_full = loop, latency, announce, claims_full
        self.bucket = Bucket(rps * 60, loop.time())
        if capacity is not None:
            self.bucket.capacity = self.bucket.tokens = capacity
        self.accepted = self.refused = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(_RTT / 2)
        decision = self.bucket.take(self.loop.time(), int(self.bucket.rate * 60))
        if self.claims_full:  # a provider whose headers show a full minute while it enforces a second
            decision = dataclasses.replace(decision, remaining=decision.limit - 1, reset=0.006)
        headers = decision.headers("openai", announce=self.announce)
        if not decision.allowed:
            self.refused += 1
            await asyncio.sleep(_RTT / 2)
            return httpx.Response(429, headers=headers, request=request)
        await asyncio.sleep(self.latency + _RTT / 2)
        self.accepted += 1
        return httpx.Response(200, headers=headers, json={}, request=request)


@dataclass
class _Run:
    wall: float
    accepted: int
    refused: int
    lost: int
    rates: list[float]
    """The role's rate after every response (None while unpaced is left out)."""


def _simulate(
    tmp_path: Path | None,
    *,
    calls: int,
    rps: float,
    in_flight: int,
    processes: int = 1,
    announce: bool = False,
    latency: float = 0.5,
    capacity: float | None = None,
    claims_full: bool = False,
) -> _Run:
    """`calls` judge calls of one role through PacedTransport and the retry policy's defaults (the limiters' state in
    `tmp_path`, or in memory when None)."""
    loop = VirtualLoop()
    judge = _LimitedJudge(loop, rps, latency, announce, capacity, claims_full)
    rates: list[float] = []
    lost = 0

    async def main() -> float:
        nonlocal lost
        limiters = [SharedLimiter(tmp_path, {}, clock=loop.clock, sleep=asyncio.sleep) for _ in range(processes)]
        clients = [httpx.AsyncClient(transport=PacedTransport(judge, shared)) for shared in limiters]
        remaining = [calls]
        rng = random.Random(0)

        async def one_slot(index: int) -> None:
            nonlocal lost
            client = clients[index % processes]
            while remaining[0] > 0:
                remaining[0] -= 1
                request = httpx.Request(
                    "POST", "http://judge.test/v1/chat/completions", content=b"{}", extensions={JUDGE_EXTENSION: BIG}
                )
                try:
                    await send(
                        client,
                        request,
                        policy=RetryPolicy(max_attempts=7),
                        judge="Judge A",
                        error_message=lambda response: "",
                        rng=rng,
                    )
                except TransportError:
                    lost += 1
                rate = limiters[0].snapshot("big")["rate"]
                if rate is not None:
                    rates.append(rate)

        start = loop.time()
        await asyncio.gather(*(one_slot(index) for index in range(in_flight * processes)))
        return loop.time() - start

    wall = run_virtual(main(), loop)
    return _Run(wall, judge.accepted, judge.refused, lost, rates)


@pytest.mark.parametrize(
    "scenario",
    [
        {"calls": 200, "rps": 10.0, "in_flight": 32, "announce": True, "capacity": 600},
        {"calls": 150, "rps": 4.0, "in_flight": 16},
    ],
    ids=["announced", "header-less"],
)
def test_a_process_alone_keeps_its_schedule_in_memory_under_the_same_rules(
    tmp_path: Path, scenario: dict[str, Any]
) -> None:
    # Given the same calls against the same limit, the schedule kept in a shared file or in the process's memory
    in_file, in_memory = _simulate(tmp_path, **scenario), _simulate(None, **scenario)
    # Then every call goes at the same moment, with the same refusals and the same rates after each response
    assert in_memory == in_file
    assert in_file.accepted == scenario["calls"] and in_file.rates


def test_a_header_less_limit_is_learned_from_the_pace_of_successes(tmp_path: Path) -> None:
    # Given a judge allowing 2 calls a second, saying nothing but retry-after on a 429,
    # and 100 calls with 24 in flight
    run = _simulate(tmp_path, calls=100, rps=2.0, in_flight=24)
    # Then no call is lost, the run takes about the physical 50 s, and few calls are refused
    assert run.lost == 0
    assert run.accepted == 100
    assert run.wall <= 1.3 * 50
    assert run.refused / (run.accepted + run.refused) < 0.1
    # And the rate settled near the limit: it never collapsed below half of it
    assert min(run.rates) >= 1.0
    assert 1.6 <= run.rates[-1] <= 2.4


def test_a_header_less_limit_is_shared_by_every_process(tmp_path: Path) -> None:
    # Given four processes (-n 4) of six calls in flight each against the same 2 calls a second
    run = _simulate(tmp_path, calls=100, rps=2.0, in_flight=6, processes=4)
    assert run.lost == 0
    assert run.wall <= 1.3 * 50
    assert min(run.rates) >= 1.0


@pytest.mark.parametrize(("calls", "in_flight", "processes"), [(30, 32, 1), (100, 32, 1), (30, 8, 4), (100, 8, 4)])
def test_a_header_less_limit_is_met_by_few_refusals_on_short_runs_and_long_ones(
    tmp_path: Path, calls: int, in_flight: int, processes: int
) -> None:
    """The run's calls in flight wait for the first answer, then go at the pace of one call at a time,
    growing until the first refusal: not all at once (a burst of 24 against a 2-a-second judge was
    refused 22 times, over half of a 30-call run's requests). 32 in flight (one process, the live
    default) or 8 in each of four processes (-n 4)."""
    run = _simulate(tmp_path, calls=calls, rps=2.0, in_flight=in_flight, processes=processes)
    assert run.lost == 0
    assert run.accepted == calls
    assert run.refused / (run.accepted + run.refused) < 0.1
    assert run.wall <= 1.3 * calls / 2.0


def test_a_faster_header_less_limit_is_held_too(tmp_path: Path) -> None:
    # 10 calls a second: the old halving on every 429 fell to a tenth of this and stayed there
    run = _simulate(tmp_path, calls=500, rps=10.0, in_flight=24)
    assert run.lost == 0
    assert run.wall <= 1.3 * 50
    # Slow start begins at the pace of one call at a time (2 a second); once at half the limit, never below
    settled = run.rates[next(index for index, rate in enumerate(run.rates) if rate >= 5.0) :]
    assert min(settled) >= 5.0


def test_with_the_providers_headers_eight_processes_meet_no_429(tmp_path: Path) -> None:
    run = _simulate(tmp_path, calls=100, rps=2.0, in_flight=3, processes=8, announce=True)
    assert run.refused == 0
    assert run.lost == 0
    assert run.rates[-1] == pytest.approx(2.0 * HEADROOM)


def test_a_run_far_under_an_announced_minute_goes_at_its_calls_in_flight_not_one_slot_at_a_time(
    tmp_path: Path,
) -> None:
    # Given a provider announcing 600 calls a minute from a bucket that holds the minute, as Anthropic's and
    # OpenAI's headers show theirs
    run = _simulate(tmp_path, calls=200, rps=10.0, in_flight=32, announce=True, capacity=600)
    # Then 200 calls at 32 in flight take about 200 / 32 round trips of 0.5 s (3.1 s), not 200 slots at
    # 9.5 a second (21 s), and none is refused
    assert run.refused == 0 and run.lost == 0
    assert run.wall < 6.0


def test_a_token_pace_fixed_by_the_user_is_kept_while_the_provider_announces_room(tmp_path: Path) -> None:
    # Given --ora-tpm big=60000 (1,000 tokens a second, a key shared with other jobs)
    clock = Clock()
    shared = limiter(tmp_path, clock, big=Limit(tpm=60_000))

    async def run() -> list[float]:
        await shared.acquire("big")  # the first call probes
        room = httpx.Headers(
            {
                "anthropic-ratelimit-requests-limit": "4000",
                "anthropic-ratelimit-requests-remaining": "3999",
                "anthropic-ratelimit-input-tokens-limit": "2000000",
                "anthropic-ratelimit-input-tokens-remaining": "2000000",
            }
        )
        shared.observe("big", clock.now, 200, room)  # the provider announces far more room than the user allows
        return [await shared.acquire("big", tokens=500) for _ in range(4)]

    times = asyncio.run(run())
    # Then the calls still go half a second apart: the announced requests may burst, the user's token pace not
    assert [round(later - earlier, 3) for earlier, later in itertools.pairwise(times)] == [0.5, 0.5, 0.5]
    assert shared.snapshot("big")["burst"] > 0


def test_a_provider_refusing_a_burst_its_headers_allowed_ends_bursting_at_the_first_429(tmp_path: Path) -> None:
    # Given a provider whose headers say the minute is nearly all left while it takes one second's calls only
    run = _simulate(tmp_path, calls=200, rps=10.0, in_flight=32, announce=True, claims_full=True)
    # Then the run meets a few refusals as its allowance grows, then goes at the pace: nothing lost
    assert run.lost == 0
    assert run.refused <= 32
    assert run.wall < 200 / (10.0 * HEADROOM) * 1.5


def test_a_burst_of_429s_cuts_to_the_pace_of_successes_once_a_round(tmp_path: Path) -> None:
    # Given a header-less role whose calls were accepted at 4 a second for the last 5 seconds, unpaced
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    for index in range(21):
        clock.now = first + index * 0.25  # answered a quarter of a second apart
        shared.observe("big", first, 200, httpx.Headers())
    clock.now = first + 5.5
    # When six calls sent together all come back 429
    burst = send_times(shared, "big", 6)
    for moment in burst:
        shared.observe("big", moment, 429, httpx.Headers())
    # Then the rate went to a little under the measured pace, once (not halved six times)
    state = shared.snapshot("big")
    assert state["measured"] == pytest.approx(4.0)
    assert state["rate"] == pytest.approx(4.0 * HEADROOM)
    # And when calls paced at that rate are refused, only the first call's refusal cuts again
    paced = send_times(shared, "big", 3)
    for moment in paced:
        shared.observe("big", moment, 429, httpx.Headers())
    assert shared.snapshot("big")["rate"] == pytest.approx(4.0 * HEADROOM * HEADROOM)
    assert shared.snapshot("big")["limited"] == 9


def test_past_a_measured_pace_the_rate_probes_upward_slowly_then_faster(tmp_path: Path) -> None:
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    for index in range(5):
        clock.now = first + index  # answered a second apart
        shared.observe("big", first, 200, httpx.Headers())
    clock.now = first + 5
    shared.observe("big", clock.now, 429, httpx.Headers())
    start = shared.snapshot("big")["rate"]
    assert start == pytest.approx(1.0 * HEADROOM)
    for _ in range(24):
        shared.observe("big", clock.now, 200, httpx.Headers())
    slow = shared.snapshot("big")["rate"]
    for _ in range(120):
        shared.observe("big", clock.now, 200, httpx.Headers())
    fast = shared.snapshot("big")["rate"]
    # 24 successes past the measured pace add about 12%; five times as many without a 429 double it
    assert 1.05 * start < slow < 1.2 * start
    assert fast > 2 * start


def test_the_header_less_reference_judge_says_only_retry_after() -> None:
    # Six a minute: the bucket's two calls are spent, and the third is refused unless ten seconds pass
    # between them (at 120 a minute a loaded machine sometimes took the half second that refills one)
    with ReferenceJudge(rpm=6, rate_headers=False) as judge:
        url = judge.route("openai")
        body = {
            "model": "gpt-5.4",
            "messages": [{"role": "user", "content": "entry_key: mode:x\nconfiguration: c\nanswer"}],
        }
        responses = [httpx.post(url, json=body, headers={"authorization": "Bearer k"}) for _ in range(3)]
    assert [r.status_code for r in responses] == [200, 200, 429]
    for response in responses:
        assert not [name for name in response.headers if "ratelimit" in name]
    assert responses[2].headers["retry-after"] in {str(seconds) for seconds in range(1, 11)}  # whole seconds
    assert "retry-after-ms" not in responses[2].headers


def test_idle_time_between_successes_does_not_read_as_a_low_limit(tmp_path: Path) -> None:
    # Given answers 0.5 s apart, interrupted by a 10 s hold in which nobody sent
    clock = Clock()
    shared = limiter(tmp_path, clock)
    first = send_times(shared, "big", 1)[0]
    moments = [first + 0.5 * index for index in range(6)] + [first + 12.5 + 0.5 * index for index in range(6)]
    for moment in moments:
        clock.now = moment
        shared.observe("big", first, 200, httpx.Headers())
    # When a call is refused
    shared.observe("big", clock.now, 429, httpx.Headers())
    # Then the measured pace is the two calls a second of the busy time
    assert shared.snapshot("big")["measured"] == pytest.approx(2.0)
