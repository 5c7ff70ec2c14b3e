"""How many captures and calls a process keeps in flight."""

from __future__ import annotations

from pytest_ora.harness.pace import calls_in_flight, captures_ahead


def test_the_limit_of_calls_is_the_captures_in_flight_with_every_judge_and_sample_asked_at_once() -> None:
    assert calls_in_flight(32, 2) == 64
    assert calls_in_flight(4, 3 * 2) == 24  # three judges, two samples each
    assert calls_in_flight(0, 0) == 1


def test_when_candidates_answer_then_the_limit_holds_a_candidate_call_for_every_capture_too() -> None:
    # 32 captures judged (64 calls) while 32 are answered (32 calls): both stages at their pace, under one limit.
    assert calls_in_flight(32, 2, candidates=True) == 96
    assert calls_in_flight(1, 2, candidates=True) == 2  # one capture at a time: its answer, then its judges


def test_when_candidates_answer_then_as_many_captures_as_calls_share_the_one_limit() -> None:
    # Captures being answered hold one call, captures being judged two: both stages fill the 96 calls.
    assert captures_ahead(32, 96, candidates=True) == 96


def test_without_candidates_or_one_capture_at_a_time_the_captures_in_flight_stay_as_given() -> None:
    assert captures_ahead(32, 64, candidates=False) == 32
    assert captures_ahead(1, 2, candidates=True) == 1  # replay, a budget, --ora-concurrency 1
