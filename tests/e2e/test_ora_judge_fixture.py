"""`pytest_ora.judge` and the `ora_judge` fixture: ordinary tests asserting on judgments, recorded then replayed offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.e2e import KEY_A, KEY_B
from support.judge_modes import MODES

import pytest_ora
from pytest_ora.testing.server import ReferenceJudge

SUITE = """
import pytest

from pytest_ora import JudgmentResult

JUDGES = {judges!r}
MODES = {modes!r}


def test_the_thorough_answer_wins_the_comparison(ora_judge):
    result = ora_judge("compare", MODES["compare"], judges=JUDGES)
    assert isinstance(result, JudgmentResult)
    assert result.winner == "bmad/architect"


def test_the_solo_answer_is_scored_on_the_unified_rubric(ora_judge):
    result = ora_judge("solo", MODES["solo"], judges=JUDGES)
    assert 0 < result.scores["bmad/architect"] <= 100
    assert set(result.evaluation["scores"]) == {{"correctness", "depth", "quality", "persona"}}


def test_a_chain_and_a_phase_in_one_test(ora_judge):
    chain = ora_judge("coherence", MODES["coherence"], judges=JUDGES)
    phase = ora_judge("phase-sm", MODES["phase-sm"], judges=JUDGES)
    assert chain.rating in ("excellent", "good", "poor")
    assert phase.winner == "team1"
"""


def _suite(pytester: pytest.Pytester, judge: ReferenceJudge) -> None:
    judges = [f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}", f"b=openai:gpt-5.4@{judge.route('openai')}"]
    pytester.makepyfile(test_judged=SUITE.format(judges=judges, modes=MODES))


def test_ordinary_tests_record_their_judgments_then_replay_them_with_the_judge_stopped(
    pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    _suite(pytester, judge)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)
    recorded = pytester.runpytest_subprocess("--ora-record", "once", "-p", "no:cacheprovider")
    recorded.assert_outcomes(passed=3)
    folder = pytester.path / "cassettes" / "ora_judge" / "test_judged"
    assert sorted(p.name for p in folder.iterdir()) == [
        "test_a_chain_and_a_phase_in_one_test-2.json",
        "test_a_chain_and_a_phase_in_one_test.json",
        "test_the_solo_answer_is_scored_on_the_unified_rubric.json",
        "test_the_thorough_answer_wins_the_comparison.json",
    ]
    calls = judge.calls
    judge.stop()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    replayed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2")
    replayed.assert_outcomes(passed=3)
    assert calls == 2 * 2 + 2 + 2 + 2 * 2  # compare: both orders per judge; solo; coherence; two teams
    assert all(KEY_A not in p.read_text(encoding="utf-8") for p in folder.iterdir())


def test_a_replay_without_its_recording_fails_the_test_saying_how_to_record(
    pytester: pytest.Pytester, judge: ReferenceJudge
) -> None:
    _suite(pytester, judge)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "solo")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*no recorded judge call in *test_the_solo_answer_is_scored_on_the_unified_rubric.json*"]
    )


def test_the_python_call_returns_a_typed_result(judge: ReferenceJudge, tmp_path: Path) -> None:
    environ = {"ANTHROPIC_API_KEY": KEY_A}
    result = pytest_ora.judge(
        "solo",
        MODES["solo"],
        judges=[f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}"],
        cassette=tmp_path / "c.json",
        environ=environ,
    )
    assert isinstance(result, pytest_ora.JudgmentResult) and result.success is True
    assert result.scores["bmad/architect"] == result.evaluation["weighted_total"]
    again = pytest_ora.judge(
        "solo",
        MODES["solo"],
        judges=[f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}"],
        cassette=tmp_path / "c.json",
        record="none",
        environ={},
    )
    assert again.model_dump(exclude={"timestamp"}) == result.model_dump(exclude={"timestamp"})
    assert json.loads(json.dumps(result.model_dump(mode="json")))["token_usage"]["input"] > 0


def test_the_python_call_raises_judgment_failed_never_an_estimate(tmp_path: Path) -> None:
    with pytest.raises(pytest_ora.JudgmentFailed) as failed:
        pytest_ora.judge(
            "solo",
            MODES["solo"],
            judges=["a=anthropic:m@http://127.0.0.1:9/v1/messages"],
            cassette=tmp_path / "missing.json",
            record="none",
            environ={},
        )
    assert failed.value.failure.success is False and failed.value.failure.mode == "solo"


BUDGETED = """
import pytest

from pytest_ora import JudgmentFailed

JUDGES = {judges!r}
SOLO = {solo!r}


def test_the_second_judgment_past_the_run_s_budget_is_not_started(ora_judge):
    ora_judge("solo", SOLO, judges=JUDGES)
    with pytest.raises(JudgmentFailed) as failed:
        ora_judge("solo", SOLO, judges=JUDGES)
    assert failed.value.failure.error.startswith("Judge not called: judge spend $")
    assert failed.value.failure.error.endswith("reached --ora-budget-usd 0.000001")
"""


def test_a_live_judgment_in_a_run_counts_against_its_budget(
    pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given an ordinary test making two live judgments under a tiny --ora-budget-usd
    judges = [f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}"]
    pytester.makepyfile(test_budgeted=BUDGETED.format(judges=judges, solo=MODES["solo"]))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    # When it runs live
    result = pytester.runpytest_subprocess(
        "--ora-record", "once", "--ora-budget-usd", "0.000001", "-p", "no:cacheprovider"
    )
    # Then the first judgment is charged to the run's spend and the second is never sent
    result.assert_outcomes(passed=1)
    assert judge.calls == 1
    # And the spend was the run's alone: nothing of it is left for the next run to count
    assert not (pytester.path / "ora-results" / ".ora-spend").exists()
