"""Tests for the Anthropic Messages client: the request it sends and how it reads real responses."""

from __future__ import annotations

import base64
import json
from decimal import Decimal

import httpx
import pytest
from support.provider_support import (
    PNG,
    fixture_body,
    fixture_response,
    make_prompt,
    sent_body,
    valid_reply,
)

from pytest_ora.core.models import JudgeReply, RoleSpec
from pytest_ora.core.usage import reported_usage
from pytest_ora.judges.providers.anthropic import AnthropicClient
from pytest_ora.judges.providers.base import TextPart
from pytest_ora.judges.reply import check_reply
from pytest_ora.method.rubric import ORA_V1

KEY = "sk-ant-test-0123456789"
ROUTE = "https://api.anthropic.com/v1/messages"
ROLE = RoleSpec(model="claude-sonnet-4-5", provider="anthropic", route=ROUTE)


# --- build_request -------------------------------------------------------------------------


def test_request_posts_to_the_route_with_the_key_in_a_header_only() -> None:
    request = AnthropicClient().build_request(ROLE, make_prompt(), KEY)

    assert request.method == "POST"
    assert str(request.url) == ROUTE
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["content-type"] == "application/json"
    assert KEY not in str(request.url)
    assert KEY not in repr(request)


def test_request_forces_the_reply_schema_as_the_one_tool() -> None:
    prompt = make_prompt()
    body = sent_body(AnthropicClient().build_request(ROLE, prompt, KEY))

    assert body["model"] == "claude-sonnet-4-5"
    assert body["max_tokens"] == prompt.max_tokens
    assert body["system"] == "You are an independent judge."
    assert body["tools"] == [
        {"name": "ora_judge_reply", "description": body["tools"][0]["description"], "input_schema": prompt.reply_schema}
    ]
    assert body["tool_choice"] == {"type": "tool", "name": "ora_judge_reply"}
    first = prompt.parts[0]
    assert isinstance(first, TextPart)
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": first.text}]}]


def test_request_sends_an_image_as_a_base64_image_block() -> None:
    body = sent_body(AnthropicClient().build_request(ROLE, make_prompt(image=PNG), KEY))

    image = body["messages"][0]["content"][1]
    assert image["type"] == "image"
    assert image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]) == PNG


def test_identical_prompts_give_identical_bytes_and_a_changed_answer_does_not() -> None:
    client = AnthropicClient()
    first = client.build_request(ROLE, make_prompt(image=PNG), KEY)
    second = client.build_request(ROLE, make_prompt(image=PNG), KEY)
    changed = client.build_request(ROLE, make_prompt("Another answer.", image=PNG), KEY)

    assert first.content == second.content
    assert first.content != changed.content


@pytest.mark.parametrize(
    ("model", "sent"),
    [
        ("claude-sonnet-4-5", True),
        ("claude-sonnet-4-20250514", True),
        ("claude-3-7-sonnet-20250219", True),
        ("claude-opus-4-6", True),
        ("claude-opus-4-7", False),  # Anthropic answers any temperature with a 400 from Opus 4.7 on
        ("claude-opus-4-8", False),
        ("claude-sonnet-5", False),
    ],
)
def test_temperature_zero_only_where_the_model_accepts_it(model: str, sent: bool) -> None:
    role = RoleSpec(model=model, provider="anthropic", route=ROUTE)
    body = sent_body(AnthropicClient().build_request(role, make_prompt(), KEY))

    assert ("temperature" in body) is sent
    if sent:
        assert body["temperature"] == 0


def test_request_without_a_key_has_no_key_header() -> None:
    request = AnthropicClient().build_request(ROLE, make_prompt(), None)

    assert "x-api-key" not in request.headers


# --- parse_reply on recorded responses -----------------------------------------------------


def test_text_cut_at_max_tokens_is_truncated_and_cache_reads_count_as_input() -> None:
    reply = AnthropicClient().parse_reply(fixture_response("13_anthropic_text_cache_read_max_tokens_gzip.json"))

    assert reply.payload is None
    assert reply.text == fixture_body("13_anthropic_text_cache_read_max_tokens_gzip.json")["content"][0]["text"]
    assert reply.stop == "truncated"
    assert reply.detail == "max_tokens"
    assert reply.model == "claude-sonnet-4-20250514"
    assert reply.usage == reported_usage(input_tokens=11 + 2055, output_tokens=100, cached_input_tokens=2055)


def test_forced_tool_call_input_is_the_payload() -> None:
    reply = AnthropicClient().parse_reply(fixture_response("14_anthropic_forced_tool_use.json"))

    assert reply.payload == {"greeting": "Bonjour", "language": "French"}
    assert reply.text is None
    assert reply.stop == "complete"
    assert reply.detail == "tool_use"
    assert reply.model == "claude-sonnet-4-20250514"
    assert reply.usage == reported_usage(input_tokens=436, output_tokens=53)


def test_text_before_the_tool_call_is_not_the_reply() -> None:
    reply = AnthropicClient().parse_reply(fixture_response("15_anthropic_text_then_tool_use_gzip.json"))

    assert reply.payload == {"location": "San Francisco, CA"}
    assert reply.text is None
    assert reply.stop == "complete"
    assert reply.model == "claude-3-opus-20240229"
    assert reply.usage == reported_usage(input_tokens=599, output_tokens=152)


def test_thinking_blocks_are_skipped() -> None:
    reply = AnthropicClient().parse_reply(fixture_response("16_anthropic_extended_thinking_gzip.json"))

    assert reply.payload is None
    assert reply.text == "The letter 'r' appears 3 times in the word \"strawberry\"."
    assert reply.stop == "complete"
    assert reply.detail == "end_turn"
    assert reply.model == "claude-3-7-sonnet-20250219"
    assert reply.usage == reported_usage(input_tokens=52, output_tokens=215)


def test_native_json_schema_output_arrives_as_text() -> None:
    reply = AnthropicClient().parse_reply(fixture_response("17_anthropic_output_config_json_schema.json"))

    assert reply.payload is None
    assert reply.text == '{"city":"London","country":"United Kingdom","population":9002488}'
    assert reply.stop == "complete"
    assert reply.model == "claude-sonnet-4-5-20250929"
    assert reply.usage == reported_usage(input_tokens=196, output_tokens=19)


def test_refusal_stop_reason_is_refused() -> None:
    body = {"model": "claude-opus-4-7", "content": [{"type": "text", "text": "I can't"}], "stop_reason": "refusal"}
    reply = AnthropicClient().parse_reply(httpx.Response(200, json=body))

    assert reply.stop == "refused"
    assert reply.detail == "refusal"


def test_no_content_is_empty_but_no_content_at_max_tokens_is_truncated() -> None:
    client = AnthropicClient()
    empty = client.parse_reply(httpx.Response(200, json={"content": [], "stop_reason": "end_turn"}))
    thought_only = {"content": [{"type": "thinking", "thinking": "..."}], "stop_reason": "max_tokens"}
    cut = client.parse_reply(httpx.Response(200, json=thought_only))

    assert (empty.stop, empty.payload, empty.text) == ("empty", None, None)
    assert cut.stop == "truncated"


def test_the_tool_named_in_the_request_wins_over_another_tool_call() -> None:
    content = [
        {"type": "tool_use", "name": "other", "input": {"x": 1}},
        {"type": "tool_use", "name": "ora_judge_reply", "input": {"y": 2}},
    ]
    reply = AnthropicClient().parse_reply(httpx.Response(200, json={"content": content, "stop_reason": "tool_use"}))

    assert reply.payload == {"y": 2}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"<html>502 Bad Gateway</html>", "not JSON"),
        (b'{"id": "msg_1", "type": "message"}', "no content"),
        (b"[]", "no content"),
    ],
)
def test_a_body_that_is_not_a_message_is_a_value_error(content: bytes, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        AnthropicClient().parse_reply(httpx.Response(200, content=content))


# --- error_message -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        (
            "18_anthropic_400_invalid_request_error.json",
            "invalid_request_error: messages.0: Input does not match the expected shape.",
        ),
        ("19_anthropic_401_authentication_error.json", "authentication_error: invalid x-api-key"),
    ],
)
def test_error_message_is_type_and_message(name: str, message: str) -> None:
    assert AnthropicClient().error_message(fixture_response(name)) == message


def test_error_message_of_a_non_json_body_shows_status_and_text() -> None:
    response = httpx.Response(529, content=b"<html>\n  Overloaded\n</html>")

    assert AnthropicClient().error_message(response) == "HTTP 529: <html> Overloaded </html>"


# --- reachability_request ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "url"),
    [
        (ROUTE, "https://api.anthropic.com/v1/models/claude-sonnet-4-5"),
        ("http://127.0.0.1:8123/anthropic/v1/messages", "http://127.0.0.1:8123/anthropic/v1/models/claude-sonnet-4-5"),
    ],
)
def test_reachability_gets_the_model_beside_the_route(route: str, url: str) -> None:
    role = RoleSpec(model="claude-sonnet-4-5", provider="anthropic", route=route)
    request = AnthropicClient().reachability_request(role, KEY)

    assert request.method == "GET"
    assert str(request.url) == url
    assert request.headers["x-api-key"] == KEY
    assert request.headers["anthropic-version"] == "2023-06-01"


# --- end to end over a mock transport ------------------------------------------------------


def test_a_judge_call_round_trip_validates() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        tool = json.loads(request.content)["tool_choice"]["name"]
        content = [
            {"type": "thinking", "thinking": "Weighing the method.", "signature": "sig"},
            {"type": "tool_use", "id": "toolu_1", "name": tool, "input": valid_reply("claude-sonnet-4-5-20250929")},
        ]
        body = {
            "id": "msg_1",
            "type": "message",
            "model": "claude-sonnet-4-5-20250929",
            "content": content,
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 900, "cache_read_input_tokens": 0, "output_tokens": 120},
        }
        return httpx.Response(200, json=body)

    client = AnthropicClient()
    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        response = http.send(client.build_request(ROLE, make_prompt(image=PNG), KEY))
    reply = client.parse_reply(response)
    checked = check_reply(reply, ORA_V1, "mode:argument-audit", "optimum")

    assert seen[0].headers["x-api-key"] == KEY
    assert isinstance(checked, JudgeReply)
    assert checked.scores["fidelity"] == Decimal("7.5")
    assert reply.model == "claude-sonnet-4-5-20250929"
    assert reply.usage == reported_usage(input_tokens=900, output_tokens=120)
