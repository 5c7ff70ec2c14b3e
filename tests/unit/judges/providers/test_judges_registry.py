"""Tests for the judge registry: which client speaks for a role, and where its key comes from."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.providers import DEFAULT_KEY_ENV, api_key_for, client_for, key_env_for
from pytest_ora.judges.providers.base import JudgePrompt, TextPart
from pytest_ora.judges.reply import reply_schema
from pytest_ora.method.rubric import ORA_V1

FIXTURES = Path(__file__).parents[3] / "fixtures" / "providers"
KEY = "sk-registry-test-0123456789"

ROLES = {
    "anthropic": RoleSpec(model="claude-opus-4-7", provider="anthropic", route="https://api.anthropic.com/v1/messages"),
    "openai": RoleSpec(model="gpt-5.4", provider="openai", route="https://api.openai.com/v1/chat/completions"),
    "openai-compatible": RoleSpec(
        model="openai/gpt-oss-120b", provider="openai-compatible", route="https://openrouter.ai/api/v1/chat/completions"
    ),
    "google": RoleSpec(
        model="gemini-2.5-pro",
        provider="google",
        route="https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent",
    ),
    "azure-openai": RoleSpec(
        model="gpt-4.1-mini",
        provider="azure-openai",
        route="https://example.openai.azure.com/openai/deployments/judge/chat/completions?api-version=2024-10-21",
    ),
    "bedrock": RoleSpec(
        model="anthropic.claude-sonnet-4-5-20250929-v1:0",
        provider="bedrock",
        route="https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
    ),
    "vertex": RoleSpec(
        model="gemini-2.5-pro",
        provider="vertex",
        route="https://us-central1-aiplatform.googleapis.com/v1/projects/p/locations/us-central1/publishers/google/models/"
        "gemini-2.5-pro:generateContent",
    ),
}
KEYED = ("anthropic", "openai", "openai-compatible", "google", "azure-openai")
"""Providers whose credential is one key in one variable (bedrock and vertex take their cloud's chain)."""
# The fixture files' provider field, mapped to the role that would have made the call.
FIXTURE_PROVIDERS = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google-gemini": "google",
    "openrouter": "openai-compatible",
    "azure-openai": "azure-openai",
    "aws-bedrock": "bedrock",
    "google-vertex": "vertex",
}
NO_MODEL = frozenset({"aws-bedrock converse"})
"""Converse replies do not name the model."""
NO_ANSWER = frozenset({"38_vertex_gemini_generate_content_function_call.json"})
"""A function call Gemini made to a tool of the caller's: no answer text, read as an empty reply."""


def test_default_key_variables_are_the_documented_ones() -> None:
    assert dict(DEFAULT_KEY_ENV) == {
        "anthropic": "ANTHROPIC_API_KEY",
        "openai": "OPENAI_API_KEY",
        "openai-compatible": "OPENROUTER_API_KEY",
        "google": "GEMINI_API_KEY",
        "azure-openai": "AZURE_OPENAI_API_KEY",
    }


@pytest.mark.parametrize("provider", sorted(ROLES))
def test_each_provider_gets_its_own_client(provider: str) -> None:
    assert client_for(ROLES[provider]).name == provider


@pytest.mark.parametrize("provider", sorted(KEYED))
def test_the_key_is_read_from_the_provider_default_variable(provider: str) -> None:
    environ = {DEFAULT_KEY_ENV[provider]: KEY, "UNRELATED": "x"}

    assert key_env_for(ROLES[provider]) == DEFAULT_KEY_ENV[provider]
    assert api_key_for(ROLES[provider], environ) == KEY


def test_the_role_can_name_its_own_key_variable() -> None:
    role = ROLES["openai-compatible"].model_copy(update={"api_key_env": "VLLM_KEY"})

    assert key_env_for(role) == "VLLM_KEY"
    assert api_key_for(role, {"VLLM_KEY": KEY, "OPENROUTER_API_KEY": "other"}) == KEY
    assert api_key_for(role, {"OPENROUTER_API_KEY": "other"}) is None


@pytest.mark.parametrize("value", [None, "", "   \n"])
def test_a_missing_or_blank_key_is_none(value: str | None) -> None:
    environ = {} if value is None else {"ANTHROPIC_API_KEY": value}

    assert api_key_for(ROLES["anthropic"], environ) is None


def test_whitespace_around_a_key_is_dropped() -> None:
    assert api_key_for(ROLES["openai"], {"OPENAI_API_KEY": f" {KEY}\n"}) == KEY


@pytest.mark.parametrize("provider", sorted(KEYED))
def test_no_request_shows_the_key_outside_its_auth_header(provider: str) -> None:
    client = client_for(ROLES[provider])
    prompt = JudgePrompt(system="Judge.", parts=(TextPart("Answer."),), reply_schema=reply_schema(ORA_V1))
    requests = [client.build_request(ROLES[provider], prompt, KEY), client.reachability_request(ROLES[provider], KEY)]

    for request in requests:
        assert KEY not in str(request.url)
        assert KEY not in repr(request)
        assert KEY.encode() not in request.content
        carrying = [name for name, value in request.headers.items() if KEY in value]
        assert carrying == [
            {"anthropic": "x-api-key", "google": "x-goog-api-key", "azure-openai": "api-key"}.get(
                provider, "authorization"
            )
        ]
    assert KEY not in repr(client)


@pytest.mark.parametrize("name", sorted(path.name for path in FIXTURES.glob("*.json")))
def test_every_recorded_response_is_readable_by_the_registry_client(name: str) -> None:
    recorded = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    response = recorded["response"]
    headers = {k: v for k, v in response["headers"].items() if k.lower() not in ("content-encoding", "content-length")}
    http = httpx.Response(response["status"], headers=headers, content=response["body"].encode("utf-8"))
    client = client_for(ROLES[FIXTURE_PROVIDERS[recorded["provider"]]])

    if http.is_success:
        reply = client.parse_reply(http)
        if name in NO_ANSWER:
            assert reply.stop == "empty"
        else:
            assert reply.payload is not None or reply.text is not None or reply.stop == "truncated"
        assert reply.model or f"{recorded['provider']} {recorded['api']}" in NO_MODEL
        assert reply.raw == response["body"]
    else:
        message = client.error_message(http)
        assert message and not message.startswith("HTTP ")  # the provider's own message, not the fallback


def test_all_forty_one_recordings_are_present() -> None:
    assert len(list(FIXTURES.glob("*.json"))) == 41
