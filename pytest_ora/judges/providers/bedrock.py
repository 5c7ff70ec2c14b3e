"""Amazon Bedrock client: the Converse API, SigV4-signed, the reply object as the input of a forced tool.

The route is the model's Converse URL, `https://bedrock-runtime.{region}.amazonaws.com/model/{modelId}/converse`
(the model id, or an inference profile's, escaped in the path as AWS does: `:` as `%3A`). Calls are
signed with the credentials botocore's standard chain finds (aws.py); a role naming api_key_env
sends a Bedrock API key as a bearer token instead. An InvokeModel reply in Anthropic's format (a
Claude model's native body) is read too.

Reference: Amazon Bedrock API Reference, "Converse" (request and response syntax, ToolConfiguration,
ToolChoice, CachePointBlock, StopReason, TokenUsage), "Common Errors" and the errors Converse names
(ValidationException, ThrottlingException, AccessDeniedException, ModelNotReadyException), and the
AWS General Reference, "Signature Version 4".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import httpx

from ...core.models import RoleSpec
from ...core.usage import Usage, reported_usage
from . import aws
from ._wire import base64_text, count, fallback_error, items, mapping, read_json, snippet, string
from .anthropic import AnthropicClient
from .anthropic import takes_temperature as claude_takes_temperature
from .base import ImagePart, JudgePrompt, Part, ProviderReply, Stop, dumps_body, sampling_fields

__all__ = ["BedrockClient", "error_type", "takes_temperature"]

_API = "Bedrock Converse"
_SERVICE = "bedrock"
_TOOL_DESCRIPTION = "Submit the judge's reply object for this packet: every criterion scored and noted."
_CACHE_POINT: dict[str, Any] = {"cachePoint": {"type": "default"}}
_FORMATS = {"image/png": "png", "image/jpeg": "jpeg", "image/gif": "gif", "image/webp": "webp"}
_REFUSED = frozenset({"guardrail_intervened", "content_filtered"})
_TRUNCATED = frozenset({"max_tokens", "model_context_window_exceeded"})
_CLAUDE = re.compile(r"(?:^|\.)(?P<model>claude-[a-z0-9.-]+?)(?:-v\d+(?::\d+)?)?$")


def takes_temperature(model: str) -> bool:
    """Whether temperature 0 is safe to send: Claude models by Anthropic's rule, other Bedrock models always."""
    if match := _CLAUDE.search(model):
        return claude_takes_temperature(match.group("model"))
    return True


def error_type(response: httpx.Response) -> str:
    """The error's name from `x-amzn-ErrorType` (`ValidationException:http://...` gives ValidationException), or ''."""
    header: str = response.headers.get("x-amzn-errortype", "")
    return header.partition(":")[0].strip()


@dataclass
class BedrockClient:
    """Converse at the route: system, one user turn, inferenceConfig, the reply schema as the one forced tool."""

    name: str = field(default="bedrock", init=False)

    def build_request(self, role: RoleSpec, prompt: JudgePrompt, api_key: str | None) -> httpx.Request:
        """The Converse call, SigV4-signed when credentials are given (unsigned without: a loopback judge, a size estimate)."""
        cache = prompt.cache_key is not None
        thinking = role.thinking_budget
        config: dict[str, Any] = {"maxTokens": prompt.max_tokens + (thinking or 0)}
        if thinking is None and prompt.sampling is not None:  # a candidate's call: its own parameters, exactly
            config |= sampling_fields(prompt, temperature="temperature", top_p="topP")
        elif thinking is None and takes_temperature(role.model):
            config["temperature"] = 0
        system: list[dict[str, Any]] = [{"text": prompt.system}] if prompt.system else []
        if cache and system:
            system.append(_CACHE_POINT)
        content: list[dict[str, Any]] = []
        for part in prompt.parts:
            content.append(_block(part))
            if cache and not isinstance(part, ImagePart) and part.cache_break:
                content.append(_CACHE_POINT)
        body: dict[str, Any] = {"system": system} if system else {}
        body |= {"messages": [{"role": "user", "content": content}], "inferenceConfig": config}
        if prompt.reply_schema is not None:  # a candidate answers in plain text: no tool
            tool = {
                "toolSpec": {
                    "name": prompt.schema_name,
                    "description": _TOOL_DESCRIPTION,
                    "inputSchema": {"json": prompt.reply_schema},
                }
            }
            # Claude's extended thinking refuses a forced tool: the tool is offered (the system prompt asks for
            # the reply object) and validation re-asks a reply that did not use it.
            choice: dict[str, Any] = {"auto": {}} if thinking is not None else {"tool": {"name": prompt.schema_name}}
            body["toolConfig"] = {"tools": [tool], "toolChoice": choice}
        if thinking is not None:
            body["additionalModelRequestFields"] = {"thinking": {"type": "enabled", "budget_tokens": thinking}}
        request = httpx.Request(
            "POST", role.route, headers={"content-type": "application/json"}, content=dumps_body(body)
        )
        self._authorize(request, role, api_key)
        return request

    def _authorize(self, request: httpx.Request, role: RoleSpec, api_key: str | None) -> None:
        if api_key is None:
            return
        if role.api_key_env:
            request.headers["authorization"] = f"Bearer {api_key}"  # a Bedrock API key
        elif aws.available():
            aws.sign(request, api_key, _SERVICE, aws.region_of(request.url.host))
        # Without botocore the call goes unsigned: only a replay gets here (a live run stops first, naming the extra),
        # and a replay matches method, URL and body.

    def parse_reply(self, response: httpx.Response) -> ProviderReply:
        """The forced tool's input as payload, else the text blocks as text; an InvokeModel Claude body is read as Anthropic's."""
        body = read_json(response, _API)
        if isinstance(body, dict) and body.get("type") == "message" and "content" in body:
            return AnthropicClient().parse_reply(response)
        message = mapping(mapping(mapping(body).get("output")).get("message"))
        if not isinstance(message.get("content"), list):
            raise ValueError(f"{_API} response has no output.message.content list: {snippet(response.text)}")
        blocks = [mapping(block) for block in items(message["content"])]
        uses = [mapping(block["toolUse"]) for block in blocks if "toolUse" in block]
        payload: Any | None = None
        text: str | None = None
        if uses:
            tool = uses[0]
            if isinstance(tool.get("input"), str):
                text = tool["input"]
            else:
                payload = tool.get("input")
        else:
            texts = [t for block in blocks if (t := string(block.get("text"))) is not None]
            text = "".join(texts) if texts else None
        reason = string(body.get("stopReason")) or ""
        answered = payload is not None or bool(text and text.strip())
        return ProviderReply(
            payload=payload,
            text=text,
            stop=_stop(reason, answered),
            detail=reason,
            model=None,
            usage=_usage(mapping(body.get("usage"))),
            raw=response.text,
        )

    def error_message(self, response: httpx.Response) -> str:
        """`<ErrorType>: <message>`, the type from the x-amzn-ErrorType header (or the body's __type)."""
        try:
            body = mapping(read_json(response, _API))
        except ValueError:
            return fallback_error(response)
        message = string(body.get("message")) or string(body.get("Message"))
        kind = error_type(response) or (string(body.get("__type")) or "").rpartition("#")[2]
        if not message:
            return f"{kind}: {fallback_error(response)}" if kind else fallback_error(response)
        return f"{kind}: {message}" if kind else message

    def reachability_request(self, role: RoleSpec, api_key: str | None) -> httpx.Request:
        """A Converse call of one output token (bedrock-runtime has no free model lookup): fails on bad credentials, route or model."""
        body = {"messages": [{"role": "user", "content": [{"text": "ping"}]}], "inferenceConfig": {"maxTokens": 1}}
        request = httpx.Request(
            "POST", role.route, headers={"content-type": "application/json"}, content=dumps_body(body)
        )
        self._authorize(request, role, api_key)
        return request


def _block(part: Part) -> dict[str, Any]:
    """A text block, or an image block with its bytes in base64 (the JSON wire form of Converse's blob)."""
    if isinstance(part, ImagePart):
        return {"image": {"format": _FORMATS[part.media_type], "source": {"bytes": base64_text(part.data)}}}
    return {"text": part.text}


def _stop(reason: str, answered: bool) -> Stop:
    """How the turn ended, from stopReason and whether anything came back."""
    if reason in _REFUSED:
        return "refused"
    if reason in _TRUNCATED:
        return "truncated"
    return "complete" if answered else "empty"


def _usage(usage: dict[str, Any]) -> Usage:
    """Billed tokens: inputTokens excludes cache reads and writes, so they are added back."""
    cached = count(usage.get("cacheReadInputTokens"))
    written = count(usage.get("cacheWriteInputTokens"))
    return reported_usage(
        input_tokens=count(usage.get("inputTokens")) + cached + written,
        output_tokens=count(usage.get("outputTokens")),
        cached_input_tokens=cached,
        cache_write_input_tokens=written,
    )
