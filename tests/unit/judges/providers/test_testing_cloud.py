"""The reference judge's cloud wire formats as the recorded exchanges show them: Azure's filters, headers and errors,
Bedrock's SigV4 check, Converse shapes and ThrottlingException, Vertex's rawPredict rules."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from support.provider_support import make_prompt

from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.providers import client_for
from pytest_ora.judges.providers.aws import sign
from pytest_ora.testing.server import Fault, ReferenceJudge

AWS = "AKIAORAREFERENCE0001\nreferenceSecretAccessKey/0123456789abcdef\n"
KEY = "reference-cloud-key-0123456789"


def _role(judge: ReferenceJudge, provider: str, model: str, api: str | None = None) -> RoleSpec:
    return RoleSpec(model=model, provider=provider, route=judge.route(provider, model, api))


def _call(judge: ReferenceJudge, role: RoleSpec, key: str | None = None) -> httpx.Response:
    request = client_for(role).build_request(role, make_prompt(), key or (AWS if role.provider == "bedrock" else KEY))
    with httpx.Client() as client:
        return client.send(request)


def _post(judge: ReferenceJudge, role: RoleSpec, body: dict[str, Any]) -> httpx.Response:
    """Our client's signed (or keyed) request, with another body."""
    request = client_for(role).build_request(role, make_prompt(), AWS if role.provider == "bedrock" else KEY)
    if role.provider == "bedrock":  # the body is signed: sign the new one
        request = httpx.Request(
            "POST", request.url, headers={"content-type": "application/json"}, content=json.dumps(body)
        )
        sign(request, AWS, "bedrock", "us-east-1")
    else:
        headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
        request = httpx.Request("POST", request.url, headers=headers, content=json.dumps(body))
    with httpx.Client() as client:
        return client.send(request)


def test_an_azure_reply_carries_content_filter_results_and_azures_headers() -> None:
    with ReferenceJudge() as judge:
        response = _call(judge, _role(judge, "azure-openai", "gpt-4.1-mini"))
    body = response.json()

    assert response.status_code == 200
    assert body["choices"][0]["content_filter_results"]["violence"] == {"filtered": False, "severity": "safe"}
    assert body["prompt_filter_results"][0]["content_filter_results"]["jailbreak"]["detected"] is False
    assert response.headers["x-ratelimit-remaining-requests"] and response.headers["apim-request-id"]
    assert response.headers["x-ms-deployment-name"] == "gpt-4.1-mini"


def test_an_azure_content_filter_stop_reads_as_a_named_refusal() -> None:
    with ReferenceJudge() as judge:
        role = _role(judge, "azure-openai", "gpt-4.1-mini")
        judge.inject(Fault("refusal"))
        reply = client_for(role).parse_reply(_call(judge, role))

    assert reply.stop == "refused" and reply.detail == "content_filter (violence high)"


def test_an_azure_rate_limit_answers_429_with_azures_body_and_retry_headers() -> None:
    with ReferenceJudge(rpm=1) as judge:
        role = _role(judge, "azure-openai", "gpt-4.1-mini")
        responses = [_call(judge, role) for _ in range(4)]
    limited = [r for r in responses if r.status_code == 429]

    assert limited, [r.status_code for r in responses]
    assert limited[0].headers["retry-after"] and limited[0].headers["retry-after-ms"]
    assert limited[0].headers["x-ratelimit-remaining-requests"] == "0"
    assert (
        client_for(role).error_message(limited[0]).startswith("429: Requests to the ChatCompletions_Create Operation")
    )


def test_an_azure_deployment_route_without_api_version_is_not_found() -> None:
    with ReferenceJudge() as judge:
        role = _role(judge, "azure-openai", "gpt-4.1-mini")
        bare = role.model_copy(update={"route": role.route.partition("?")[0]})
        response = _call(judge, bare)

    assert response.status_code == 404 and response.json() == {
        "error": {"code": "404", "message": "Resource not found"}
    }


def test_an_unknown_azure_deployment_is_deployment_not_found() -> None:
    with ReferenceJudge(models=["gpt-4.1"]) as judge:
        role = _role(judge, "azure-openai", "gpt-4.1-mini")
        response = _call(judge, role)

    assert response.status_code == 404
    assert client_for(role).error_message(response).startswith("DeploymentNotFound: The API deployment")


@pytest.mark.parametrize("authorization", [None, "AWS4-HMAC-SHA256 Credential=nonsense", "Basic b3JhOm9yYQ=="])
def test_bedrock_refuses_a_call_without_a_well_formed_sigv4_signature(authorization: str | None) -> None:
    with ReferenceJudge() as judge:
        role = _role(judge, "bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0")
        request = client_for(role).build_request(role, make_prompt(), None)
        if authorization is not None:
            request.headers["authorization"] = authorization
        with httpx.Client() as client:
            response = client.send(request)

    assert response.status_code == 403
    assert (
        client_for(role).error_message(response) == "MissingAuthenticationTokenException: Missing Authentication Token"
    )


def test_bedrock_checks_the_access_key_the_signature_names() -> None:
    with ReferenceJudge(keys={"bedrock": "AKIAORAOTHERKEY00001"}) as judge:
        role = _role(judge, "bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0")
        response = _call(judge, role)

    assert response.status_code == 403
    assert client_for(role).error_message(response) == (
        "UnrecognizedClientException: The security token included in the request is invalid."
    )


def test_bedrock_takes_tool_use_and_tool_result_turns_and_refuses_an_assistant_last() -> None:
    tool = {"toolSpec": {"name": "add", "inputSchema": {"json": {"type": "object"}}}}
    turns = [
        {"role": "user", "content": [{"text": "Add 15 and 27."}]},
        {
            "role": "assistant",
            "content": [{"toolUse": {"toolUseId": "t1", "name": "add", "input": {"a": 15, "b": 27}}}],
        },
        {"role": "user", "content": [{"toolResult": {"toolUseId": "t1", "content": [{"json": {"sum": 42}}]}}]},
    ]
    with ReferenceJudge() as judge:
        role = _role(judge, "bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0")
        answered = _post(judge, role, {"messages": turns, "toolConfig": {"tools": [tool]}})
        prefilled = _post(judge, role, {"messages": turns[:2], "toolConfig": {"tools": [tool]}})
        unknown = _post(judge, role, {"messages": turns, "temperature": 0})

    assert answered.status_code == 200 and answered.json()["output"]["message"]["role"] == "assistant"
    assert prefilled.status_code == 400 and "pre-fill the `assistant` response" in prefilled.json()["message"]
    assert prefilled.headers["x-amzn-errortype"].startswith("ValidationException:")
    assert unknown.status_code == 400 and "extraneous key [temperature]" in unknown.json()["message"]


def test_bedrock_throttles_with_a_throttling_exception() -> None:
    with ReferenceJudge(rpm=1) as judge:
        role = _role(judge, "bedrock", "anthropic.claude-sonnet-4-5-20250929-v1:0")
        responses = [_call(judge, role) for _ in range(4)]
    limited = [r for r in responses if r.status_code == 429]

    assert limited
    assert limited[0].headers["x-amzn-errortype"].startswith("ThrottlingException:")
    assert client_for(role).error_message(limited[0]) == (
        "ThrottlingException: Too many requests, please wait before trying again."
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"anthropic_version": "2023-01-01-nonsense"}, "anthropic_version: Input should be 'vertex-2023-10-16'"),
        ({"model": "claude-sonnet-4-5"}, "model: Extra inputs are not permitted"),
    ],
)
def test_vertex_raw_predict_wants_vertexs_version_and_the_model_in_the_url(
    change: dict[str, str], message: str
) -> None:
    with ReferenceJudge() as judge:
        role = _role(judge, "vertex", "claude-sonnet-4-5")
        body = {**json.loads(client_for(role).build_request(role, make_prompt(), KEY).content), **change}
        response = _post(judge, role, body)

    assert response.status_code == 400 and response.json()["error"]["message"].startswith(message)


def test_a_vertex_call_without_a_token_is_unauthenticated_as_vertex_says_it() -> None:
    with ReferenceJudge() as judge:
        role = _role(judge, "vertex", "gemini-2.5-pro")
        request = client_for(role).build_request(role, make_prompt(), None)
        with httpx.Client() as client:
            response = client.send(request)

    assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer realm=")
    assert client_for(role).error_message(response).startswith("UNAUTHENTICATED: Request had invalid authentication")
