"""Live progress: what a live run prints, what quiet and replay runs do not, and how calls in flight are counted."""

from __future__ import annotations

import asyncio
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_reliability import JUDGED, KEY_A, KEY_B, FaultPlan, fault_project, outcomes
from test_report import record

from pytest_ora.harness.progress import INTERVAL_ENV, LiveProgress
from pytest_ora.judges.budget import DEFAULT_PRICES
from pytest_ora.judges.inflight import CountingTransport, InFlightLog
from pytest_ora.testing.server import Fault, ReferenceJudge


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """The reference judge (tests/conftest.py's `judge`) accepts only test_reliability's fake keys."""
    return {"keys": {"anthropic": KEY_A, "openai": KEY_B}}


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """12 captures (8 judged, 4 excluded) against that judge, keys set, as test_reliability's fault tests run them."""
    return fault_project(pytester, judge, monkeypatch)


@pytest.fixture(autouse=True)
def a_line_per_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(INTERVAL_ENV, "0")


def live_lines(result: pytest.RunResult) -> list[str]:
    return [line for line in result.outlines if line.startswith("ora live: ")]


def test_a_live_run_shows_captures_reasks_retries_spend_and_time_left(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    # Given one capture whose Judge A reply is invalid once and one whose first call gets a 500
    faults = {JUDGED[0]: [Fault("out_of_range", provider="anthropic")], JUDGED[1]: [Fault("500", provider="openai")]}

    # When the bundle is judged live with a budget
    result = project.runpytest("--ora-record", "once", "--ora-budget-usd", "5", plugins=[FaultPlan(judge, faults)])

    # Then a line follows each capture, and the last one counts everything the run did
    assert result.ret == 0, result.stdout.str()
    lines = live_lines(result)
    assert lines[0].startswith("ora live: 1/12 captures, ")
    assert "time left: estimating" not in lines[0] and "left" in lines[0]
    assert len(lines) == 12 + 1  # one per capture, then the final line in the summary
    final = lines[-1]
    assert final.startswith("ora live: 12/12 captures, 0 judge calls in flight, 1 re-asks, 1 retries, $0.")
    assert " (priced, not paid) of $5 budget, done in " in final  # the reference judge is on this machine
    spent = Decimal(final.split("$")[1].split(" ")[0])
    assert Decimal("0.01") < spent < Decimal("5")


def test_quiet_and_replay_only_runs_show_no_progress(project: pytest.Pytester) -> None:
    # When the bundle is judged live with -q, then replayed without -q
    quiet = project.runpytest("--ora-record", "once", "-q")
    replay = project.runpytest()

    # Then neither prints a progress line: -q asks for quiet, a replay has nothing live to report
    assert quiet.ret == 0 and replay.ret == 0
    assert outcomes(replay) == outcomes(quiet)
    assert live_lines(quiet) == [] and live_lines(replay) == []


def test_under_xdist_the_controller_counts_every_worker_s_captures(project: pytest.Pytester) -> None:
    result = project.runpytest("-n", "2", "--ora-record", "all")

    assert result.ret == 0, result.stdout.str()
    lines = live_lines(result)
    assert [line.split(",")[0] for line in lines] == [f"ora live: {n}/12 captures" for n in range(1, 13)] + [
        "ora live: 12/12 captures"
    ]
    assert ", 0 re-asks, 0 retries, $0." in lines[-1]


def test_progress_line_counts_live_calls_only_and_estimates_time_left(tmp_path: Path) -> None:
    now = [100.0]
    progress = LiveProgress(InFlightLog(tmp_path, "main"), DEFAULT_PRICES, Decimal("2"), clock=lambda: now[0])
    progress.total = 4
    progress.interval = 5.0
    live = record("optimum", "scored", scores=("8",) * 5)
    for judge in live["judges"]:
        judge.update(model="claude-opus-4-7", asks=2, attempts=4)
    live["live_calls"] = 4
    replayed = record("big-1", "scored", scores=("8",) * 5)  # asks and attempts, but from cassettes

    now[0] = 110.0
    progress.add(live)
    progress.add(replayed)

    # 2 re-asks and 4 retries from the live capture only; 2 x (10 in, 5 out) tokens of Opus 4.7 at $5 / $25 per million
    assert progress.line() == (
        "ora live: 2/4 captures, 0 judge calls in flight, 2 re-asks, 4 retries, $0.0004 of $2 budget, about 10s left"
    )
    assert progress.due() and not progress.due()  # then quiet until the interval has passed


def test_calls_in_flight_are_counted_across_processes_until_the_body_has_arrived(tmp_path: Path) -> None:
    release = asyncio.Event()
    entered = asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        entered.set()
        await release.wait()
        return httpx.Response(200, json={"ok": True})

    worker = InFlightLog(tmp_path, "gw0")
    other = InFlightLog(tmp_path, "gw1")
    other.change(+2)  # another process with two calls out
    controller = InFlightLog(tmp_path, "main")

    async def scenario() -> list[int]:
        seen = [controller.total()]
        async with httpx.AsyncClient(transport=CountingTransport(httpx.MockTransport(handler), worker)) as client:
            call = asyncio.create_task(client.post("http://judge.invalid/v1"))
            await entered.wait()
            seen.append(controller.total())
            release.set()
            response = await call
            assert response.json() == {"ok": True}
        seen.append(controller.total())
        return seen

    assert asyncio.run(scenario()) == [2, 3, 2]
