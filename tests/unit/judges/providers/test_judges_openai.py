"""Tests for the OpenAI client (Chat Completions, Responses, OpenAI-compatible servers)."""

from __future__ import annotations

import base64
import gzip
import json
from decimal import Decimal
from typing import Any

import httpx
import pytest
from support.provider_support import (
    FIXTURES,
    PNG,
    fixture_body,
    fixture_response,
    make_prompt,
    sent_body,
)

from pytest_ora.core.models import JudgeReply, RoleSpec
from pytest_ora.core.usage import Usage, reported_usage
from pytest_ora.judges.providers.base import JudgePrompt
from pytest_ora.judges.providers.openai import OpenAIClient
from pytest_ora.judges.reply import check_reply
from pytest_ora.method.rubric import ORA_V1

KEY = "sk-proj-test-0123456789"
CHAT = "https://api.openai.com/v1/chat/completions"
RESPONSES = "https://api.openai.com/v1/responses"
OPENROUTER = "https://openrouter.ai/api/v1/chat/completions"
OLLAMA = "http://localhost:11434/v1/chat/completions"
GZIP_JSON = {"content-type": "application/json", "content-encoding": "gzip"}


def valid_reply(judge_model: str) -> dict[str, Any]:
    """A reply object that passes validation for mode:argument-audit/optimum."""
    return {
        "entry_key": "mode:argument-audit",
        "configuration": "optimum",
        "judge_model": judge_model,
        "scores": {"fidelity": 4, "soundness": 4.5, "completeness": 3.5, "relevance": 5, "calibration": 4},
        "notes": {name: f"{name} note" for name in ORA_V1.names},
        "impression": "Partial execution.",
    }


def role(model: str = "gpt-4.1", route: str = CHAT, provider: str = "openai") -> RoleSpec:
    return RoleSpec.model_validate({"model": model, "provider": provider, "route": route})


def chat_completion(content: Any, finish: str = "stop", **message: Any) -> dict[str, Any]:
    """A minimal Chat Completions body."""
    return {
        "model": "gpt-4.1-2025-04-14",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content, **message}, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    }


# --- build_request: Chat Completions -------------------------------------------------------


def test_chat_request_posts_to_the_route_with_a_bearer_token() -> None:
    request = OpenAIClient().build_request(role(), make_prompt(), KEY)

    assert request.method == "POST"
    assert str(request.url) == CHAT
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert KEY not in str(request.url)
    assert KEY not in repr(request)


def test_chat_body_asks_for_strict_json_schema_output() -> None:
    prompt = make_prompt(image=PNG)
    body = sent_body(OpenAIClient().build_request(role(), prompt, KEY))

    assert body["model"] == "gpt-4.1"
    assert body["messages"][0] == {"role": "system", "content": "You are an independent judge."}
    user = body["messages"][1]
    assert user["role"] == "user"
    assert user["content"][0]["type"] == "text"
    assert body["temperature"] == 0
    assert body["max_completion_tokens"] == prompt.max_tokens
    assert "max_tokens" not in body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "ora_judge_reply", "strict": True, "schema": prompt.reply_schema},
    }


def test_chat_request_sends_an_image_as_a_data_url() -> None:
    body = sent_body(OpenAIClient().build_request(role(), make_prompt(image=PNG), KEY))

    image = body["messages"][1]["content"][1]
    assert image["type"] == "image_url"
    prefix, _, data = image["image_url"]["url"].partition(",")
    assert prefix == "data:image/png;base64"
    assert base64.b64decode(data) == PNG


def test_identical_prompts_give_identical_bytes_and_a_changed_answer_does_not() -> None:
    client = OpenAIClient()
    first = client.build_request(role(), make_prompt(image=PNG), KEY)
    second = client.build_request(role(), make_prompt(image=PNG), KEY)
    changed = client.build_request(role(), make_prompt("Another answer.", image=PNG), KEY)

    assert first.content == second.content
    assert first.content != changed.content


@pytest.mark.parametrize(
    ("model", "sent"),
    [
        ("gpt-4.1", True),
        ("gpt-4o-2024-08-06", True),
        ("gpt-5-chat-latest", True),
        ("gpt-5.4", False),  # reasoning models answer temperature 0 with a 400
        ("gpt-5-mini", False),
        ("o3", False),
        ("o4-mini", False),
    ],
)
def test_temperature_zero_only_where_openai_accepts_it(model: str, sent: bool) -> None:
    body = sent_body(OpenAIClient().build_request(role(model), make_prompt(), KEY))

    assert ("temperature" in body) is sent


def test_compatible_server_gets_max_tokens_and_no_auth_header_without_a_key() -> None:
    client = OpenAIClient("openai-compatible")
    request = client.build_request(role("llama3.1:8b", OLLAMA, "openai-compatible"), make_prompt(), None)
    body = sent_body(request)

    assert str(request.url) == OLLAMA
    assert "authorization" not in request.headers
    assert body["max_tokens"] == JudgePrompt.max_tokens
    assert "max_completion_tokens" not in body
    assert body["temperature"] == 0
    assert body["response_format"]["type"] == "json_schema"


@pytest.mark.parametrize(
    ("model", "sent"),
    [("meta-llama/llama-3.3-70b-instruct", True), ("openai/gpt-5.4", False), ("anthropic/claude-opus-4-7", False)],
)
def test_compatible_routes_skip_temperature_for_models_that_reject_it(model: str, sent: bool) -> None:
    compatible = role(model, OPENROUTER, "openai-compatible")
    body = sent_body(OpenAIClient("openai-compatible").build_request(compatible, make_prompt(), KEY))

    assert ("temperature" in body) is sent


def test_unstructured_compatible_server_gets_plain_json_mode() -> None:
    client = OpenAIClient("openai-compatible", structured=False)
    body = sent_body(client.build_request(role("qwen2.5", OLLAMA, "openai-compatible"), make_prompt(), None))

    assert body["response_format"] == {"type": "json_object"}


def test_a_non_openai_provider_name_is_refused() -> None:
    with pytest.raises(ValueError, match="google"):
        OpenAIClient("google")


# --- build_request: Responses --------------------------------------------------------------


def test_responses_route_gets_a_responses_body() -> None:
    prompt = make_prompt(image=PNG)
    request = OpenAIClient().build_request(role("gpt-5.4", RESPONSES), prompt, KEY)
    body = sent_body(request)

    assert str(request.url) == RESPONSES
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert body["model"] == "gpt-5.4"
    assert body["instructions"] == "You are an independent judge."
    content = body["input"][0]["content"]
    assert body["input"][0]["role"] == "user"
    assert content[0]["type"] == "input_text"
    assert content[1]["type"] == "input_image"
    assert base64.b64decode(content[1]["image_url"].partition(",")[2]) == PNG
    assert body["max_output_tokens"] == prompt.max_tokens
    assert "temperature" not in body
    assert body["text"] == {
        "format": {"type": "json_schema", "name": "ora_judge_reply", "strict": True, "schema": prompt.reply_schema}
    }
    assert "messages" not in body


# --- parse_reply: Chat Completions fixtures ------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "stop", "detail", "model", "usage"),
    [
        (
            "01_openai_chat_json_object_mode.json",
            '{\n  "status": "success"\n}',
            "complete",
            "stop",
            "gpt-4o-2024-08-06",
            reported_usage(input_tokens=22, output_tokens=9),
        ),
        (
            "03_openai_chat_judge_verdict_in_json_fences_gzip.json",
            '```json\n{"reason": "The provided context directly states that the capital of France is Paris, '
            'which is exactly reflected in the answer.", "verdict": 1}\n```',
            "complete",
            "stop",
            "gpt-4o-mini-2024-07-18",
            reported_usage(input_tokens=960, output_tokens=36),
        ),
        (
            "04_openai_chat_tool_call_gzip.json",
            '{"country":"Crumpet"}',
            "complete",
            "tool_calls",
            "gpt-4o-mini-2024-07-18",
            reported_usage(input_tokens=92, output_tokens=17),
        ),
        (
            "06_openai_chat_reasoning_tokens_gzip.json",
            "3\n\nThere are three 'r' letters in \"strawberry\" (positions 3, 8, and 9).",
            "complete",
            "stop",
            "gpt-5-nano-2025-08-07",
            reported_usage(input_tokens=11, output_tokens=228, reasoning_tokens=192),
        ),
        (
            "24_openrouter_chat_leading_whitespace_gzip.json",
            "The capital of France is **Paris**.",
            "complete",
            "stop",
            "openai/gpt-oss-120b",
            reported_usage(input_tokens=74, output_tokens=21, reasoning_tokens=2),
        ),
    ],
)
def test_chat_fixture_is_read(name: str, text: str, stop: str, detail: str, model: str, usage: Usage) -> None:
    reply = OpenAIClient().parse_reply(fixture_response(name))

    assert reply.payload is None
    assert reply.text == text
    assert (reply.stop, reply.detail, reply.model, reply.usage) == (stop, detail, model, usage)


def test_strict_json_schema_content_is_the_text() -> None:
    name = "02_openai_chat_json_schema_strict_gzip.json"
    reply = OpenAIClient().parse_reply(fixture_response(name))

    assert reply.text == fixture_body(name)["choices"][0]["message"]["content"]
    assert json.loads(reply.text or "null")["final_answer"] == r"x = -\frac{29}{8}"
    assert reply.stop == "complete"
    assert reply.model == "gpt-4o-2024-08-06"
    assert reply.usage == reported_usage(input_tokens=127, output_tokens=93)


def test_finish_length_is_truncated_and_cached_tokens_stay_inside_input() -> None:
    name = "05_openai_chat_cached_tokens_finish_length_gzip.json"
    reply = OpenAIClient().parse_reply(fixture_response(name))

    assert reply.text == fixture_body(name)["choices"][0]["message"]["content"]
    assert (reply.stop, reply.detail) == ("truncated", "length")
    assert reply.model == "gpt-4o-2024-08-06"
    assert reply.usage == reported_usage(input_tokens=1220, output_tokens=100, cached_input_tokens=1152)


def test_gzip_body_with_leading_whitespace_is_read() -> None:
    recorded = json.loads((FIXTURES / "24_openrouter_chat_leading_whitespace_gzip.json").read_text(encoding="utf-8"))
    wire = gzip.compress(recorded["response"]["body"].encode("utf-8"))
    response = httpx.Response(200, headers=GZIP_JSON, content=wire)

    reply = OpenAIClient("openai-compatible").parse_reply(response)

    assert reply.text == "The capital of France is **Paris**."
    assert reply.model == "openai/gpt-oss-120b"


def test_refusal_is_refused_with_its_text() -> None:
    body = chat_completion(None, refusal="I can't help with that.")
    reply = OpenAIClient().parse_reply(httpx.Response(200, json=body))

    assert (reply.stop, reply.detail) == ("refused", "I can't help with that.")


def test_content_filter_is_refused_and_empty_content_is_empty() -> None:
    client = OpenAIClient()
    filtered = client.parse_reply(httpx.Response(200, json=chat_completion("", "content_filter")))
    empty = client.parse_reply(httpx.Response(200, json=chat_completion("")))

    assert (filtered.stop, filtered.detail) == ("refused", "content_filter")
    assert empty.stop == "empty"


def test_content_given_as_text_parts_is_joined() -> None:
    parts = [{"type": "text", "text": '{"a": '}, {"type": "text", "text": "1}"}]
    reply = OpenAIClient("openai-compatible").parse_reply(httpx.Response(200, json=chat_completion(parts)))

    assert reply.text == '{"a": 1}'


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"upstream connect error", "not JSON"),
        (b'{"id": "x", "object": "chat.completion", "choices": []}', "no choices"),
        (b'{"id": "x", "object": "list"}', "neither choices nor output"),
        (b'{"error": {"message": "Internal error", "code": 502}}', "Internal error"),
        (b'{"status": "failed", "output": [], "error": {"message": "server had an error"}}', "server had an error"),
    ],
)
def test_a_body_that_is_not_a_reply_is_a_value_error(content: bytes, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        OpenAIClient().parse_reply(httpx.Response(200, content=content))


# --- parse_reply: Responses fixtures -------------------------------------------------------


def test_responses_basic_output_text() -> None:
    reply = OpenAIClient().parse_reply(fixture_response("09_openai_responses_basic_gzip.json"))

    assert reply.text == "pong"
    assert (reply.stop, reply.detail) == ("complete", "completed")
    assert reply.model == "gpt-5.5-2026-04-23"
    assert reply.usage == reported_usage(input_tokens=11, output_tokens=5)


def test_responses_json_schema_output_text() -> None:
    name = "10_openai_responses_json_schema_gzip.json"
    reply = OpenAIClient().parse_reply(fixture_response(name))

    assert reply.text == fixture_body(name)["output"][0]["content"][0]["text"]
    assert json.loads(reply.text or "null")["steps"][1]["output"] == "8x = -29"
    assert reply.stop == "complete"
    assert reply.model == "gpt-4o-2024-08-06"
    assert reply.usage == reported_usage(input_tokens=113, output_tokens=99)


def test_responses_message_after_a_reasoning_item() -> None:
    reply = OpenAIClient().parse_reply(fixture_response("11_openai_responses_reasoning_item_first_gzip.json"))

    assert reply.text == (
        "The 2020 World Series was played entirely at Globe Life Field in Arlington, Texas "
        "(a neutral-site arrangement because of the COVID-19 pandemic)."
    )
    assert reply.stop == "complete"
    assert reply.model == "gpt-5-mini-2025-08-07"
    assert reply.usage == reported_usage(input_tokens=54, output_tokens=164, reasoning_tokens=128)


def test_responses_incomplete_at_max_output_tokens_is_truncated() -> None:
    body = {
        "object": "response",
        "status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"},
        "model": "gpt-5.4-2026-03-05",
        "output": [{"type": "reasoning", "summary": []}],
        "usage": {"input_tokens": 900, "output_tokens": 4096, "output_tokens_details": {"reasoning_tokens": 4096}},
    }
    reply = OpenAIClient().parse_reply(httpx.Response(200, json=body))

    assert (reply.stop, reply.detail, reply.text) == ("truncated", "max_output_tokens", None)
    assert reply.usage == reported_usage(input_tokens=900, output_tokens=4096, reasoning_tokens=4096)


def test_responses_refusal_part_is_refused() -> None:
    refusal = {"type": "refusal", "refusal": "I can't assist with that."}
    body = {"object": "response", "status": "completed", "output": [{"type": "message", "content": [refusal]}]}
    reply = OpenAIClient().parse_reply(httpx.Response(200, json=body))

    assert (reply.stop, reply.detail) == ("refused", "I can't assist with that.")


# --- error_message -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "07_openai_chat_401_invalid_api_key.json",
            "invalid_api_key: Incorrect API key provided: <not-a-r****key>. "
            "You can find your API key at https://platform.openai.com/account/api-keys.",
        ),
        (
            "08_openai_chat_400_unsupported_parameter.json",
            "unsupported_parameter: Unsupported parameter: 'stop' is not supported with this model.",
        ),
        (
            "12_openai_responses_400_model_not_found.json",
            "model_not_found: The requested model 'invalid-model' does not exist.",
        ),
        (
            "25_openrouter_429_upstream_rate_limited.json",
            "Provider returned error (upstream Google: google/gemini-2.0-flash-exp:free is temporarily rate-limited "
            "upstream. Please retry shortly, or add your own key to accumulate your rate limits: "
            "https://openrouter.ai/settings/integrations)",
        ),
    ],
)
def test_error_message_names_the_code_and_the_cause(name: str, message: str) -> None:
    assert OpenAIClient().error_message(fixture_response(name)) == message


def test_error_message_names_a_parameter_the_message_does_not() -> None:
    error = {
        "error": {"message": "Invalid value.", "type": "invalid_request_error", "param": "temperature", "code": None}
    }

    assert OpenAIClient().error_message(httpx.Response(400, json=error)) == (
        "invalid_request_error: Invalid value. (param: temperature)"
    )


@pytest.mark.parametrize(
    ("response", "message"),
    [
        (httpx.Response(404, json={"error": "model 'llama9' not found"}), "model 'llama9' not found"),
        (httpx.Response(502, content=b"<html>Bad Gateway</html>"), "HTTP 502 Bad Gateway: <html>Bad Gateway</html>"),
        (httpx.Response(503, content=b""), "HTTP 503 Service Unavailable (empty body)"),
    ],
)
def test_error_message_of_other_servers(response: httpx.Response, message: str) -> None:
    assert OpenAIClient("openai-compatible").error_message(response) == message


# --- reachability_request ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "model", "route", "url"),
    [
        ("openai", "gpt-5.4", CHAT, "https://api.openai.com/v1/models/gpt-5.4"),
        ("openai", "gpt-5.4", RESPONSES, "https://api.openai.com/v1/models/gpt-5.4"),
        ("openai-compatible", "openai/gpt-5.4", OPENROUTER, "https://openrouter.ai/api/v1/models"),
        ("openai-compatible", "llama3.1:8b", OLLAMA, "http://localhost:11434/v1/models"),
        (
            "openai-compatible",
            "judge",
            "https://example.test/openai/deployments/judge/chat/completions?api-version=2024-10-21",
            "https://example.test/openai/deployments/judge/models?api-version=2024-10-21",
        ),
    ],
)
def test_reachability_gets_the_model_or_the_model_list(provider: str, model: str, route: str, url: str) -> None:
    request = OpenAIClient(provider).reachability_request(role(model, route, provider), KEY)

    assert request.method == "GET"
    assert str(request.url) == url
    assert request.headers["authorization"] == f"Bearer {KEY}"


# --- end to end over a mock transport ------------------------------------------------------


@pytest.mark.parametrize("route", [CHAT, RESPONSES])
def test_a_judge_call_round_trip_validates(route: str) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        text = json.dumps(valid_reply("gpt-5.4-2026-03-05"))
        if request.url.path.endswith("/responses"):
            message = {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
            body: dict[str, Any] = {
                "object": "response",
                "status": "completed",
                "model": "gpt-5.4-2026-03-05",
                "output": [{"type": "reasoning", "summary": []}, message],
                "usage": {"input_tokens": 800, "output_tokens": 300},
            }
        else:
            body = chat_completion(text) | {"model": "gpt-5.4-2026-03-05"}
        # Sent as the providers send it: gzip, with keep-alive whitespace in front.
        wire = gzip.compress(b"\n   \n" + json.dumps(body).encode("utf-8"))
        return httpx.Response(200, headers=GZIP_JSON, content=wire)

    client = OpenAIClient()
    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        response = http.send(client.build_request(role("gpt-5.4", route), make_prompt(image=PNG), KEY))
    reply = client.parse_reply(response)
    checked = check_reply(reply, ORA_V1, "mode:argument-audit", "optimum")

    assert seen[0].headers["authorization"] == f"Bearer {KEY}"
    assert isinstance(checked, JudgeReply)
    assert checked.scores["soundness"] == Decimal("4.5")
    assert reply.model == "gpt-5.4-2026-03-05"
