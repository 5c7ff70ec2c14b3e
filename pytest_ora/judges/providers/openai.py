"""OpenAI client: Chat Completions at any route (OpenAI, OpenRouter, vLLM, Ollama, ...) and the Responses API.

The reply object travels as strict json_schema structured output. A route whose path ends in
`/responses` speaks the Responses API; any other route speaks Chat Completions.

Reference: OpenAI's API reference, "Chat Completions" (create) and "Responses" (create), the
"Structured Outputs" and "Images and vision" guides, "Models" (retrieve, list) and "Error codes";
OpenRouter's API reference for its error metadata.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import Any

import httpx

from ...core.models import RoleSpec
from ...core.usage import reported_usage
from ._wire import (
    base64_text,
    count,
    fallback_error,
    items,
    mapping,
    path_segment,
    read_json,
    sibling_url,
    snippet,
    string,
)
from .anthropic import takes_temperature as claude_takes_temperature
from .base import ImagePart, JudgePrompt, Part, ProviderReply, Stop, dumps_body, sampling_fields

__all__ = ["OpenAIClient", "takes_temperature"]

_ENDPOINTS = ("chat/completions", "responses")
_PROVIDERS = ("openai", "openai-compatible", "azure-openai")
# OpenAI's reasoning models (o-series, GPT-5 family) answer any temperature but 1 with a 400
# ("Unsupported value: 'temperature'"); only the older chat families take 0.
_OPENAI_MODEL = re.compile(r"(?:gpt-\d|chatgpt-|o\d)")
_OPENAI_SAMPLING = re.compile(r"(?:gpt-3\.5|gpt-4|chatgpt-4o|gpt-5-chat)")


def takes_temperature(model: str) -> bool:
    """Whether temperature 0 is safe to send for `model` (an OpenRouter-style vendor prefix is ignored)."""
    base = model.rsplit("/", 1)[-1].removeprefix("ft:")
    if base.startswith("claude-"):
        return claude_takes_temperature(base)
    if _OPENAI_MODEL.match(base):
        return _OPENAI_SAMPLING.match(base) is not None
    return True  # open-weight models behind vLLM, Ollama and the like all take it


@dataclass
class OpenAIClient:
    """Chat Completions or Responses; `name` is the provider: openai or openai-compatible.

    `structured=False` is for openai-compatible servers that reject json_schema output: the
    request then asks for plain JSON mode (`{"type": "json_object"}`) and the reply schema is
    enforced only by validation, as the system prompt already spells it out.
    """

    name: str = "openai"
    structured: bool = True

    def __post_init__(self) -> None:
        if self.name not in _PROVIDERS:
            raise ValueError(f"OpenAIClient speaks for {' or '.join(_PROVIDERS)}, not {self.name!r}")

    def build_request(self, role: RoleSpec, prompt: JudgePrompt, api_key: str | None) -> httpx.Request:
        """A Chat Completions or Responses call, chosen by the route's path."""
        body = (
            _responses_body(role, prompt, self.structured)
            if _is_responses(role.route)
            else self._chat_body(role, prompt)
        )
        headers = self.auth_headers(role, api_key) | {"content-type": "application/json"}
        return httpx.Request("POST", role.route, headers=headers, content=dumps_body(body))

    def auth_headers(self, role: RoleSpec, api_key: str | None) -> dict[str, str]:
        """The bearer token; none at all without a key (a local Ollama, say)."""
        return _headers(api_key)

    def _chat_body(self, role: RoleSpec, prompt: JudgePrompt) -> dict[str, Any]:
        """The Chat Completions body: system message, one user message of content parts."""
        system = [{"role": "system", "content": prompt.system}] if prompt.system else []
        body: dict[str, Any] = {
            "model": role.model,
            "messages": [*system, {"role": "user", "content": [_chat_part(part) for part in prompt.parts]}],
        }
        if prompt.sampling is not None:  # a candidate's call: its own parameters, exactly
            body |= sampling_fields(prompt, temperature="temperature", top_p="top_p")
        elif takes_temperature(role.model):
            body["temperature"] = 0
        # OpenAI deprecated max_tokens (its reasoning models refuse it, on Azure too); other servers mostly know only max_tokens.
        body["max_completion_tokens" if self.name != "openai-compatible" else "max_tokens"] = prompt.max_tokens
        if prompt.reply_schema is None:
            pass  # a candidate answers in plain text
        elif self.structured:
            schema = {"name": prompt.schema_name, "strict": True, "schema": prompt.reply_schema}
            body["response_format"] = {"type": "json_schema", "json_schema": schema}
        else:
            body["response_format"] = {"type": "json_object"}
        if prompt.cache_key is not None and self.name == "openai":
            body["prompt_cache_key"] = prompt.cache_key
        return body

    def parse_reply(self, response: httpx.Response) -> ProviderReply:
        """The message text (or the first tool call's arguments) of a Chat Completions or Responses reply."""
        body = read_json(response, "OpenAI")
        if not isinstance(body, dict):
            raise ValueError(f"OpenAI response is not a JSON object: {snippet(response.text)}")
        if "choices" in body:
            return _chat_reply(body, response.text)
        if "output" in body:
            return _responses_reply(body, response.text)
        if "error" in body:
            # OpenRouter reports some upstream failures inside a 200.
            problem = _describe_error(body) or snippet(response.text)
            raise ValueError(f"OpenAI response carries an error instead of a reply: {problem}")
        raise ValueError(f"OpenAI response has neither choices nor output: {snippet(response.text)}")

    def error_message(self, response: httpx.Response) -> str:
        """`<code>: <message>` from `{"error": {message, type, param, code}}`, with OpenRouter's upstream cause."""
        try:
            body = read_json(response, "OpenAI")
        except ValueError:
            return fallback_error(response)
        return _describe_error(body) or fallback_error(response)

    def reachability_request(self, role: RoleSpec, api_key: str | None) -> httpx.Request:
        """`GET .../models/<model>` for OpenAI; `GET .../models` (the list) for other servers."""
        # Compatible servers rarely serve one model by id, but all list them.
        target = f"models/{path_segment(role.model)}" if self.name == "openai" else "models"
        return httpx.Request("GET", sibling_url(role.route, _ENDPOINTS, target), headers=_headers(api_key))


@functools.lru_cache(maxsize=64)
def _is_responses(route: str) -> bool:
    """Whether the route is the Responses API (asked on every request: a panel has a few routes)."""
    return httpx.URL(route).path.rstrip("/").endswith("/responses")


def _headers(api_key: str | None) -> dict[str, str]:
    """The bearer token; none at all without a key (a local Ollama, say)."""
    return {"authorization": f"Bearer {api_key}"} if api_key is not None else {}


def _data_url(part: ImagePart) -> str:
    """An inline image as a data URL."""
    return f"data:{part.media_type};base64,{base64_text(part.data)}"


def _chat_part(part: Part) -> dict[str, Any]:
    """A Chat Completions content part."""
    if isinstance(part, ImagePart):
        return {"type": "image_url", "image_url": {"url": _data_url(part)}}
    return {"type": "text", "text": part.text}


def _responses_part(part: Part) -> dict[str, Any]:
    """A Responses input content part."""
    if isinstance(part, ImagePart):
        # detail is required by the Responses input_image type; "auto" is what the API assumes anyway.
        return {"type": "input_image", "image_url": _data_url(part), "detail": "auto"}
    return {"type": "input_text", "text": part.text}


def _responses_body(role: RoleSpec, prompt: JudgePrompt, structured: bool) -> dict[str, Any]:
    """The Responses body: instructions, one user input, text.format."""
    body: dict[str, Any] = {"model": role.model}
    if prompt.system:
        body["instructions"] = prompt.system
    body["input"] = [{"role": "user", "content": [_responses_part(part) for part in prompt.parts]}]
    if prompt.sampling is not None:  # a candidate's call: its own parameters, exactly
        body |= sampling_fields(prompt, temperature="temperature", top_p="top_p")
    elif takes_temperature(role.model):
        body["temperature"] = 0
    body["max_output_tokens"] = prompt.max_tokens
    if prompt.reply_schema is None:
        body["store"] = False  # a candidate answers in plain text: no text.format
        return body
    if structured:
        fmt: dict[str, Any] = {
            "type": "json_schema",
            "name": prompt.schema_name,
            "strict": True,
            "schema": prompt.reply_schema,
        }
    else:
        fmt = {"type": "json_object"}
    body["text"] = {"format": fmt}
    body["store"] = False  # a judge call need not be kept on the provider's side
    if prompt.cache_key is not None and role.provider == "openai":
        # OpenAI caches identical prefixes by itself; the key routes an entry's calls to the same cache.
        body["prompt_cache_key"] = prompt.cache_key
    return body


def _chat_reply(body: dict[str, Any], raw: str) -> ProviderReply:
    """choices[0].message of a Chat Completions reply."""
    choices = items(body.get("choices"))
    first = mapping(choices[0]) if choices else {}
    message = first.get("message")
    if not isinstance(message, dict):
        raise ValueError(f"Chat Completions response has no choices[0].message: {snippet(raw)}")
    finish = string(first.get("finish_reason")) or ""
    text = _content_text(message.get("content"))
    if text is None:
        text = _tool_arguments(message.get("tool_calls"))
    refusal = string(message.get("refusal"))
    stop: Stop
    if refusal:
        stop, detail = "refused", refusal
    elif finish == "length":
        stop, detail = "truncated", finish
    elif finish == "content_filter":
        stop, detail = "refused", finish
    else:
        stop, detail = ("complete" if text and text.strip() else "empty"), finish
    usage = mapping(body.get("usage"))
    return ProviderReply(
        payload=None,
        text=text,
        stop=stop,
        detail=detail,
        model=string(body.get("model")),
        usage=reported_usage(
            input_tokens=count(usage.get("prompt_tokens")),
            output_tokens=count(usage.get("completion_tokens")),
            cached_input_tokens=count(mapping(usage.get("prompt_tokens_details")).get("cached_tokens")),
            reasoning_tokens=count(mapping(usage.get("completion_tokens_details")).get("reasoning_tokens")),
        ),
        raw=raw,
    )


def _content_text(content: Any) -> str | None:
    """Message content as text: a string, or (some compatible servers) a list of text parts."""
    if isinstance(content, str):
        return content
    texts = [t for part in items(content) if (t := string(mapping(part).get("text"))) is not None]
    return "".join(texts) if texts else None


def _tool_arguments(tool_calls: Any) -> str | None:
    """The first tool call's arguments, a JSON string (content is null beside tool calls)."""
    for call in items(tool_calls):
        arguments = string(mapping(mapping(call).get("function")).get("arguments"))
        if arguments is not None:
            return arguments
    return None


def _responses_reply(body: dict[str, Any], raw: str) -> ProviderReply:
    """The message item(s) of a Responses reply, wherever they sit in output[]."""
    status = string(body.get("status")) or ""
    if status == "failed":
        raise ValueError(f"Responses call failed: {_describe_error(body) or snippet(raw)}")
    if not isinstance(body.get("output"), list):
        raise ValueError(f"Responses response has no output list: {snippet(raw)}")
    texts: list[str] = []
    refusals: list[str] = []
    for item in items(body["output"]):
        if mapping(item).get("type") != "message":
            continue  # reasoning items and the like come first and carry no answer
        for entry in items(mapping(item).get("content")):
            part = mapping(entry)
            if part.get("type") == "output_text" and (text := string(part.get("text"))) is not None:
                texts.append(text)
            elif part.get("type") == "refusal" and (refusal := string(part.get("refusal"))) is not None:
                refusals.append(refusal)
    joined = "".join(texts) if texts else None
    reason = string(mapping(body.get("incomplete_details")).get("reason")) or ""
    stop: Stop
    if refusals:
        stop, detail = "refused", " ".join(refusals)
    elif status == "incomplete":
        stop, detail = ("refused" if reason == "content_filter" else "truncated"), reason or status
    else:
        stop, detail = ("complete" if joined and joined.strip() else "empty"), status
    usage = mapping(body.get("usage"))
    return ProviderReply(
        payload=None,
        text=joined,
        stop=stop,
        detail=detail,
        model=string(body.get("model")),
        usage=reported_usage(
            input_tokens=count(usage.get("input_tokens")),
            output_tokens=count(usage.get("output_tokens")),
            cached_input_tokens=count(mapping(usage.get("input_tokens_details")).get("cached_tokens")),
            reasoning_tokens=count(mapping(usage.get("output_tokens_details")).get("reasoning_tokens")),
        ),
        raw=raw,
    )


def _describe_error(body: Any) -> str:
    """One line from an error body: OpenAI's `{"error": {...}}`, a bare `{"error": "..."}`, or OpenRouter's metadata."""
    error = mapping(body).get("error")
    if isinstance(error, str):
        return error  # Ollama and some proxies
    error = mapping(error)
    message = string(error.get("message")) or ""
    code, kind, param = error.get("code"), string(error.get("type")), string(error.get("param"))
    label = code if isinstance(code, str) and code else kind
    text = f"{label}: {message}" if label and message else message
    if param and param not in text:
        text += f" (param: {param})"
    metadata = mapping(error.get("metadata"))
    upstream = metadata.get("raw")
    if upstream is not None:
        # OpenRouter's own message is generic ("Provider returned error"); the cause is here.
        cause = upstream if isinstance(upstream, str) else json.dumps(upstream, default=str)
        provider = string(metadata.get("provider_name"))
        text += f" (upstream{' ' + provider if provider else ''}: {cause})"
    return text.strip()
