"""Live runs at scale, end to end: the shared rate limit, concurrency per process and per worker."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.live_project import EXPECTED, live_project, outcomes

from pytest_ora.harness.pace import AUTO_IN_FLIGHT, lookahead
from pytest_ora.testing.server import ReferenceJudge

KEYS = {"ANTHROPIC_API_KEY": "ora-pace-test-key-a", "OPENAI_API_KEY": "ora-pace-test-key-b"}


@pytest.fixture
def limited() -> Iterator[ReferenceJudge]:
    """The reference judge allowing 240 requests a minute per provider and key (a burst of four)."""
    with ReferenceJudge(rpm=240, latency=0.2) as server:
        yield server


def project_for(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    return live_project(pytester, judge, monkeypatch, KEYS)


def test_two_workers_without_options_stay_under_the_judges_limit(
    pytester: pytest.Pytester, limited: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: xdist workers each retried 429s on their own; now they pace as one client."""
    project = project_for(pytester, limited, monkeypatch)
    # When a live run at -n 2, no option given, judges 8 captures (16 calls) at once if it may
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--ora-record", "once")
    # Then every capture is scored, and the shared pace learned from the headers kept the judge from refusing
    assert outcomes(result) == EXPECTED
    assert limited.rate_limit is not None
    assert limited.rate_limit.refused <= 1, f"{limited.rate_limit.refused} calls of {limited.calls} answered 429"


def test_an_rpm_below_the_judges_limit_is_what_the_run_keeps(
    pytester: pytest.Pytester, limited: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = project_for(pytester, limited, monkeypatch)
    result = project.runpytest("--ora-record", "once", "--ora-rpm", "big-1=120", "--ora-rpm", "big-2=120")
    assert outcomes(result) == EXPECTED
    assert limited.rate_limit is not None and limited.rate_limit.refused == 0
    # 8 calls a role, 0.5 s apart: at least 3.5 s from the first call to the last of a role
    anthropic = [r for r in limited.requests if r.method == "POST" and r.path == "/v1/messages"]
    assert len(anthropic) == 8


def test_rpm_must_name_a_role_of_the_panel(
    pytester: pytest.Pytester, limited: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = project_for(pytester, limited, monkeypatch)
    result = project.runpytest("--ora-record", "once", "--ora-rpm", "big-9=60")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--ora-rpm big-9=...: no judge of the panel or role candidate has role 'big-9'; roles: big-1, big-2*"]
    )
    assert limited.calls == 0


@pytest.mark.parametrize("value", ["big-1", "big-1=0", "big-1=fast", "=5"])
def test_rpm_takes_role_equals_a_positive_number(
    pytester: pytest.Pytester, limited: ReferenceJudge, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    project = project_for(pytester, limited, monkeypatch)
    result = project.runpytest("--ora-record", "once", "--ora-rpm", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*--ora-rpm takes ROLE=N with N a positive number, got '{value}'*"])


def test_concurrency_works_per_xdist_worker(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given a judge without a limit, 0.5 s a call
    with ReferenceJudge(latency=0.5) as judge:
        project = project_for(pytester, judge, monkeypatch)
        # When one xdist worker judges with --ora-concurrency 3 (xdist queues three items on it at first)
        result = project.runpytest_subprocess(
            "-p", "no:cacheprovider", "-n", "1", "--ora-record", "once", "--ora-concurrency", "3"
        )
        # Then more calls were in flight than one capture's two judges make
        assert outcomes(result) == EXPECTED
        assert judge.peak_in_flight > 2


def test_live_judging_keeps_32_captures_in_flight_by_default_4_a_worker_under_8() -> None:
    # 24 left a loopback judge of 0.5 s latency waiting on the client (200 captures x 2 judges)
    assert lookahead(0, "once", 1) == 32
    assert lookahead(0, "once", 4) == 8
    assert lookahead(0, "once", 8) == 4
    assert lookahead(0, "once", 64) == 2


def test_auto_concurrency_is_live_only_and_split_over_workers() -> None:
    assert lookahead(0, "none", 1) == 1
    assert lookahead(0, "once", 1) == AUTO_IN_FLIGHT
    assert lookahead(0, "once", 8) == AUTO_IN_FLIGHT // 8
    assert lookahead(0, "once", 1, budgeted=True) == 1
    assert lookahead(5, "none", 8) == 5
