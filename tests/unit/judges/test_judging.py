"""Judging one capture: both judges concurrently, replies validated and re-asked, transport faults retried."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.bundle_factory import write_bundle
from support.fake_keys import FAKE_A, FAKE_B, KEYS

from pytest_ora.bundle.intake import intake
from pytest_ora.core.errors import InvalidReplyError, TransportError
from pytest_ora.core.plan import Plan, PlannedCapture
from pytest_ora.core.record import CaptureRecord, JudgeRecord
from pytest_ora.harness.runner import CaptureRunner
from pytest_ora.judges.cassettes import CassetteLibrary
from pytest_ora.judges.packet import build_packet
from pytest_ora.judges.panel import Judging, judge_packet
from pytest_ora.judges.transport import RetryPolicy
from pytest_ora.reports.filewriter import CaptureFiles
from pytest_ora.reports.methodology import RunFacts, methodology_markdown
from pytest_ora.testing.server import BLANK_FAULTS, INVALID_FAULTS, QUIRK_FAULTS, Fault, ReferenceJudge

FAST = RetryPolicy(base_delay=0.01, max_delay=0.05, max_total_wait=5, timeout=httpx.Timeout(2.0))
CAPTURE_ID = "mode:argument-audit/optimum"
PATHS = {"anthropic": "/v1/messages", "openai": "/v1/chat/completions"}
JUDGE_NAMES = {"anthropic": "Judge A (claude-opus-4-7)", "openai": "Judge B (gpt-5.4)"}
SLOT_INDEX = {"anthropic": 0, "openai": 1}


@dataclass
class Rig:
    """A reference judge, a bundle pointing at it, and a runner judging its captures."""

    judge: ReferenceJudge
    plan: Plan
    judging: Judging
    runner: CaptureRunner
    out: Path

    def planned(self, capture_id: str = CAPTURE_ID) -> PlannedCapture:
        """The planned capture with this id."""
        return next(p for p in self.plan.captures if p.capture.capture_id == capture_id)

    def run(self, capture_id: str = CAPTURE_ID) -> CaptureRecord:
        """Judge one capture through the runner."""
        return self.runner.run(self.planned(capture_id))

    def bodies(self, provider: str) -> list[bytes]:
        """Request bodies the reference judge received on a provider's route, in order."""
        return [r.body for r in self.judge.requests if r.method == "POST" and r.path == PATHS[provider]]


MakeRig = Callable[..., Rig]


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """The reference judge accepts only the fake keys."""
    return {"keys": {"anthropic": FAKE_A, "openai": FAKE_B}}


@pytest.fixture
def make_rig(tmp_path: Path, judge: ReferenceJudge) -> Iterator[MakeRig]:
    """Build a rig (bundle, intake, judging, cassettes in mode 'all', output, runner); runners are closed after."""
    runners: list[CaptureRunner] = []
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    root = write_bundle(tmp_path / "bundle", routes=routes)

    def build(
        *, reasks: int = 1, policy: RetryPolicy = FAST, environ: Mapping[str, str] = KEYS, mode: str = "all"
    ) -> Rig:
        plan = intake(root)
        judging = Judging(plan.panel, plan.rubric, policy=policy, reasks=reasks, environ=dict(environ))
        library = CassetteLibrary(tmp_path / "cassettes", mode, secrets=judging.secrets())
        runner = CaptureRunner(plan.bundle.root, judging, library, CaptureFiles(tmp_path / "out"))
        runners.append(runner)
        return Rig(judge, plan, judging, runner, tmp_path / "out")

    yield build
    for runner in runners:
        runner.close()


@pytest.fixture
def rig(make_rig: MakeRig) -> Rig:
    """The default rig: fast retries, one re-ask, both keys set."""
    return make_rig()


def verdict(judge: JudgeRecord) -> tuple[dict[str, str], dict[str, str], str]:
    """What a judge said: scores, notes and impression."""
    return judge["scores"], judge["notes"], judge["impression"]


Handler = Callable[[httpx.Request, Callable[[], Awaitable[httpx.Response]]], Awaitable[httpx.Response]]


def judge_through(rig: Rig, handler: Handler) -> list[JudgeRecord]:
    """Run judge_packet on one capture with a MockTransport whose handler may relay to the reference judge."""
    packet, image = build_packet(rig.planned().capture, rig.plan.bundle.root, rig.plan.rubric)

    async def scenario() -> list[JudgeRecord]:
        async with httpx.AsyncClient(trust_env=False, timeout=FAST.timeout) as upstream:

            async def handle(request: httpx.Request) -> httpx.Response:
                async def relay() -> httpx.Response:
                    body = await request.aread()
                    forwarded = httpx.Request(request.method, request.url, headers=request.headers, content=body)
                    answer = await upstream.send(forwarded)
                    headers = [
                        (k, v)
                        for k, v in answer.headers.multi_items()
                        if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")
                    ]
                    return httpx.Response(answer.status_code, headers=headers, content=answer.content)

                return await handler(request, relay)

            async with httpx.AsyncClient(transport=httpx.MockTransport(handle)) as client:
                return await judge_packet(rig.judging, client, packet, image)

    return asyncio.run(scenario())


# --- concurrency ---------------------------------------------------------------------------


def test_both_judges_of_a_capture_are_called_concurrently(rig: Rig) -> None:
    """Neither judge's request is answered until both have been sent."""
    arrived: list[str] = []
    both_sent = asyncio.Event()

    async def handler(request: httpx.Request, relay: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
        arrived.append(request.url.path)
        if len(arrived) == 2:
            both_sent.set()
        # A sequential implementation never sends the second request: this times out instead of hanging.
        await asyncio.wait_for(both_sent.wait(), timeout=5)
        return await relay()

    # When both judges are asked for one capture
    judges = judge_through(rig, handler)

    # Then both requests were in flight together, and both replies were validated
    assert sorted(arrived) == sorted(PATHS.values())
    assert [j["label"] for j in judges] == ["Judge A", "Judge B"]
    assert all(j["asks"] == 1 and j["attempts"] == 1 for j in judges)


def test_a_judge_error_still_lets_the_other_judges_call_finish(rig: Rig) -> None:
    """Judge A failing does not cancel or abandon Judge B's call in flight."""
    rig.judge.inject(Fault("401", provider="anthropic"))
    judge_a_failed = asyncio.Event()
    finished: list[str] = []

    async def handler(request: httpx.Request, relay: Callable[[], Awaitable[httpx.Response]]) -> httpx.Response:
        if request.url.path == PATHS["anthropic"]:
            response = await relay()
            judge_a_failed.set()
            return response
        # Judge B is still waiting for its answer when Judge A's call fails.
        await asyncio.wait_for(judge_a_failed.wait(), timeout=5)
        response = await relay()
        finished.append(request.url.path)
        return response

    # When Judge A's call fails while Judge B's is in flight
    with pytest.raises(TransportError) as caught:
        judge_through(rig, handler)

    # Then the capture fails for Judge A, only after Judge B's call finished
    assert caught.value.status == 401
    assert JUDGE_NAMES["anthropic"] in str(caught.value)
    assert finished == [PATHS["openai"]]
    assert len(rig.bodies("anthropic")) == 1 and len(rig.bodies("openai")) == 1


# --- invalid replies -----------------------------------------------------------------------


def test_an_invalid_reply_is_asked_again_once_and_the_valid_second_reply_is_used(rig: Rig) -> None:
    """One out-of-range score: a re-ask with the correction, its valid reply recorded and counted."""
    plain = rig.run()
    rig.judge.reset()
    rig.judge.inject(Fault("out_of_range", times=1, provider="anthropic"))

    # When Judge A's first reply scores fidelity 11
    record = rig.run()

    # Then Judge A was asked twice and its second reply is the one recorded
    judge_a, judge_b = record["judges"]
    assert (judge_a["asks"], judge_b["asks"]) == (2, 1)
    assert verdict(judge_a) == verdict(plain["judges"][0])
    first, second = rig.bodies("anthropic")
    assert first != second
    assert b"rejected" not in first
    assert b"Your previous reply to this packet was rejected" in second
    assert b"scores.fidelity" in second and b"11" in second
    # And the re-ask is counted in the methodology note
    note = methodology_markdown(rig.plan, [record], RunFacts(scoring_date="2026-06-20", record_mode="all", selected=1))
    assert "Re-asks after invalid replies: 1" in note
    assert "Judge A: 1" in note


def test_a_reply_invalid_twice_fails_naming_the_judge_field_value_and_raw_reply(rig: Rig) -> None:
    """Two out-of-range replies: InvalidReplyError, never a clamped score."""
    rig.judge.inject(Fault("out_of_range", times=2, provider="anthropic"))

    # When both asks come back with fidelity 11
    with pytest.raises(InvalidReplyError) as caught:
        rig.run()

    # Then the error names the judge, its model, the field, the value and the raw reply
    error = caught.value
    message = str(error)
    assert "Judge A" in message and "claude-opus-4-7" in message
    assert error.field == "scores.fidelity" and "'scores.fidelity'" in message
    assert error.value == "11.0" and "(got 11.0)" in message
    assert error.asks == 2 and "after 2 asks" in message
    assert '"fidelity":11.0' in error.raw.replace(" ", "")
    assert "Raw reply:" in message and '"tool_use"' in message
    # And nothing was recorded as this judge's reply
    assert len(rig.bodies("anthropic")) == 2
    assert not list(rig.out.rglob("*.big-1.json"))


@pytest.mark.parametrize("kind", BLANK_FAULTS)
def test_a_blank_note_or_impression_is_invalid_and_asked_again(rig: Rig, kind: str) -> None:
    """The Ora method's notes and impression are text: a blank one is re-asked, never recorded."""
    plain = rig.run()
    rig.judge.reset()
    rig.judge.inject(Fault(kind, times=1, provider="anthropic", criterion="soundness"))

    # When Judge A's first reply has a blank note (or impression)
    record = rig.run()

    # Then it was asked again, naming the blank field, and its second reply is the one recorded
    judge_a, judge_b = record["judges"]
    assert (judge_a["asks"], judge_b["asks"]) == (2, 1)
    assert verdict(judge_a) == verdict(plain["judges"][0])
    field = b"notes.soundness" if kind == "blank_note" else b"impression"
    second = rig.bodies("anthropic")[-1]
    assert b"Your previous reply to this packet was rejected" in second and field in second and b"is blank" in second


def test_a_blank_note_twice_fails_the_capture(make_rig: MakeRig) -> None:
    """Twice blank: InvalidReplyError naming the note, never a default text."""
    rig = make_rig(reasks=0)
    rig.judge.inject(Fault("blank_note", provider="openai"))

    with pytest.raises(InvalidReplyError) as caught:
        rig.run()

    assert caught.value.field == "notes.fidelity" and caught.value.reason.startswith("is blank")


EXPECTED_PROBLEMS = {
    "out_of_range": ("scores.fidelity", "is outside the scale 0-10"),
    "missing_criterion": ("scores.fidelity", "is missing"),
    "non_numeric": ("scores.fidelity", "must be a number"),
    "wrong_echo": ("entry_key", "does not match the packet's 'mode:argument-audit'"),
    "truncated": ("(reply)", "was cut off at the output token limit"),
    "refusal": ("(reply)", "is a refusal"),
    "empty": ("(reply)", "is empty"),
    "prose": ("(reply)", "is not a single JSON object"),
}


def test_every_invalid_reply_kind_is_covered() -> None:
    """The table below names every invalid-reply fault the reference judge can produce."""
    assert set(EXPECTED_PROBLEMS) == set(INVALID_FAULTS)


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("kind", INVALID_FAULTS)
def test_every_invalid_reply_kind_fails_without_reasks(make_rig: MakeRig, kind: str, provider: str) -> None:
    """With no re-asks, each invalid-reply kind fails the capture naming its field and reason."""
    rig = make_rig(reasks=0)
    rig.judge.inject(Fault(kind, provider=provider))

    with pytest.raises(InvalidReplyError) as caught:
        rig.run()

    field, reason = EXPECTED_PROBLEMS[kind]
    error = caught.value
    assert (error.field, error.asks) == (field, 1)
    assert error.reason.startswith(reason)
    assert error.judge == JUDGE_NAMES[provider]
    assert error.raw
    assert len(rig.bodies(provider)) == 1


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("quirk", QUIRK_FAULTS)
def test_every_valid_quirk_is_parsed_to_the_plain_replys_scores(rig: Rig, quirk: str, provider: str) -> None:
    """gzip, whitespace, thinking, preamble text, fences, pretty JSON: same verdict as the plain reply."""
    plain = rig.run()
    rig.judge.inject(Fault(quirk, provider=provider))

    quirky = rig.run()

    assert rig.judge.pending() == []
    index = SLOT_INDEX[provider]
    assert verdict(quirky["judges"][index]) == verdict(plain["judges"][index])
    assert quirky["judges"][index]["asks"] == 1


# --- transport faults ----------------------------------------------------------------------

RETRIED = {
    "429 retry-after 0": Fault("429", retry_after="0"),
    "429 retry-after-ms": Fault("429", retry_after_ms="20"),
    "500": Fault("500"),
    "502": Fault("502"),
    "503": Fault("503"),
    "529": Fault("529"),
    "drop": Fault("drop"),
    "slow": Fault("slow", delay=30),  # cut short when the judge stops
}


@pytest.mark.parametrize("provider", ["anthropic", "openai"])
@pytest.mark.parametrize("name", list(RETRIED))
def test_transport_faults_are_retried_until_success(make_rig: MakeRig, name: str, provider: str) -> None:
    """A transient fault costs one more attempt, not the capture."""
    # A slow reply outlasts the client's timeout; the retry gets a prompt answer. The timeout leaves a loaded
    # machine seconds for that answer (0.5 s did not always suffice under CI's load).
    policy = (
        FAST
        if name != "slow"
        else RetryPolicy(base_delay=0.01, max_delay=0.05, max_total_wait=60, timeout=httpx.Timeout(3))
    )
    rig = make_rig(policy=policy)
    rig.judge.inject(dataclasses.replace(RETRIED[name], provider=provider))

    record = rig.run()

    index = SLOT_INDEX[provider]
    assert record["judges"][index]["attempts"] == 2
    assert record["judges"][1 - index]["attempts"] == 1
    assert record["judges"][index]["asks"] == 1
    assert len(rig.bodies(provider)) == 2
    assert rig.judge.pending() == []


@pytest.mark.parametrize(
    ("retry_after", "attempts", "detail"),
    [("0", FAST.max_attempts, "after 6 attempts"), ("60", 1, "past the remaining retry budget")],
    ids=["attempts-bound", "wait-budget"],
)
def test_a_429_storm_longer_than_the_bound_fails_naming_the_judge(
    rig: Rig, retry_after: str, attempts: int, detail: str
) -> None:
    """A rate limit that outlasts the retry bound fails the capture with the judge and the 429 named."""
    rig.judge.inject(Fault("429", retry_after=retry_after, duration=600, provider="anthropic"))

    with pytest.raises(TransportError) as caught:
        rig.run()

    error = caught.value
    assert error.status == 429 and error.attempts == attempts
    assert "Judge A (claude-opus-4-7)" in str(error) and "HTTP 429" in str(error)
    assert detail in str(error)
    assert len(rig.bodies("anthropic")) == attempts


@pytest.mark.parametrize(
    ("provider", "environ", "fault"),
    [
        ("anthropic", KEYS, True),
        ("anthropic", {**KEYS, "ANTHROPIC_API_KEY": "sk-ant-WRONG-KEY-do-not-log-0000"}, False),
        ("openai", {**KEYS, "OPENAI_API_KEY": "sk-proj-WRONG-KEY-do-not-log-0000"}, False),
    ],
    ids=["anthropic-401", "anthropic-wrong-key", "openai-wrong-key"],
)
def test_a_401_fails_after_one_attempt_without_leaking_the_key(
    make_rig: MakeRig, provider: str, environ: dict[str, str], fault: bool
) -> None:
    """An authentication error is final: one attempt, a message that names the judge, never the key."""
    rig = make_rig(environ=environ)
    if fault:
        rig.judge.inject(Fault("401", provider=provider))

    with pytest.raises(TransportError) as caught:
        rig.run()

    error = caught.value
    assert error.status == 401 and error.attempts == 1
    assert len(rig.bodies(provider)) == 1
    message = str(error)
    assert JUDGE_NAMES[provider] in message and "HTTP 401" in message
    for key in {*environ.values(), FAKE_A, FAKE_B}:
        assert key not in message
        assert key not in (error.provider_message or "")
