"""The capture runner: one loop per process, captures judged ahead when allowed."""

from __future__ import annotations

from pathlib import Path

import httpx
from bundle_factory import write_bundle

from pytest_ora.cassettes import CassetteLibrary
from pytest_ora.intake import intake
from pytest_ora.judging import Judging
from pytest_ora.output import OutputDir
from pytest_ora.runner import CaptureRunner
from pytest_ora.testing.server import ReferenceJudge
from pytest_ora.transport import RetryPolicy

KEYS = {"ANTHROPIC_API_KEY": "sk-ant-runner-test-key", "OPENAI_API_KEY": "sk-runner-test-key"}


def test_judging_ahead_sends_the_next_captures_while_the_first_is_judged(tmp_path: Path) -> None:
    with ReferenceJudge(latency=0.3) as judge:
        root = write_bundle(tmp_path / "bundle", routes={"big-1": judge.route("anthropic"), "big-2": judge.route("openai")})
        plan = intake(root)
        todo = [p for p in plan.captures if p.status == "judge"]
        judging = Judging(plan.panel, plan.rubric, policy=RetryPolicy(timeout=httpx.Timeout(5.0)), environ=KEYS)
        runner = CaptureRunner(root, judging, CassetteLibrary(tmp_path / "c", "once"), OutputDir(tmp_path / "o"), lookahead=4)
        try:
            # When the first capture is asked for, with the rest of the process's captures upcoming
            first = runner.run(todo[0], todo[1:])

            # Then the next three captures' judge calls reached the judges before the first result returned
            assert first["status"] == "scored"
            assert len(judge.requests) >= 8
            assert {r["capture_id"] for r in (runner.run(p, todo[i + 2 :]) for i, p in enumerate(todo[1:]))} == {
                p.capture.capture_id for p in todo[1:]
            }
            assert len(judge.requests) == 2 * len(todo)
        finally:
            runner.close()


def test_without_lookahead_one_capture_is_judged_at_a_time(tmp_path: Path) -> None:
    with ReferenceJudge(latency=0.1) as judge:
        root = write_bundle(tmp_path / "bundle", routes={"big-1": judge.route("anthropic"), "big-2": judge.route("openai")})
        plan = intake(root)
        todo = [p for p in plan.captures if p.status == "judge"]
        judging = Judging(plan.panel, plan.rubric, policy=RetryPolicy(timeout=httpx.Timeout(5.0)), environ=KEYS)
        runner = CaptureRunner(root, judging, CassetteLibrary(tmp_path / "c", "once"), OutputDir(tmp_path / "o"))
        try:
            runner.run(todo[0], todo[1:])

            assert len(judge.requests) == 2
        finally:
            runner.close()
