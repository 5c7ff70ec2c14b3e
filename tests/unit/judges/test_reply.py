"""Reply validation: a judge's reply is accepted whole or refused with its field, never repaired."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, cast

import pytest

from pytest_ora.core.models import JudgeReply
from pytest_ora.judges.providers.base import ProviderReply
from pytest_ora.judges.reply import ReplyProblem, check_reply, reply_schema
from pytest_ora.method.rubric import ORA_V1


def reply_object(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "entry_key": "mode:argument-audit",
        "configuration": "optimum",
        "judge_model": "claude-opus-4-7",
        "scores": {name: 7.5 for name in ORA_V1.names},
        "notes": {name: "solid" for name in ORA_V1.names},
        "impression": "good",
    }
    data.update(changes)
    return data


def check_text(text: str | None, stop: str = "complete", detail: str = "") -> JudgeReply | ReplyProblem:
    reply = ProviderReply(payload=None, text=text, stop=stop, detail=detail)  # type: ignore[arg-type]
    return cast("JudgeReply | ReplyProblem", check_reply(reply, ORA_V1, "mode:argument-audit", "optimum"))


def problem(text: str | None, **kwargs: Any) -> ReplyProblem:
    result = check_text(text, **kwargs)
    assert isinstance(result, ReplyProblem), result
    return result


def test_a_valid_reply_keeps_exact_decimals() -> None:
    result = check_text(json.dumps(reply_object()))

    assert isinstance(result, JudgeReply)
    assert result.scores["fidelity"] == Decimal("7.5")


def test_a_tool_call_payload_is_validated_the_same_way() -> None:
    reply = ProviderReply(payload=reply_object(), text=None, stop="complete")

    assert isinstance(check_reply(reply, ORA_V1, "mode:argument-audit", "optimum"), JudgeReply)


def test_a_reply_in_json_fences_is_read() -> None:
    assert isinstance(check_text("```json\n" + json.dumps(reply_object()) + "\n```"), JudgeReply)


@pytest.mark.parametrize(
    ("obj", "field", "reason"),
    [
        (
            reply_object(scores={**{n: 7 for n in ORA_V1.names}, "fidelity": 11}),
            "scores.fidelity",
            "is outside the scale 0-10",
        ),
        (
            reply_object(scores={**{n: 7 for n in ORA_V1.names}, "soundness": -0.5}),
            "scores.soundness",
            "is outside the scale 0-10",
        ),
        (reply_object(scores={n: 7 for n in ORA_V1.names if n != "relevance"}), "scores.relevance", "is missing"),
        (
            reply_object(scores={**{n: 7 for n in ORA_V1.names}, "calibration": "seven"}),
            "scores.calibration",
            "must be a number",
        ),
        (
            reply_object(scores={**{n: 7 for n in ORA_V1.names}, "calibration": "7"}),
            "scores.calibration",
            "must be a number",
        ),
        (
            reply_object(scores={**{n: 7 for n in ORA_V1.names}, "calibration": True}),
            "scores.calibration",
            "must be a number",
        ),
        (
            reply_object(scores={**{n: 7 for n in ORA_V1.names}, "style": 7}),
            "scores.style",
            "is not a criterion of rubric ora-1.0",
        ),
        (reply_object(notes={n: "x" for n in ORA_V1.names if n != "fidelity"}), "notes.fidelity", "is missing"),
        (reply_object(entry_key="mode:premortem"), "entry_key", "does not match the packet's 'mode:argument-audit'"),
        (reply_object(configuration="big-1"), "configuration", "does not match the packet's 'optimum'"),
        (reply_object(verdict="PASS"), "verdict", "is not a field of the reply schema"),
        ({k: v for k, v in reply_object().items() if k != "impression"}, "impression", "is missing"),
    ],
)
def test_invalid_replies_name_the_field(obj: dict[str, Any], field: str, reason: str) -> None:
    result = problem(json.dumps(obj))

    assert (result.field, result.reason) == (field, reason)


def test_prose_around_the_json_is_invalid_not_guessed() -> None:
    result = problem("Here is my assessment: " + json.dumps(reply_object()) + " Hope this helps.")

    assert result.field == "(reply)"
    assert result.reason.startswith("is not a single JSON object")


@pytest.mark.parametrize(
    ("stop", "text", "reason"),
    [
        ("truncated", '{"entry_key": "mode:arg', "was cut off at the output token limit"),
        ("refused", None, "is a refusal"),
        ("complete", "", "is empty"),
        ("complete", None, "is empty"),
    ],
)
def test_truncation_refusal_and_empty_replies_are_invalid(stop: str, text: str | None, reason: str) -> None:
    assert problem(text, stop=stop, detail="max_tokens").reason == reason


def test_non_finite_numbers_are_refused() -> None:
    text = json.dumps(reply_object()).replace("7.5", "NaN", 1)

    assert problem(text).reason.startswith("is not a single JSON object")


def test_the_schema_is_strict_and_lists_every_criterion() -> None:
    schema = reply_schema(ORA_V1)

    assert schema["additionalProperties"] is False
    assert schema["properties"]["scores"]["required"] == list(ORA_V1.names)
    assert schema["properties"]["scores"]["properties"]["fidelity"] == {
        "type": "number",
        "minimum": 0.0,
        "maximum": 10.0,
    }
    assert set(schema["required"]) == {"entry_key", "configuration", "judge_model", "scores", "notes", "impression"}
