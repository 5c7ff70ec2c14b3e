"""Google Gemini API client (provider `google`): generateContent with a JSON response schema.

The route is the full method URL, e.g. `.../v1beta/models/<model>:generateContent`; the key
travels in the `x-goog-api-key` header, never as a `key=` query parameter. A
`:streamGenerateContent` route answers with a JSON array of chunks, which is read whole.

Reference: the Gemini API reference, "Generating content" (generateContent,
streamGenerateContent, GenerationConfig, FinishReason, BlockReason), the "Structured output"
guide (responseJsonSchema), "Models" (get) and "Troubleshooting" (error format).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import httpx

from ...core.models import RoleSpec
from ...core.usage import Usage, reported_usage
from ._wire import base64_text, count, fallback_error, items, mapping, path_segment, read_json, snippet, string
from .base import ImagePart, JudgePrompt, Part, ProviderReply, Stop, dumps_body, sampling_fields

__all__ = ["GeminiClient", "takes_temperature"]

_API = "Gemini generateContent"
_REFUSED = frozenset(
    {"SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT"}
)
# Google advises leaving Gemini 3 and later at their default temperature: lower values can make
# them loop, and a looping judge runs into the token limit.
_DEFAULT_TEMPERATURE_MODELS = re.compile(r"gemini-(?:[3-9]|\d\d)")


def takes_temperature(model: str) -> bool:
    """Whether to send temperature 0 for `model`."""
    return _DEFAULT_TEMPERATURE_MODELS.match(model.rsplit("/", 1)[-1]) is None


@dataclass
class GeminiClient:
    """generateContent at the route, reply as responseJsonSchema structured output."""

    name: str = field(default="google", init=False)

    def build_request(self, role: RoleSpec, prompt: JudgePrompt, api_key: str | None) -> httpx.Request:
        """System instruction, one user turn (text and inline images), JSON output config."""
        if prompt.sampling is not None:  # a candidate's call: its own parameters, exactly
            config: dict[str, Any] = sampling_fields(prompt, temperature="temperature", top_p="topP")
        else:
            config = {"temperature": 0} if takes_temperature(role.model) else {}
        config["maxOutputTokens"] = prompt.max_tokens
        if prompt.reply_schema is not None:  # a candidate answers in plain text
            config |= {"responseMimeType": "application/json", "responseJsonSchema": prompt.reply_schema}
        body: dict[str, Any] = {}
        if prompt.system:
            body["systemInstruction"] = {"parts": [{"text": prompt.system}]}
        body["contents"] = [{"role": "user", "parts": [_part(part) for part in prompt.parts]}]
        body["generationConfig"] = config
        headers = _headers(api_key) | {"content-type": "application/json"}
        return httpx.Request("POST", role.route, headers=headers, content=dumps_body(body))

    def parse_reply(self, response: httpx.Response) -> ProviderReply:
        """The first candidate's text parts, thoughts skipped; a streamed array is read chunk by chunk."""
        body = read_json(response, _API)
        chunks = body if isinstance(body, list) else [body]
        if not chunks or not all(isinstance(chunk, dict) for chunk in chunks):
            raise ValueError(f"{_API} response is not a JSON object or array of objects: {snippet(response.text)}")
        for chunk in chunks:
            if "error" in chunk:  # a stream can fail after its first chunks
                problem = _describe_error(chunk) or snippet(response.text)
                raise ValueError(f"{_API} response carries an error instead of a reply: {problem}")
        texts: list[str] = []
        usage: dict[str, Any] = {}
        model: str | None = None
        finish, block, seen = "", "", False
        for chunk in chunks:
            block = block or _block_reason(mapping(chunk.get("promptFeedback")))
            model = string(chunk.get("modelVersion")) or model
            usage = mapping(chunk.get("usageMetadata")) or usage
            candidates = items(chunk.get("candidates"))
            if not candidates:
                continue
            seen = True
            candidate = mapping(candidates[0])
            finish = string(candidate.get("finishReason")) or finish
            parts = items(mapping(candidate.get("content")).get("parts"))
            texts += [piece for part in parts if (piece := _text(part))]
        if not seen and not block:
            raise ValueError(f"{_API} response has no candidates and no block reason: {snippet(response.text)}")
        text = "".join(texts) if texts else None
        stop, detail = _stop(block, finish, text)
        return ProviderReply(
            payload=None, text=text, stop=stop, detail=detail, model=model, usage=_usage(usage), raw=response.text
        )

    def error_message(self, response: httpx.Response) -> str:
        """`<status>: <message>` from `{"error": {code, message, status}}`."""
        try:
            body = read_json(response, _API)
        except ValueError:
            return fallback_error(response)
        first = items(body)[0] if items(body) else body  # a failed stream answers with an array
        return _describe_error(first) or fallback_error(response)

    def reachability_request(self, role: RoleSpec, api_key: str | None) -> httpx.Request:
        """`GET <origin>/<version>/models/<model>`: free, and fails on a bad key, route or model id."""
        url = httpx.URL(role.route)
        path, _, query = url.raw_path.decode("ascii").partition("?")
        prefix, found, _ = path.partition("/models/")
        raw = (prefix if found else "/v1beta") + f"/models/{path_segment(role.model)}" + (f"?{query}" if query else "")
        return httpx.Request("GET", url.copy_with(raw_path=raw.encode("ascii")), headers=_headers(api_key))


def _headers(api_key: str | None) -> dict[str, str]:
    """The key header; none at all without a key (a loopback judge)."""
    return {"x-goog-api-key": api_key} if api_key is not None else {}


def _part(part: Part) -> dict[str, Any]:
    """A text part, or an inline base64 image."""
    if isinstance(part, ImagePart):
        return {"inlineData": {"mimeType": part.media_type, "data": base64_text(part.data)}}
    return {"text": part.text}


def _text(entry: Any) -> str:
    """A part's answer text; thought summaries and non-text parts give none."""
    part = mapping(entry)
    if part.get("thought") is True:
        return ""
    return string(part.get("text")) or ""


def _stop(block: str, finish: str, text: str | None) -> tuple[Stop, str]:
    """How the turn ended, and the provider's reason, verbatim."""
    if block:
        return "refused", block
    if finish in _REFUSED:
        return "refused", finish
    if finish == "MAX_TOKENS":
        return "truncated", finish
    return ("complete" if text and text.strip() else "empty"), finish


def _block_reason(feedback: dict[str, Any]) -> str:
    """Why the prompt was blocked (with Google's explanation when given), or ''."""
    reason = string(feedback.get("blockReason")) or ""
    message = string(feedback.get("blockReasonMessage"))
    return f"{reason}: {message}" if reason and message else reason


def _usage(usage: dict[str, Any]) -> Usage:
    """Billed tokens: thoughts are billed as output beside the candidates' tokens."""
    thoughts = count(usage.get("thoughtsTokenCount"))
    return reported_usage(
        input_tokens=count(usage.get("promptTokenCount")),
        output_tokens=count(usage.get("candidatesTokenCount")) + thoughts,
        cached_input_tokens=count(usage.get("cachedContentTokenCount")),
        reasoning_tokens=thoughts,
    )


def _describe_error(body: Any) -> str:
    """One line from `{"error": {code, message, status}}`, or '' when the body is not that."""
    error = mapping(mapping(body).get("error"))
    message = string(error.get("message")) or ""
    status = string(error.get("status"))
    if not message:
        return ""
    return f"{status}: {message}" if status else message
