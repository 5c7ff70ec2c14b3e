"""Anthropic Messages API client: the reply object travels as the input of a forced tool call.

Reference: Anthropic's API documentation, "Messages" (create a message), "Tool use" (forcing a
tool with tool_choice), "Vision" (base64 image blocks), "Models" (get a model) and "Errors".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import httpx

from ...core.models import RoleSpec
from ...core.usage import Usage, reported_usage
from ._wire import base64_text, count, fallback_error, mapping, path_segment, read_json, sibling_url, snippet, string
from .base import ImagePart, JudgePrompt, Part, ProviderReply, Stop, dumps_body, sampling_fields

__all__ = ["API_VERSION", "AnthropicClient", "output_schema", "takes_temperature"]

API_VERSION = "2023-06-01"
_API = "Anthropic Messages"
_TOOL_DESCRIPTION = "Submit the judge's reply object for this packet: every criterion scored and noted."
_EPHEMERAL: dict[str, Any] = {"cache_control": {"type": "ephemeral"}}
"""A prompt-cache breakpoint (Anthropic's "Prompt caching" guide): the prefix up to this block is cached 5 minutes."""
_SKIPPED_BLOCKS = frozenset({"thinking", "redacted_thinking"})
_TRUNCATED = frozenset({"max_tokens", "model_context_window_exceeded"})
# Claude models up to the 4.6 generation take temperature; from Opus 4.7 on any value is a 400
# ("`temperature` is deprecated for this model"), so newer and unknown models get the default.
_SAMPLING_MODELS = re.compile(r"claude-(?:instant|[23]|(?:opus|sonnet|haiku)-4(?:-[0-6])?(?:-\d{8})?$)")


def takes_temperature(model: str) -> bool:
    """Whether the Messages API accepts temperature 0 for `model`."""
    return _SAMPLING_MODELS.match(model) is not None


@dataclass
class AnthropicClient:
    """The Messages API (`POST route`), reply forced through one tool call."""

    tool_name: str = JudgePrompt.schema_name
    """The tool whose input is the reply; JudgePrompt's default schema name."""
    name: str = field(default="anthropic", init=False)

    def build_request(self, role: RoleSpec, prompt: JudgePrompt, api_key: str | None) -> httpx.Request:
        """One user turn (text and image blocks), the reply schema as the one forced tool.

        With extended thinking (role.thinking_budget) a forced tool is not allowed: the reply schema is
        sent as structured output (output_config), the budget comes on top of max_tokens, and no
        temperature is sent (thinking takes none but the default).
        """
        thinking = role.thinking_budget
        body: dict[str, Any] = {"model": role.model, "max_tokens": prompt.max_tokens + (thinking or 0)}
        if thinking is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": thinking}
        elif prompt.sampling is not None:  # a candidate's call: its own parameters, exactly
            body |= sampling_fields(prompt, temperature="temperature", top_p="top_p")
        elif takes_temperature(role.model):
            body["temperature"] = 0
        cache = prompt.cache_key is not None
        # Prompt caching: a breakpoint after the system prompt caches tools and system (the same for
        # every call of the run), one after the entry part caches that too (the same for an entry).
        if prompt.system:
            body["system"] = [{"type": "text", "text": prompt.system, **_EPHEMERAL}] if cache else prompt.system
        body["messages"] = [{"role": "user", "content": [_block(part, cache) for part in prompt.parts]}]
        if prompt.reply_schema is None:
            pass  # a candidate answers in plain text: no tool, no structured output
        elif thinking is not None:
            body["output_config"] = {"format": {"type": "json_schema", "schema": output_schema(prompt.reply_schema)}}
        else:
            body["tools"] = [
                {"name": prompt.schema_name, "description": _TOOL_DESCRIPTION, "input_schema": prompt.reply_schema}
            ]
            body["tool_choice"] = {"type": "tool", "name": prompt.schema_name}
        headers = _headers(api_key) | {"content-type": "application/json"}
        return httpx.Request("POST", role.route, headers=headers, content=dumps_body(body))

    def parse_reply(self, response: httpx.Response) -> ProviderReply:
        """The tool call's input as payload, else the text blocks as text (native JSON output)."""
        body = read_json(response, _API)
        if not isinstance(body, dict) or not isinstance(body.get("content"), list):
            raise ValueError(f"{_API} response has no content list: {snippet(response.text)}")
        blocks = [b for b in body["content"] if isinstance(b, dict) and b.get("type") not in _SKIPPED_BLOCKS]
        tool = _tool_use(blocks, self.tool_name)
        payload: Any | None = None
        if tool is not None and isinstance(tool.get("input"), str):
            text: str | None = tool["input"]  # a proxy that re-serialised the input: validation parses it
        elif tool is not None:
            payload, text = tool.get("input"), None
        else:
            texts = [t for b in blocks if b.get("type") == "text" and (t := string(b.get("text"))) is not None]
            text = "".join(texts) if texts else None
        reason = string(body.get("stop_reason")) or ""
        answered = payload is not None or bool(text and text.strip())
        return ProviderReply(
            payload=payload,
            text=text,
            stop=_stop(reason, answered),
            detail=reason,
            model=string(body.get("model")),
            usage=_usage(mapping(body.get("usage"))),
            raw=response.text,
        )

    def error_message(self, response: httpx.Response) -> str:
        """`<error type>: <message>` from `{"type": "error", "error": {...}}`."""
        try:
            body = read_json(response, _API)
        except ValueError:
            return fallback_error(response)
        error = mapping(mapping(body).get("error"))
        message, kind = string(error.get("message")), string(error.get("type"))
        if not message:
            return fallback_error(response)
        return f"{kind}: {message}" if kind else message

    def reachability_request(self, role: RoleSpec, api_key: str | None) -> httpx.Request:
        """`GET .../v1/models/<model>`: free, and fails on a bad key, route or model id."""
        url = sibling_url(role.route, ("messages",), f"models/{path_segment(role.model)}")
        return httpx.Request("GET", url, headers=_headers(api_key))


_STRUCTURED_KEYS = frozenset(
    {
        "type",
        "enum",
        "const",
        "anyOf",
        "allOf",
        "description",
        "title",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "$defs",
        "$ref",
    }
)
"""JSON Schema keywords Anthropic's structured outputs take; others (minimum, maximum, multipleOf, ...) are refused."""


def output_schema(schema: Any) -> Any:
    """The reply schema as structured outputs take it: unsupported keywords written into the description (the
    reply's validation still enforces them), objects closed, oneOf as anyOf; as Anthropic's SDK transforms it."""
    if isinstance(schema, list):
        return [output_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    kept: dict[str, Any] = {}
    moved: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "oneOf":
            kept["anyOf"] = output_schema(value)
        elif key in ("properties", "$defs"):
            kept[key] = {name: output_schema(item) for name, item in value.items()}
        elif key in ("items", "anyOf", "allOf"):
            kept[key] = output_schema(value)
        elif (key == "minItems" and value in (0, 1)) or key in _STRUCTURED_KEYS:
            kept[key] = value
        else:
            moved[key] = value
    if kept.get("type") == "object":
        kept["additionalProperties"] = False
    if moved:
        note = "{" + ", ".join(f"{key}: {value}" for key, value in moved.items()) + "}"
        kept["description"] = f"{kept['description']}\n\n{note}" if "description" in kept else note
    return kept


def _headers(api_key: str | None) -> dict[str, str]:
    """Auth and version headers; no key header at all without a key (a loopback judge)."""
    headers = {"anthropic-version": API_VERSION}
    if api_key is not None:
        headers = {"x-api-key": api_key} | headers
    return headers


def _block(part: Part, cache: bool = False) -> dict[str, Any]:
    """A text block (a cache breakpoint where the part ends the repeated prefix), or a base64 image block."""
    if isinstance(part, ImagePart):
        source = {"type": "base64", "media_type": part.media_type, "data": base64_text(part.data)}
        return {"type": "image", "source": source}
    if cache and part.cache_break:
        return {"type": "text", "text": part.text, **_EPHEMERAL}
    return {"type": "text", "text": part.text}


def _tool_use(blocks: list[dict[str, Any]], tool_name: str) -> dict[str, Any] | None:
    """The tool_use block named `tool_name`, else the first tool_use block, else None."""
    calls = [block for block in blocks if block.get("type") == "tool_use"]
    named = [block for block in calls if block.get("name") == tool_name]
    chosen = named or calls
    return chosen[0] if chosen else None


def _stop(reason: str, answered: bool) -> Stop:
    """How the turn ended, from stop_reason and whether anything came back."""
    if reason == "refusal":
        return "refused"
    if reason in _TRUNCATED:
        return "truncated"
    return "complete" if answered else "empty"


def _usage(usage: dict[str, Any]) -> Usage:
    """Billed tokens: input_tokens excludes cache reads and writes, so they are added back."""
    cached = count(usage.get("cache_read_input_tokens"))
    written = count(usage.get("cache_creation_input_tokens"))
    return reported_usage(
        input_tokens=count(usage.get("input_tokens")) + cached + written,
        output_tokens=count(usage.get("output_tokens")),
        cached_input_tokens=cached,
        cache_write_input_tokens=written,
    )
