"""Cassettes: record once, replay without the network, fail loudly on drift, never store a key."""

from __future__ import annotations

import gc
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.bundle_factory import write_bundle
from support.fake_keys import FAKE_A, FAKE_B, KEYS

from pytest_ora.bundle.intake import intake
from pytest_ora.core.errors import MissingCassette, OraError, PacketDrift, TransportError
from pytest_ora.core.plan import Plan, PlannedCapture
from pytest_ora.core.record import CaptureRecord
from pytest_ora.harness.runner import CaptureRunner
from pytest_ora.judges.cassettes import REDACTED_HEADERS, CassetteLibrary, cassette_path
from pytest_ora.judges.panel import Judging
from pytest_ora.judges.transport import RetryPolicy
from pytest_ora.reports.filewriter import CaptureFiles
from pytest_ora.reports.methodology import RunFacts
from pytest_ora.reports.output import OutputDir
from pytest_ora.testing.server import Fault, ReferenceJudge

FAST = RetryPolicy(base_delay=0.01, max_delay=0.05, max_total_wait=5, timeout=httpx.Timeout(2.0))
CAPTURE_ID = "mode:argument-audit/optimum"
SHA256_BODY = re.compile(r"^sha256:[0-9a-f]{64}$")


class Bench:
    """A reference judge, a bundle pointing at it, and runners over one cassettes directory."""

    def __init__(self, tmp_path: Path, judge: ReferenceJudge) -> None:
        self.tmp_path = tmp_path
        self.judge = judge
        self.root = tmp_path / "bundle"
        self.cassettes = tmp_path / "cassettes"
        self.out = tmp_path / "out"
        self.routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
        self._runners: list[CaptureRunner] = []

    def plan(self, edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None) -> Plan:
        """(Re)write the bundle, optionally edited, and run intake on it."""
        write_bundle(self.root, routes=self.routes, edit=edit)
        return intake(self.root)

    def runner(
        self, plan: Plan, mode: str, *, environ: Mapping[str, str] = KEYS, extra_secrets: Sequence[str] = ()
    ) -> CaptureRunner:
        """A fresh runner (closed at teardown) recording or replaying in `mode`."""
        judging = Judging(plan.panel, plan.rubric, policy=FAST, reasks=1, environ=dict(environ))
        library = CassetteLibrary(self.cassettes, mode, secrets=(*judging.secrets(), *extra_secrets))
        runner = CaptureRunner(plan.bundle.root, judging, library, CaptureFiles(self.out))
        self._runners.append(runner)
        return runner

    def close(self) -> None:
        for runner in self._runners:
            runner.close()


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """The reference judge accepts only the fake keys."""
    return {"keys": {"anthropic": FAKE_A, "openai": FAKE_B}}


@pytest.fixture
def bench(tmp_path: Path, judge: ReferenceJudge) -> Iterator[Bench]:
    """The bench for one test; its runners are closed afterwards."""
    bench = Bench(tmp_path, judge)
    yield bench
    bench.close()


def planned(plan: Plan, capture_id: str = CAPTURE_ID) -> PlannedCapture:
    """The planned capture with this id."""
    return next(p for p in plan.captures if p.capture.capture_id == capture_id)


def judged(plan: Plan) -> list[PlannedCapture]:
    """Every capture intake sends to the judges."""
    return [p for p in plan.captures if p.status == "judge"]


def interactions(path: Path) -> list[dict[str, Any]]:
    """A cassette file's interactions, read as plain JSON."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return list(data["interactions"])


def change_answer(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The capture under test with a different final answer."""
    for item in items:
        if f"{item['entry_key']}/{item['configuration']}" == CAPTURE_ID:
            item["answer"] += "\n\nA late addition: the budget was revised again."
    return items


def verdict(record: CaptureRecord) -> dict[str, Any]:
    """A record without live_calls, the one field that differs between a live run and its replay."""
    return {name: value for name, value in record.items() if name != "live_calls"}


def without_usage(record: dict[str, Any]) -> dict[str, Any]:
    """The record with each judge's token usage left out."""
    return {**record, "judges": [{k: v for k, v in judge.items() if k != "usage"} for judge in record["judges"]]}


def files_under(*roots: Path) -> list[Path]:
    """Every file under the roots."""
    return [path for root in roots for path in root.rglob("*") if path.is_file()]


# --- record and replay ---------------------------------------------------------------------


@pytest.mark.parametrize("server_running", [False, True], ids=["server-stopped", "server-running"])
def test_a_recorded_capture_replays_identically_without_the_network(bench: Bench, server_running: bool) -> None:
    """Record once, then replay with no keys and a fresh runner: the same record, no request sent."""
    plan = bench.plan()
    recorded = bench.runner(plan, "once").run(planned(plan))
    calls = bench.judge.calls
    assert calls == 2
    if not server_running:
        bench.judge.stop()

    # When the capture is replayed with no keys in the environment
    replayed = bench.runner(bench.plan(), "none", environ={}).run(planned(plan))

    # Then the record is identical (but for the calls sent live) and no request reached the judge
    assert (recorded["live_calls"], replayed["live_calls"]) == (2, 0)
    assert verdict(replayed) == verdict(recorded)
    assert [j["scores"] for j in replayed["judges"]] == [j["scores"] for j in recorded["judges"]]
    assert [j["notes"] for j in replayed["judges"]] == [j["notes"] for j in recorded["judges"]]
    assert bench.judge.calls == calls


def test_only_successful_exchanges_are_kept(bench: Bench) -> None:
    """A retried 429 is not recorded, so replay makes one attempt per judge and never waits."""
    plan = bench.plan()
    bench.judge.inject(Fault("429", retry_after="0"))

    recorded = bench.runner(plan, "once").run(planned(plan))

    assert sum(j["attempts"] for j in recorded["judges"]) == 3
    stored = interactions(cassette_path(bench.cassettes, CAPTURE_ID))
    assert sorted(i["request"]["uri"] for i in stored) == sorted(bench.routes.values())
    assert [i["response"]["status"]["code"] for i in stored] == [200, 200]
    # And replay serves each judge on its first attempt
    replayed = bench.runner(plan, "none", environ={}).run(planned(plan))
    assert [j["attempts"] for j in replayed["judges"]] == [1, 1]
    assert [j["scores"] for j in replayed["judges"]] == [j["scores"] for j in recorded["judges"]]


def test_a_failed_judge_leaves_no_cassette_so_record_once_retries_it(bench: Bench) -> None:
    """A capture that failed while recording is recorded in full on the next --ora-record once run."""
    plan = bench.plan()
    bench.judge.inject(Fault("401", provider="anthropic"))
    with pytest.raises(TransportError):
        bench.runner(plan, "once").run(planned(plan))

    # Then no partial cassette stands in the way of the next run
    assert not cassette_path(bench.cassettes, CAPTURE_ID).exists()
    record = bench.runner(plan, "once").run(planned(plan))
    assert [j["asks"] for j in record["judges"]] == [1, 1]
    assert len(interactions(cassette_path(bench.cassettes, CAPTURE_ID))) == 2


# --- drift and missing cassettes -----------------------------------------------------------


@pytest.mark.parametrize("mode", ["none", "once"])
def test_a_changed_answer_fails_as_packet_drift_instead_of_replaying(bench: Bench, mode: str) -> None:
    """A cassette recorded for another packet is never replayed, nor silently extended."""
    plan = bench.plan()
    bench.runner(plan, "once").run(planned(plan))
    before = cassette_path(bench.cassettes, CAPTURE_ID).read_bytes()
    calls = bench.judge.calls

    # When the capture's answer changes after recording
    changed = bench.plan(edit=change_answer)
    with pytest.raises(PacketDrift) as caught:
        bench.runner(changed, mode, environ={} if mode == "none" else KEYS).run(planned(changed))

    # Then the capture fails naming the fix, and neither the judge nor the cassette was touched
    assert "re-record with --ora-record" in str(caught.value)
    assert caught.value.capture_id == CAPTURE_ID
    assert bench.judge.calls == calls
    assert cassette_path(bench.cassettes, CAPTURE_ID).read_bytes() == before


def test_a_missing_cassette_fails_naming_record_once(bench: Bench) -> None:
    """Replay of a capture never recorded fails with the command that records it."""
    plan = bench.plan()

    with pytest.raises(MissingCassette) as caught:
        bench.runner(plan, "none", environ={}).run(planned(plan))

    assert "--ora-record once" in str(caught.value)
    assert caught.value.capture_id == CAPTURE_ID
    assert bench.judge.calls == 0
    assert not cassette_path(bench.cassettes, CAPTURE_ID).exists()


# --- credentials ---------------------------------------------------------------------------


def test_no_key_is_written_to_cassettes_or_outputs(bench: Bench) -> None:
    """After recording every capture, no file holds a key and no cassette holds a credential header."""
    plan = bench.plan()
    runner = bench.runner(plan, "once")
    records = [runner.run(item) for item in judged(plan)]
    output = OutputDir(bench.out)
    output.write_report(plan, records, RunFacts(scoring_date="2026-06-20", record_mode="once", selected=len(records)))

    files = files_under(bench.cassettes, bench.out)
    assert any(path.name == "methodology.md" for path in files)
    for path in files:
        data = path.read_bytes()
        assert FAKE_A.encode() not in data and FAKE_B.encode() not in data, path
    for path in files_under(bench.cassettes):
        for interaction in interactions(path):
            for side in ("request", "response"):
                names = {name.lower() for name in interaction[side]["headers"]}
                assert not names & set(REDACTED_HEADERS), (path, side, names)


def test_a_key_in_the_route_query_is_not_stored(bench: Bench) -> None:
    """A route carrying ?key=... is recorded without it, and still replays."""
    bench.routes["big-2"] = f"{bench.judge.route('openai')}?key={FAKE_B}"
    plan = bench.plan()
    recorded = bench.runner(plan, "once").run(planned(plan))
    output = OutputDir(bench.out)
    output.write_report(plan, [recorded], RunFacts(scoring_date="2026-06-20", record_mode="once", selected=1))

    path = cassette_path(bench.cassettes, CAPTURE_ID)
    assert "key=" not in json.dumps([i["request"]["uri"] for i in interactions(path)])
    for stored in files_under(bench.cassettes, bench.out):
        assert FAKE_B.encode() not in stored.read_bytes(), stored
    replayed = bench.runner(plan, "none", environ={}).run(planned(plan))
    assert verdict(replayed) == verdict(recorded)
    assert replayed["live_calls"] == 0


def test_the_persister_refuses_a_cassette_holding_a_secret(bench: Bench) -> None:
    """A configured secret in a response body stops the write, and no partial file is left."""
    plan = bench.plan()
    # The reference judge's fidelity note reads "Executes 4 of 4 method steps."
    runner = bench.runner(plan, "once", extra_secrets=("method steps",))

    with pytest.raises(OraError, match="refusing to write cassette") as caught:
        runner.run(planned(plan))

    assert "method steps" not in str(caught.value)
    assert files_under(bench.cassettes) == []


def test_a_refused_cassette_leaves_later_replays_offline(bench: Bench) -> None:
    """After a refused write, replay of another capture still never reaches the network."""
    plan = bench.plan()
    with pytest.raises(OraError, match="refusing to write cassette"):
        bench.runner(plan, "once", extra_secrets=("method steps",)).run(planned(plan))
    calls = bench.judge.calls
    other = next(p for p in judged(plan) if p.capture.capture_id == "mode:causal-dag/optimum")

    # When a later capture replays (no cassette exists for it) after a garbage collection
    gc.collect()
    with pytest.raises(MissingCassette):
        bench.runner(plan, "none", environ={}).run(other)

    # Then the request was refused by replay, not sent
    assert bench.judge.calls == calls


# --- file format ---------------------------------------------------------------------------


def test_cassettes_are_readable_json_one_file_per_capture(bench: Bench) -> None:
    """cassettes/<family>/<technique>/<configuration>.json, response bodies as JSON, request bodies hashed."""
    plan = bench.plan()
    runner = bench.runner(plan, "once")
    captures = judged(plan)
    for item in captures:
        runner.run(item)

    expected = {
        bench.cassettes / c.capture.family / c.capture.technique / f"{c.capture.configuration}.json" for c in captures
    }
    assert set(files_under(bench.cassettes)) == expected
    sent = {"sha256:" + hashlib.sha256(r.body).hexdigest() for r in bench.judge.requests}
    for path in expected:
        stored = interactions(path)
        assert len(stored) == 2
        for interaction in stored:
            assert SHA256_BODY.match(interaction["request"]["body"])
            assert interaction["request"]["body"] in sent
            body = interaction["response"]["body"]
            assert isinstance(body["json"], dict) and "string" not in body
            assert body["json"]["model"]


# --- record modes --------------------------------------------------------------------------


def test_new_episodes_keeps_existing_interactions_and_adds_new_ones(bench: Bench) -> None:
    """Recording a changed packet in new_episodes mode adds to the cassette: both packets replay."""
    plan = bench.plan()
    first = bench.runner(plan, "once").run(planned(plan))
    path = cassette_path(bench.cassettes, CAPTURE_ID)
    old = interactions(path)

    # When the answer changes and new_episodes records it
    changed = bench.plan(edit=change_answer)
    second = bench.runner(changed, "new_episodes").run(planned(changed))

    # Then the old interactions are kept and the new ones added
    now = interactions(path)
    assert len(now) == 4
    assert all(interaction in now for interaction in old)
    assert bench.judge.calls == 4
    # And both packets replay offline
    assert second["live_calls"] == 2
    assert verdict(bench.runner(changed, "none", environ={}).run(planned(changed))) == verdict(second)
    original = bench.plan()
    assert verdict(bench.runner(original, "none", environ={}).run(planned(original))) == verdict(first)
    assert bench.judge.calls == 4


def test_all_re_records_even_a_matching_cassette(bench: Bench) -> None:
    """Mode all asks the judges again and replaces the interactions it re-records, without duplicates."""
    plan = bench.plan()
    first = bench.runner(plan, "once").run(planned(plan))
    assert bench.judge.calls == 2

    again = bench.runner(plan, "all").run(planned(plan))

    assert bench.judge.calls == 4
    assert again["live_calls"] == 2
    # The same replies; only the usage differs: the second asking reads the prompt cache the first wrote.
    assert without_usage(verdict(again)) == without_usage(verdict(first))
    stored = interactions(cassette_path(bench.cassettes, CAPTURE_ID))
    assert sorted(i["request"]["uri"] for i in stored) == sorted(bench.routes.values())
    # The replay is the re-recording, usage included.
    assert verdict(bench.runner(plan, "none", environ={}).run(planned(plan))) == verdict(again)


def test_a_refused_exchange_never_takes_the_tag_of_the_last_kept_one(tmp_path: Path) -> None:
    """Regression: Judge B's 401 after Judge A's 200 left A's exchange tagged as B's, so A's valid
    reply was not kept in the partial cassette and a rerun paid for it again."""
    import asyncio

    from pytest_ora.core.models import RoleSpec
    from pytest_ora.core.plan import JudgeSlot
    from pytest_ora.judges.calling import CASSETTE_EXTENSION, JUDGE_EXTENSION
    from pytest_ora.judges.cassettes import CassetteTransport, partial_path

    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200 if request.url.path == "/a" else 401, json={"ok": request.url.path})

    library = CassetteLibrary(tmp_path, "once", secrets=())
    cassette = library.open("mode:argument-audit/optimum")
    client = httpx.AsyncClient(transport=CassetteTransport(lambda: httpx.MockTransport(answer)))
    spec = RoleSpec(model="m", provider="openai", route="http://127.0.0.1:1/v1/chat/completions")

    async def call(label: str, path: str) -> None:
        judge = JudgeSlot(label=label, slot=label, role=label, spec=spec)
        extensions = {JUDGE_EXTENSION: judge, CASSETTE_EXTENSION: cassette}
        await client.post(f"http://127.0.0.1:1{path}", content=b"{}", extensions=extensions)

    async def both() -> None:
        await asyncio.create_task(call("Judge A", "/a"))
        await asyncio.create_task(call("Judge B", "/b"))
        await client.aclose()

    asyncio.run(both())
    cassette.save_partial(["Judge A"])
    kept = json.loads(partial_path(cassette.path).read_text(encoding="utf-8"))["interactions"]
    assert [interaction["request"]["uri"] for interaction in kept] == ["http://127.0.0.1:1/a"]


def test_a_replay_never_makes_the_network_transport(tmp_path: Path) -> None:
    """The transport to the network (its SSL context, its pool) is made on the first call that goes
    out, once; replaying a recorded exchange never makes it."""
    import asyncio

    from pytest_ora.core.models import RoleSpec
    from pytest_ora.core.plan import JudgeSlot
    from pytest_ora.judges.calling import CASSETTE_EXTENSION, JUDGE_EXTENSION
    from pytest_ora.judges.cassettes import CassetteTransport

    made: list[httpx.MockTransport] = []

    def network() -> httpx.MockTransport:
        made.append(httpx.MockTransport(lambda request: httpx.Response(200, json={"ok": request.url.path})))
        return made[-1]

    spec = RoleSpec(model="m", provider="openai", route="http://127.0.0.1:1/v1/chat/completions")
    judge = JudgeSlot(label="Judge A", slot="Judge A", role="Judge A", spec=spec)

    def ask(mode: str, paths: list[str]) -> list[str]:
        library = CassetteLibrary(tmp_path, mode, secrets=())
        cassette = library.open("mode:argument-audit/optimum")
        client = httpx.AsyncClient(transport=CassetteTransport(network))
        extensions = {JUDGE_EXTENSION: judge, CASSETTE_EXTENSION: cassette}

        async def calls() -> list[str]:
            replies = [
                await client.post(f"http://127.0.0.1:1{path}", content=b"{}", extensions=extensions) for path in paths
            ]
            await client.aclose()
            return [reply.json()["ok"] for reply in replies]

        replies = asyncio.run(calls())
        if mode != "none":
            cassette.save()
        return replies

    assert ask("once", ["/a", "/b"]) == ["/a", "/b"]
    assert len(made) == 1  # two calls out, one transport

    assert ask("none", ["/a", "/b"]) == ["/a", "/b"]
    assert len(made) == 1  # the replay made none
