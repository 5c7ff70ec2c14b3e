"""Tests for the Gemini generateContent client: the request it sends and how it reads real responses."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

import httpx
import pytest
from support.provider_support import (
    FIXTURES,
    PNG,
    fixture_response,
    make_prompt,
    sent_body,
)

from pytest_ora.core.models import JudgeReply, RoleSpec
from pytest_ora.core.usage import reported_usage
from pytest_ora.judges.providers.base import TextPart
from pytest_ora.judges.providers.gemini import GeminiClient
from pytest_ora.judges.reply import check_reply
from pytest_ora.method.rubric import ORA_V1

KEY = "AIza-test-0123456789"
ROUTE = "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent"
ROLE = RoleSpec(model="gemini-2.5-pro", provider="google", route=ROUTE)


def valid_reply(judge_model: str) -> dict[str, Any]:
    """A reply object that passes validation for visual:fishbone-diagram/big-1."""
    return {
        "entry_key": "visual:fishbone-diagram",
        "configuration": "big-1",
        "judge_model": judge_model,
        "scores": {"fidelity": 9, "soundness": 8.5, "completeness": 8, "relevance": 9, "calibration": 7.5},
        "notes": {name: f"{name} note" for name in ORA_V1.names},
        "impression": "Exemplary.",
    }


def candidate_body(parts: list[dict[str, Any]] | None, finish: str = "STOP", **extra: Any) -> dict[str, Any]:
    """A minimal generateContent body."""
    content: dict[str, Any] = {"role": "model"} if parts is None else {"role": "model", "parts": parts}
    return {"candidates": [{"content": content, "finishReason": finish}], "modelVersion": "gemini-2.5-pro", **extra}


# --- build_request -------------------------------------------------------------------------


def test_request_posts_to_the_route_with_the_key_in_a_header_never_the_query() -> None:
    request = GeminiClient().build_request(ROLE, make_prompt(), KEY)

    assert request.method == "POST"
    assert str(request.url) == ROUTE
    assert request.headers["x-goog-api-key"] == KEY
    assert request.headers["content-type"] == "application/json"
    assert "key=" not in str(request.url)
    assert KEY not in str(request.url)
    assert KEY not in repr(request)


def test_body_asks_for_json_matching_the_reply_schema() -> None:
    prompt = make_prompt()
    body = sent_body(GeminiClient().build_request(ROLE, prompt, KEY))

    first = prompt.parts[0]
    assert isinstance(first, TextPart)
    assert body["systemInstruction"] == {"parts": [{"text": "You are an independent judge."}]}
    assert body["contents"] == [{"role": "user", "parts": [{"text": first.text}]}]
    assert body["generationConfig"] == {
        "temperature": 0,
        "maxOutputTokens": prompt.max_tokens,
        "responseMimeType": "application/json",
        "responseJsonSchema": prompt.reply_schema,
    }


def test_request_sends_an_image_as_inline_data() -> None:
    body = sent_body(GeminiClient().build_request(ROLE, make_prompt(image=PNG), KEY))

    inline = body["contents"][0]["parts"][1]["inlineData"]
    assert inline["mimeType"] == "image/png"
    assert base64.b64decode(inline["data"]) == PNG


def test_identical_prompts_give_identical_bytes_and_a_changed_answer_does_not() -> None:
    client = GeminiClient()
    first = client.build_request(ROLE, make_prompt(image=PNG), KEY)
    second = client.build_request(ROLE, make_prompt(image=PNG), KEY)
    changed = client.build_request(ROLE, make_prompt("Another answer.", image=PNG), KEY)

    assert first.content == second.content
    assert first.content != changed.content


@pytest.mark.parametrize(
    ("model", "sent"),
    [("gemini-2.5-pro", True), ("gemini-2.0-flash", True), ("gemini-3-pro-preview", False), ("gemini-3.1-pro", False)],
)
def test_gemini_3_keeps_its_default_temperature(model: str, sent: bool) -> None:
    route = f"https://generativelanguage.googleapis.com/v1beta/models/{model}:generateContent"
    role = RoleSpec(model=model, provider="google", route=route)
    body = sent_body(GeminiClient().build_request(role, make_prompt(), KEY))

    assert ("temperature" in body["generationConfig"]) is sent


def test_request_without_a_key_has_no_key_header() -> None:
    assert "x-goog-api-key" not in GeminiClient().build_request(ROLE, make_prompt(), None).headers


# --- parse_reply on recorded responses -----------------------------------------------------


def test_json_mode_text_and_thought_tokens_as_output() -> None:
    name = "20_gemini_generate_content_json_mode.json"
    reply = GeminiClient().parse_reply(fixture_response(name))

    recorded = json.loads(json.loads((FIXTURES / name).read_text(encoding="utf-8"))["response"]["body"])
    assert reply.payload is None
    assert reply.text == recorded["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(reply.text or "null")["topic"] == "Benefits of Remote Work"
    assert (reply.stop, reply.detail) == ("complete", "STOP")
    assert reply.model == "gemini-2.5-flash"
    assert reply.usage == reported_usage(input_tokens=51, output_tokens=90 + 162, reasoning_tokens=162)


def test_streamed_chunks_are_joined_without_the_thought_part() -> None:
    reply = GeminiClient().parse_reply(fixture_response("21_gemini_stream_generate_content_json_array_gzip.json"))

    assert reply.text == (
        '{"name":"Zephyr The Rocket Barkington","age":4,"bio":"A skateboarding Border Collie who wears aviator '
        'sunglasses, surfs neon waves, and can fetch a frisbee from 200 yards away in mid-air."}'
    )
    assert (reply.stop, reply.detail) == ("complete", "STOP")
    assert reply.model == "gemini-3.6-flash"
    assert reply.usage == reported_usage(input_tokens=5, output_tokens=50 + 453, reasoning_tokens=453)


def test_max_tokens_without_parts_is_truncated() -> None:
    reply = GeminiClient().parse_reply(fixture_response("22_gemini_max_tokens_no_parts.json"))

    assert (reply.payload, reply.text) == (None, None)
    assert (reply.stop, reply.detail) == ("truncated", "MAX_TOKENS")
    assert reply.model == "gemini-2.5-pro"
    assert reply.usage == reported_usage(input_tokens=15, output_tokens=2, reasoning_tokens=2)


@pytest.mark.parametrize("finish", ["SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII"])
def test_safety_finish_reasons_are_refused(finish: str) -> None:
    reply = GeminiClient().parse_reply(httpx.Response(200, json=candidate_body(None, finish)))

    assert (reply.stop, reply.detail) == ("refused", finish)


def test_a_blocked_prompt_is_refused() -> None:
    body = {"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 40}}
    reply = GeminiClient().parse_reply(httpx.Response(200, json=body))

    assert (reply.stop, reply.detail, reply.text) == ("refused", "PROHIBITED_CONTENT", None)
    assert reply.usage == reported_usage(input_tokens=40)


def test_cached_content_tokens_are_reported() -> None:
    usage = {"promptTokenCount": 5000, "cachedContentTokenCount": 4096, "candidatesTokenCount": 100}
    reply = GeminiClient().parse_reply(httpx.Response(200, json=candidate_body([{"text": "{}"}], usageMetadata=usage)))

    assert reply.usage == reported_usage(input_tokens=5000, output_tokens=100, cached_input_tokens=4096)


def test_stop_without_text_is_empty() -> None:
    body = candidate_body([{"text": "thinking", "thought": True}])
    reply = GeminiClient().parse_reply(httpx.Response(200, json=body))

    assert reply.stop == "empty"


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"<html>Error 502</html>", "not JSON"),
        (b'{"modelVersion": "gemini-2.5-pro"}', "no candidates"),
        (b"[]", "not a JSON object or array"),
        (b'[{"candidates": []}, {"error": {"code": 500, "message": "Internal", "status": "INTERNAL"}}]', "INTERNAL"),
    ],
)
def test_a_body_that_is_not_a_reply_is_a_value_error(content: bytes, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        GeminiClient().parse_reply(httpx.Response(200, content=content))


# --- error_message -------------------------------------------------------------------------


def test_error_message_is_status_and_message() -> None:
    message = GeminiClient().error_message(fixture_response("23_gemini_429_resource_exhausted.json"))

    assert message == (
        "RESOURCE_EXHAUSTED: Resource exhausted. Please try again later. Please refer to "
        "https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details."
    )


def test_error_message_of_a_failed_stream_array() -> None:
    body = [{"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}]

    assert GeminiClient().error_message(httpx.Response(400, json=body)) == "INVALID_ARGUMENT: API key not valid."


def test_error_message_of_a_non_json_body() -> None:
    response = httpx.Response(404, content=b"Not Found")

    assert GeminiClient().error_message(response) == "HTTP 404 Not Found: Not Found"


# --- reachability_request ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("route", "url"),
    [
        (ROUTE, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro"),
        (
            "https://generativelanguage.googleapis.com/v1/models/gemini-2.5-pro:streamGenerateContent",
            "https://generativelanguage.googleapis.com/v1/models/gemini-2.5-pro",
        ),
        (
            "http://127.0.0.1:9000/google/v1beta/models/gemini-2.5-pro:generateContent",
            "http://127.0.0.1:9000/google/v1beta/models/gemini-2.5-pro",
        ),
    ],
)
def test_reachability_gets_the_model(route: str, url: str) -> None:
    role = RoleSpec(model="gemini-2.5-pro", provider="google", route=route)
    request = GeminiClient().reachability_request(role, KEY)

    assert request.method == "GET"
    assert str(request.url) == url
    assert request.headers["x-goog-api-key"] == KEY


# --- end to end over a mock transport ------------------------------------------------------


def test_a_judge_call_round_trip_validates() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        parts: list[dict[str, Any]] = [
            {"text": "Checking the spine and the bones.", "thought": True},
            {"text": json.dumps(valid_reply("gemini-2.5-pro"))},
        ]
        usage = {"promptTokenCount": 1200, "candidatesTokenCount": 150, "thoughtsTokenCount": 400}
        return httpx.Response(200, json=candidate_body(parts, usageMetadata=usage))

    client = GeminiClient()
    with httpx.Client(transport=httpx.MockTransport(handler)) as http:
        response = http.send(client.build_request(ROLE, make_prompt(image=PNG), KEY))
    reply = client.parse_reply(response)
    checked = check_reply(reply, ORA_V1, "visual:fishbone-diagram", "big-1")

    assert seen[0].headers["x-goog-api-key"] == KEY
    assert "key" not in seen[0].url.params
    assert isinstance(checked, JudgeReply)
    assert checked.scores["soundness"] == Decimal("8.5")
    assert reply.usage == reported_usage(input_tokens=1200, output_tokens=550, reasoning_tokens=400)
