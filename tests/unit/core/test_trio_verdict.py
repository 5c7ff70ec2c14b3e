"""trio-likert-1.1: each judge also returns a rationale and its overall_verdict; pytest-ora computes the band
from that judge's scores and lists the judges whose stated verdict disagrees. trio-likert-1.0 is unchanged."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.core.models import Capture, JudgeReply
from pytest_ora.judges.packet import build_packet, judge_prompt
from pytest_ora.judges.reply import reply_schema
from pytest_ora.method.kinds.base import ReplyProblem
from pytest_ora.method.kinds.scores.kind import KIND
from pytest_ora.method.rubric import get_rubric
from pytest_ora.reports.methodology import verdict_disagreements
from pytest_ora.testing.judgescores import judge_reply, reply_shape

TRIO = Path(__file__).parents[3] / "evals" / "examples" / "trio" / "bundle"
V11 = get_rubric("trio-likert-1.1")
V10 = get_rubric("trio-likert-1.0")


def _reference_reply(rubric: Any) -> tuple[dict[str, Any], str]:
    """The reference judge's reply to the first trio capture's real 1.1 request, and the capture's entry key."""
    line = (TRIO / "captures.jsonl").read_text(encoding="utf-8").splitlines()[0]
    capture = Capture.model_validate(json.loads(line))
    packet, image = build_packet(capture, TRIO, rubric)
    prompt = judge_prompt(packet, image, rubric, cache=False)
    text = "\n".join(part.text for part in prompt.parts if hasattr(part, "text"))
    body = {"tools": [{"input_schema": reply_schema(rubric)}]}
    return judge_reply(text, "reference-model", (), reply_shape(body)), capture.entry_key


def test_the_11_reply_schema_asks_for_rationale_and_one_of_the_bands_named_in_the_prompt() -> None:
    schema = reply_schema(V11)

    assert schema["properties"]["overall_verdict"]["enum"] == [
        "PASS_STRONG",
        "PASS_ADEQUATE",
        "FAIL_WEAK",
        "FAIL_CRITICAL",
    ]
    assert {"rationale", "overall_verdict"} <= set(schema["required"])
    assert "overall_verdict" not in reply_schema(V10)["properties"]
    assert "PASS_STRONG, PASS_ADEQUATE, FAIL_WEAK, FAIL_CRITICAL" in KIND.instructions(V11)


def test_the_reference_judge_answers_the_11_schema_and_its_verdict_agrees_with_its_scores() -> None:
    reply, entry_key = _reference_reply(V11)

    parsed = KIND.check(reply, V11, entry_key, None)

    assert isinstance(parsed, JudgeReply), parsed
    fields = KIND.record_fields(parsed, V11)
    assert fields["rationale"].strip() and fields["overall_verdict"] == fields["computed_verdict"]


def test_a_stated_verdict_that_disagrees_with_the_scores_is_listed() -> None:
    reply, entry_key = _reference_reply(V11)
    bands = ["PASS_STRONG", "PASS_ADEQUATE", "FAIL_WEAK", "FAIL_CRITICAL"]
    other = next(band for band in bands if band != reply["overall_verdict"])
    parsed = KIND.check({**reply, "overall_verdict": other}, V11, entry_key, None)
    assert isinstance(parsed, JudgeReply)
    fields = KIND.record_fields(parsed, V11)
    judge = {"label": "Judge B", "model": "gpt-5.4", **fields}
    agreeing = {
        "label": "Judge A",
        "model": "claude-opus-4-7",
        **KIND.record_fields(KIND.check(reply, V11, entry_key, None), V11),
    }

    listed = verdict_disagreements([{"capture_id": "task:x/cell-a", "judges": [agreeing, judge]}])

    assert listed == [f"task:x/cell-a: Judge B (gpt-5.4) stated {other}; its scores give {fields['computed_verdict']}"]


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"rationale": "  "}, "rationale", "is missing or blank"),
        ({"overall_verdict": "PASS"}, "overall_verdict", "is not one of PASS_STRONG"),
    ],
)
def test_an_11_reply_without_a_rationale_or_a_band_is_invalid(change: dict[str, str], field: str, reason: str) -> None:
    reply, entry_key = _reference_reply(V11)

    problem = KIND.check({**reply, **change}, V11, entry_key, None)

    assert isinstance(problem, ReplyProblem) and problem.field == field and problem.reason.startswith(reason)


def test_a_10_reply_stays_as_it_was_and_refuses_the_11_fields() -> None:
    reply, entry_key = _reference_reply(V10)
    assert "overall_verdict" not in reply
    assert isinstance(KIND.check(reply, V10, entry_key, None), JudgeReply)

    problem = KIND.check({**reply, "overall_verdict": "PASS_STRONG"}, V10, entry_key, None)

    assert isinstance(problem, ReplyProblem) and problem.field == "overall_verdict"


def _trio_bundle(tmp_path: Path, model: str) -> Path:
    import shutil

    root = Path(shutil.copytree(TRIO, tmp_path / "bundle"))
    optimum = root / "optimum.yaml"
    optimum.write_text(
        optimum.read_text(encoding="utf-8").replace("model: minimax-m2.7", f"model: {model}"), encoding="utf-8"
    )
    return root


def test_the_11_panel_is_locked_and_another_model_stops_intake_as_a_substitution(tmp_path: Path) -> None:
    from pytest_ora.bundle.intake import intake
    from pytest_ora.core.errors import IntakeError

    with pytest.raises(IntakeError) as caught:
        intake(_trio_bundle(tmp_path, "qwen3-max"))

    problem = next(p for p in caught.value.problems if p.field == "roles.judge-minimax.model")
    assert "'qwen3-max', not one of rubric trio-likert-1.1's locked panel" in problem.message
    assert "another model is a judge substitution" in problem.message and "--ora-substitute" in (problem.fix or "")


def test_an_explicit_substitution_of_the_locked_panel_is_recorded_not_stopped(tmp_path: Path) -> None:
    from pytest_ora.bundle.intake import intake, parse_substitution

    root = _trio_bundle(tmp_path, "minimax-m2.7")
    plan = intake(root)
    substitution = parse_substitution(
        "judge-minimax=openai-compatible:qwen3-max@http://127.0.0.1:8766/v1/chat/completions",
        dict(plan.bundle.optimum.roles),
    )

    substituted = intake(root, substitutions=(substitution,), panel_label="trio with a substitute")

    assert [j.spec.model for j in substituted.panel.substituted] == ["qwen3-max"]
    assert substituted.panel.label == "trio with a substitute"
