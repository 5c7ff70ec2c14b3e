"""Reasoning models: parameters they refuse are not sent, their reasoning tokens are counted and priced, and Claude's
extended thinking carries the reply schema as structured output (a forced tool is not allowed with thinking)."""

from __future__ import annotations

import base64
import json
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import botocore.session
import httpx
import pytest
import yaml
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from botocore.validate import ParamValidator
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from support.bundle_factory import write_bundle
from support.provider_support import PNG, fixture_response, make_prompt, sent_body

from pytest_ora.bundle.intake import intake
from pytest_ora.core.errors import IntakeError
from pytest_ora.core.models import JudgeReply, RoleSpec
from pytest_ora.judges.budget import DEFAULT_PRICES, price_for, usage_cost
from pytest_ora.judges.packet import Packet, judge_prompt
from pytest_ora.judges.providers import client_for
from pytest_ora.judges.providers.anthropic import output_schema
from pytest_ora.judges.providers.bedrock import BedrockClient
from pytest_ora.judges.reply import check_reply
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.testing.server import ReferenceJudge

sys.path.insert(0, str(Path(__file__).parents[2]))
from support.sdk_types import request_problems

BUDGET = 4096


@pytest.mark.parametrize(
    ("provider", "route"),
    [
        ("openai", "https://api.openai.com/v1/chat/completions"),
        ("azure-openai", "https://acme.openai.azure.com/openai/deployments/o3/chat/completions?api-version=2024-10-21"),
    ],
)
@pytest.mark.parametrize("model", ["o3", "o4-mini", "gpt-5", "gpt-5-mini"])
def test_a_reasoning_model_gets_no_temperature_and_max_completion_tokens(provider: str, route: str, model: str) -> None:
    role = RoleSpec(model=model, provider=provider, route=route)
    body = sent_body(client_for(role).build_request(role, make_prompt(), "key-0123456789abcdef"))

    assert "temperature" not in body and "max_tokens" not in body
    assert body["max_completion_tokens"] == 16000
    assert request_problems(body, CompletionCreateParamsNonStreaming) == []


def test_reasoning_tokens_are_counted_in_the_output_tokens_and_priced() -> None:
    """OpenAI bills reasoning tokens as output: fixture 06's 192 reasoning tokens are inside its 228 output tokens."""
    reply = client_for(
        RoleSpec(model="o3", provider="openai", route="https://api.openai.com/v1/chat/completions")
    ).parse_reply(fixture_response("06_openai_chat_reasoning_tokens_gzip.json"))
    assert reply.usage["reasoning_tokens"] == 192 and reply.usage["output_tokens"] == 228

    spent = usage_cost([{"model": "o3", "usage": dict(reply.usage)}], DEFAULT_PRICES)

    price = DEFAULT_PRICES["o3"]
    assert spent == (price.input * 11 + price.output * 228) / Decimal(1_000_000)


def test_gemini_thoughts_on_vertex_are_billed_as_output() -> None:
    role = RoleSpec(
        model="gemini-2.5-flash",
        provider="vertex",
        route="https://aiplatform.googleapis.com/v1/projects/p/"
        "locations/global/publishers/google/models/gemini-2.5-flash:generateContent",
    )
    reply = client_for(role).parse_reply(fixture_response("37_vertex_gemini_generate_content_json_schema.json"))

    assert reply.usage["output_tokens"] == 48 + 100 and reply.usage["reasoning_tokens"] == 100
    spent = usage_cost([{"model": "gemini-2.5-flash", "usage": dict(reply.usage)}], DEFAULT_PRICES)
    price = DEFAULT_PRICES["gemini-2.5-flash"]
    assert spent == (price.input * 19 + price.output * 148) / Decimal(1_000_000)


def _claude(
    route: str = "https://api.anthropic.com/v1/messages", provider: str = "anthropic", model: str = "claude-opus-4-7"
) -> RoleSpec:
    return RoleSpec(model=model, provider=provider, route=route, thinking_budget=BUDGET)


def test_extended_thinking_sends_the_reply_schema_as_structured_output_not_a_forced_tool() -> None:
    body = sent_body(client_for(_claude()).build_request(_claude(), make_prompt(image=PNG), "k" * 20))

    assert body["thinking"] == {"type": "enabled", "budget_tokens": BUDGET}
    assert "tools" not in body and "tool_choice" not in body and "temperature" not in body
    assert body["max_tokens"] == 16000 + BUDGET
    assert body["output_config"]["format"]["type"] == "json_schema"
    assert request_problems(body, MessageCreateParamsNonStreaming) == []


def test_the_structured_output_schema_moves_unsupported_keywords_into_descriptions() -> None:
    schema = {
        "type": "object",
        "properties": {
            "score": {"type": "number", "minimum": 0, "maximum": 10, "multipleOf": 0.5},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
            "kind": {"oneOf": [{"type": "string"}, {"type": "null"}]},
        },
    }

    assert output_schema(schema) == {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "score": {"type": "number", "description": "{minimum: 0, maximum: 10, multipleOf: 0.5}"},
            "tags": {"type": "array", "items": {"type": "string"}, "description": "{minItems: 2}"},
            "kind": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        },
    }


def test_with_thinking_the_reference_judge_answers_in_text_that_validates_as_the_reply() -> None:
    """The whole round: the body, the reference judge's reply (a thinking block, then JSON text), our reading of it."""
    with ReferenceJudge() as judge:
        role = _claude(judge.route("anthropic"))
        client = client_for(role)
        packet = Packet(
            capture_id="mode:argument-audit/optimum",
            entry_key="mode:argument-audit",
            family="mode",
            technique="argument-audit",
            specification_source="specs/argument-audit.md",
            specification="# Argument audit\n\n## Method\n1. **Frame the claim**: state it.\n",
            target=None,
            prompt="Audit the argument that remote work is more productive.",
            configuration="optimum",
            answer="## Frame the claim\nThe claim is narrow, because the evidence is.",
            model_snapshot={"big-1": "m"},
            artifact=None,
            acceptance_notes="",
            rubric_version=ORA_V1.version,
        )
        request = client.build_request(role, judge_prompt(packet, None, ORA_V1), "k" * 20)
        with httpx.Client() as http:
            response = http.send(request)
    assert response.status_code == 200
    reply = client.parse_reply(response)

    assert reply.payload is None and reply.text and reply.stop == "complete"
    assert isinstance(check_reply(reply, ORA_V1, "mode:argument-audit", "optimum"), JudgeReply)


def test_fixture_16_a_thinking_reply_is_read_without_its_thinking_block() -> None:
    reply = client_for(_claude()).parse_reply(fixture_response("16_anthropic_extended_thinking_gzip.json"))

    assert reply.text and "thinking" not in reply.text.lower()[:20] and reply.stop == "complete"


def test_bedrock_claude_with_thinking_offers_the_tool_without_forcing_it() -> None:
    model = "anthropic.claude-sonnet-4-5-20250929-v1:0"
    role = _claude("https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse", "bedrock", model)
    request = BedrockClient().build_request(role, make_prompt(image=PNG), None)
    body = sent_body(request)

    assert body["toolConfig"]["toolChoice"] == {"auto": {}}
    assert body["additionalModelRequestFields"] == {"thinking": {"type": "enabled", "budget_tokens": BUDGET}}
    assert "temperature" not in body["inferenceConfig"] and body["inferenceConfig"]["maxTokens"] == 16000 + BUDGET
    params: dict[str, Any] = {"modelId": model, **json.loads(request.content)}
    for block in params["messages"][0]["content"]:
        if "image" in block:
            block["image"]["source"]["bytes"] = base64.b64decode(block["image"]["source"]["bytes"])
    converse = botocore.session.get_session().get_service_model("bedrock-runtime").operation_model("Converse")
    assert not ParamValidator().validate(params, converse.input_shape).has_errors()


def test_a_thinking_budget_on_a_model_that_is_not_claude_is_refused_at_intake(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle")
    optimum = yaml.safe_load((root / "optimum.yaml").read_text(encoding="utf-8"))
    optimum["roles"]["big-2"]["thinking_budget"] = BUDGET
    (root / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")

    with pytest.raises(IntakeError) as raised:
        intake(root)

    assert "roles.big-2.thinking_budget" in str(raised.value)
    assert "is Claude's extended thinking: not for openai model gpt-5.4" in str(raised.value)


@pytest.mark.parametrize(
    ("model", "priced_as"),
    [
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4"),
        ("us.anthropic.claude-opus-4-7-v1:0", "claude-opus-4-7"),
        ("claude-sonnet-4-5@20250929", "claude-sonnet-4"),
        ("gpt-4.1-mini", "gpt-4.1-mini"),
    ],
)
def test_cloud_model_ids_are_priced_by_the_model_they_name(model: str, priced_as: str) -> None:
    assert price_for(model, DEFAULT_PRICES) == DEFAULT_PRICES[priced_as]
    assert price_for("meta.llama3-3-70b-instruct-v1:0", DEFAULT_PRICES) is None  # unpriced: no guess
