"""Tests for the Amazon Bedrock client: Converse bodies botocore's validator accepts, SigV4 signing, real replies and errors."""

from __future__ import annotations

import asyncio
import base64
import json
from dataclasses import replace
from typing import Any

import botocore.session
import httpx
import pytest
from botocore.serialize import create_serializer
from botocore.validate import ParamValidator
from support.provider_support import PNG, fixture_body, fixture_response, make_prompt, sent_body

from pytest_ora.core.credentials import Secret
from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.providers import api_key_for, key_env_for, missing_extra, secrets_for
from pytest_ora.judges.providers import aws as aws_module
from pytest_ora.judges.providers.aws import packed_credentials, region_of
from pytest_ora.judges.providers.bedrock import BedrockClient, takes_temperature
from pytest_ora.judges.transport import RetryPolicy, TransportError, send

MODEL = "anthropic.claude-sonnet-4-5-20250929-v1:0"
ROUTE = "https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse"
ROLE = RoleSpec(model=MODEL, provider="bedrock", route=ROUTE)
ACCESS = "AKIAIOSFODNN7EXAMPLE"
SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
TOKEN = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN0123456789"
ENVIRON = {"AWS_ACCESS_KEY_ID": ACCESS, "AWS_SECRET_ACCESS_KEY": SECRET, "AWS_SESSION_TOKEN": TOKEN}
CONVERSE = botocore.session.get_session().get_service_model("bedrock-runtime").operation_model("Converse")


def botocore_params(request: httpx.Request) -> dict[str, Any]:
    """Our request as botocore's Converse parameters: the model id from the path, image bytes decoded from base64."""
    params: dict[str, Any] = json.loads(request.content)
    for message in params["messages"]:
        for block in message["content"]:
            if "image" in block:
                block["image"]["source"]["bytes"] = base64.b64decode(block["image"]["source"]["bytes"])
    return {"modelId": MODEL, **params}


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("image", [True, False], ids=["image", "text"])
def test_the_converse_body_passes_botocores_validator_and_is_what_botocore_would_send(cache: bool, image: bool) -> None:
    prompt = make_prompt(image=PNG if image else None)
    prompt = replace(prompt, cache_key="entry") if cache else prompt
    request = BedrockClient().build_request(ROLE, prompt, None)

    params = botocore_params(request)
    report = ParamValidator().validate(params, CONVERSE.input_shape)
    assert not report.has_errors(), report.generate_report()
    serialized = create_serializer("rest-json").serialize_to_request(params, CONVERSE)
    assert json.loads(serialized["body"]) == json.loads(request.content)
    assert serialized["url_path"] == httpx.URL(ROUTE).raw_path.decode()


def test_botocores_validator_refuses_a_drifted_body() -> None:
    """The check can fail: a field Converse does not have."""
    params = botocore_params(BedrockClient().build_request(ROLE, make_prompt(), None))
    params["inferenceConfig"]["max_tokens"] = 10

    assert ParamValidator().validate(params, CONVERSE.input_shape).has_errors()


def test_the_reply_schema_is_the_one_forced_tool_with_cache_points_after_the_repeated_prefix() -> None:
    body = sent_body(BedrockClient().build_request(ROLE, replace(make_prompt(), cache_key="k"), None))

    tool = body["toolConfig"]["tools"][0]["toolSpec"]
    assert tool["name"] == "ora_judge_reply" and tool["inputSchema"]["json"]["type"] == "object"
    assert body["toolConfig"]["toolChoice"] == {"tool": {"name": "ora_judge_reply"}}
    assert body["system"][-1] == {"cachePoint": {"type": "default"}}
    assert body["inferenceConfig"] == {"maxTokens": 16000, "temperature": 0}


@pytest.mark.parametrize(
    ("model", "takes"),
    [
        ("anthropic.claude-sonnet-4-5-20250929-v1:0", True),
        ("us.anthropic.claude-opus-4-7-v1:0", False),
        ("meta.llama3-3-70b-instruct-v1:0", True),
        ("amazon.nova-pro-v1:0", True),
    ],
)
def test_temperature_follows_the_model_family(model: str, takes: bool) -> None:
    assert takes_temperature(model) is takes


def test_a_call_is_sigv4_signed_for_the_routes_region_with_the_session_token() -> None:
    key = api_key_for(ROLE, ENVIRON)
    assert key is not None
    request = BedrockClient().build_request(ROLE, make_prompt(), key)

    authorization = request.headers["authorization"]
    assert authorization.startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS}/")
    assert "/eu-west-1/bedrock/aws4_request, SignedHeaders=" in authorization
    assert request.headers["x-amz-security-token"] == TOKEN
    assert request.headers["x-amz-date"].endswith("Z")
    assert SECRET not in str(request.headers) and SECRET.encode() not in request.content


def test_without_credentials_the_request_is_unsigned() -> None:
    assert "authorization" not in BedrockClient().build_request(ROLE, make_prompt(), None).headers


def test_a_bedrock_api_key_from_api_key_env_is_sent_as_a_bearer_token() -> None:
    role = ROLE.model_copy(update={"api_key_env": "AWS_BEARER_TOKEN_BEDROCK_API_KEY"})
    key = api_key_for(role, {"AWS_BEARER_TOKEN_BEDROCK_API_KEY": "ABSKbedrockkey0123456789"})

    request = BedrockClient().build_request(role, make_prompt(), key)

    assert request.headers["authorization"] == "Bearer ABSKbedrockkey0123456789"


def test_every_part_of_the_credentials_is_a_secret_to_redact() -> None:
    assert set(secrets_for(ROLE, ENVIRON)) == {ACCESS, SECRET, TOKEN}
    assert repr(packed_credentials(ENVIRON)) == "Secret('[redacted]')"
    assert key_env_for(ROLE).startswith("AWS credentials (botocore's chain")


def test_credentials_come_from_botocores_chain_when_the_environment_names_none(monkeypatch: pytest.MonkeyPatch) -> None:
    class Frozen:
        access_key, secret_key, token = ACCESS, SECRET, None

    class Found:
        def get_frozen_credentials(self) -> Frozen:
            return Frozen()

    monkeypatch.setattr(aws_module, "_chain", [Found()])

    assert packed_credentials({}) == Secret(f"{ACCESS}\n{SECRET}\n")


def test_a_live_run_without_botocore_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(aws_module, "available", lambda: False)

    assert missing_extra(ROLE) == "pytest-ora[bedrock]"
    assert packed_credentials({"AWS_PROFILE": "x"}) is None  # a replay needs no credentials
    key = packed_credentials(ENVIRON)
    assert key is not None  # a replay with credentials set builds its requests unsigned, and matches on URL and body
    assert "authorization" not in BedrockClient().build_request(ROLE, make_prompt(), key).headers
    with pytest.raises(Exception, match=r"install pytest-ora\[bedrock\]"):
        aws_module.sign(httpx.Request("POST", ROUTE), f"{ACCESS}\n{SECRET}\n", "bedrock", "eu-west-1")


def test_the_region_comes_from_the_host_else_the_environment() -> None:
    assert region_of("bedrock-runtime.ap-southeast-2.amazonaws.com") == "ap-southeast-2"
    assert region_of("127.0.0.1", {"AWS_REGION": "eu-central-1"}) == "eu-central-1"
    assert region_of("127.0.0.1") == "us-east-1"


def test_fixture_32_text_then_tool_use_reads_the_tool_input() -> None:
    reply = BedrockClient().parse_reply(fixture_response("32_bedrock_converse_text_then_tool_use.json"))

    assert reply.payload == {"concept": "distributed tracing"} and reply.text is None
    assert reply.stop == "complete" and reply.detail == "tool_use"
    assert reply.usage["input_tokens"] == 269 and reply.usage["output_tokens"] == 77


def test_fixture_33_forced_structured_output_tool_reads_the_reply_object() -> None:
    reply = BedrockClient().parse_reply(fixture_response("33_bedrock_converse_forced_structured_output_tool.json"))

    assert reply.payload == {
        "operation": "Addition",
        "result": 42,
        "explanation": "I added 15 and 27 using the add_numbers tool.",
    }


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "34_bedrock_converse_400_validation_exception.json",
            "ValidationException: The model returned the following errors: Your API request included an `assistant`",
        ),
        (
            "35_bedrock_converse_403_unrecognized_client.json",
            "UnrecognizedClientException: The security token included in the request is invalid.",
        ),
    ],
)
def test_fixtures_34_and_35_errors_are_named_by_their_x_amzn_error_type(name: str, expected: str) -> None:
    assert BedrockClient().error_message(fixture_response(name)).startswith(expected)


def test_fixture_36_invoke_model_claude_body_is_read_as_anthropics() -> None:
    reply = BedrockClient().parse_reply(fixture_response("36_bedrock_invoke_model_anthropic_tool_use.json"))

    assert reply.payload == {"location": "San Francisco, CA"} and reply.model == "claude-3-5-sonnet-20240620"


@pytest.mark.parametrize(
    ("reason", "stop"),
    [("guardrail_intervened", "refused"), ("content_filtered", "refused"), ("max_tokens", "truncated")],
)
def test_a_guardrail_or_filter_stop_is_a_refusal_and_max_tokens_a_truncation(reason: str, stop: str) -> None:
    body = fixture_body("32_bedrock_converse_text_then_tool_use.json")
    body["stopReason"] = reason

    assert BedrockClient().parse_reply(httpx.Response(200, json=body)).stop == stop


def test_cache_reads_and_writes_are_counted_in_the_input_tokens() -> None:
    body = fixture_body("33_bedrock_converse_forced_structured_output_tool.json")
    body["usage"] |= {"cacheReadInputTokens": 1000, "cacheWriteInputTokens": 200}

    usage = BedrockClient().parse_reply(httpx.Response(200, json=body)).usage

    assert usage["input_tokens"] == 1771 and usage["cached_input_tokens"] == 1000
    assert usage["cache_write_input_tokens"] == 200


def test_a_throttling_exception_is_retried_then_named() -> None:
    """Bedrock's 429 ThrottlingException (no retry-after) is retried with backoff; the final error names it."""
    calls = []
    waits: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(
            429,
            headers={
                "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/",
                "x-amzn-requestid": "r-1",
            },
            json={"message": "Too many requests, please wait before trying again."},
        )

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    async def go() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            await send(
                client,
                BedrockClient().build_request(ROLE, make_prompt(), None),
                judge="Judge",
                policy=RetryPolicy(max_attempts=3),
                error_message=BedrockClient().error_message,
                sleep=sleep,
            )

    with pytest.raises(TransportError) as raised:
        asyncio.run(go())

    assert len(calls) == 3 and len(waits) == 2
    assert "HTTP 429 after 3 attempts" in str(raised.value)
    assert "ThrottlingException: Too many requests, please wait before trying again." in str(raised.value)
