"""Wire formats of the reference judge for the cloud providers: Azure OpenAI, Amazon Bedrock Converse, Vertex AI.

As the recorded exchanges show them: Azure's chat replies carry content_filter_results and
prompt_filter_results and Azure's headers (apim-request-id, x-ms-region, x-ratelimit-*), its errors
name a code (DeploymentNotFound, 401); Bedrock's Converse replies carry output.message, stopReason,
usage and metrics, its errors a `{"message"}` body named by the x-amzn-ErrorType header; Vertex
speaks Gemini's format with OAuth bearer tokens and Google's error statuses, and Claude's Messages
format through rawPredict (anthropic_version vertex-2023-10-16, the model in the URL).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .wire import (
    _ANTHROPIC_VERSIONS,
    _THINKING,
    BadRequest,
    Call,
    Response,
    Wire,
    _Anthropic,
    _bearer,
    _decode_image,
    _Google,
    _limit,
    _OpenAI,
    _Responses,
    _token_id,
    compact_json,
    estimate_tokens,
    reply_text_of,
)

__all__ = ["AZURE", "AZURE_RESPONSES", "BEDROCK", "VERTEX_CLAUDE", "VERTEX_GEMINI", "sigv4_access_key"]

VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16"
_SIGV4 = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=(?P<key>[A-Z0-9]{16,128})/(?P<date>\d{8})/(?P<region>[a-z0-9-]+)/bedrock/aws4_request, "
    r"SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=(?P<signature>[0-9a-f]{64})$"
)
_SAFE = {
    "hate": {"filtered": False, "severity": "safe"},
    "self_harm": {"filtered": False, "severity": "safe"},
    "sexual": {"filtered": False, "severity": "safe"},
    "violence": {"filtered": False, "severity": "safe"},
}


def sigv4_access_key(headers: Mapping[str, str]) -> str | None:
    """The access key id of a well-formed SigV4 Authorization header (host and x-amz-date signed), else None."""
    match = _SIGV4.match(headers.get("authorization", ""))
    if match is None or not headers.get("x-amz-date", "").startswith(match.group("date")):
        return None
    signed = match.group("signed").split(";")
    if "host" not in signed or "x-amz-date" not in signed:
        return None
    if "x-amz-security-token" in headers and "x-amz-security-token" not in signed:
        return None
    return match.group("key")


# --- Azure OpenAI -------------------------------------------------------------------------


class _Azure(_OpenAI):
    """Azure OpenAI Chat Completions, on a deployment route (model from the URL) or the v1 route."""

    name = "azure-openai"

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        return headers.get("api-key") or _bearer(headers)

    def auth_message(self, key: str | None) -> str:
        return (
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid "
            "key for an active subscription and use a correct regional API endpoint for your resource."
        )

    def not_found(self, model: str) -> tuple[int, str]:
        return 404, (
            "The API deployment for this resource does not exist. If you created the deployment within the "
            "last 5 minutes, please wait a moment and try again."
        )

    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:
        if model is not None and isinstance(body, dict) and "model" not in body:
            body = {"model": model, **body}  # a deployment route names the model in its path
        call = super().parse(body, None, seed, size)
        return Call(
            self.name,
            model or call.model,
            call.text,
            call.images,
            call.tool,
            call.forced,
            seed,
            call.input_tokens,
            call.max_tokens,
        )

    def _message(self, call: Call, reply: dict[str, Any], kind: str | None) -> tuple[dict[str, Any], str]:
        if kind == "refusal":
            # Azure's content filter stops the completion: no content, finish_reason content_filter.
            return {"role": "assistant", "content": None, "refusal": None, "annotations": []}, "content_filter"
        return super()._message(call, reply, kind)

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        openai = super().success(call, reply, kind, latency)
        body = json.loads(openai.body)
        filtered = dict(_SAFE)
        if kind == "refusal":
            filtered["violence"] = {"filtered": True, "severity": "high"}
        for choice in body["choices"]:
            choice["content_filter_results"] = filtered
        body["prompt_filter_results"] = [
            {
                "prompt_index": 0,
                "content_filter_results": {**_SAFE, "jailbreak": {"filtered": False, "detected": False}},
            }
        ]
        del body["service_tier"]
        headers = (
            *tuple((name, value) for name, value in openai.headers if not name.startswith("openai-")),
            ("apim-request-id", _uuid(call.seed)),
            ("x-ms-region", "Loopback"),
            ("x-ms-deployment-name", call.model),
            ("x-ms-rai-invoked", "true"),
        )
        return Response(200, headers, compact_json(body))

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        if problem in ("auth", "auth_missing"):
            body: dict[str, Any] = {"error": {"code": "401", "message": message}}
        elif problem == "not_found":
            body = {"error": {"type": "invalid_request_error", "code": "DeploymentNotFound", "message": message}}
        elif problem == "rate_limit":
            body = {
                "error": {
                    "code": "429",
                    "message": "Requests to the ChatCompletions_Create Operation under Azure "
                    "OpenAI API have exceeded the call rate limit of your current pricing tier. Please retry "
                    "after the time the retry-after header names.",
                }
            }
        else:
            return super().error(status, problem, message, seed, extra, refused)
        headers = (("content-type", "application/json"), ("apim-request-id", _uuid(seed)), *tuple(extra))
        return Response(status, headers, compact_json(body))

    def model_info(self, model: str) -> Any:
        return {
            "id": model,
            "object": "model",
            "created": 1767225600,
            "owned_by": "system",
            "status": "succeeded",
            "capabilities": {"chat_completion": True, "completion": False, "embeddings": False},
        }


class _AzureResponses(_Responses):
    """Azure's v1 Responses route: OpenAI's Responses format, Azure's auth, content_filters beside the output."""

    name = "azure-openai"

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        return headers.get("api-key") or _bearer(headers)

    def auth_message(self, key: str | None) -> str:
        return AZURE.auth_message(key)

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        openai = super().success(call, reply, kind, latency)
        body = json.loads(openai.body)
        body["content_filters"] = [
            {
                "blocked": False,
                "source_type": "prompt",
                "content_filter_raw": [],
                "content_filter_results": {**_SAFE, "jailbreak": {"detected": False, "filtered": False}},
            },
            {"blocked": False, "source_type": "completion", "content_filter_raw": [], "content_filter_results": _SAFE},
        ]
        return Response(200, (*openai.headers, ("apim-request-id", _uuid(call.seed))), compact_json(body))

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        if problem in ("auth", "auth_missing"):
            return AZURE.error(status, problem, message, seed, extra, refused)
        return super().error(status, problem, message, seed, extra, refused)


def _uuid(seed: str) -> str:
    digest = hashlib.sha256((seed + "uuid").encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:32]}"


# --- Amazon Bedrock Converse --------------------------------------------------------------

_BEDROCK_ERRORS = {
    "auth": "UnrecognizedClientException",
    "auth_missing": "MissingAuthenticationTokenException",
    "bad_request": "ValidationException",
    "not_found": "ValidationException",
    "rate_limit": "ThrottlingException",
    "server": "InternalServerException",
    "unavailable": "ServiceUnavailableException",
    "overloaded": "ServiceUnavailableException",
    "timeout": "ModelTimeoutException",
}
_CONVERSE_KEYS = frozenset(
    {
        "messages",
        "system",
        "inferenceConfig",
        "toolConfig",
        "guardrailConfig",
        "additionalModelRequestFields",
        "promptVariables",
        "additionalModelResponseFieldPaths",
        "requestMetadata",
        "performanceConfig",
    }
)
_BLOCK_KEYS = frozenset(
    {
        "text",
        "image",
        "document",
        "video",
        "toolUse",
        "toolResult",
        "guardContent",
        "cachePoint",
        "reasoningContent",
        "citationsContent",
    }
)
_FORMATS = frozenset({"png", "jpeg", "gif", "webp"})


class _Bedrock(Wire):
    """Amazon Bedrock's Converse API (`POST /model/{modelId}/converse`), SigV4-signed or with a Bedrock API key."""

    name = "bedrock"

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        """The SigV4 access key id (a malformed signature presents none), or a Bedrock API key's bearer token."""
        if headers.get("authorization", "").startswith("AWS4-HMAC-SHA256"):
            return sigv4_access_key(headers)
        return _bearer(headers)

    def auth_message(self, key: str | None) -> str:
        return "Missing Authentication Token" if not key else "The security token included in the request is invalid."

    def auth_status(self, key: str | None) -> int:
        return 403

    def not_found(self, model: str) -> tuple[int, str]:
        return 400, "The provided model identifier is invalid."

    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:
        if not isinstance(body, dict):
            raise BadRequest("1 validation error detected: the request body must be an object")
        unknown = sorted(set(body) - _CONVERSE_KEYS)
        if unknown:
            raise BadRequest(
                f"Malformed input request: extraneous key [{unknown[0]}] is not permitted, please reformat "
                "your input and try again."
            )
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest(
                "A conversation must start with a user message. Try again with a conversation that starts "
                "with a user message."
            )
        texts: list[str] = []
        images: list[bytes] = []
        for index, message in enumerate(messages):
            where = f"messages.{index}"
            if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                raise BadRequest(
                    f"1 validation error detected: Value at '{where}.role' failed to satisfy constraint: "
                    "Member must satisfy enum value set: [user, assistant]"
                )
            content = message.get("content")
            if not isinstance(content, list) or not content:
                raise BadRequest(
                    f"1 validation error detected: Value at '{where}.content' failed to satisfy "
                    "constraint: Member must have length greater than or equal to 1"
                )
            for position, block in enumerate(content):
                self._block(block, f"{where}.content.{position}", message["role"], texts, images)
        if messages[-1].get("role") != "user":
            raise BadRequest(
                "The model returned the following errors: Your API request included an `assistant` message "
                "in the final position, which would pre-fill the `assistant` response. When using tools, "
                "pre-filling the `assistant` response is not supported."
            )
        system = body.get("system", [])
        if not isinstance(system, list) or not all(
            isinstance(b, dict) and set(b) <= {"text", "cachePoint", "guardContent"} for b in system
        ):
            raise BadRequest("1 validation error detected: Value at 'system' failed to satisfy constraint")
        tool, forced = self._tool(body.get("toolConfig"))
        config = body.get("inferenceConfig")
        limit = _limit(config, ("maxTokens",))
        return Call(
            self.name, model or "", "\n\n".join(texts), tuple(images), tool, forced, seed, max(1, size // 4), limit
        )

    def _block(self, block: Any, at: str, role: str, texts: list[str], images: list[bytes]) -> None:
        if not isinstance(block, dict) or len(block) != 1 or next(iter(block)) not in _BLOCK_KEYS:
            raise BadRequest(
                f"1 validation error detected: Value at '{at}' failed to satisfy constraint: a content block "
                f"holds exactly one of {', '.join(sorted(_BLOCK_KEYS))}"
            )
        ((kind, value),) = block.items()
        if kind == "text":
            if not isinstance(value, str):
                raise BadRequest(f"1 validation error detected: Value at '{at}.text' must be a string")
            if role == "user":
                texts.append(value)
        elif kind == "image":
            source = value.get("source") if isinstance(value, dict) else None
            if not isinstance(value, dict) or value.get("format") not in _FORMATS or not isinstance(source, dict):
                raise BadRequest(f"1 validation error detected: Value at '{at}.image' failed to satisfy constraint")
            images.append(_decode_image(source.get("bytes"), f"{at}.image.source.bytes"))
        elif kind == "toolUse":
            if role != "assistant" or not isinstance(value, dict) or not {"toolUseId", "name", "input"} <= set(value):
                raise BadRequest(
                    f"1 validation error detected: Value at '{at}.toolUse' must be an assistant's "
                    "{toolUseId, name, input}"
                )
        elif kind == "toolResult":
            results = value.get("content") if isinstance(value, dict) else None
            if role != "user" or not isinstance(value.get("toolUseId"), str) or not isinstance(results, list):
                raise BadRequest(
                    f"1 validation error detected: Value at '{at}.toolResult' must be a user's {{toolUseId, content}}"
                )
            texts += [
                json.dumps(r["json"]) if "json" in r else str(r.get("text", "")) for r in results if isinstance(r, dict)
            ]
        elif kind == "cachePoint" and value != {"type": "default"}:
            raise BadRequest(f"1 validation error detected: Value at '{at}.cachePoint.type' must be default")

    def _tool(self, config: Any) -> tuple[str | None, bool]:
        if config is None:
            return None, False
        tools = config.get("tools") if isinstance(config, dict) else None
        names = []
        for tool in tools if isinstance(tools, list) else [None]:
            spec = tool.get("toolSpec") if isinstance(tool, dict) else None
            schema = spec.get("inputSchema") if isinstance(spec, dict) else None
            if (
                not isinstance(spec, dict)
                or not isinstance(spec.get("name"), str)
                or not isinstance(schema, dict)
                or "json" not in schema
            ):
                raise BadRequest(
                    "1 validation error detected: Value at 'toolConfig.tools' must be toolSpec "
                    "{name, inputSchema: {json}}"
                )
            names.append(spec["name"])
        choice = config.get("toolChoice")
        if isinstance(choice, dict) and "tool" in choice:
            name = choice["tool"].get("name") if isinstance(choice["tool"], dict) else None
            if name not in names:
                raise BadRequest(f"The tool {name} named in toolChoice is not in toolConfig.tools.")
            return str(name), True
        return (names[0], isinstance(choice, dict) and "any" in choice) if names else (None, False)

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        reply_text = reply_text_of(call, reply)
        content: list[dict[str, Any]] = []
        if kind == "thinking_first":
            signature = hashlib.sha256(call.seed.encode()).hexdigest()
            content.append({"reasoningContent": {"reasoningText": {"text": _THINKING, "signature": signature}}})
        stop = "end_turn"
        if kind == "truncated":
            content.append({"text": reply_text[: len(reply_text) // 2]})
            stop = "max_tokens"
        elif kind == "refusal":
            content.append({"text": "Sorry, the model cannot answer this question."})
            stop = "content_filtered"
        elif kind == "empty":
            pass
        elif call.tool is not None and kind != "prose":
            if kind == "text_before_tool":
                content.append({"text": "I'll record my scores with the tool."})
            content.append(
                {
                    "toolUse": {
                        "toolUseId": "tooluse_" + _token_id(call.seed + "tool", 22),
                        "name": call.tool,
                        "input": reply,
                    }
                }
            )
            stop = "tool_use"
        else:
            content.append({"text": reply_text if kind != "fenced" else f"```json\n{reply_text}\n```"})
        output = estimate_tokens(json.dumps(content))
        body = {
            "metrics": {"latencyMs": int(latency * 1000)},
            "output": {"message": {"content": content, "role": "assistant"}},
            "stopReason": stop,
            "usage": {
                "inputTokens": call.input_tokens,
                "outputTokens": output,
                "totalTokens": call.input_tokens + output,
            },
        }
        headers = (("content-type", "application/json"), ("x-amzn-requestid", _uuid(call.seed)))
        return Response(200, headers, compact_json(body))

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        kind = _BEDROCK_ERRORS[problem]
        service = "com.amazon.coral.service" if problem.startswith("auth") else "com.amazon.bedrock"
        headers = (
            ("content-type", "application/json"),
            ("x-amzn-errortype", f"{kind}:http://internal.amazon.com/coral/{service}/"),
            ("x-amzn-requestid", _uuid(seed)),
            *tuple(extra),
        )
        if problem == "rate_limit":
            message = "Too many requests, please wait before trying again."
        return Response(status, headers, compact_json({"message": message}))

    def model_info(self, model: str) -> Any:
        return {"modelDetails": {"modelId": model, "modelArn": f"arn:aws:bedrock:us-east-1::foundation-model/{model}"}}

    def model_list(self, models: Sequence[str]) -> Any:
        return {"modelSummaries": [self.model_info(m)["modelDetails"] for m in models]}


# --- Vertex AI ----------------------------------------------------------------------------


class _VertexGemini(_Google):
    """Gemini's generateContent on Vertex AI: OAuth bearer tokens, Vertex's model names and usage fields."""

    name = "vertex"

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        return _bearer(headers) or headers.get("x-goog-api-key")

    def auth_message(self, key: str | None) -> str:
        return (
            "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other "
            "valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project."
        )

    def auth_status(self, key: str | None) -> int:
        return 401

    def not_found(self, model: str) -> tuple[int, str]:
        return 404, (
            f"Publisher Model `projects/ora-test/locations/us-central1/publishers/google/models/{model}` "
            "was not found or your project does not have access to it."
        )

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        gemini = super().success(call, reply, kind, latency)
        body = json.loads(gemini.body)
        body["usageMetadata"]["trafficType"] = "ON_DEMAND"
        body["createTime"] = "2026-01-01T00:00:00.000000Z"
        return Response(200, gemini.headers, compact_json(body))

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        if problem in ("auth", "auth_missing"):
            error = {
                "code": 401,
                "message": message,
                "status": "UNAUTHENTICATED",
                "details": [
                    {
                        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                        "reason": "ACCESS_TOKEN_TYPE_UNSUPPORTED",
                        "metadata": {
                            "method": "google.cloud.aiplatform.v1.PredictionService.GenerateContent",
                            "service": "aiplatform.googleapis.com",
                        },
                    }
                ],
            }
            headers = (
                ("content-type", "application/json; charset=UTF-8"),
                ("www-authenticate", 'Bearer realm="https://accounts.google.com/", error="invalid_token"'),
            )
            return Response(401, headers + tuple(extra), compact_json({"error": error}))
        return super().error(status, problem, message, seed, extra, refused)

    def model_info(self, model: str) -> Any:
        publisher = "anthropic" if model.startswith("claude") else "google"
        return {
            "name": f"publishers/{publisher}/models/{model}",
            "versionId": "001",
            "openSourceCategory": "PROPRIETARY",
            "launchStage": "GA",
            "publisherModelTemplate": f"projects/{{project}}/locations/{{location}}/publishers/"
            f"{publisher}/models/{model}@{{version}}",
        }

    def model_list(self, models: Sequence[str]) -> Any:
        return {"publisherModels": [self.model_info(m) for m in models]}


class _VertexClaude(_Anthropic):
    """Claude on Vertex AI (`:rawPredict`): Anthropic's Messages body, anthropic_version in the body, the model in the URL."""

    name = "vertex"

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        return _bearer(headers)

    def check_headers(self, headers: Mapping[str, str]) -> None:
        """Vertex takes the version in the body, not as a header."""

    def auth_message(self, key: str | None) -> str:
        return VERTEX_GEMINI.auth_message(key)

    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:
        if not isinstance(body, dict):
            raise BadRequest("Input should be a valid dictionary")
        # Vertex's documented version, or an Anthropic API version (what the anthropic package's Vertex client sends by default).
        if body.get("anthropic_version") not in (VERTEX_ANTHROPIC_VERSION, *_ANTHROPIC_VERSIONS):
            raise BadRequest(f"anthropic_version: Input should be '{VERTEX_ANTHROPIC_VERSION}'", "anthropic_version")
        if "model" in body:
            raise BadRequest("model: Extra inputs are not permitted (the model is named in the URL)", "model")
        rest = {key: value for key, value in body.items() if key != "anthropic_version"}
        call = super().parse({"model": model or "", **rest}, None, seed, size)
        return Call(
            self.name,
            call.model,
            call.text,
            call.images,
            call.tool,
            call.forced,
            seed,
            call.input_tokens,
            call.max_tokens,
        )

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        anthropic = super().success(call, reply, kind, latency)
        body = json.loads(anthropic.body)
        body["id"] = "msg_vrtx_" + _token_id(call.seed)
        body["model"] = call.model
        headers = tuple((n, v) for n, v in anthropic.headers if not n.startswith("anthropic-ratelimit"))
        return Response(200, headers, compact_json(body))

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        if problem in ("auth", "auth_missing", "not_found"):
            return VERTEX_GEMINI.error(status, problem, message, seed, extra, refused)
        return super().error(status, problem, message, seed, extra, refused)


AZURE: Wire = _Azure()
AZURE_RESPONSES: Wire = _AzureResponses()
BEDROCK: Wire = _Bedrock()
VERTEX_GEMINI: Wire = _VertexGemini()
VERTEX_CLAUDE: Wire = _VertexClaude()
