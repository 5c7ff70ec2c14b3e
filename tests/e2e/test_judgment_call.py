"""One judgment through a capture's steps: the run's budget and shared rate limiter, a packet never sent, replay free."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from support.e2e import KEY_A
from support.judge_modes import MODES

from pytest_ora.harness.judgment import call
from pytest_ora.harness.judgment.api import judge_in_run
from pytest_ora.harness.judgment.result import JudgmentFailed
from pytest_ora.harness.steps.spend import Budget
from pytest_ora.judges.budget import SpendLog, load_prices
from pytest_ora.judges.ratelimit import PacedTransport, SharedLimiter
from pytest_ora.testing.server import ReferenceJudge


def _judges(judge: ReferenceJudge) -> list[str]:
    return [f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}"]


def test_a_live_judgment_is_paced_by_the_shared_limiter_and_charged_to_the_run_s_budget(
    judge: ReferenceJudge, tmp_path: Path
) -> None:
    # Given a run's budget and its shared rate limiter
    log = SpendLog(tmp_path / "spend", "gw0")
    budget = Budget(Decimal("100"), load_prices(None), log)
    limiter = SharedLimiter(tmp_path / "limits", {})
    # When a judgment is made live, then replayed
    result = judge_in_run(
        "solo",
        MODES["solo"],
        _judges(judge),
        tmp_path / "c.json",
        "once",
        environ={"ANTHROPIC_API_KEY": KEY_A},
        budget=budget,
        limiter=limiter,
    )
    spent = log.total()
    again = judge_in_run(
        "solo", MODES["solo"], _judges(judge), tmp_path / "c.json", "none", environ={}, budget=budget, limiter=limiter
    )
    # Then the live call went through the limiter and was charged; the replay was neither paced nor charged
    assert limiter.snapshot("a")["sent"] == 1
    assert spent > 0 and log.total() == spent
    assert again.scores == result.scores


def test_a_judgment_past_the_run_s_budget_is_not_started(judge: ReferenceJudge, tmp_path: Path) -> None:
    # Given a run whose judge spend already reached its budget
    log = SpendLog(tmp_path / "spend", "gw0")
    log.add(Decimal("0.50"))
    budget = Budget(Decimal("0.50"), load_prices(None), log)
    # When a judgment is asked for
    with pytest.raises(JudgmentFailed) as failed:
        judge_in_run(
            "solo",
            MODES["solo"],
            _judges(judge),
            tmp_path / "c.json",
            "once",
            environ={"ANTHROPIC_API_KEY": KEY_A},
            budget=budget,
        )
    # Then no judge is called, and the failure says why (never an estimate)
    assert failed.value.failure.error == ("Judge not called: judge spend $0.50 reached --ora-budget-usd 0.50")
    assert judge.calls == 0 and not (tmp_path / "c.json").exists()


def test_a_packet_over_a_judge_s_context_window_is_never_sent(judge: ReferenceJudge, tmp_path: Path) -> None:
    # Given a response far larger than any judge's context window
    data = {**MODES["solo"], "response": "word " * 1_200_000}
    # When it is judged
    with pytest.raises(JudgmentFailed) as failed:
        judge_in_run("solo", data, _judges(judge), tmp_path / "c.json", "once", environ={"ANTHROPIC_API_KEY": KEY_A})
    # Then the packet step stops it, as it stops a capture of a run
    assert failed.value.failure.error.startswith("Judge not called: ")
    assert "context window" in failed.value.failure.error
    assert judge.calls == 0


def test_outside_a_run_a_live_judgment_is_paced_by_a_limiter_of_its_own_and_a_replay_by_none(
    judge: ReferenceJudge, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the pacing transport a live run's calls go through, watched
    paced: list[str] = []

    class Watched(PacedTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            paced.append(request.url.path)
            return await super().handle_async_request(request)

    monkeypatch.setattr(call, "PacedTransport", Watched)
    # When a judgment is made live with the Python call (no run), then replayed
    judge_in_run(
        "solo", MODES["solo"], _judges(judge), tmp_path / "c.json", "once", environ={"ANTHROPIC_API_KEY": KEY_A}
    )
    live = list(paced)
    judge_in_run("solo", MODES["solo"], _judges(judge), tmp_path / "c.json", "none", environ={})
    # Then the live call was paced, as a run's is; the replay sent nothing to pace
    assert live == ["/v1/messages"] and paced == live
