"""Tests for the Vertex AI client: Gemini's generateContent and Claude's rawPredict, ADC or a bearer token, real replies."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import httpx
import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from support.provider_support import PNG, fixture_response, make_prompt, sent_body

from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.providers import api_key_for, key_env_for, missing_extra, secrets_for
from pytest_ora.judges.providers import gcp as gcp_module
from pytest_ora.judges.providers.vertex import ANTHROPIC_VERSION, VertexClient

sys.path.insert(0, str(Path(__file__).parents[3]))
from support.sdk_types import GEMINI_FIELDS, gemini_request_problems, request_problems

BASE = "https://us-east5-aiplatform.googleapis.com/v1/projects/acme/locations/us-east5/publishers"
GEMINI = RoleSpec(
    model="gemini-2.5-pro", provider="vertex", route=f"{BASE}/google/models/gemini-2.5-pro:generateContent"
)
CLAUDE = RoleSpec(
    model="claude-sonnet-4-5@20250929",
    provider="vertex",
    route=f"{BASE}/anthropic/models/claude-sonnet-4-5@20250929:rawPredict",
)
TOKEN = "ya29.a0AfH6SMB-vertex-access-token-0123456789"


@pytest.mark.parametrize("image", [True, False], ids=["image", "text"])
def test_a_gemini_route_sends_a_generate_content_body_google_genai_accepts(image: bool) -> None:
    request = VertexClient().build_request(GEMINI, make_prompt(image=PNG if image else None), TOKEN)

    body = sent_body(request)
    assert gemini_request_problems(body, GEMINI_FIELDS[:3]) == []
    assert body["generationConfig"]["responseJsonSchema"]["type"] == "object"
    assert request.headers["authorization"] == f"Bearer {TOKEN}"


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_a_claude_route_sends_anthropics_body_with_vertexs_version_and_no_model(cache: bool) -> None:
    prompt = replace(make_prompt(image=PNG), cache_key="k") if cache else make_prompt(image=PNG)
    body = sent_body(VertexClient().build_request(CLAUDE, prompt, TOKEN))

    assert body["anthropic_version"] == ANTHROPIC_VERSION == "vertex-2023-10-16"
    assert "model" not in body
    assert body["tool_choice"] == {"type": "tool", "name": "ora_judge_reply"}
    assert body["temperature"] == 0  # claude-sonnet-4-5 takes it: the @version suffix is not part of the id
    # The anthropic package's current types know no temperature (its newest models refuse one): checked on such a model.
    opus = CLAUDE.model_copy(
        update={"model": "claude-opus-4-7", "route": f"{BASE}/anthropic/models/claude-opus-4-7:rawPredict"}
    )
    native = sent_body(VertexClient().build_request(opus, prompt, TOKEN))
    messages_body = {"model": "claude-opus-4-7", **{k: v for k, v in native.items() if k != "anthropic_version"}}
    assert request_problems(messages_body, MessageCreateParamsNonStreaming) == []


def test_the_token_comes_from_application_default_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    class Credentials:
        valid, token, refreshed = False, None, 0

        def refresh(self, request: object) -> None:
            self.valid, self.token = True, TOKEN
            Credentials.refreshed += 1

    monkeypatch.setattr(gcp_module, "_found", [Credentials()])

    assert api_key_for(GEMINI, {}) == TOKEN and api_key_for(GEMINI, {}) == TOKEN
    assert Credentials.refreshed == 1  # refreshed once, then reused while valid
    assert secrets_for(GEMINI, {}) == (TOKEN,)
    assert key_env_for(GEMINI).startswith("Google Application Default Credentials")


def test_no_application_default_credentials_is_no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gcp_module, "_found", [None])

    assert api_key_for(GEMINI, {}) is None


def test_a_token_from_api_token_env_is_used_instead_of_adc() -> None:
    role = GEMINI.model_copy(update={"api_token_env": "VERTEX_ACCESS_API_KEY"})

    assert api_key_for(role, {"VERTEX_ACCESS_API_KEY": TOKEN}) == TOKEN
    assert missing_extra(role) is None  # no google-auth needed


def test_a_live_run_without_google_auth_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gcp_module, "available", lambda: False)

    assert missing_extra(GEMINI) == "pytest-ora[vertex]"
    assert api_key_for(GEMINI, {}) is None


def test_the_reachability_check_gets_the_publisher_model() -> None:
    gemini = VertexClient().reachability_request(GEMINI, TOKEN)
    claude = VertexClient().reachability_request(CLAUDE, TOKEN)

    assert str(gemini.url) == "https://us-east5-aiplatform.googleapis.com/v1/publishers/google/models/gemini-2.5-pro"
    assert str(claude.url).endswith("/v1/publishers/anthropic/models/claude-sonnet-4-5@20250929")
    assert gemini.method == "GET" and gemini.headers["authorization"] == f"Bearer {TOKEN}"


def test_fixture_37_json_schema_reply_counts_thoughts_as_output() -> None:
    reply = VertexClient().parse_reply(fixture_response("37_vertex_gemini_generate_content_json_schema.json"))

    assert json.loads(reply.text or "")["value"] == "A" and reply.stop == "complete"
    assert reply.usage["reasoning_tokens"] == 100 and reply.usage["output_tokens"] == 148


def test_fixture_38_a_function_call_without_text_is_an_empty_reply() -> None:
    reply = VertexClient().parse_reply(fixture_response("38_vertex_gemini_generate_content_function_call.json"))

    assert reply.stop == "empty" and reply.text is None and reply.model == "gemini-3-flash-preview"


def test_fixture_39_numeric_enums_read_as_their_names() -> None:
    response = fixture_response("39_vertex_gemini_generate_content_int_enums.json")
    reply = VertexClient().parse_reply(response)

    assert reply.stop == "complete" and reply.detail == "STOP"
    assert reply.text == "I'm on a seafood diet. I see food, and I eat it."
    assert reply.raw == response.text and reply.usage["reasoning_tokens"] == 190


def test_an_unknown_numeric_finish_reason_is_refused_not_guessed() -> None:
    body = {"candidates": [{"content": {"parts": [{"text": "{}"}]}, "finishReason": 99}]}

    with pytest.raises(ValueError, match="unknown finishReason 99"):
        VertexClient().parse_reply(httpx.Response(200, json=body))


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("40_vertex_gemini_400_invalid_argument.json", "INVALID_ARGUMENT: Cannot fetch content from the provided URL."),
        (
            "41_vertex_gemini_401_unauthenticated.json",
            "UNAUTHENTICATED: Request had invalid authentication credentials.",
        ),
    ],
)
def test_fixtures_40_and_41_errors_are_named_by_googles_status(name: str, expected: str) -> None:
    assert VertexClient().error_message(fixture_response(name)).startswith(expected)


def test_a_claude_reply_is_read_as_anthropics() -> None:
    body = {
        "id": "msg_vrtx_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5-20250929",
        "content": [{"type": "tool_use", "id": "t", "name": "ora_judge_reply", "input": {"scores": {}}}],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }

    reply = VertexClient().parse_reply(httpx.Response(200, json=body))

    assert reply.payload == {"scores": {}} and reply.model == "claude-sonnet-4-5-20250929"
