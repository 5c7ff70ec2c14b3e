"""Wire conformance of the cloud providers against their official clients (openai's Azure client, botocore, anthropic's
and google-genai's Vertex clients; test-only dependencies).

Every request body pytest-ora sends to Azure OpenAI, Bedrock and Vertex is checked against the official client's
types or validator (botocore's bedrock-runtime service model through its own ParamValidator), the official client
sends the same body to the same route through the reference judge, and the reference judge's replies and errors are
read by the official clients (botocore's and google-genai's parsers, the SDKs' response models, strictly).

    python tests/unit/judges/providers/test_conformance_cloud.py      # the result table, route x check
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import botocore.session
import google.oauth2.credentials
import httpx
import openai
import pytest
from anthropic.types import Message
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from botocore.exceptions import ClientError
from botocore.model import Shape
from botocore.validate import ParamValidator
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from openai.types import Model
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.responses import Response as ResponsesResponse
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

sys.path.insert(0, str(Path(__file__).parents[3]))
from support.sdk_types import (
    GEMINI_FIELDS,
    candidate_prompt,
    gemini_request_problems,
    request_problems,
    response_problems,
)

from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.packet import Artifact, Packet, judge_prompt
from pytest_ora.judges.providers import client_for
from pytest_ora.judges.providers.base import JudgePrompt
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.testing.server import ReferenceJudge

KEY = "conformance-cloud-token-0123456789"
ACCESS, SECRET = "AKIAORACONFORMANCE01", "c0nformanceSecretAccessKey/0123456789abcd"
AWS = f"{ACCESS}\n{SECRET}\n"
API_VERSION = "2024-10-21"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63600000000200015e2e8b2d0000000049454e44ae426082"
)
CONVERSE = botocore.session.get_session().get_service_model("bedrock-runtime").operation_model("Converse")
AZURE_FIELDS = frozenset({"content_filter_results", "prompt_filter_results", "content_filters"})
"""Azure's documented additions to OpenAI's replies (fixtures 26-29 show them); the openai package's models do not declare them."""


def _prompt(cache: bool, image: bool = True, configuration: str = "optimum") -> JudgePrompt:
    packet = Packet(
        capture_id=f"mode:argument-audit/{configuration}",
        entry_key="mode:argument-audit",
        family="mode",
        technique="argument-audit",
        specification_source="specs/argument-audit.md",
        specification="# Argument audit\n\n## Method\n1. **Frame the claim**: state it.\n" * 40,
        target=None,
        prompt="Audit the argument that remote work is more productive.",
        configuration=configuration,
        answer="## Frame the claim\nThe claim is narrow, because the evidence is.",
        model_snapshot={"big-1": "m"},
        artifact=Artifact(path="a.png", kind="image", media_type="image/png", sha256="0" * 64) if image else None,
        acceptance_notes="",
        rubric_version=ORA_V1.version,
    )
    return judge_prompt(packet, PNG if image else None, ORA_V1, cache=cache)


class Route:
    """One cloud route: its provider, model and API on the reference judge."""

    def __init__(self, name: str, provider: str, model: str, api: str | None = None) -> None:
        self.name, self.provider, self.model, self.api = name, provider, model, api

    def role(self, judge: ReferenceJudge) -> RoleSpec:
        return RoleSpec(
            model=self.model, provider=self.provider, route=judge.route(self.provider, self.model, self.api)
        )

    def request(self, judge: ReferenceJudge, prompt: JudgePrompt, key: str | None = None) -> httpx.Request:
        role = self.role(judge)
        return client_for(role).build_request(role, prompt, key or (AWS if self.provider == "bedrock" else KEY))

    def body(self, judge: ReferenceJudge, prompt: JudgePrompt) -> dict[str, Any]:
        return json.loads(self.request(judge, prompt).content)


ROUTES = {
    route.name: route
    for route in (
        Route("azure chat (deployment)", "azure-openai", "gpt-4.1-mini"),
        Route("azure chat (v1)", "azure-openai", "gpt-5-mini", api="v1"),
        Route("azure responses (v1)", "azure-openai", "gpt-5-mini", api="responses"),
        Route("bedrock converse", "bedrock", "anthropic.claude-opus-4-7-v1:0"),
        Route("vertex gemini", "vertex", "gemini-2.5-pro"),
        Route("vertex claude", "vertex", "claude-opus-4-7"),
    )
}


def _send(request: httpx.Request) -> httpx.Response:
    with httpx.Client(timeout=30) as client:
        return client.send(request)


# --- request bodies against the official clients' types -----------------------------------------


def _converse_params(body: dict[str, Any], model: str) -> dict[str, Any]:
    """A Converse body as botocore's parameters: the model id from the path, image bytes decoded."""
    params = json.loads(json.dumps(body))
    for message in params["messages"]:
        for block in message["content"]:
            if "image" in block:
                block["image"]["source"]["bytes"] = base64.b64decode(block["image"]["source"]["bytes"])
    return {"modelId": model, **params}


def body_problems(route: Route, body: dict[str, Any]) -> list[str]:
    """What in one request body the official client's types or validator refuse."""
    if route.provider == "azure-openai":
        kind = ResponseCreateParamsNonStreaming if route.api == "responses" else CompletionCreateParamsNonStreaming
        return request_problems(body, kind)
    if route.provider == "bedrock":
        report = ParamValidator().validate(_converse_params(body, route.model), CONVERSE.input_shape)
        return [report.generate_report()] if report.has_errors() else []
    if route.name == "vertex claude":
        if body.get("anthropic_version") != "vertex-2023-10-16" or "model" in body:
            return ["not Vertex's rawPredict body (anthropic_version, no model)"]
        native = {"model": route.model, **{k: v for k, v in body.items() if k != "anthropic_version"}}
        return request_problems(native, MessageCreateParamsNonStreaming)
    return gemini_request_problems(body, GEMINI_FIELDS[:3])


def check_request_type(judge: ReferenceJudge, route: Route) -> list[str]:
    problems = []
    for cache in (True, False):
        for image in (True, False):
            found = body_problems(route, route.body(judge, _prompt(cache, image)))
            problems += [f"(cache {'on' if cache else 'off'}, image {image}) {p}" for p in found]
    return problems


# --- the official client sends the same body to the same route ---------------------------------


def _bedrock(judge: ReferenceJudge, secret: str = SECRET) -> Any:
    session = botocore.session.Session()
    return session.create_client(
        "bedrock-runtime",
        region_name="us-east-1",
        endpoint_url=judge.url,
        aws_access_key_id=ACCESS,
        aws_secret_access_key=secret,
    )


def _vertex_gemini(judge: ReferenceJudge, token: str = KEY) -> genai.Client:
    return genai.Client(
        vertexai=True,
        project="ora-test",
        location="us-central1",
        credentials=google.oauth2.credentials.Credentials(token),
        http_options=genai_types.HttpOptions(base_url=judge.url + "/", api_version="v1"),
    )


def _vertex_claude(judge: ReferenceJudge, token: str = KEY) -> anthropic.AnthropicVertex:
    return anthropic.AnthropicVertex(
        region="us-central1", project_id="ora-test", access_token=token, base_url=f"{judge.url}/v1", max_retries=0
    )


def _sdk_send(judge: ReferenceJudge, route: Route, body: dict[str, Any]) -> None:
    if route.name == "azure chat (deployment)":
        azure = openai.AzureOpenAI(
            api_key=KEY, api_version=API_VERSION, azure_endpoint=judge.url, azure_deployment=route.model, max_retries=0
        )
        azure.chat.completions.create(**body)
    elif route.provider == "azure-openai":
        # Microsoft's v1 route is served to the plain OpenAI client at <resource>/openai/v1/.
        v1 = openai.OpenAI(
            api_key=KEY, base_url=f"{judge.url}/openai/v1/", default_headers={"api-key": KEY}, max_retries=0
        )
        (v1.responses.create if route.api == "responses" else v1.chat.completions.create)(**body)
    elif route.provider == "bedrock":
        _bedrock(judge).converse(**_converse_params(body, route.model))
    else:
        native = {k: v for k, v in body.items() if k != "anthropic_version"}
        version = {"anthropic_version": body["anthropic_version"]}  # the client would send its own default otherwise
        _vertex_claude(judge).messages.create(model=route.model, **native, extra_body=version)


def check_sdk_sends_same_body(judge: ReferenceJudge, route: Route) -> list[str]:
    """The official client, given our body's fields, sends our body to our route's path."""
    problems = []
    for cache in (True, False):
        ours = route.request(judge, _prompt(cache))
        body = json.loads(ours.content)
        before = len(judge.requests)
        try:
            _sdk_send(judge, route, body)
        except TypeError as error:
            problems.append(f"the SDK refuses a field: {error}")
            continue
        sent = next(r for r in judge.requests[before:] if r.method == "POST")
        if json.loads(sent.body) != body:
            problems.append(f"(cache {'on' if cache else 'off'}) the SDK sends a different body")
        if sent.path != ours.url.raw_path.decode():
            problems.append(f"the SDK posts to {sent.path}, we to {ours.url.raw_path.decode()}")
        if route.provider == "bedrock" and not sent.headers.get("authorization", "").startswith("AWS4-HMAC-SHA256"):
            problems.append("botocore's request carries no SigV4 signature")
    return problems


# --- replies and errors, read by the official clients --------------------------------------------


def _shape_problems(value: Any, shape: Shape, path: str = "reply") -> list[str]:
    """Every key of `value` is a member botocore's output shape declares (botocore's parser ignores unknown ones)."""
    if getattr(shape, "is_document_type", False):
        return []  # free JSON (a tool's input)
    if shape.type_name == "structure":
        if not isinstance(value, dict):
            return [f"{path}: expected an object"]
        members = shape.members
        problems = [f"{path}.{key}: not a member of {shape.name}" for key in value if key not in members]
        problems += [f"{path}.{key}: required by {shape.name}" for key in shape.required_members if key not in value]
        for key, item in value.items():
            if key in members:
                problems += _shape_problems(item, members[key], f"{path}.{key}")
        return problems
    if shape.type_name == "list":
        items = value if isinstance(value, list) else []
        return [p for i, item in enumerate(items) for p in _shape_problems(item, shape.member, f"{path}[{i}]")]
    return []


def check_live_reply(judge: ReferenceJudge, route: Route) -> list[str]:
    """The reference judge's 200 parses strictly into the official client's reply model, and ours reads it."""
    problems = []
    for configuration in ("optimum", "big-1"):
        request = route.request(judge, _prompt(True, configuration=configuration))
        response = _send(request)
        if response.status_code != 200:
            return [f"HTTP {response.status_code}: {response.text[:200]}"]
        reply = json.loads(response.text)
        if route.provider == "azure-openai":
            model = ResponsesResponse if route.api == "responses" else ChatCompletion
            found = response_problems(reply, model)
            problems += [p for p in found if p.split(":")[0].rsplit(".", 1)[-1] not in AZURE_FIELDS]
        elif route.provider == "bedrock":
            problems += _shape_problems(reply, CONVERSE.output_shape)
        elif route.name == "vertex claude":
            problems += response_problems(reply, Message)
        else:
            # Strict, but for createTime: google-genai's strict mode refuses every timestamp string, Vertex's own
            # included (fixture 37), so that one field is read as the SDK reads it by default.
            timeless = {key: value for key, value in reply.items() if key != "createTime"}
            try:
                genai_types.GenerateContentResponse.model_validate_json(json.dumps(timeless), strict=True)
                genai_types.GenerateContentResponse.model_validate_json(response.text)
            except Exception as error:
                problems.append(str(error)[:300])
        client_for(route.role(judge)).parse_reply(response)
    problems += _sdk_reads_a_reply(judge, route)
    return problems


def _sdk_reads_a_reply(judge: ReferenceJudge, route: Route) -> list[str]:
    """The official client's whole pipeline (its signing or auth, its parser) on one call."""
    if route.provider == "bedrock":
        body = route.body(judge, _prompt(False, image=False))
        reply = _bedrock(judge).converse(**_converse_params(body, route.model))
        used = reply["output"]["message"]["content"][-1].get("toolUse", {})
        return (
            []
            if used.get("name") == "ora_judge_reply" and reply["usage"]["inputTokens"] > 0
            else [f"botocore read {reply}"]
        )
    if route.name == "vertex gemini":
        png = (
            bytes([251, 255, 254, 250]) * 8
        )  # bytes whose base64 holds - and _ in the URL-safe alphabet google-genai sends
        contents = ["Score this.", genai_types.Part.from_bytes(data=png, mime_type="image/png")]
        client = _vertex_gemini(judge)  # kept: google-genai closes its transport when the client is collected
        answer = client.models.generate_content(model=route.model, contents=contents)
        return [] if answer.candidates and answer.usage_metadata is not None else [f"google-genai read {answer}"]
    if route.name == "vertex claude":
        message = _vertex_claude(judge).messages.create(
            model=route.model, max_tokens=100, messages=[{"role": "user", "content": "Score this."}]
        )
        return [] if message.content and message.model == route.model else [f"AnthropicVertex read {message}"]
    return []


def check_error_reply(judge: ReferenceJudge, route: Route) -> list[str]:
    """A wrong credential's error, as the official client reads it, and as ours names it."""
    right = {"bedrock": "AKIAORATHERIGHTONE01"}.get(route.provider, "the-right-key-0123456789")
    with ReferenceJudge(keys={route.provider: right}) as strict:
        response = _send(route.request(strict, _prompt(False, image=False)))
        ours = client_for(route.role(strict)).error_message(response)
        try:
            if route.provider == "azure-openai":
                azure = openai.AzureOpenAI(
                    api_key="wrong",
                    api_version=API_VERSION,
                    azure_endpoint=strict.url,
                    azure_deployment=route.model,
                    max_retries=0,
                )
                azure.chat.completions.create(model=route.model, messages=[{"role": "user", "content": "x"}])
            elif route.provider == "bedrock":
                _bedrock(strict).converse(modelId=route.model, messages=[{"role": "user", "content": [{"text": "x"}]}])
            elif route.name == "vertex gemini":
                client = _vertex_gemini(strict, "wrong")
                client.models.generate_content(model=route.model, contents="x")
            else:
                _vertex_claude(strict, "wrong").messages.create(
                    model=route.model, max_tokens=10, messages=[{"role": "user", "content": "x"}]
                )
        except openai.AuthenticationError as error:
            return [] if error.status_code == 401 and ours.startswith("401: Access denied") else [f"ours: {ours}"]
        except ClientError as error:
            code = error.response["Error"]["Code"]
            ok = code == "UnrecognizedClientException" and response.status_code == 403
            return (
                [] if ok and ours.startswith("UnrecognizedClientException: ") else [f"botocore: {code}, ours: {ours}"]
            )
        except genai_errors.ClientError as error:
            ok = error.code == 401 and error.status == "UNAUTHENTICATED" and ours.startswith("UNAUTHENTICATED: ")
            return [] if ok else [f"google-genai: {error.code} {error.status}, ours: {ours}"]
        except anthropic.AuthenticationError:
            return [] if ours.startswith("UNAUTHENTICATED: ") else [f"ours: {ours}"]
    return ["no error for a wrong credential"]


def check_models_endpoint(judge: ReferenceJudge, route: Route) -> list[str]:
    """The reachability check succeeds, and its reply is the official client's model."""
    role = route.role(judge)
    key = AWS if route.provider == "bedrock" else KEY
    response = _send(client_for(role).reachability_request(role, key))
    if response.status_code != 200:
        return [f"HTTP {response.status_code}: {response.text[:200]}"]
    if route.provider == "azure-openai":
        data = response.json()["data"]
        azure = openai.AzureOpenAI(api_key=KEY, api_version=API_VERSION, azure_endpoint=judge.url, max_retries=0)
        listed = [model.id for model in azure.models.list()]
        problems = [
            p for item in data for p in response_problems(item, Model) if "status" not in p and "capabilities" not in p
        ]
        return problems + ([] if isinstance(listed, list) else ["the SDK listed nothing"])
    if route.provider == "bedrock":
        return _shape_problems(response.json(), CONVERSE.output_shape)
    if route.name == "vertex gemini":
        client = _vertex_gemini(judge)
        model = client.models.get(model=route.model)
        return [] if model.name and route.model in model.name else [f"google-genai read {model}"]
    return [] if response.json()["name"] == f"publishers/anthropic/models/{route.model}" else [response.text[:200]]


def check_candidate_reply(judge: ReferenceJudge, route: Route) -> list[str]:
    """A candidate's plain-text call: its body in the official client's types, the reply (a plain answer, with usage)
    strictly in its reply model; ours reads its text."""
    problems = []
    for cache, system in ((True, "You are a careful analyst."), (False, "")):
        prompt = candidate_prompt(cache, system, claude=route.name == "vertex claude")
        problems += [
            f"(request, cache {'on' if cache else 'off'}) {p}" for p in body_problems(route, route.body(judge, prompt))
        ]
        response = _send(route.request(judge, prompt))
        if response.status_code != 200:
            return [f"HTTP {response.status_code}: {response.text[:200]}"]
        reply_body = json.loads(response.text)
        if route.provider == "azure-openai":
            found = response_problems(reply_body, ResponsesResponse if route.api == "responses" else ChatCompletion)
            problems += [p for p in found if p.split(":")[0].rsplit(".", 1)[-1] not in AZURE_FIELDS]
        elif route.provider == "bedrock":
            problems += _shape_problems(reply_body, CONVERSE.output_shape)
        elif route.name == "vertex claude":
            problems += response_problems(reply_body, Message)
        else:
            timeless = {key: value for key, value in reply_body.items() if key != "createTime"}
            try:
                genai_types.GenerateContentResponse.model_validate_json(json.dumps(timeless), strict=True)
            except Exception as error:
                problems.append(str(error)[:300])
        reply = client_for(route.role(judge)).parse_reply(response)
        if (
            reply.stop != "complete"
            or not reply.text
            or "reference answer" not in reply.text
            or reply.payload is not None
        ):
            problems.append(f"not a plain-text answer: {reply.stop} {reply.text!r:.120}")
        if not reply.usage["input_tokens"] or not reply.usage["output_tokens"]:
            problems.append(f"no usage: {reply.usage}")
    if route.provider == "bedrock":
        params = _converse_params(route.body(judge, candidate_prompt(False, "Be brief.")), route.model)
        output = _bedrock(judge).converse(**params)
        if "reference answer" not in output["output"]["message"]["content"][0]["text"]:
            problems.append(f"botocore read no plain answer: {output['output']}")
    return problems


CHECKS: dict[str, Callable[[ReferenceJudge, Route], list[str]]] = {
    "request type": check_request_type,
    "SDK sends the same body": check_sdk_sends_same_body,
    "live reply (strict)": check_live_reply,
    "error reply": check_error_reply,
    "models endpoint": check_models_endpoint,
    "candidate plain-text reply (strict)": check_candidate_reply,
}
SAME_BODY = ("azure chat (deployment)", "azure chat (v1)", "azure responses (v1)", "bedrock converse", "vertex claude")
"""google-genai builds Gemini's body from its own types (checked above), so it cannot be handed ours."""
CASES = [
    (check, route) for check in CHECKS for route in ROUTES if check != "SDK sends the same body" or route in SAME_BODY
]


@pytest.fixture(scope="module")
def judge() -> Iterator[ReferenceJudge]:
    with ReferenceJudge() as server:
        yield server


@pytest.mark.parametrize(("check", "route"), CASES, ids=[f"{route}-{check}" for check, route in CASES])
def test_conformance(judge: ReferenceJudge, check: str, route: str) -> None:
    problems = CHECKS[check](judge, ROUTES[route])
    assert not problems, "\n".join(problems)


def test_the_checks_catch_a_drift(judge: ReferenceJudge) -> None:
    """The checks can fail: a Converse field botocore's model lacks, a reply member it does not declare."""
    route = ROUTES["bedrock converse"]
    body = route.body(judge, _prompt(True))
    body["inferenceConfig"]["max_tokens"] = 1
    assert body_problems(route, body)
    reply = json.loads(_send(route.request(judge, _prompt(True))).text)
    reply["usage"]["madeUp"] = 1
    assert _shape_problems(reply, CONVERSE.output_shape) == ["reply.usage.madeUp: not a member of TokenUsage"]


def table() -> str:
    """The result table, route x check, as markdown."""
    with ReferenceJudge() as server:
        rows = []
        for name, route in ROUTES.items():
            cells = []
            for check, function in CHECKS.items():
                if (check, name) not in CASES:
                    cells.append("n/a")
                    continue
                problems = function(server, route)
                cells.append("pass" if not problems else f"FAIL ({len(problems)})")
            rows.append(f"| {name} | " + " | ".join(cells) + " |")
    head = "| route | " + " | ".join(CHECKS) + " |\n|" + " --- |" * (len(CHECKS) + 1)
    return head + "\n" + "\n".join(rows)


if __name__ == "__main__":
    print(table())
