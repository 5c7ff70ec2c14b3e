"""Candidates that answer inside the run: Python and command candidates, recorded, replayed offline, drift, failures."""

from __future__ import annotations

import asyncio
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.bundle_factory import ENTRIES, write_bundle
from support.e2e import EVAL_TEST, KEY_A, KEY_B, outcomes, record, tables

from pytest_ora.bundle.read import load_bundle
from pytest_ora.core.candidates import CandidateSpec
from pytest_ora.core.errors import IntakeError
from pytest_ora.harness.candidates.answer import CandidateFailure
from pytest_ora.harness.candidates.command import call_command
from pytest_ora.harness.candidates.python import call_python
from pytest_ora.testing.answers import asks_plain_text
from pytest_ora.testing.server import Fault, ReferenceJudge

AGENT = """
import json, sys
request = json.loads(sys.stdin.read())
if request["entry_key"] == "lens:historian":
    sys.stderr.write("agent crashed; token sk-ant-FAKE-KEY-never-written-4242 in the environment\\n")
    sys.exit(3)
steps = ["Extract the claim", "Map the premises", "Test each inference", "Weigh the evidence"]
print(json.dumps({"answer": "Command answer to: " + request["prompt"] + "\\n" + "\\n".join(steps),
                  "usage": {"input": 40, "output": 12}, "model": "agent-7"}))
"""


def _python_candidate(name: str) -> str:
    return textwrap.dedent(f"""
        import asyncio

        async def answer(request):
            await asyncio.sleep(0)
            steps = ["Extract the claim", "Map the premises", "Test each inference", "Weigh the evidence"]
            text = "Python answer ({name}) to: " + request["prompt"] + "\\n" + "\\n".join(steps)
            return {{"answer": text, "usage": {{"input": 30, "output": 20}}, "cost_usd": 0.002, "model": "toy-1"}}
    """)


def _candidate_project(pytester: pytest.Pytester, judge: ReferenceJudge, module: str) -> Path:
    """A bundle whose `optimum` answers are its own, `big-1` a Python candidate's and `cmd` a command's."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    manifest = {
        "candidates": {
            "big-1": {"python": f"{module}:answer"},
            "cmd": {"command": [sys.executable, "agent.py"], "timeout_s": 60},
        }
    }

    def own_answers_only(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [item for item in items if item["configuration"] == "optimum"]

    root = write_bundle(
        pytester.path / "bundle",
        configurations=("optimum", "big-1", "cmd"),
        routes=routes,
        edit=own_answers_only,
        manifest=manifest,
    )
    entries = [
        {
            "entry_key": f"{family}:{technique}",
            "prompt": f"Use {technique} on the warehouse budget decision of the regional logistics team.",
        }
        for family, techniques in ENTRIES.items()
        for technique in techniques
    ]
    (root / "entries.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    (pytester.path / f"{module}.py").write_text(_python_candidate(module), encoding="utf-8")
    (pytester.path / "agent.py").write_text(AGENT, encoding="utf-8")
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return root


def _ledger(project: pytest.Pytester, out: str = "ora-results") -> list[dict[str, Any]]:
    lines = (project.path / out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_when_a_bundle_names_candidates_then_each_entry_is_a_capture_of_each_candidate_configuration(
    tmp_path: Path,
) -> None:
    root = write_bundle(
        tmp_path / "bundle",
        configurations=("optimum", "big-1"),
        edit=lambda items: [item for item in items if item["configuration"] == "optimum"],
        manifest={"candidates": {"big-1": {"python": "agents:answer"}}},
    )
    (root / "entries.jsonl").write_text(
        '{"entry_key": "mode:argument-audit", "prompt": "Audit it."}\n', encoding="utf-8"
    )
    bundle = load_bundle(root)
    made = [line.capture for line in bundle.captures if line.capture.configuration == "big-1"]
    assert [(capture.capture_id, capture.prompt, capture.answer) for capture in made] == [
        ("mode:argument-audit/big-1", "Audit it.", "")
    ]


def test_when_a_captures_line_has_no_answer_and_no_configuration_then_it_is_an_entry(tmp_path: Path) -> None:
    def with_entry(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        kept = [item for item in items if item["configuration"] == "optimum"]
        return [*kept, {"entry_key": "mode:causal-dag", "prompt": "Draw the causes."}]

    root = write_bundle(
        tmp_path / "bundle",
        configurations=("optimum", "big-1"),
        edit=with_entry,
        manifest={"candidates": {"big-1": {"command": ["./agent"]}}},
    )
    made = [line.capture.capture_id for line in load_bundle(root).captures if line.capture.configuration == "big-1"]
    assert made == ["mode:causal-dag/big-1"]


@pytest.mark.parametrize(
    ("candidates", "field", "message"),
    [
        (
            {"big-1": {"python": "agents:answer", "command": ["x"]}},
            "candidates.big-1",
            "exactly one of role, python or command",
        ),
        ({"big-1": {"python": "not a function"}}, "candidates.big-1.python", "must be module:function"),
        ({"big-1": {"command": ["./agent"], "timeout_s": 0}}, "candidates.big-1.timeout_s", "greater than 0"),
        (
            {"big-1": {"python": "agents:answer", "system": "You are terse."}},
            "candidates.big-1",
            "role candidates only",
        ),
        ({"nobody": {"python": "agents:answer"}}, "candidates", "not among the configurations"),
    ],
)
def test_when_a_candidate_is_malformed_then_intake_names_the_file_line_and_field(
    tmp_path: Path,
    candidates: dict[str, Any],
    field: str,
    message: str,
) -> None:
    root = write_bundle(tmp_path / "bundle", configurations=("optimum", "big-1"), manifest={"candidates": candidates})
    with pytest.raises(IntakeError) as raised:
        load_bundle(root)
    problems = [problem for problem in raised.value.problems if problem.file == "bundle.yaml"]
    assert [(problem.field, problem.line is not None) for problem in problems] == [(field, True)]
    assert message in problems[0].message


def test_when_a_candidate_configuration_also_has_answers_in_captures_then_intake_names_the_line(tmp_path: Path) -> None:
    root = write_bundle(
        tmp_path / "bundle",
        configurations=("optimum", "big-1"),
        manifest={"candidates": {"big-1": {"python": "agents:answer"}}},
    )
    (root / "entries.jsonl").write_text(
        '{"entry_key": "mode:argument-audit", "prompt": "Audit it."}\n', encoding="utf-8"
    )
    with pytest.raises(IntakeError) as raised:
        load_bundle(root)
    assert {(p.file, p.field) for p in raised.value.problems} == {("captures.jsonl", "configuration")}
    assert raised.value.problems[0].line == 2


def test_when_candidates_answer_then_they_are_judged_recorded_and_replayed_offline_identically(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _candidate_project(pytester, judge, "agents_replayed")
    live = record(pytester, "--ora-out", "live")
    counts = outcomes(live)
    # 3 configurations x 6 entries: the command candidate fails on lens:historian (skipped, counted), never judged
    assert counts["failed"] == 0 and counts["errors"] == 0, live.stdout.str()
    ledger = {row["capture_id"]: row for row in _ledger(pytester, "live")}
    failed = ledger["lens:historian/cmd"]
    assert (
        failed["status"] == "unscorable"
        and failed["reason"].startswith("candidate failed: ")
        and "exited with code 3; stderr: agent crashed" in failed["reason"]
    )
    assert (
        "sk-ant-FAKE" not in failed["reason"]
        and "[REDACTED]" in failed["reason"]
        and failed.get("overall") is None
        and not failed["judges"]
    )
    python_row = ledger["mode:argument-audit/big-1"]
    assert python_row["status"] == "scored" and python_row["candidate_model"] == "toy-1"
    assert (
        python_row["candidate_tokens_in"],
        python_row["candidate_tokens_out"],
        python_row["candidate_cost_usd"],
    ) == (30, 20, "0.002")
    assert ledger["mode:argument-audit/cmd"]["candidate_model"] == "agent-7"
    assert "candidate_model" not in ledger["mode:argument-audit/optimum"]
    live.stdout.fnmatch_lines(
        [
            "ora: candidates answered 7 judged captures (cost as recorded with the answers: $0.0080 for 4 of them); "
            "1 candidate failed (unscorable, never judged): lens:historian/cmd",
        ]
    )
    packets = sorted((pytester.path / "live" / "packets").rglob("*.json"))
    text = "".join(path.read_text(encoding="utf-8") for path in packets)
    assert (
        "Python answer (agents_replayed) to: Use argument-audit" in text
        and "Command answer to: Use argument-audit" in text
    )
    recorded = sorted(
        p.relative_to(pytester.path / "cassettes").as_posix()
        for p in (pytester.path / "cassettes" / "_candidates").rglob("*.json")
    )
    assert len(recorded) == 8  # the 4 entries of the scored set x 2 candidates: the 2 collisions are never answered

    # Offline: both candidates unavailable; nothing is called, the answers come from the recordings.
    (pytester.path / "agent.py").write_text("import sys\nsys.exit(1)\n", encoding="utf-8")
    (pytester.path / "agents_replayed.py").write_text("raise ImportError('unavailable')\n", encoding="utf-8")
    judge.stop()
    serial = pytester.runpytest_subprocess("--ora-record", "none", "--ora-out", "serial", "-p", "no:cacheprovider")
    spread = pytester.runpytest_subprocess(
        "--ora-record", "none", "--ora-out", "spread", "-n", "2", "-p", "no:cacheprovider"
    )
    assert outcomes(serial) == counts == outcomes(spread), serial.stdout.str()
    serial.stdout.fnmatch_lines(["ora: candidates answered 7 judged captures*1 candidate failed*"])
    for out in ("serial", "spread"):
        assert (pytester.path / out / "ledger.jsonl").read_bytes() == (
            pytester.path / "live" / "ledger.jsonl"
        ).read_bytes()
    assert tables(
        {name: (pytester.path / "serial" / name).read_bytes() for name in ("summary.md", "ledger.csv", "summary.json")}
    ) == tables(
        {name: (pytester.path / "spread" / name).read_bytes() for name in ("summary.md", "ledger.csv", "summary.json")}
    )


def test_when_an_entry_prompt_changes_then_the_replay_names_the_candidate_drift(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    root = _candidate_project(pytester, judge, "agents_drift")
    assert outcomes(record(pytester))["failed"] == 0
    entries = (
        (root / "entries.jsonl")
        .read_text(encoding="utf-8")
        .replace("Use argument-audit on", "Use argument-audit, briefly, on")
    )
    (root / "entries.jsonl").write_text(entries, encoding="utf-8")
    result = pytester.runpytest("--ora-record", "none")
    result.stdout.fnmatch_lines(
        [
            "mode:argument-audit/big-1: recorded for a different candidate request (candidate field 'prompt')*",
            "ora: 2 captures: candidate field 'prompt' changed since recorded; re-record only them*",
        ]
    )
    assert outcomes(result)["failed"] == 2  # that entry's two candidate captures; the bundle's own answer replays


def test_when_a_command_definition_changes_then_its_recordings_drift(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    root = _candidate_project(pytester, judge, "agents_definition")
    assert outcomes(record(pytester))["failed"] == 0
    manifest = yaml.safe_load((root / "bundle.yaml").read_text(encoding="utf-8"))
    manifest["candidates"]["cmd"]["command"] = [sys.executable, "agent.py", "--terse"]
    (root / "bundle.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    result = pytester.runpytest("--ora-record", "none")
    result.stdout.fnmatch_lines(
        ["mode:argument-audit/cmd: recorded for a different candidate request (candidate field 'candidate')*"]
    )


def _command(tmp_path: Path, body: str, timeout_s: float = 30) -> tuple[CandidateSpec, Path]:
    (tmp_path / "agent.py").write_text(body, encoding="utf-8")
    return CandidateSpec(command=[sys.executable, "agent.py"], timeout_s=timeout_s), tmp_path


def _request() -> dict[str, Any]:
    return {
        "entry_key": "mode:argument-audit",
        "configuration": "cmd",
        "prompt": "Audit it.",
        "context": None,
        "messages": None,
        "metadata": None,
        "attempt": 1,
    }


def test_when_a_command_prints_plain_text_then_that_text_is_the_answer(tmp_path: Path) -> None:
    spec, suite = _command(tmp_path, "import json, sys\nprint('Answer to ' + json.load(sys.stdin)['prompt'])\n")
    made = asyncio.run(call_command(spec, _request(), suite, lambda text: text))
    assert (made.answer, made.model) == ("Answer to Audit it.", f"command:{sys.executable}")


@pytest.mark.parametrize(
    ("body", "timeout_s", "reason"),
    [
        ("import time\ntime.sleep(5)\n", 0.5, "did not answer within timeout_s 0.5"),
        ("print('{\"answer\": 3}')\n", 30, "without a string `answer`"),
        ("print('   ')\n", 30, "the answer is empty"),
        (
            "import sys\nsys.stderr.write('key sk-ant-FAKE-KEY-never-written-4242 refused')\nsys.exit(2)\n",
            30,
            "exited with code 2; stderr: key [REDACTED] refused",
        ),
    ],
)
def test_when_a_command_fails_then_the_failure_says_why(
    tmp_path: Path, body: str, timeout_s: float, reason: str
) -> None:
    spec, suite = _command(tmp_path, body, timeout_s)
    with pytest.raises(CandidateFailure, match=re.escape(reason)):
        asyncio.run(
            call_command(
                spec, _request(), suite, lambda text: text.replace("sk-ant-FAKE-KEY-never-written-4242", "[REDACTED]")
            )
        )


def test_when_a_python_candidate_is_sync_and_returns_a_string_then_it_is_the_answer(tmp_path: Path) -> None:
    (tmp_path / "sync_agent_unit.py").write_text(
        "def answer(request):\n    return 'Plainly: ' + request['prompt']\n", encoding="utf-8"
    )
    made = asyncio.run(call_python(CandidateSpec(python="sync_agent_unit:answer"), _request(), tmp_path))
    assert (made.answer, made.model, made.tokens_in) == ("Plainly: Audit it.", "python:sync_agent_unit:answer", None)


@pytest.mark.parametrize(
    ("source", "target", "reason"),
    [
        (
            "def answer(request):\n    raise RuntimeError('model down')\n",
            "raising_agent_unit:answer",
            "raised RuntimeError: model down",
        ),
        ("x = 1\n", "nofunction_agent_unit:answer", "has no function answer"),
        (
            "def answer(request):\n    return {'transcript': []}\n",
            "transcript_agent_unit:answer",
            "is an empty list of turns",
        ),
    ],
)
def test_when_a_python_candidate_fails_then_the_failure_says_why(
    tmp_path: Path, source: str, target: str, reason: str
) -> None:
    (tmp_path / f"{target.partition(':')[0]}.py").write_text(source, encoding="utf-8")
    with pytest.raises(CandidateFailure, match=re.escape(reason)):
        asyncio.run(call_python(CandidateSpec(python=target), _request(), tmp_path))


# --- role candidates ---------------------------------------------------------------------------------


def _role_project(pytester: pytest.Pytester, judge: ReferenceJudge, own_answers: bool = True) -> Path:
    """A bundle whose `big-1` answers through role writer-a (Anthropic) and `cmd` through writer-b (OpenAI Responses).

    `optimum` answers with its own captures unless `own_answers` is False (then every answer is a candidate's)."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    manifest = {
        "candidates": {
            "big-1": {"role": "writer-a", "system": "You are a careful analyst. Answer in numbered steps."},
            "cmd": {"role": "writer-b", "params": {"temperature": 0, "max_tokens": 2048}},
        }
    }

    def own_answers_only(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [item for item in items if own_answers and item["configuration"] == "optimum"]

    root = write_bundle(
        pytester.path / "bundle",
        configurations=("optimum", "big-1", "cmd") if own_answers else ("big-1", "cmd"),
        routes=routes,
        edit=own_answers_only,
        manifest=manifest,
    )
    optimum = yaml.safe_load((root / "optimum.yaml").read_text(encoding="utf-8"))
    optimum["roles"]["writer-a"] = {
        "model": "claude-sonnet-4-6",
        "provider": "anthropic",
        "route": judge.route("anthropic"),
    }
    optimum["roles"]["writer-b"] = {
        "model": "gpt-4.1-mini",
        "provider": "openai",
        "route": judge.route("openai", api="responses"),
    }
    (root / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")
    entries = [
        {
            "entry_key": f"{family}:{technique}",
            "context": "The team runs two warehouses; rent rises 30% next year.",
            "prompt": f"Use {technique} on the warehouse budget decision of the regional logistics team. What should they do?",
        }
        for family, techniques in ENTRIES.items()
        for technique in techniques
    ]
    (root / "entries.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return root


def test_when_a_role_candidate_answers_then_it_is_recorded_judged_and_replayed_offline_identically(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _role_project(pytester, judge)
    live = record(pytester, "--ora-out", "live")
    counts = outcomes(live)
    assert counts["failed"] == 0 and counts["errors"] == 0, live.stdout.str()
    posts = [request for request in judge.requests if request.method == "POST"]
    plain = [request.json() for request in posts if asks_plain_text(request.json())]
    # 4 entries of the scored set x 2 role candidates, each asked once, with no schema and no tool
    assert len(plain) == 8, [request.path for request in posts]
    first = next(body for body in plain if body["model"] == "claude-sonnet-4-6")
    # The judges' prompt caching: the system prompt and the entry's context are cache breakpoints.
    assert (
        first["system"]
        == [
            {
                "type": "text",
                "text": "You are a careful analyst. Answer in numbered steps.",
                "cache_control": {"type": "ephemeral"},
            }
        ]
        and "temperature" not in first
    )
    assert first["messages"][0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    responses = next(body for body in plain if body["model"] == "gpt-4.1-mini")
    assert (responses["temperature"], responses["max_output_tokens"], "instructions" in responses) == (0, 2048, False)
    ledger = {row["capture_id"]: row for row in _ledger(pytester, "live")}
    row = ledger["mode:argument-audit/big-1"]
    assert row["status"] == "scored" and row["candidate_model"] == "claude-sonnet-4-6-20260101"
    assert row["candidate_tokens_in"] > 0 and row["candidate_tokens_out"] > 0 and row["candidate_cost_usd"] is not None
    packets = "".join(
        path.read_text(encoding="utf-8") for path in sorted((pytester.path / "live" / "packets").rglob("*.json"))
    )
    assert "(claude-sonnet-4-6, reference answer)" in packets and "(gpt-4.1-mini, reference answer)" in packets
    live.stdout.fnmatch_lines(["ora live: 18/18 captures, 0 calls (candidates and judges) in flight, *, done in *"])
    # Candidate spend apart from the judges', on the terminal and in the methodology note; both together once.
    live.stdout.fnmatch_lines(
        [
            "ora: candidate spend (answers made live this run, apart from the judges'*): candidate big-1 claude-sonnet-4-6*: "
            "$0.0* (4 answers, * input / * output tokens); candidate cmd gpt-4.1-mini*: $0.0* (4 answers, *); "
            "candidates total: $0.0*; judges and candidates together: $0.*",
        ]
    )
    methodology = (pytester.path / "live" / "methodology.md").read_text(encoding="utf-8")
    assert "## Candidate spend (answers made live this run" in methodology and "- candidates total: $" in methodology
    assert "## Judge spend: nothing paid" in methodology
    exchanges = sorted((pytester.path / "cassettes" / "_candidate_calls").rglob("*.json"))
    assert len(exchanges) == 8
    assert all(
        KEY_A not in path.read_text(encoding="utf-8") and KEY_B not in path.read_text(encoding="utf-8")
        for path in exchanges
    )

    judge.stop()  # offline: nothing can be called
    serial = pytester.runpytest_subprocess("--ora-record", "none", "--ora-out", "serial", "-p", "no:cacheprovider")
    spread = pytester.runpytest_subprocess(
        "--ora-record", "none", "--ora-out", "spread", "-n", "2", "-p", "no:cacheprovider"
    )
    assert outcomes(serial) == counts == outcomes(spread), serial.stdout.str()
    for out in ("serial", "spread"):
        assert (pytester.path / out / "ledger.jsonl").read_bytes() == (
            pytester.path / "live" / "ledger.jsonl"
        ).read_bytes()
    assert "candidate spend" not in serial.stdout.str()  # replayed answers are free
    assert "Candidate spend" not in (pytester.path / "serial" / "methodology.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("reference_judge_options", [{"keys": {"anthropic": KEY_A, "openai": KEY_B}, "latency": 0.3}])
def test_when_role_candidates_answer_then_their_calls_and_the_judges_share_one_limit_of_calls_in_flight(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    # Given every answer made by a role candidate, each call taking 0.3 s
    _role_project(pytester, judge, own_answers=False)
    # When the run keeps 2 captures in flight: 2 judged (2 x 2 judges = 4 calls) while 2 are answered (2 calls)
    live = record(pytester, "--ora-concurrency", "2")
    assert outcomes(live)["failed"] == 0 and outcomes(live)["errors"] == 0, live.stdout.str()
    posts = [request.json() for request in judge.requests if request.method == "POST"]
    assert len(posts) == 3 * 8 and sum(asks_plain_text(body) for body in posts) == 8
    # Then candidate and judge calls together filled that one limit of 6 and never went past it
    assert judge.peak_in_flight == 6


def test_when_a_run_with_role_candidates_is_dry_then_the_estimate_sizes_candidates_and_judges_apart(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _role_project(pytester, judge)
    result = pytester.runpytest("--ora-dry-run", "--ora-out", "dry")
    assert result.ret == 0, result.stdout.str()
    assert not [request for request in judge.requests if request.method == "POST"]
    estimate = json.loads((pytester.path / "dry" / "estimate.json").read_text(encoding="utf-8"))
    made = {row["configuration"]: row for row in estimate["candidates"]}
    assert made["big-1"]["model"] == "claude-sonnet-4-6" and made["big-1"]["captures"] == 4
    assert made["big-1"]["output_tokens"] == 4 * 800 and made["big-1"]["input_tokens"] > 0 and made["big-1"]["usd"]
    text = (pytester.path / "dry" / "estimate.md").read_text(encoding="utf-8")
    assert "each answer is assumed 800 tokens long" in text and "Judges and candidates together: $" in text
    by_capture = {row["capture_id"]: row for row in estimate["captures"]}
    own, made_here = by_capture["mode:argument-audit/optimum"], by_capture["mode:argument-audit/big-1"]
    assert "candidate" not in own and made_here["candidate"]["output_tokens"] == 800


def test_when_the_budget_is_reached_by_candidate_spend_then_no_further_capture_is_started(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _role_project(pytester, judge)
    result = record(pytester, "--ora-budget-usd", "0.0005", "--ora-out", "capped")
    ledger = _ledger(pytester, "capped")
    stopped = [row for row in ledger if row["status"] == "budget"]
    assert stopped and all("spend (judges and candidates) $" in row["reason"] for row in stopped), result.stdout.str()


def test_when_a_role_candidates_system_prompt_or_model_changes_then_the_replay_names_the_drift(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    root = _role_project(pytester, judge)
    assert outcomes(record(pytester))["failed"] == 0
    judge.stop()
    manifest_text = (root / "bundle.yaml").read_text(encoding="utf-8")
    manifest = yaml.safe_load(manifest_text)
    manifest["candidates"]["big-1"]["system"] = "You are a terse analyst."
    (root / "bundle.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    result = pytester.runpytest("--ora-record", "none")
    result.stdout.fnmatch_lines(
        ["mode:argument-audit/big-1: recorded for a different candidate request (candidate field 'system')*"]
    )
    assert outcomes(result)["failed"] == 4  # big-1's four captures; cmd and the bundle's own answers replay

    # The role's model in optimum.yaml is the candidate's definition too.
    (root / "bundle.yaml").write_text(manifest_text, encoding="utf-8")
    optimum = yaml.safe_load((root / "optimum.yaml").read_text(encoding="utf-8"))
    optimum["roles"]["writer-b"]["model"] = "gpt-4.1"
    (root / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")
    result = pytester.runpytest("--ora-record", "none")
    result.stdout.fnmatch_lines(
        ["mode:argument-audit/cmd: recorded for a different candidate request (candidate field 'role')*"]
    )
    assert outcomes(result)["failed"] == 4


@pytest.mark.parametrize(
    ("fault", "model", "configuration", "said"),
    [("401", "gpt-4.1-mini", "cmd", "401"), ("refusal", "claude-sonnet-4-6", "big-1", "refused to answer")],
    ids=["http-error", "refusal"],
)
def test_when_a_role_candidate_fails_past_its_retries_then_the_capture_is_excluded_and_counted_never_judged(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
    fault: str,
    model: str,
    configuration: str,
    said: str,
) -> None:
    _role_project(pytester, judge)
    judge.inject(Fault(fault, model=model, times=1))
    live = record(pytester, "--ora-out", "live")
    counts = outcomes(live)
    assert counts["failed"] == 0 and counts["errors"] == 0 and counts["skipped"] == 7, (
        live.stdout.str()
    )  # 6 collisions + 1
    ledger = {row["capture_id"]: row for row in _ledger(pytester, "live")}
    failed = [row for row in ledger.values() if row["reason"] and row["reason"].startswith("candidate failed: ")]
    assert len(failed) == 1 and failed[0]["configuration"] == configuration and failed[0]["status"] == "unscorable"
    assert not failed[0]["judges"] and failed[0].get("overall") is None and said in failed[0]["reason"]
    live.stdout.fnmatch_lines(
        ["ora: candidates answered 7 judged captures*; 1 candidate failed (unscorable, never judged): *"]
    )
    # The failure is recorded: the replay says it again without calling anything.
    judge.stop()
    replay = pytester.runpytest("--ora-record", "none", "--ora-out", "replay")
    assert outcomes(replay) == counts
    assert (pytester.path / "replay" / "ledger.jsonl").read_bytes() == (
        pytester.path / "live" / "ledger.jsonl"
    ).read_bytes()


def test_when_a_role_candidate_names_an_unknown_role_then_intake_names_the_file_line_and_field(tmp_path: Path) -> None:
    root = write_bundle(
        tmp_path / "bundle",
        configurations=("optimum", "big-1"),
        edit=lambda items: [item for item in items if item["configuration"] == "optimum"],
        manifest={"candidates": {"big-1": {"role": "nobody"}}},
    )
    (root / "entries.jsonl").write_text(
        '{"entry_key": "mode:argument-audit", "prompt": "Audit it."}\n', encoding="utf-8"
    )
    with pytest.raises(IntakeError) as raised:
        load_bundle(root)
    problems = [problem for problem in raised.value.problems if problem.field == "candidates.big-1.role"]
    assert len(problems) == 1 and problems[0].line is not None and "optimum.yaml does not define" in problems[0].message


def test_when_role_params_name_an_unknown_parameter_then_intake_refuses_it(tmp_path: Path) -> None:
    root = write_bundle(
        tmp_path / "bundle",
        configurations=("optimum", "big-1"),
        manifest={"candidates": {"big-1": {"role": "big-2", "params": {"temprature": 0}}}},
    )
    with pytest.raises(IntakeError) as raised:
        load_bundle(root)
    assert any(problem.field == "candidates.big-1.params.temprature" for problem in raised.value.problems)


def test_when_a_role_candidates_model_takes_no_temperature_then_the_run_stops_before_any_call(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    root = _role_project(pytester, judge)
    manifest = yaml.safe_load((root / "bundle.yaml").read_text(encoding="utf-8"))
    optimum = yaml.safe_load((root / "optimum.yaml").read_text(encoding="utf-8"))
    optimum["roles"]["writer-a"]["model"] = "claude-opus-4-7"  # from Opus 4.7 on, Claude refuses any temperature
    manifest["candidates"]["big-1"]["params"] = {"temperature": 0.3}
    (root / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")
    (root / "bundle.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    result = record(pytester)
    assert result.ret == 4 and not [request for request in judge.requests if request.method == "POST"]
    result.stderr.fnmatch_lines(
        ["*bundle.yaml: candidates.big-1.params: model claude-opus-4-7 (anthropic) takes no temperature*"]
    )


def test_when_an_entry_is_a_conversation_and_a_role_candidate_answers_then_intake_refuses_the_line(
    tmp_path: Path,
) -> None:
    root = write_bundle(
        tmp_path / "bundle",
        configurations=("optimum", "big-1"),
        edit=lambda items: [item for item in items if item["configuration"] == "optimum"],
        manifest={"candidates": {"big-1": {"role": "big-2"}}},
    )
    entries = [
        {"entry_key": "mode:argument-audit", "prompt": "Audit it."},
        {"entry_key": "mode:causal-dag", "prompt": "And now?", "messages": [{"role": "user", "content": "Draw it."}]},
    ]
    (root / "entries.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    with pytest.raises(IntakeError) as raised:
        load_bundle(root)
    assert [(p.file, p.line, p.field) for p in raised.value.problems] == [("entries.jsonl", 2, "messages")]


def test_when_judging_through_batches_then_candidate_captures_are_judged_live_once_answered_never_batched_empty(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _role_project(pytester, judge)
    result = record(pytester, "--ora-batch")
    assert outcomes(result)["failed"] == 0 and outcomes(result)["errors"] == 0, result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*ora: batch: 8 captures whose answers candidates make in the run are judged live, each once its answer exists*",
            "*ora: batch msgbatch_* of Judge A (big-1) submitted: 4 requests*",
        ]
    )
    batched = "".join(
        request.body.decode("utf-8", "replace") for request in judge.requests if "batches" in request.path
    )
    assert "(claude-sonnet-4-6, reference answer)" not in batched  # no candidate answer went into a batch
    packets = "".join(
        path.read_text(encoding="utf-8") for path in (pytester.path / "ora-results" / "packets").rglob("*.json")
    )
    assert "(claude-sonnet-4-6, reference answer)" in packets
