"""init --from prompts.csv --candidates ...: prompts without answers, answered inside the run by the named candidates."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from support.e2e import KEY_A, KEY_B

from pytest_ora.bundle.read import load_bundle
from pytest_ora.harness.scaffold import InitError, init_suite
from pytest_ora.testing.server import ReferenceJudge

PROMPTS = (
    "id,prompt,topic\n"
    'q1,"What is the capital of Australia, and why not Sydney?",geo\n'
    'q2,"How long should an egg boil to be soft?",food\n'
    'q3,"Why is the sky blue?",physics\n'
)

AGENT = """
def answer(request):
    return {"answer": "A careful answer to: " + request["prompt"] + " Because the evidence shows it, the answer holds; "
            "first the reasoning, then the steps, then the conclusion.", "usage": {"input": 20, "output": 30},
            "model": "my-agent-1"}
"""


def test_prompts_without_answers_become_entries_and_candidates_the_bundle_section(tmp_path: Path) -> None:
    source = tmp_path / "prompts.csv"
    source.write_text(PROMPTS, encoding="utf-8")
    init_suite(
        tmp_path / "suite",
        source=source,
        today="2026-12-01",
        candidates=("harness=python:agents:answer", "Opus.Solo=anthropic:claude-opus-4-7"),
    )
    bundle = tmp_path / "suite" / "bundle"
    assert not (bundle / "captures.jsonl").exists()  # every answer is made in the run
    entries = [json.loads(line) for line in (bundle / "entries.jsonl").read_text(encoding="utf-8").splitlines()]
    assert entries[0] == {
        "entry_key": "eval:q1",
        "prompt": "What is the capital of Australia, and why not Sydney?",
        "metadata": {"topic": "geo"},
    }
    assert len(entries) == 3
    manifest = yaml.safe_load((bundle / "bundle.yaml").read_text(encoding="utf-8"))
    assert manifest["configurations"] == ["harness", "Opus.Solo"]  # names as given
    assert manifest["candidates"] == {"harness": {"python": "agents:answer"}, "Opus.Solo": {"role": "opus-solo"}}
    roles = yaml.safe_load((bundle / "optimum.yaml").read_text(encoding="utf-8"))["roles"]
    assert roles["opus-solo"] == {
        "model": "claude-opus-4-7",
        "provider": "anthropic",
        "route": "https://api.anthropic.com/v1/messages",
    }
    assert manifest["panel"] == ["judge-a", "judge-b"]  # the candidate's role is not a judge

    # And intake reads it: one capture per prompt and candidate
    captures = [line.capture.capture_id for line in load_bundle(bundle).captures]
    assert captures == [f"eval:q{n}/{name}" for name in ("harness", "Opus.Solo") for n in (1, 2, 3)]


def test_answered_rows_stay_captures_and_their_prompts_are_answered_by_the_candidates_too(tmp_path: Path) -> None:
    source = tmp_path / "rows.csv"
    source.write_text(
        "id,configuration,prompt,answer\n"
        'q1,baseline,"Why is the sky blue?","Rayleigh scattering."\n'
        'q2,,"Why is the sea salty?",\n',
        encoding="utf-8",
    )
    init_suite(tmp_path / "suite", source=source, today="2026-12-01", candidates=("mine=python:agents:answer",))
    bundle = tmp_path / "suite" / "bundle"
    [answered] = [json.loads(line) for line in (bundle / "captures.jsonl").read_text(encoding="utf-8").splitlines()]
    assert (answered["configuration"], answered["answer"]) == ("baseline", "Rayleigh scattering.")
    entries = [
        json.loads(line)["entry_key"] for line in (bundle / "entries.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert entries == ["eval:q1", "eval:q2"]
    assert [line.capture.capture_id for line in load_bundle(bundle).captures] == [
        "eval:q1/baseline",
        "eval:q1/mine",
        "eval:q2/mine",
    ]


@pytest.mark.parametrize(
    ("candidates", "message"),
    [
        (("harness",), "takes NAME=PROVIDER:MODEL or NAME=python:module:function"),
        (("harness=python:not a function",), "is not module:function"),
        (("harness=cohere:command-r",), "unknown provider 'cohere'"),
        (("my model=python:agents:answer",), "is not a configuration name"),
        (("judge-a=openai:gpt-5.4",), "role 'judge-a' is a judge's role already"),
        (("a=python:agents:answer", "a=python:agents:other"), "a given twice"),
    ],
)
def test_a_bad_candidate_argument_is_named_and_nothing_is_written(
    tmp_path: Path,
    candidates: tuple[str, ...],
    message: str,
) -> None:
    source = tmp_path / "prompts.csv"
    source.write_text(PROMPTS, encoding="utf-8")
    with pytest.raises(InitError, match="nothing written") as raised:
        init_suite(tmp_path / "suite", source=source, candidates=candidates)
    assert message in str(raised.value)
    assert not (tmp_path / "suite").exists()


def test_prompts_without_candidates_are_rows_missing_their_answer(tmp_path: Path) -> None:
    source = tmp_path / "prompts.csv"
    source.write_text(PROMPTS, encoding="utf-8")
    with pytest.raises(InitError) as raised:
        init_suite(tmp_path / "suite", source=source)
    assert f"{source}:2: column configuration: missing" in str(raised.value)


def test_init_with_a_python_candidate_runs_live_then_replays_offline(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # From a directory holding only prompts.csv: init, the user's function, a live run, a replay
    source = pytester.path / "prompts.csv"
    source.write_text(PROMPTS, encoding="utf-8")
    judges = (
        f"judge-a=anthropic:claude-opus-4-7@{judge.route('anthropic')}",
        f"judge-b=openai:gpt-5.4@{judge.route('openai')}",
    )
    suite = pytester.path / "suite"
    init_suite(suite, source=source, judges=judges, today="2026-12-01", candidates=("harness=python:agents:answer",))
    (suite / "agents.py").write_text(AGENT, encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)
    live = pytester.runpytest_subprocess(str(suite), "--ora-record", "once", "-p", "no:cacheprovider")
    assert live.ret == 0, live.stdout.str()
    live.stdout.fnmatch_lines(["ora: candidates answered 3 judged captures*"])
    ledger = (suite / "ora-results" / "ledger.jsonl").read_bytes()
    rows = [json.loads(line) for line in ledger.splitlines()]
    assert [(row["capture_id"], row["status"], row["candidate_model"]) for row in rows] == [
        (f"eval:q{n}/harness", "scored", "my-agent-1") for n in (1, 2, 3)
    ]

    # Offline: the function gone, the judge stopped, no key set
    (suite / "agents.py").write_text("raise ImportError('gone')\n", encoding="utf-8")
    judge.stop()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY")
    replay = pytester.runpytest_subprocess(
        str(suite), "--ora-record", "none", "--ora-out", "again", "-n", "2", "-p", "no:cacheprovider"
    )
    assert replay.ret == 0, replay.stdout.str()
    assert (
        pytester.path / "again" / "ledger.jsonl"
    ).read_bytes() == ledger  # --ora-out is relative to where pytest runs
