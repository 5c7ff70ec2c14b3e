"""Resume: a judge's valid exchange is kept when another judge of its capture failed or the run stopped."""

from __future__ import annotations

from typing import Any

import pytest
from support.live_project import interrupted_run, live_calls, live_project

from pytest_ora.judges.cassettes import cassette_path, partial_path
from pytest_ora.testing.server import Fault, ReferenceJudge

KEYS = {"ANTHROPIC_API_KEY": "ora-resume-test-key-a", "OPENAI_API_KEY": "ora-resume-test-key-b"}
CAPTURE = "mode:argument-audit/optimum"


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    return {}  # a judge that accepts any key


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return live_project(pytester, judge, monkeypatch, KEYS)


def test_a_valid_judge_is_kept_when_the_other_judge_of_its_capture_fails(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    # Given Judge B (OpenAI) answers invalidly on every ask for every capture
    judge.inject(Fault("prose", provider="openai", times=100))
    first = project.runpytest("--ora-record", "once", "-k", CAPTURE)
    assert first.ret == pytest.ExitCode.TESTS_FAILED
    # Then the capture has no cassette, but Judge A's valid exchange waits in its partial one
    path = cassette_path(project.path / "cassettes", CAPTURE)
    assert not path.exists()
    kept = partial_path(path).read_text(encoding="utf-8")
    assert "/v1/messages" in kept and "/v1/chat/completions" not in kept

    # When the run is repeated with Judge B healthy
    judge.reset()
    again = project.runpytest("--ora-record", "once", "-k", CAPTURE)
    # Then only Judge B is asked again, the capture is scored and its cassette is whole
    assert again.ret == pytest.ExitCode.OK
    assert live_calls(judge, "/v1/messages") == 0
    assert live_calls(judge, "/v1/chat/completions") == 1
    assert path.is_file() and not partial_path(path).exists()
    # And the finished cassette replays offline like any other
    judge.reset()
    assert project.runpytest("-k", CAPTURE, "--ora-out", "replayed").ret == pytest.ExitCode.OK
    assert judge.calls == 0


def test_replay_never_uses_a_partial_cassette(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    judge.inject(Fault("401", provider="openai", times=100))
    project.runpytest("--ora-record", "once", "-k", CAPTURE)
    assert partial_path(cassette_path(project.path / "cassettes", CAPTURE)).is_file()
    result = project.runpytest("-k", CAPTURE, "--ora-out", "replay")
    result.stdout.fnmatch_lines(["*no recorded judge call for mode:argument-audit/optimum*"])


def test_an_interrupted_run_repays_only_the_calls_in_flight(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    # Given every Judge B call hangs, so each capture waits on B after A answered
    judge.inject(Fault("slow", provider="openai", delay=60, duration=120))
    root = project.path / "cassettes"
    # judging ahead (the live default) has every capture in flight: interrupt once all A replies are kept
    code, output = interrupted_run(project, ["--ora-record", "once"], lambda: len(list(root.rglob("*.partial"))) >= 8)
    assert code == pytest.ExitCode.INTERRUPTED, output
    assert len(list(root.rglob("*.partial"))) == 8
    assert live_calls(judge, "/v1/messages") == 8

    # When the run is repeated with Judge B answering
    judge.reset()
    again = project.runpytest("--ora-record", "once")
    # Then only the eight B calls that were in flight are paid again
    assert again.ret == pytest.ExitCode.OK
    assert live_calls(judge, "/v1/messages") == 0
    assert live_calls(judge, "/v1/chat/completions") == 8
    assert not list(root.rglob("*.partial"))
