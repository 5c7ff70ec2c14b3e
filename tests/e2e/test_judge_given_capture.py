"""ora.judge() judges exactly the capture it is given, or refuses it clearly: never a different answer."""

from __future__ import annotations

import json
import sys

import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, outcomes, record

from pytest_ora.testing.server import ReferenceJudge

CHANGED_TEST = """
import dataclasses
from typing import Any

from pytest_ora import PlannedCapture


def test_capture(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)
    capture = ora_capture.capture
    changed = capture.model_copy(update={"answer": "REWRITTEN BY THE TEST for " + capture.capture_id + ". " + capture.answer})
    ora.record(ora.judge(dataclasses.replace(ora_capture, capture=changed)))
"""


def test_when_a_test_changes_the_capture_then_the_judges_receive_the_answer_it_was_given(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes)
    pytester.makepyfile(test_ora=CHANGED_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")

    # When judged live one capture at a time with every answer rewritten in the test
    live = record(pytester, "--ora-concurrency", "1")
    counts = outcomes(live)
    assert counts["failed"] == counts["errors"] == 0 and counts["passed"] + counts["lowscore"] == 8, live.stdout.str()

    # Then every judge request carried the rewritten answer, none the bundle's own
    bodies = [received.body.decode("utf-8") for received in judge.requests if received.method == "POST"]
    assert len(bodies) == 16
    assert all("REWRITTEN BY THE TEST for " in body for body in bodies)
    for path in (pytester.path / "ora-results" / "packets").rglob("*.json"):
        packet = json.loads(path.read_text(encoding="utf-8"))
        assert packet["answer"].startswith(f"REWRITTEN BY THE TEST for {packet['capture_id']}. "), path

    # And replaying with the bundle's own answers is refused, naming the drift, never a score of the other answer
    pytester.makepyfile(test_ora=EVAL_TEST)
    replay = pytester.runpytest("--ora-record", "none", "--ora-out", "replay")
    assert outcomes(replay)["failed"] == 8
    replay.stdout.fnmatch_lines(["*recorded for a different judge request (packet field 'answer' changed)*"])

    # And judged live with captures judged ahead of their items (a fresh cassettes directory): what was started
    # ahead as the bundle holds it is dropped, its fresh recording too; each item's own capture is judged
    pytester.makepyfile(test_ora=CHANGED_TEST)
    ahead = record(pytester, "--ora-cassettes", "ahead-cassettes", "--ora-out", "ahead")
    assert outcomes(ahead) == counts, ahead.stdout.str()
    for path in (pytester.path / "ahead" / "packets").rglob("*.json"):
        packet = json.loads(path.read_text(encoding="utf-8"))
        assert packet["answer"].startswith(f"REWRITTEN BY THE TEST for {packet['capture_id']}. "), path
    again = pytester.runpytest(
        "--ora-record", "none", "--ora-cassettes", "ahead-cassettes", "--ora-out", "ahead-replay"
    )
    assert outcomes(again) == counts  # the recordings are of the answers the test gave


def test_when_a_candidate_configurations_capture_is_given_an_answer_then_it_is_refused(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    root = write_bundle(
        pytester.path / "bundle",
        configurations=("optimum", "cmd"),
        routes=routes,
        edit=lambda items: [item for item in items if item["configuration"] == "optimum"],
        manifest={"candidates": {"cmd": {"command": [sys.executable, "agent.py"]}}},
    )
    (root / "entries.jsonl").write_text(
        '{"entry_key": "mode:argument-audit", "prompt": "Audit the budget."}\n', encoding="utf-8"
    )
    (pytester.path / "agent.py").write_text("print('The candidate answer.')\n", encoding="utf-8")
    pytester.makepyfile(test_ora=CHANGED_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    result = record(pytester, "-k", "cmd")
    assert outcomes(result)["failed"] == 1
    result.stdout.fnmatch_lines(
        [
            "*mode:argument-audit/cmd was given to be judged with an answer of its own, but cmd's answers are made by its "
            "candidate in the run*"
        ]
    )
    assert not (pytester.path / "cassettes" / "_candidates").exists()  # the candidate was never called
