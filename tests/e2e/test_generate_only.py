"""--ora-generate-only and --ora-out/captures.jsonl: answers made and recorded first, judged later, a finished bundle."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.bundle_factory import ENTRIES, SCORED_SET, spec_text, write_bundle
from support.e2e import EVAL_TEST, outcomes, record

from pytest_ora.bundle.read import load_bundle
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.testing.server import ReferenceJudge

AGENT = """
import json, sys
request = json.loads(sys.stdin.read())
if request["entry_key"] == "lens:historian":
    sys.stderr.write("agent crashed\\n")
    sys.exit(3)
steps = ["Extract the claim", "Map the premises", "Test each inference", "Weigh the evidence"]
print(json.dumps({"answer": "Command answer to: " + request["prompt"] + "\\n" + "\\n".join(steps),
                  "usage": {"input": 40, "output": 12}, "cost_usd": 0.0015, "model": "agent-7"}))
"""

PYTHON = """
def answer(request):
    steps = ["Extract the claim", "Map the premises", "Test each inference", "Weigh the evidence"]
    if request["entry_key"] == "mode:argument-audit":
        return {"transcript": [{"role": "user", "content": request["prompt"]},
                               {"role": "assistant", "content": "Python trace.\\n" + "\\n".join(steps)}],
                "usage": {"input": 30, "output": 20}, "cost_usd": 0.002, "model": "toy-1"}
    return {"answer": "Python answer to: " + request["prompt"] + "\\n" + "\\n".join(steps),
            "usage": {"input": 30, "output": 20}, "cost_usd": 0.002, "model": "toy-1"}
"""

TIMING = ("candidate_latency_ms", "generated_at", "wall_clock_minutes")
"""What a live candidate call measures anew each time it is made."""


def _project(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
    module: str,
    python: str = PYTHON,
    agent: str = AGENT,
    tasks: int = 0,
) -> Path:
    """The bundle's own answers under `optimum`, a Python candidate `py` (`module`) and a command `cmd`
    (agent.py). Their prompts are the bundle's entries, or with `tasks`, that many mode tasks of their own."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    manifest: dict[str, Any] = {
        "candidates": {
            "py": {"python": f"{module}:answer"},
            "cmd": {"command": [sys.executable, "agent.py"], "timeout_s": 60},
        }
    }
    if tasks:
        manifest["scored_set"] = {**SCORED_SET, "mode": SCORED_SET["mode"] + tasks}  # the bundle's own, and these
    root = write_bundle(
        pytester.path / "bundle",
        configurations=("optimum", "py", "cmd"),
        routes=routes,
        edit=lambda items: [item for item in items if item["configuration"] == "optimum"],
        manifest=manifest,
    )
    if tasks:
        entries = [{"entry_key": f"mode:task-{n:02d}", "prompt": f"Task {n}: weigh the move."} for n in range(tasks)]
        for n in range(tasks):
            spec = root / "specs" / "mode" / f"task-{n:02d}.md"
            spec.write_text(spec_text("mode", f"task-{n:02d}"), encoding="utf-8")
    else:
        entries = [
            {
                "entry_key": f"{family}:{technique}",
                "prompt": f"Use {technique} on the warehouse budget decision of the regional logistics team.",
            }
            for family, techniques in ENTRIES.items()
            for technique in techniques
        ]
    (root / "entries.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    (pytester.path / f"{module}.py").write_text(python, encoding="utf-8")
    (pytester.path / "agent.py").write_text(agent, encoding="utf-8")
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return root


def _rows(path: Path, drop: tuple[str, ...] = ()) -> dict[str, dict[str, Any]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return {row["capture_id"]: {k: v for k, v in row.items() if k not in drop} for row in rows}


def test_when_generating_only_then_answers_are_recorded_unjudged_and_a_later_run_judges_them_as_one_run_would(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    root = _project(pytester, judge, "agents_generated")

    # When the candidates only answer
    generated = record(pytester, "--ora-generate-only", "--ora-out", "out")
    # Then no judge is called, every capture is skipped (nothing judged), and the answers are recorded
    assert judge.calls == 0, generated.stdout.str()
    assert outcomes(generated) == {"passed": 0, "skipped": 18, "lowscore": 0, "failed": 0, "errors": 0}
    generated.stdout.fnmatch_lines(
        [
            "ora: generate only: 7 candidate answers (made and recorded, or replayed), nothing judged; 1 candidate failed: lens:historian/cmd",
            "ora: captures written to */out/captures.jsonl (the last report there is untouched)",
        ]
    )
    assert not (pytester.path / "out" / "ledger.jsonl").exists()
    assert len(list((pytester.path / "cassettes" / "_candidates").rglob("*.json"))) == 8

    # And captures.jsonl is a finished bundle's file: every capture run, answers and candidate fields kept
    lines = [
        json.loads(line) for line in (pytester.path / "out" / "captures.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    by_id = {f"{line['entry_key']}/{line['configuration']}": line for line in lines}
    assert len(lines) == 14  # the optimum's 6 own captures; py and cmd on the 4 scored entries (one of cmd failed)
    made = by_id["mode:argument-audit/py"]
    assert made["answer"][0]["role"] == "user" and made["answer"][1]["content"].startswith("Python trace.")
    assert (made["candidate_model"], made["candidate_tokens_in"], made["candidate_tokens_out"]) == ("toy-1", 30, 20)
    assert made["candidate_cost_usd"] == made["cost_usd"] == 0.002 and made["generated_at"].endswith("Z")
    assert isinstance(made["candidate_latency_ms"], int)
    failed = by_id["lens:historian/cmd"]
    assert failed["answer"] == "" and failed["acceptance"]["passed"] is False
    assert (
        failed["acceptance"]["reason"] == "candidate-failed" and "exited with code 3" in failed["acceptance"]["notes"]
    )
    assert "candidate_model" not in by_id["mode:argument-audit/optimum"]

    # When a later run judges (the candidates gone: their answers replay from the recordings)
    (pytester.path / "agent.py").write_text("import sys\nsys.exit(1)\n", encoding="utf-8")
    (pytester.path / "agents_generated.py").write_text("raise ImportError('unavailable')\n", encoding="utf-8")
    judged = record(pytester, "--ora-out", "judged")
    counts = outcomes(judged)
    assert counts["failed"] == counts["errors"] == 0 and counts["passed"] + counts["lowscore"] == 11, (
        judged.stdout.str()
    )
    assert judge.calls > 0
    # Then it judges exactly the answers generated (the normal run writes captures.jsonl as well)
    assert (pytester.path / "judged" / "captures.jsonl").read_bytes() == (
        pytester.path / "out" / "captures.jsonl"
    ).read_bytes()

    # And a replay of it, every server stopped, at -n 2 is byte-identical
    judge.stop()
    replay = pytester.runpytest_subprocess(
        "--ora-record", "none", "--ora-out", "replay", "-n", "2", "-p", "no:cacheprovider"
    )
    assert outcomes(replay) == counts
    for name in ("ledger.jsonl", "summary.json", "captures.jsonl", "texts.json"):
        assert (pytester.path / "replay" / name).read_bytes() == (pytester.path / "judged" / name).read_bytes(), name

    # And the finished bundle (captures.jsonl, no candidates) is judged on the very same answers, replayed
    finished = pytester.path / "finished"
    shutil.copytree(root, finished)
    (finished / "entries.jsonl").unlink()
    shutil.copy(pytester.path / "out" / "captures.jsonl", finished / "captures.jsonl")
    manifest = yaml.safe_load((finished / "bundle.yaml").read_text(encoding="utf-8"))
    del manifest["candidates"]
    (finished / "bundle.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    again = pytester.runpytest_subprocess(
        "--ora-bundle", "finished", "--ora-record", "none", "--ora-out", "again", "-p", "no:cacheprovider"
    )
    assert outcomes(again)["failed"] == 0, again.stdout.str()
    first, second = _rows(pytester.path / "judged" / "ledger.jsonl"), _rows(pytester.path / "again" / "ledger.jsonl")
    assert second.pop("lens:historian/cmd")["status"] == "excluded"  # its candidate failed: an invalid capture there
    assert first.pop("lens:historian/cmd")["status"] == "unscorable"
    # the candidates' collision losers were never answered: not in the finished bundle
    assert {row["status"] for capture_id, row in first.items() if capture_id not in second} == {"excluded"}
    assert {capture_id: row for capture_id, row in first.items() if capture_id in second} == second


def test_when_one_run_answers_and_judges_then_its_scores_are_those_of_generating_then_judging(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _project(pytester, judge, "agents_once")
    once = record(pytester, "--ora-out", "once", "--ora-cassettes", "once-cassettes")
    assert outcomes(once)["failed"] == 0
    assert record(pytester, "--ora-generate-only", "--ora-out", "gen", "--ora-cassettes", "two-cassettes").ret == 0
    later = record(pytester, "--ora-out", "later", "--ora-cassettes", "two-cassettes", "-n", "2")
    assert outcomes(later) == outcomes(once)
    assert _rows(pytester.path / "later" / "ledger.jsonl", TIMING) == _rows(
        pytester.path / "once" / "ledger.jsonl", TIMING
    )


def test_when_generate_only_is_asked_of_a_bundle_without_candidates_then_it_is_a_usage_error(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    result = pytester.runpytest("--ora-generate-only")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["*--ora-generate-only makes the candidates' answers, and bundle.yaml names no candidates*"]
    )


def test_a_captures_file_written_by_a_run_reads_back_as_the_same_captures(tmp_path: Path) -> None:
    from pytest_ora.core.plan import PlannedCapture
    from pytest_ora.reports.capturesfile import captures_jsonl

    root = write_bundle(
        tmp_path / "bundle",
        edit=lambda items: [
            {**item, "cost_usd": 0.1 + 0.2, "metadata": {"weight": 1e-7, "n": 3}} if index == 0 else item
            for index, item in enumerate(items)
        ],
    )
    bundle = load_bundle(root)
    before = [line.capture.model_dump() for line in bundle.captures]

    class _Plan:
        def __init__(self) -> None:
            self.bundle = bundle
            self.rubric = ORA_V1
            self.captures = tuple(PlannedCapture(line.capture, line.line, "judge") for line in bundle.captures)

    records: list[Any] = [{"capture_id": line.capture.capture_id, "reason": None} for line in bundle.captures]
    text = captures_jsonl(_Plan(), records)  # type: ignore[arg-type]
    copy = shutil.copytree(root, tmp_path / "finished")
    (copy / "captures.jsonl").write_text(text, encoding="utf-8")
    assert [line.capture.model_dump() for line in load_bundle(copy).captures] == before
    assert '"cost_usd": 0.30000000000000004' in text.splitlines()[0]  # the number as written, exactly


def test_a_capture_holding_a_credentials_shape_is_left_out_of_the_captures_file(tmp_path: Path) -> None:
    from pytest_ora.core.plan import PlannedCapture
    from pytest_ora.reports.capturesfile import captures_jsonl

    root = write_bundle(tmp_path / "bundle")
    bundle = load_bundle(root)
    keyed = bundle.captures[0].capture.model_copy(update={"answer": "my key is sk-ant-FAKE-KEY-never-written-4242"})

    class _Plan:
        def __init__(self) -> None:
            self.bundle = bundle
            self.rubric = ORA_V1
            self.captures = (
                PlannedCapture(keyed, 1, "judge"),
                *(PlannedCapture(line.capture, line.line, "judge") for line in bundle.captures[1:]),
            )

    records: list[Any] = [{"capture_id": line.capture.capture_id, "reason": None} for line in bundle.captures]
    text = captures_jsonl(_Plan(), records)  # type: ignore[arg-type]
    assert "sk-ant-FAKE" not in text and len(text.splitlines()) == len(bundle.captures) - 1


LOCAL_PYTHON = """
import threading, time
_lock = threading.Lock()
_running = [0]

def answer(request):
    with _lock:
        _running[0] += 1
        with open("peak-python.txt", "a", encoding="utf-8") as log:
            log.write(f"{_running[0]}\\n")
    time.sleep(0.4)
    with _lock:
        _running[0] -= 1
    return "Python answer to: " + request["prompt"]
"""

LOCAL_COMMAND = """
import json, os, sys, time
request = json.loads(sys.stdin.read())
mark = os.path.join("running", str(os.getpid()))
open(mark, "w").close()
with open("peak-command.txt", "a", encoding="utf-8") as log:
    log.write(f"{len(os.listdir('running'))}\\n")
time.sleep(0.4)
os.remove(mark)
print("Command answer to: " + request["prompt"])
"""


def test_when_python_and_command_candidates_answer_then_as_many_answer_at_once_as_captures_in_flight(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    # Given a sync Python candidate and a command, each taking 0.4 s, and more prompts than the places
    places = min(32, (os.cpu_count() or 1) + 4) + 2  # more than the threads asyncio's default executor has
    _project(pytester, judge, "local_threads", python=LOCAL_PYTHON, agent=LOCAL_COMMAND, tasks=2 * places)
    (pytester.path / "running").mkdir()

    # When the Python candidate answers with that many captures in flight, then the command
    for configuration in ("py and not cmd", "cmd"):  # "py" alone would match test_ora.py too
        result = record(pytester, "--ora-generate-only", "--ora-concurrency", str(places), "-k", configuration)
        assert result.ret == 0, result.stdout.str()

    # Then that many sync Python candidates answered at once (each in a thread of its own), no more
    python_peak = max(int(line) for line in (pytester.path / "peak-python.txt").read_text().split())
    assert python_peak == places
    # And the commands never ran more processes at once than that either
    command_peak = max(int(line) for line in (pytester.path / "peak-command.txt").read_text().split())
    assert 2 <= command_peak <= places
