"""`python -m pytest_ora judge`: every mode against the reference judge, recorded, then replayed with the judge stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.e2e import KEY_A, KEY_B
from support.judge_modes import MODES, WORKED_EXAMPLE, mode_of

from pytest_ora.testing.server import Fault, ReferenceJudge

SHIPPED = Path(__file__).parents[2] / "evals" / "swebench"


def _run(args: list[str], cwd: Path, keys: bool = True) -> tuple[int, dict[str, Any], str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    if keys:
        env.update(ANTHROPIC_API_KEY=KEY_A, OPENAI_API_KEY=KEY_B)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_ora", "judge", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, json.loads(done.stdout) if done.stdout.strip() else {}, done.stderr


def _judges(judge: ReferenceJudge) -> list[str]:
    return [
        "--judge",
        f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}",
        "--judge",
        f"b=openai:gpt-5.4@{judge.route('openai')}",
    ]


def _stable(result: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in result.items() if key != "timestamp"}


@pytest.mark.parametrize("case", list(MODES))
def test_every_mode_is_judged_live_then_replayed_with_the_judge_stopped(
    judge: ReferenceJudge, tmp_path: Path, case: str
) -> None:
    (tmp_path / "data.json").write_text(json.dumps(MODES[case]), encoding="utf-8")
    args = ["--mode", mode_of(case), "--data", "@data.json", *_judges(judge), "--cassette", "judgment.json"]
    code, live, stderr = _run(args, tmp_path)
    assert code == 0, (live, stderr)
    assert live["success"] is True and live["mode"] == mode_of(case)
    assert live["timestamp"].endswith("Z") and live["token_usage"]["input"] > 0 and live["token_usage"]["output"] > 0
    assert len(live["response_text"]) >= 200
    evaluation = live["evaluation"]
    judged = [evaluation] if "judges" in evaluation else list(evaluation["contestants"].values())
    assert all({j["label"] for j in one["judges"]} == {"a", "b"} for one in judged)
    calls = judge.calls
    judge.stop()
    code, replayed, stderr = _run([*args, "--record", "none"], tmp_path, keys=False)
    assert code == 0, (replayed, stderr)
    assert _stable(replayed) == _stable(live)
    assert calls > 0 and KEY_A not in (tmp_path / "judgment.json").read_text(encoding="utf-8")


def test_solo_reports_each_dimension_with_reasoning_and_pytest_ora_s_weighted_total(
    judge: ReferenceJudge, tmp_path: Path
) -> None:
    (tmp_path / "d.json").write_text(json.dumps(MODES["solo"]), encoding="utf-8")
    code, result, _ = _run(["--mode", "solo", "--data", "@d.json", *_judges(judge)], tmp_path)
    assert code == 0
    for own in result["evaluation"]["judges"]:
        values = {name: own["scores"][name]["value"] for name in ("correctness", "depth", "quality", "persona")}
        assert own["weighted_total"] == sum(2.5 * v for v in values.values())
        assert all(own["scores"][name]["reasoning"] for name in values)
    totals = [own["weighted_total"] for own in result["evaluation"]["judges"]]
    assert (
        result["scores"]
        == {"bmad/architect": sum(totals) / 2}
        == {"bmad/architect": result["evaluation"]["weighted_total"]}
    )


def test_compare_names_the_winner_by_spec_judged_in_both_orders(judge: ReferenceJudge, tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps(MODES["compare"]), encoding="utf-8")
    code, result, _ = _run(["--mode", "compare", "--data", "@d.json", *_judges(judge)], tmp_path)
    assert code == 0 and set(result["scores"]) == {"bmad/architect", "bmad/dev"}
    assert result["winner"] == "bmad/architect"
    assert [o["order"] for o in result["evaluation"]["judges"][0]["orders"]] == ["first-second", "second-first"]


def test_coherence_rates_the_chain_and_scores_nothing(judge: ReferenceJudge, tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps(MODES["coherence"]), encoding="utf-8")
    code, result, _ = _run(["--mode", "coherence", "--data", "@d.json", *_judges(judge)], tmp_path)
    assert code == 0 and result["scores"] == {} and result["rating"] in ("excellent", "good", "poor")
    assert result["evaluation"]["multiplier"] == {"excellent": 1.2, "good": 1, "poor": 0.8}[result["rating"]]


def test_the_checklist_worked_example_gives_every_detection_figure(judge: ReferenceJudge, tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps(WORKED_EXAMPLE), encoding="utf-8")
    code, result, _ = _run(
        ["--mode", "solo", "--data", "@d.json", "--judge", f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}"],
        tmp_path,
    )
    assert code == 0
    detection = result["evaluation"]["judges"][0]["detection"]
    assert detection["by_severity"] == {
        "critical": {"found": 5, "total": 6},
        "high": {"found": 4, "total": 6},
        "medium": {"found": 3, "total": 8},
        "low": {"found": 1, "total": 2},
    }
    assert detection["novel_valid"] == 2 and detection["false_positive_count"] == 1
    # tp = 13 found issues + 2 valid novel findings = 15, fp = 1 (the method's definition of precision)
    assert detection["metrics"] == {
        "weighted_found": 132,
        "weighted_total": 194,
        "recall": 0.6804,
        "precision": 0.9375,
        "f2_score": 0.7199,
    }
    assert detection["components"] == {"recall_score": 20.4124, "precision_score": 9.375, "novel_bonus": 6}
    assert detection["subtotal"] == 35.7874
    assert result["evaluation"]["detection"]["by_severity"] == detection["by_severity"]  # the panel of one


def _short(body: bytes) -> bytes:
    """An Anthropic reply whose coherence reasoning is cut to a few words: a valid reply under 200 characters."""
    data = json.loads(body)
    data["content"][0]["input"]["reasoning"] = (
        "Coherent."  # the reference judge answers Anthropic calls with a tool call
    )
    return json.dumps(data).encode()


def _no_usage(body: bytes) -> bytes:
    data = json.loads(body)
    data["usage"] = {"input_tokens": 0, "output_tokens": 0}
    return json.dumps(data).encode()


def test_a_reply_under_200_characters_fails_validation_with_exit_1(judge: ReferenceJudge, tmp_path: Path) -> None:
    judge.inject(Fault("rewrite", provider="anthropic", rewrite=_short))
    (tmp_path / "d.json").write_text(json.dumps(MODES["coherence"]), encoding="utf-8")
    code, result, _ = _run(
        [
            "--mode",
            "coherence",
            "--data",
            "@d.json",
            "--judge",
            f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}",
        ],
        tmp_path,
    )
    assert code == 1
    assert result["success"] is False and result["mode"] == "coherence"
    assert result["error"].startswith("Judge validation failed: the reply of judge a has ")
    assert "at least 200 are required" in result["error"] and set(result) == {"success", "mode", "error"}


def test_a_reply_without_token_usage_is_asked_again_then_fails_with_exit_1(
    judge: ReferenceJudge, tmp_path: Path
) -> None:
    judge.inject(Fault("rewrite", provider="anthropic", rewrite=_no_usage, times=2))
    (tmp_path / "d.json").write_text(json.dumps(MODES["solo"]), encoding="utf-8")
    code, result, _ = _run(
        [
            "--mode",
            "solo",
            "--data",
            "@d.json",
            "--judge",
            f"a=anthropic:claude-opus-4-7@{judge.route('anthropic')}",
            "--cassette",
            "c.json",
        ],
        tmp_path,
    )
    assert code == 1 and result["success"] is False
    assert result["error"].startswith("Judge validation failed:") and "no token usage: not estimated" in result["error"]
    assert not (tmp_path / "c.json").exists()  # a failed judgment records nothing


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ('{"spec": "x", "character": "y", "challenge": "z"}', "field 'response' is missing (mode solo)"),
        (
            '{"spec": "x", "character": "y", "challenge": "z", "response": "r", "colour": 1}',
            "field 'colour' is not a field of mode solo",
        ),
        ("{not json", "--data: not JSON"),
        ("[1, 2]", "a JSON object of the mode's data fields"),
    ],
)
def test_bad_data_is_a_usage_error_naming_the_field(tmp_path: Path, data: str, message: str) -> None:
    code, result, stderr = _run(
        ["--mode", "solo", "--data", data, "--judge", "a=anthropic:m@http://127.0.0.1:9/v1/messages"], tmp_path
    )
    assert code == 4 and result == {} and message in stderr and "Traceback" not in stderr


def test_a_replay_without_a_recording_says_how_to_record(tmp_path: Path) -> None:
    (tmp_path / "d.json").write_text(json.dumps(MODES["solo"]), encoding="utf-8")
    code, result, _ = _run(
        [
            "--mode",
            "solo",
            "--data",
            "@d.json",
            "--judge",
            "a=anthropic:m@http://127.0.0.1:9/v1/messages",
            "--cassette",
            "none.json",
            "--record",
            "none",
        ],
        tmp_path,
        keys=False,
    )
    assert code == 1 and "no recorded judge call in none.json: record it with --record once" in result["error"]


@pytest.mark.parametrize(
    ("mode", "written", "total"),
    [("swebench", "swebench_judge_tinyqueue-12.json", 100), ("ground-truth", "gt_judge_tinyqueue-12.json", 100)],
)
def test_the_deterministic_modes_score_a_response_file_and_write_the_detail_beside_it(
    tmp_path: Path, mode: str, written: str, total: int
) -> None:
    (tmp_path / "run_tinyqueue-12.json").write_bytes((SHIPPED / "run_tinyqueue-12.json").read_bytes())
    data = json.dumps({"scenario": "ora-demo__tinyqueue-12", "response_file": "run_tinyqueue-12.json"})
    code, result, stderr = _run(
        ["--mode", mode, "--data", data, "--scenarios", str(SHIPPED / "scenarios.jsonl")], tmp_path, keys=False
    )
    assert code == 0, stderr
    assert result["scores"] == {"ora-demo__tinyqueue-12": total} and result["token_usage"] == {"input": 0, "output": 0}
    detail = json.loads((tmp_path / written).read_text(encoding="utf-8"))
    assert detail["total"] == total and detail["mode"] == mode and result["evaluation"]["detail_file"] == written


def test_a_deterministic_mode_without_scenarios_is_a_usage_error(tmp_path: Path) -> None:
    code, _, stderr = _run(
        ["--mode", "swebench", "--data", '{"scenario": "x", "response_file": "run_1.json"}'], tmp_path
    )
    assert code == 4 and "needs --scenarios FILE" in stderr
