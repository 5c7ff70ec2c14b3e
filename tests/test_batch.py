"""--ora-batch end to end against the reference judge's batch interfaces, and those interfaces themselves."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from live_project import EXPECTED, interrupted_run, live_calls, live_project, outcomes

from pytest_ora.judges.batch import BATCH_STATE_DIR
from pytest_ora.testing.server import Fault, ReferenceJudge

KEYS = {"ANTHROPIC_API_KEY": "ora-batch-test-key-a", "OPENAI_API_KEY": "ora-batch-test-key-b"}


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    return {"batch_delay": 0.3}


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return live_project(pytester, judge, monkeypatch, KEYS)


def test_a_batch_run_judges_through_both_batch_apis_and_replays_like_any_other(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    result = project.runpytest("--ora-record", "once", "--ora-batch")
    assert outcomes(result) == EXPECTED
    # Then one batch a provider was made, and no judge call went live
    assert [batch_id.split("_")[0] for batch_id in judge.batches.created] == ["msgbatch", "batch"]
    assert live_calls(judge) == 0
    result.stdout.fnmatch_lines(["*ora: batch msgbatch_* of Judge A (big-1) submitted: 8 requests*",
                                 "*ora: batch batch_* of Judge B: completed, 8/8 done*"])
    methodology = (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "judged through provider batch APIs: 16 requests in 2 batches, 16 answered" in methodology
    assert "at the batch rate (50% of list prices)" in methodology
    assert not list((project.path / "cassettes").rglob("*.partial"))
    # And the finished cassettes replay offline
    judge.reset()
    again = project.runpytest("--ora-out", "replayed")
    assert outcomes(again) == EXPECTED
    assert judge.calls == 0


def test_an_invalid_batch_answer_is_re_asked_live(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    judge.inject(Fault("prose", provider="openai", times=1))
    result = project.runpytest("--ora-record", "once", "--ora-batch")
    assert outcomes(result) == EXPECTED
    assert live_calls(judge) == 1  # the one re-ask with its correction


def test_an_expired_batch_leaves_its_requests_to_live_calls(pytester: pytest.Pytester,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    with ReferenceJudge(batch_delay=0.1, batch_expire=True) as judge:
        live_project(pytester, judge, monkeypatch, KEYS)
        result = pytester.runpytest("--ora-record", "once", "--ora-batch")
        assert outcomes(result) == EXPECTED
        assert live_calls(judge) == 16


def test_an_interrupted_batch_run_resumes_polling_without_submitting_again(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    judge.batches.delay = 30.0  # the batches stay in progress until the test lets them end
    states = project.path / "cassettes" / BATCH_STATE_DIR
    code, output = interrupted_run(
        project, ["--ora-record", "once", "--ora-batch"], lambda: len(list(states.glob("*.json"))) >= 2
    )
    assert code == pytest.ExitCode.INTERRUPTED, output
    assert len(judge.batches.created) == 2 and len(list(states.glob("*.json"))) == 2
    # When the run is repeated after the batches ended
    judge.batches.delay = 0.0
    again = project.runpytest("--ora-record", "once", "--ora-batch")
    # Then it polled the same two batches, submitted none, and judged nothing live
    assert outcomes(again) == EXPECTED
    assert len(judge.batches.created) == 2
    assert live_calls(judge) == 0
    again.stdout.fnmatch_lines(["*found: resuming polling*"])
    assert not list(states.glob("*.json"))
    methodology = (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "(2 resumed after an interruption, not submitted again)" in methodology


def test_batch_needs_a_recording_mode(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-batch")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--ora-batch records judge calls: use it with --ora-record once or new_episodes*"])


def test_the_reference_judge_refuses_a_batch_without_a_key(judge: ReferenceJudge) -> None:
    response = httpx.post(judge.url + "/v1/messages/batches", json={"requests": []},
                          headers={"anthropic-version": "2023-06-01"})
    assert response.status_code == 401
    missing = httpx.get(judge.url + "/v1/batches/batch_nope", headers={"authorization": "Bearer k"})
    assert missing.status_code == 404


def test_a_budget_batches_only_the_captures_whose_estimate_fits(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    # Given prices that make each capture cost about two dollars at the batch rate
    project.path.joinpath("prices.yaml").write_text("claude-opus: {input: 1000, output: 1000}\ngpt-5: {input: 1000, output: 1000}\n")

    result = project.runpytest("--ora-record", "once", "--ora-batch", "--ora-budget-usd", "5", "--ora-prices", "prices.yaml")

    # Then the first captures in plan order are batched, as many as the estimate lets fit, and the run says so
    line = next(text for text in result.outlines if "ora: --ora-budget-usd:" in text)
    batched, total = (int(word) for word in line.split(":")[2].split()[:3:2])
    assert total == 8 and 0 < batched < total
    result.stdout.fnmatch_lines([f"*ora: batch msgbatch_* of Judge A (big-1) submitted: {batched} requests*",
                                 f"*ora: batch batch_* of Judge B (big-2) submitted: {batched} requests*"])
    methodology = (project.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert f"{total - batched} captures left out of the batches: their estimated cost did not fit --ora-budget-usd" in methodology
    # And what the batches left out is judged live only while the budget allows: never all of it
    assert live_calls(judge) < 2 * (total - batched)
    # And the spend the terminal reports counts the batches, at their rate, in its total
    spend = next(text for text in result.outlines if text.startswith("ora: judge spend this run"))
    assert "provider batches: $" in spend and "total: $" in spend
