"""Tests for the Azure OpenAI client: deployment and v1 routes, api-key or Entra ID auth, content filters as refusals."""

from __future__ import annotations

import json

import httpx
import pytest
from support.provider_support import fixture_body, fixture_response, make_prompt, sent_body

from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.providers import api_key_for, client_for, key_env_for
from pytest_ora.judges.providers.azure import AzureOpenAIClient

KEY = "azure-key-0123456789abcdef"
TOKEN = "eyJ0eXAiOiJKV1QiLCJhbGciOi-entra-token"
DEPLOYMENT = "https://acme.openai.azure.com/openai/deployments/judge-4o/chat/completions?api-version=2024-10-21"
V1_CHAT = "https://acme.openai.azure.com/openai/v1/chat/completions"
V1_RESPONSES = "https://acme.openai.azure.com/openai/v1/responses"


def _role(route: str = DEPLOYMENT, model: str = "gpt-4.1-mini", **extra: str) -> RoleSpec:
    return RoleSpec(model=model, provider="azure-openai", route=route, **extra)


def test_a_deployment_route_sends_chat_completions_with_the_api_key_header_and_keeps_the_api_version() -> None:
    request = AzureOpenAIClient().build_request(_role(), make_prompt(), KEY)

    assert str(request.url) == DEPLOYMENT
    assert request.headers["api-key"] == KEY
    assert "authorization" not in request.headers
    body = sent_body(request)
    assert body["model"] == "gpt-4.1-mini" and body["temperature"] == 0
    assert body["max_completion_tokens"] == 16000 and "max_tokens" not in body
    assert body["response_format"]["type"] == "json_schema"
    assert "prompt_cache_key" not in body  # not every api-version takes it


def test_a_reasoning_deployment_gets_no_temperature() -> None:
    body = sent_body(AzureOpenAIClient().build_request(_role(model="o4-mini"), make_prompt(), KEY))

    assert "temperature" not in body and body["max_completion_tokens"] == 16000


def test_the_v1_routes_speak_chat_completions_and_responses() -> None:
    chat = sent_body(AzureOpenAIClient().build_request(_role(V1_CHAT), make_prompt(), KEY))
    responses = sent_body(
        AzureOpenAIClient().build_request(_role(V1_RESPONSES, model="gpt-5-mini"), make_prompt(), KEY)
    )

    assert "messages" in chat
    assert responses["text"]["format"]["type"] == "json_schema" and "temperature" not in responses
    assert "prompt_cache_key" not in responses


def test_an_entra_id_token_from_api_token_env_is_sent_as_a_bearer_token_and_no_api_key() -> None:
    role = _role(api_token_env="AZURE_OPENAI_AD_TOKEN")
    environ = {"AZURE_OPENAI_AD_TOKEN": TOKEN, "AZURE_OPENAI_API_KEY": KEY}

    assert key_env_for(role) == "AZURE_OPENAI_AD_TOKEN"
    token = api_key_for(role, environ)
    request = client_for(role).build_request(role, make_prompt(), token)

    assert request.headers["authorization"] == f"Bearer {TOKEN}"
    assert "api-key" not in request.headers and KEY not in str(request.headers)


def test_the_key_comes_from_azure_openai_api_key_by_default() -> None:
    assert key_env_for(_role()) == "AZURE_OPENAI_API_KEY"
    assert api_key_for(_role(), {"AZURE_OPENAI_API_KEY": f" {KEY}\n"}) == KEY


def test_the_reachability_check_lists_the_resource_models_on_either_route() -> None:
    deployment = AzureOpenAIClient().reachability_request(_role(), KEY)
    v1 = AzureOpenAIClient().reachability_request(_role(V1_CHAT), KEY)

    assert str(deployment.url) == "https://acme.openai.azure.com/openai/models?api-version=2024-10-21"
    assert str(v1.url) == "https://acme.openai.azure.com/openai/v1/models"
    assert deployment.headers["api-key"] == KEY


def test_fixture_26_chat_with_content_filter_results_reads_as_a_complete_answer() -> None:
    reply = AzureOpenAIClient().parse_reply(fixture_response("26_azure_openai_chat_json_schema_content_filter.json"))

    assert reply.stop == "complete" and json.loads(reply.text or "")["topic"] == "Benefits of Remote Work"
    assert reply.model == "gpt-4o-mini-2024-07-18"


def test_a_reply_the_content_filter_stopped_is_a_refusal_naming_the_filtered_categories() -> None:
    body = fixture_body("26_azure_openai_chat_json_schema_content_filter.json")
    choice = body["choices"][0]
    choice["finish_reason"] = "content_filter"
    choice["message"]["content"] = None
    choice["content_filter_results"]["violence"] = {"filtered": True, "severity": "high"}

    reply = AzureOpenAIClient().parse_reply(httpx.Response(200, json=body))

    assert reply.stop == "refused"
    assert reply.detail == "content_filter (violence high)"


def test_a_responses_reply_the_content_filter_stopped_is_a_refusal_naming_the_source() -> None:
    body = fixture_body("28_azure_openai_v1_responses_reasoning_item_first.json")
    body["status"] = "incomplete"
    body["incomplete_details"] = {"reason": "content_filter"}
    body["content_filters"][0]["blocked"] = True
    body["content_filters"][0]["content_filter_results"]["jailbreak"] = {"detected": True, "filtered": True}

    reply = AzureOpenAIClient().parse_reply(httpx.Response(200, json=body))

    assert reply.stop == "refused" and reply.detail == "content_filter (prompt jailbreak)"


def test_fixture_27_tool_call_with_empty_filter_results_counts_reasoning_tokens() -> None:
    reply = AzureOpenAIClient().parse_reply(
        fixture_response("27_azure_openai_chat_tool_call_empty_filter_results.json")
    )

    assert reply.text == '{"expression":"15 * 8"}'
    assert reply.usage["reasoning_tokens"] == 192 and reply.usage["output_tokens"] == 219


def test_fixture_28_v1_responses_reads_the_message_after_the_reasoning_item() -> None:
    reply = AzureOpenAIClient().parse_reply(fixture_response("28_azure_openai_v1_responses_reasoning_item_first.json"))

    assert reply.stop == "complete" and reply.text == "2 + 2 = 4."


def test_fixture_29_chat_with_rate_limit_headers_reads() -> None:
    response = fixture_response("29_azure_openai_chat_ratelimit_headers.json")
    reply = AzureOpenAIClient().parse_reply(response)

    assert reply.stop == "complete" and reply.model == "gpt-4.1-mini-2025-04-14"
    assert response.headers["x-ratelimit-remaining-requests"].isdigit()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "30_azure_openai_chat_404_deployment_not_found.json",
            "DeploymentNotFound: The API deployment for this resource",
        ),
        (
            "31_azure_openai_embeddings_401_invalid_subscription_key.json",
            "401: Access denied due to invalid subscription key",
        ),
    ],
)
def test_fixtures_30_and_31_errors_are_named_as_azure_names_them(name: str, expected: str) -> None:
    assert AzureOpenAIClient().error_message(fixture_response(name)).startswith(expected)


def test_a_prompt_the_content_filter_refused_names_the_filtered_categories() -> None:
    body = {
        "error": {
            "code": "content_filter",
            "status": 400,
            "message": "The response was filtered due to the prompt "
            "triggering Azure OpenAI's content management policy.",
            "param": "prompt",
            "innererror": {
                "code": "ResponsibleAIPolicyViolation",
                "content_filter_result": {
                    "hate": {"filtered": False, "severity": "safe"},
                    "jailbreak": {"filtered": True, "detected": True},
                },
            },
        }
    }

    message = AzureOpenAIClient().error_message(httpx.Response(400, json=body))

    assert message.startswith("content_filter: The response was filtered")
    assert message.endswith("(content filter: jailbreak)")
