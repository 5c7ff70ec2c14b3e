"""Wire formats of the loopback reference judge (a test double): four providers' request and
response shapes, as the recorded fixtures show them (the cloud providers' are in cloud.py).

Each format reads a judge call out of a request body, and writes the 200 reply, the error
bodies and the model endpoints the way that provider does. Every id in a body is derived from
a hash of the request, and clock fields are fixed, so equal requests get equal bytes.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import gzip
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ..core.errors import OraError

__all__ = [
    "BAD_GATEWAY",
    "RESPONSES",
    "WIRES",
    "BadRequest",
    "Call",
    "Response",
    "Wire",
    "anthropic_token_headers",
    "apply_quirk",
    "compact_json",
    "estimate_tokens",
    "rate_limit_headers",
    "reply_text_of",
    "unparsable_message",
]

# Fixed stand-ins for values the real APIs fill with clocks: bodies must not change between runs.
_CREATED = 1767225600  # 2026-01-01T00:00:00Z
_ANTHROPIC_VERSIONS = ("2023-06-01", "2023-01-01", "2026-10-21")
"""2026-10-21 is what the current Python SDK (anthropic 2.15) sends."""
_REFUSAL = "I'm sorry, but I can't help with that request."
_THINKING = "I compare the answer with each method step before scoring."
_PREAMBLE = "I'll record my scores with the tool."
_OPENAI_ROLES = ("system", "developer", "user", "assistant", "tool")
BAD_GATEWAY = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>cloudflare</center>\r\n</body>\r\n</html>\r\n"
)


@dataclass(frozen=True)
class Response:
    """What the handler writes: status, headers, body bytes."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes


@dataclass(frozen=True)
class Call:
    """A judge call reduced to what the scorer and the reply builders need."""

    provider: str
    model: str
    text: str
    images: tuple[bytes, ...]
    tool: str | None
    """The tool (function) to answer with; None answers with text."""
    forced: bool
    """Whether the request forced that tool."""
    seed: str
    """Hex digest of path and body, the source of every id in the response."""
    input_tokens: int
    max_tokens: int | None = None
    """The output token limit the request set, if any."""
    cache_read: int = 0
    """Input tokens read from the prompt cache (see promptcache.py), inside input_tokens."""
    cache_write: int = 0
    """Input tokens written to the prompt cache (Anthropic), inside input_tokens."""
    answer: str | None = None
    """A request without a reply schema or tools: the plain-text answer (answers.py), sent as the model's text."""


class BadRequest(OraError):
    """A request the provider would refuse with 400 (or another status), with its message."""

    def __init__(self, message: str, param: str | None = None, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param = param
        self.status = status
        self.code = code


# --- serialisation -------------------------------------------------------------------------


def compact_json(payload: Any) -> bytes:
    """JSON as the APIs that send compact bodies write it."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _pretty(payload: Any, indent: int = 2) -> bytes:
    return (json.dumps(payload, ensure_ascii=False, indent=indent) + "\n").encode("utf-8")


def reply_text_of(call: Call, reply: Any) -> str:
    """The text a reply carries: the judge's reply object as JSON, or the plain answer of a call without a schema."""
    if call.answer is not None:
        return call.answer
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":"))


def _token_id(seed: str, size: int = 24) -> str:
    """A stable base62-looking id from a hex seed."""
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    number = int(hashlib.sha256(seed.encode()).hexdigest(), 16)
    chars = []
    for _ in range(size):
        number, digit = divmod(number, 62)
        chars.append(alphabet[digit])
    return "".join(chars)


_URL_SAFE = str.maketrans("-_", "+/")


def _decode_image(data: Any, where: str, url_safe: bool = False) -> bytes:
    """Image bytes from base64; `url_safe` also takes the URL-safe alphabet (never both in one value), as Gemini does."""
    if not isinstance(data, str):
        raise BadRequest(f"{where}: Input should be a valid string", where)
    try:
        if url_safe and ("-" in data or "_" in data) and not ("+" in data or "/" in data):
            # The URL-safe alphabet (google-genai sends it for Gemini inline_data; the API takes both).
            return base64.b64decode(data.translate(_URL_SAFE), validate=True)
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest(f"{where}: invalid base64 data", where) from None


def _reset_time(seconds: float) -> str:
    moment = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=seconds)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def _masked(key: str) -> str:
    """A key as OpenAI shows it in errors, never whole."""
    show = min(4, len(key) // 4)
    return f"{key[:show]}****{key[len(key) - show :] if show else ''}"


# --- reply content, shared by the wire formats ---------------------------------------------


def _text_for(reply_text: str, kind: str | None) -> str:
    """The reply as a text answer, with the text quirks applied."""
    if kind == "fenced":
        return f"```json\n{reply_text}\n```"
    if kind == "prose":
        return f"Here is my assessment: {reply_text} Hope this helps."
    if kind == "truncated":
        return reply_text[: len(reply_text) // 2]
    return reply_text


# --- wire formats --------------------------------------------------------------------------


class Wire:
    """One provider's wire format: credentials, request parsing, replies, errors."""

    name = ""
    api = "default"
    """The provider's API this format speaks (OpenAI: chat or responses)."""

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        """The API key the request presents."""
        raise NotImplementedError

    def check_headers(self, headers: Mapping[str, str]) -> None:
        """Refuse a request missing a required non-key header."""

    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:
        """The judge call in a request body; raise BadRequest when malformed."""
        raise NotImplementedError

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        """The 200 response for a call."""
        raise NotImplementedError

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        """An error response; problem is auth, auth_missing, bad_request, not_found, rate_limit, ...;
        refused carries a bad request's parameter and code where the format names them."""
        raise NotImplementedError

    def model_info(self, model: str) -> Any:
        """The body of a GET for one model."""
        raise NotImplementedError

    def model_list(self, models: Sequence[str]) -> Any:
        """The body of a GET for the model list."""
        raise NotImplementedError

    def auth_message(self, key: str | None) -> str:
        """The provider's message for a missing or wrong key."""
        raise NotImplementedError

    def not_found(self, model: str) -> tuple[int, str]:
        """Status and message for an unknown model."""
        return 404, f"model: {model}"

    def auth_status(self, key: str | None) -> int:
        """The status of a missing or wrong key."""
        return 401


def _limit(options: Any, names: Sequence[str]) -> int | None:
    """The first positive integer option among names (an output token limit)."""
    for name in names:
        value = options.get(name) if isinstance(options, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def estimate_tokens(text: str) -> int:
    """A stable stand-in for a tokenizer: four characters a token."""
    return max(1, len(text) // 4)


def _bearer(headers: Mapping[str, str]) -> str | None:
    value = headers.get("authorization", "")
    scheme, _, token = value.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


class _Anthropic(Wire):
    """Anthropic Messages API."""

    name = "anthropic"
    _types: ClassVar[dict[str, str]] = {
        "auth": "authentication_error",
        "auth_missing": "authentication_error",
        "bad_request": "invalid_request_error",
        "not_found": "not_found_error",
        "rate_limit": "rate_limit_error",
        "server": "api_error",
        "unavailable": "api_error",
        "overloaded": "overloaded_error",
        "timeout": "timeout_error",
    }

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        # x-api-key as the API reference documents it; the current Python SDK sends the key as a bearer token.
        return headers.get("x-api-key") or _bearer(headers)

    def check_headers(self, headers: Mapping[str, str]) -> None:
        version = headers.get("anthropic-version")
        if not version:
            raise BadRequest("anthropic-version: header is required")
        if version not in _ANTHROPIC_VERSIONS:
            raise BadRequest(f"anthropic-version: invalid version {version!r}")

    def auth_message(self, key: str | None) -> str:
        return "x-api-key header is required" if not key else "invalid x-api-key"

    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:
        if not isinstance(body, dict):
            raise BadRequest("Input should be a valid dictionary")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise BadRequest("model: Field required", "model")
        max_tokens = body.get("max_tokens")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise BadRequest("max_tokens: Field required", "max_tokens")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("messages: Field required", "messages")
        texts: list[str] = []
        images: list[bytes] = []
        for index, message in enumerate(messages):
            where = f"messages.{index}"
            if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
                raise BadRequest(f"{where}: Input does not match the expected shape.", where)
            if message["role"] == "user":
                self._content(message.get("content"), where, texts, images)
        tool, forced = self._tool(body.get("tools"), body.get("tool_choice"))
        text = "\n\n".join(texts)
        return Call(self.name, model, text, tuple(images), tool, forced, seed, max(1, size // 4), max_tokens)

    def _content(self, content: Any, where: str, texts: list[str], images: list[bytes]) -> None:
        if isinstance(content, str):
            texts.append(content)
            return
        if not isinstance(content, list):
            raise BadRequest(f"{where}.content: Input should be a valid list", f"{where}.content")
        for position, block in enumerate(content):
            at = f"{where}.content.{position}"
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                raise BadRequest(f"{at}: Input does not match the expected shape.", at)
            if block["type"] == "text":
                if not isinstance(block.get("text"), str):
                    raise BadRequest(f"{at}.text: Field required", f"{at}.text")
                texts.append(block["text"])
            elif block["type"] == "image":
                source = block.get("source")
                if not isinstance(source, dict) or source.get("type") != "base64":
                    raise BadRequest(f"{at}.source: Input does not match the expected shape.", f"{at}.source")
                images.append(_decode_image(source.get("data"), f"{at}.source.data"))

    def _tool(self, tools: Any, choice: Any) -> tuple[str | None, bool]:
        if tools is None:
            return None, False
        named = isinstance(tools, list) and all(isinstance(t, dict) and isinstance(t.get("name"), str) for t in tools)
        if not named:
            raise BadRequest("tools: Input should be a valid list of tools", "tools")
        names = [t["name"] for t in tools]
        if not names:
            return None, False
        if isinstance(choice, dict) and choice.get("type") == "tool":
            if choice.get("name") not in names:
                raise BadRequest(f"tool_choice.name: Tool '{choice.get('name')}' not found in tools", "tool_choice")
            return str(choice["name"]), True
        if isinstance(choice, dict) and choice.get("type") == "none":
            return None, False
        return names[0], isinstance(choice, dict) and choice.get("type") == "any"

    def _model(self, model: str) -> str:
        return model if re.search(r"-\d{8}$", model) else f"{model}-20260101"

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        reply_text = reply_text_of(call, reply)
        content: list[dict[str, Any]] = []
        if kind == "thinking_first":
            signature = base64.b64encode(hashlib.sha512(call.seed.encode()).digest()).decode("ascii")
            content.append({"type": "thinking", "thinking": _THINKING, "signature": signature})
        stop = "end_turn"
        if kind == "truncated":
            content.append({"type": "text", "text": _text_for(reply_text, kind)})
            stop = "max_tokens"
        elif kind == "refusal":
            stop = "refusal"
        elif kind == "empty":
            pass
        elif call.tool is not None and kind != "prose":
            if kind == "text_before_tool":
                content.append({"type": "text", "text": _PREAMBLE})
            tool_id = "toolu_" + _token_id(call.seed + "tool")
            content.append({"type": "tool_use", "id": tool_id, "name": call.tool, "input": reply})
            stop = "tool_use"
        else:
            content.append({"type": "text", "text": _text_for(reply_text, kind)})
        output_tokens = estimate_tokens(json.dumps(content))
        body = {
            "id": "msg_" + _token_id(call.seed),
            "type": "message",
            "role": "assistant",
            "model": self._model(call.model),
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": {
                "input_tokens": call.input_tokens - call.cache_read - call.cache_write,
                "cache_creation_input_tokens": call.cache_write,
                "cache_read_input_tokens": call.cache_read,
                "cache_creation": {"ephemeral_5m_input_tokens": call.cache_write, "ephemeral_1h_input_tokens": 0},
                "output_tokens": output_tokens,
                "service_tier": "standard",
            },
        }
        headers = (
            ("content-type", "application/json"),
            ("request-id", "req_" + _token_id(call.seed + "req")),
            ("anthropic-ratelimit-requests-limit", "4000"),
            ("anthropic-ratelimit-requests-remaining", "3999"),
            *anthropic_token_headers(call.input_tokens - call.cache_read, output_tokens),
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
        request_id = "req_" + _token_id(seed + "req")
        body = {"type": "error", "error": {"type": self._types[problem], "message": message}, "request_id": request_id}
        retry = status in (408, 409, 429) or status >= 500
        headers = [
            ("content-type", "application/json"),
            ("request-id", request_id),
            ("x-should-retry", "true" if retry else "false"),
        ]
        return Response(status, tuple(headers) + tuple(extra), compact_json(body))

    def model_info(self, model: str) -> Any:
        title = model.replace("-", " ").title()
        return {
            "type": "model",
            "id": model,
            "display_name": title,
            "created_at": "2026-01-01T00:00:00Z",
            "lifecycle": "active",
        }

    def model_list(self, models: Sequence[str]) -> Any:
        data = [self.model_info(m) for m in models]
        first = data[0]["id"] if data else None
        last = data[-1]["id"] if data else None
        return {"data": data, "has_more": False, "first_id": first, "last_id": last}


class _OpenAI(Wire):
    """OpenAI Chat Completions."""

    name = "openai"
    _errors: ClassVar[dict[str, tuple[str, str | None]]] = {
        "auth": ("invalid_request_error", "invalid_api_key"),
        "auth_missing": ("invalid_request_error", None),
        "bad_request": ("invalid_request_error", None),
        "not_found": ("invalid_request_error", "model_not_found"),
        "rate_limit": ("requests", "rate_limit_exceeded"),
        "server": ("server_error", None),
        "unavailable": ("server_error", None),
        "overloaded": ("server_error", None),
        "timeout": ("server_error", None),
    }

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        return _bearer(headers)

    def auth_message(self, key: str | None) -> str:
        if not key:
            return (
                "You didn't provide an API key. You need to provide your API key in an Authorization header "
                "using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (i.e. "
                "<key>). You can obtain an API key from https://platform.openai.com/account/api-keys."
            )
        return (
            f"Incorrect API key provided: {_masked(key)}. You can find your API key at "
            "https://platform.openai.com/account/api-keys."
        )

    def not_found(self, model: str) -> tuple[int, str]:
        return 404, f"The model `{model}` does not exist or you do not have access to it."

    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:
        if not isinstance(body, dict):
            raise BadRequest("Invalid type for request body: expected an object.")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise BadRequest("you must provide a model parameter")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            raise BadRequest("Missing required parameter: 'messages'.", "messages", code="missing_required_parameter")
        texts: list[str] = []
        images: list[bytes] = []
        for index, message in enumerate(messages):
            where = f"messages[{index}]"
            if not isinstance(message, dict) or message.get("role") not in _OPENAI_ROLES:
                raise BadRequest(f"Invalid value for '{where}.role'.", f"{where}.role", code="invalid_value")
            if message["role"] == "user":
                self._content(message.get("content"), where, texts, images)
        self._response_format(body.get("response_format"))
        tool, forced = self._tool(body.get("tools"), body.get("tool_choice"))
        limit = _limit(body, ("max_completion_tokens", "max_tokens"))
        text = "\n\n".join(texts)
        return Call(self.name, model, text, tuple(images), tool, forced, seed, max(1, size // 4), limit)

    def _content(self, content: Any, where: str, texts: list[str], images: list[bytes]) -> None:
        if isinstance(content, str):
            texts.append(content)
            return
        if not isinstance(content, list):
            raise BadRequest(f"Invalid type for '{where}.content'.", f"{where}.content", code="invalid_type")
        for position, part in enumerate(content):
            at = f"{where}.content[{position}]"
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            elif kind == "image_url" and isinstance(part.get("image_url"), dict):
                url = part["image_url"].get("url")
                if isinstance(url, str) and url.startswith("data:"):
                    images.append(_decode_image(url.partition(",")[2], f"{at}.image_url.url"))
            else:
                raise BadRequest(f"Invalid value for '{at}.type'.", f"{at}.type", code="invalid_value")

    def _response_format(self, value: Any) -> None:
        if value is None:
            return
        kind = value.get("type") if isinstance(value, dict) else None
        if kind not in ("text", "json_object", "json_schema"):
            raise BadRequest("Invalid value for 'response_format.type'.", "response_format.type", code="invalid_value")
        if kind == "json_schema":
            schema = value.get("json_schema")
            if not isinstance(schema, dict) or not isinstance(schema.get("name"), str):
                raise BadRequest(
                    "Missing required parameter: 'response_format.json_schema.name'.",
                    "response_format.json_schema.name",
                    code="missing_required_parameter",
                )

    def _tool(self, tools: Any, choice: Any) -> tuple[str | None, bool]:
        if tools is None:
            return None, False
        names = []
        for tool in tools if isinstance(tools, list) else [None]:
            function = tool.get("function") if isinstance(tool, dict) else None
            if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                missing = "Missing required parameter: 'tools[0].function'."
                raise BadRequest(missing, "tools", code="missing_required_parameter")
            names.append(function["name"])
        if not names or choice == "none":
            return None, False
        if isinstance(choice, dict):
            function = choice.get("function")
            name = function.get("name") if isinstance(function, dict) else None
            if name not in names:
                unknown = f"Invalid value for 'tool_choice': no function named '{name}' was specified in 'tools'."
                raise BadRequest(unknown, "tool_choice")
            return str(name), True
        return names[0], choice == "required"

    def _model(self, model: str) -> str:
        return model if re.search(r"-\d{4}-\d{2}-\d{2}$", model) else f"{model}-2026-01-01"

    def _message(self, call: Call, reply: dict[str, Any], kind: str | None) -> tuple[dict[str, Any], str]:
        reply_text = reply_text_of(call, reply)
        message: dict[str, Any] = {"role": "assistant", "content": None, "refusal": None, "annotations": []}
        finish = "stop"
        if kind == "refusal":
            message["refusal"] = _REFUSAL
        elif kind == "empty":
            message["content"] = ""
        elif call.tool is not None and kind != "prose":
            arguments = _text_for(reply_text, kind)
            function = {"name": call.tool, "arguments": arguments}
            call_id = "call_" + _token_id(call.seed + "tool")
            message["tool_calls"] = [{"id": call_id, "type": "function", "function": function}]
            finish = "stop" if call.forced else "tool_calls"
        else:
            message["content"] = _text_for(reply_text, kind)
        if kind == "truncated":
            finish = "length"
        return message, finish

    def _usage(self, call: Call, message: dict[str, Any], reasoning: int) -> dict[str, Any]:
        output = estimate_tokens(json.dumps(message)) + reasoning
        return {
            "prompt_tokens": call.input_tokens,
            "completion_tokens": output,
            "total_tokens": call.input_tokens + output,
            "prompt_tokens_details": {"cached_tokens": call.cache_read, "audio_tokens": 0},
            "completion_tokens_details": {
                "reasoning_tokens": reasoning,
                "audio_tokens": 0,
                "accepted_prediction_tokens": 0,
                "rejected_prediction_tokens": 0,
            },
        }

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        message, finish = self._message(call, reply, kind)
        # OpenAI keeps reasoning hidden: a thinking-first reply shows only in the token counts.
        reasoning = estimate_tokens(_THINKING) if kind == "thinking_first" else 0
        body = {
            "id": "chatcmpl-" + _token_id(call.seed, 29),
            "object": "chat.completion",
            "created": _CREATED,
            "model": self._model(call.model),
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": self._usage(call, message, reasoning),
            "service_tier": "default",
            "system_fingerprint": "fp_" + hashlib.sha256(call.model.encode()).hexdigest()[:10],
        }
        headers = (
            ("content-type", "application/json"),
            ("openai-processing-ms", str(int(latency * 1000))),
            ("openai-version", "2020-10-01"),
            ("x-ratelimit-limit-requests", "10000"),
            ("x-ratelimit-limit-tokens", "30000000"),
            ("x-ratelimit-remaining-requests", "9999"),
            ("x-ratelimit-remaining-tokens", str(30000000 - call.input_tokens)),
            ("x-ratelimit-reset-requests", "6ms"),
            ("x-ratelimit-reset-tokens", "0s"),
            ("x-request-id", "req_" + hashlib.sha256((call.seed + "req").encode()).hexdigest()[:32]),
        )
        return Response(200, headers, _pretty(body))

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        kind, code = self._errors[problem]
        param = refused.param if refused is not None else None
        code = refused.code if refused is not None and refused.code is not None else code
        body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
        headers = [
            ("content-type", "application/json; charset=utf-8"),
            ("x-request-id", "req_" + hashlib.sha256((seed + "req").encode()).hexdigest()[:32]),
        ]
        return Response(status, tuple(headers) + tuple(extra), _pretty(body, indent=4))

    def model_info(self, model: str) -> Any:
        return {"id": model, "object": "model", "created": _CREATED, "owned_by": "system"}

    def model_list(self, models: Sequence[str]) -> Any:
        return {"object": "list", "data": [self.model_info(m) for m in models]}


class _OpenRouter(_OpenAI):
    """OpenRouter's OpenAI-compatible Chat Completions, with its own error format."""

    name = "openai-compatible"

    def auth_message(self, key: str | None) -> str:
        return "No auth credentials found" if not key else "User not found."

    def not_found(self, model: str) -> tuple[int, str]:
        return 400, f"{model} is not a valid model ID"

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        message, finish = self._message(call, reply, kind)
        message.pop("annotations")
        message["reasoning"] = _THINKING if kind == "thinking_first" else None
        reasoning = estimate_tokens(_THINKING) if kind == "thinking_first" else 0
        generation = f"gen-{_CREATED}-{_token_id(call.seed, 20)}"
        usage = self._usage(call, message, reasoning)
        usage.update({"cost": 0, "is_byok": False})
        body = {
            "id": generation,
            "object": "chat.completion",
            "created": _CREATED,
            "model": call.model,
            "provider": "Loopback",
            "system_fingerprint": None,
            "choices": [
                {
                    "index": 0,
                    "logprobs": None,
                    "finish_reason": finish,
                    "native_finish_reason": finish,
                    "message": message,
                }
            ],
            "usage": usage,
        }
        headers = (("content-type", "application/json"), ("x-generation-id", generation))
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
        error: dict[str, Any] = {"message": message, "code": status}
        body: dict[str, Any] = {"error": error}
        if problem in ("rate_limit", "server", "unavailable", "overloaded", "timeout"):
            # Upstream failures: a generic message, the cause in metadata.raw.
            error["message"] = "Provider returned error"
            error["metadata"] = {"raw": message, "provider_name": "Loopback"}
            body["user_id"] = "user_loopback"
        return Response(status, (("content-type", "application/json"), *tuple(extra)), compact_json(body))


class _Google(Wire):
    """Gemini generateContent (v1beta)."""

    name = "google"
    _statuses: ClassVar[dict[str, str]] = {
        "auth": "UNAUTHENTICATED",
        "auth_missing": "UNAUTHENTICATED",
        "bad_request": "INVALID_ARGUMENT",
        "not_found": "NOT_FOUND",
        "rate_limit": "RESOURCE_EXHAUSTED",
        "server": "INTERNAL",
        "unavailable": "UNAVAILABLE",
        "overloaded": "UNAVAILABLE",
        "timeout": "DEADLINE_EXCEEDED",
    }

    def key(self, headers: Mapping[str, str], query: Mapping[str, list[str]]) -> str | None:
        keys = query.get("key") or [""]
        return headers.get("x-goog-api-key") or keys[0] or None

    def auth_message(self, key: str | None) -> str:
        if not key:
            return (
                "Method doesn't allow unregistered callers (callers without established identity). "
                "Please use API Key or other form of API consumer identity to call this API."
            )
        return "API key not valid. Please pass a valid API key."

    def auth_status(self, key: str | None) -> int:
        # Gemini: a wrong key is 400 INVALID_ARGUMENT (reason API_KEY_INVALID), a missing one 403.
        return 400 if key else 403

    def not_found(self, model: str) -> tuple[int, str]:
        return 404, (
            f"models/{model} is not found for API version v1beta, or is not supported for generateContent. "
            "Call ListModels to see the list of available models and their supported methods."
        )

    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:
        if not isinstance(body, dict):
            raise BadRequest("Invalid JSON payload received. Expected an object.")
        contents = body.get("contents")
        if not isinstance(contents, list) or not contents:
            raise BadRequest("* GenerateContentRequest.contents: contents is not specified\n")
        texts: list[str] = []
        images: list[bytes] = []
        for index, content in enumerate(contents):
            parts = content.get("parts") if isinstance(content, dict) else None
            if not isinstance(parts, list):
                raise BadRequest(f"* GenerateContentRequest.contents[{index}].parts: parts must not be empty.\n")
            if content.get("role", "user") != "user":
                continue
            for position, part in enumerate(parts):
                if isinstance(part, dict) and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                    continue
                inline = part.get("inlineData", part.get("inline_data")) if isinstance(part, dict) else None
                if isinstance(inline, dict):
                    where = f"contents[{index}].parts[{position}].inline_data.data"
                    images.append(_decode_image(inline.get("data"), where, url_safe=True))
        tool = self._tool(body.get("tools"), body.get("toolConfig", body.get("tool_config")))
        text = "\n\n".join(texts)
        config = body.get("generationConfig", body.get("generation_config"))
        limit = _limit(config, ("maxOutputTokens", "max_output_tokens"))
        return Call(self.name, model or "", text, tuple(images), tool, tool is not None, seed, max(1, size // 4), limit)

    def _tool(self, tools: Any, config: Any) -> str | None:
        """The function to call when function calling is forced (mode ANY); else None."""
        if not isinstance(tools, list):
            return None
        names = [
            d.get("name")
            for t in tools
            if isinstance(t, dict)
            for d in t.get("functionDeclarations", t.get("function_declarations", [])) or []
            if isinstance(d, dict)
        ]
        calling = (config or {}).get("functionCallingConfig", (config or {}).get("function_calling_config", {})) or {}
        if not names or str(calling.get("mode", "")).upper() != "ANY":
            return None
        allowed = calling.get("allowedFunctionNames") or names
        return str(allowed[0])

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        reply_text = reply_text_of(call, reply)
        candidate: dict[str, Any]
        parts: list[dict[str, Any]] = []
        if kind == "thinking_first":
            parts.append({"text": _THINKING, "thought": True})
        if kind == "truncated":
            candidate = {"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}
        elif kind == "refusal":
            rating = {"category": "HARM_CATEGORY_DANGEROUS_CONTENT", "probability": "HIGH", "blocked": True}
            candidate = {"finishReason": "SAFETY", "index": 0, "safetyRatings": [rating]}
        else:
            if kind == "empty":
                parts.append({"text": ""})
            elif call.tool is not None and kind != "prose":
                parts.append({"functionCall": {"name": call.tool, "args": reply}})
            else:
                parts.append({"text": _text_for(reply_text, kind)})
            candidate = {"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}
        usage: dict[str, Any] = {"promptTokenCount": call.input_tokens}
        output = estimate_tokens(json.dumps(candidate.get("content", {})))
        thoughts = estimate_tokens(_THINKING) if kind == "thinking_first" else 0
        if kind not in ("truncated", "refusal"):
            usage["candidatesTokenCount"] = output
        usage["totalTokenCount"] = call.input_tokens + output + thoughts
        usage["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": call.input_tokens}]
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        body = {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": call.model,
            "responseId": _token_id(call.seed, 23),
        }
        headers = (
            ("content-type", "application/json; charset=UTF-8"),
            ("server-timing", f"gfet4t7; dur={int(latency * 1000)}"),
        )
        return Response(200, headers, _pretty(body))

    def error(
        self,
        status: int,
        problem: str,
        message: str,
        seed: str,
        extra: Sequence[tuple[str, str]] = (),
        refused: BadRequest | None = None,
    ) -> Response:
        kind = self._statuses[problem]
        if problem == "auth" and status == 400:
            kind = "INVALID_ARGUMENT"  # Gemini answers a wrong key as a bad argument
        elif problem == "auth_missing" and status == 403:
            kind = "PERMISSION_DENIED"
        error: dict[str, Any] = {"code": status, "message": message, "status": kind}
        if problem == "auth":
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                    "reason": "API_KEY_INVALID",
                    "domain": "googleapis.com",
                    "metadata": {"service": "generativelanguage.googleapis.com"},
                },
                {"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": message},
            ]
        headers = (("content-type", "application/json; charset=UTF-8"), *tuple(extra))
        return Response(status, headers, _pretty({"error": error}))

    def model_info(self, model: str) -> Any:
        return {
            "name": f"models/{model}",
            "version": "001",
            "displayName": model.replace("-", " ").title(),
            "inputTokenLimit": 1048576,
            "outputTokenLimit": 65536,
            "supportedGenerationMethods": ["generateContent", "countTokens"],
        }

    def model_list(self, models: Sequence[str]) -> Any:
        return {"models": [self.model_info(m) for m in models]}


class _Responses(_OpenAI):
    """OpenAI Responses API (`POST /v1/responses`): instructions, input items, text.format; output items."""

    api = "responses"

    def not_found(self, model: str) -> tuple[int, str]:
        # Responses answers an unknown model 400, where Chat Completions answers 404 (fixture 12).
        return 400, f"The requested model '{model}' does not exist."

    # C901: one provider's request read field by field in the order the provider refuses a bad one.
    def parse(self, body: Any, model: str | None, seed: str, size: int) -> Call:  # noqa: C901
        if not isinstance(body, dict):
            raise BadRequest("Invalid type for request body: expected an object.")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise BadRequest("Missing required parameter: 'model'.", "model", code="missing_required_parameter")
        given = body.get("input")
        items = [{"role": "user", "content": given}] if isinstance(given, str) else given
        if not isinstance(items, list) or not items:
            raise BadRequest("Missing required parameter: 'input'.", "input", code="missing_required_parameter")
        texts: list[str] = []
        images: list[bytes] = []
        for index, item in enumerate(items):
            where = f"input[{index}]"
            if not isinstance(item, dict) or item.get("role") not in ("system", "developer", "user", "assistant"):
                raise BadRequest(f"Invalid value for '{where}.role'.", f"{where}.role", code="invalid_value")
            if item["role"] != "user":
                continue
            content = item.get("content")
            if isinstance(content, str):
                texts.append(content)
                continue
            if not isinstance(content, list):
                raise BadRequest(f"Invalid type for '{where}.content'.", f"{where}.content", code="invalid_type")
            for position, part in enumerate(content):
                at = f"{where}.content[{position}]"
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "input_text" and isinstance(part.get("text"), str):
                    texts.append(part["text"])
                elif kind == "input_image":
                    if part.get("detail") not in ("auto", "low", "high"):
                        raise BadRequest(
                            f"Missing required parameter: '{at}.detail'.",
                            f"{at}.detail",
                            code="missing_required_parameter",
                        )
                    url = part.get("image_url")
                    if isinstance(url, str) and url.startswith("data:"):
                        images.append(_decode_image(url.partition(",")[2], f"{at}.image_url"))
                else:
                    raise BadRequest(f"Invalid value for '{at}.type'.", f"{at}.type", code="invalid_value")
        fmt = body.get("text", {}).get("format") if isinstance(body.get("text"), dict) else None
        if fmt is not None and (
            not isinstance(fmt, dict) or fmt.get("type") not in ("text", "json_object", "json_schema")
        ):
            raise BadRequest("Invalid value for 'text.format.type'.", "text.format.type", code="invalid_value")
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema" and not isinstance(fmt.get("name"), str):
            raise BadRequest(
                "Missing required parameter: 'text.format.name'.", "text.format.name", code="missing_required_parameter"
            )
        limit = _limit(body, ("max_output_tokens",))
        return Call(self.name, model, "\n\n".join(texts), tuple(images), None, False, seed, max(1, size // 4), limit)

    def success(self, call: Call, reply: dict[str, Any], kind: str | None, latency: float) -> Response:
        reply_text = reply_text_of(call, reply)
        status, incomplete = "completed", None
        content: list[dict[str, Any]]
        if kind == "refusal":
            content = [{"type": "refusal", "refusal": _REFUSAL}]
        elif kind == "empty":
            content = [{"type": "output_text", "annotations": [], "logprobs": [], "text": ""}]
        else:
            content = [{"type": "output_text", "annotations": [], "logprobs": [], "text": _text_for(reply_text, kind)}]
        if kind == "truncated":
            status, incomplete = "incomplete", {"reason": "max_output_tokens"}
        output: list[dict[str, Any]] = []
        reasoning = 0
        if kind == "thinking_first":
            reasoning = estimate_tokens(_THINKING)
            output.append({"id": "rs_" + _token_id(call.seed + "rs", 40), "type": "reasoning", "summary": []})
        output.append(
            {
                "id": "msg_" + _token_id(call.seed + "msg", 40),
                "type": "message",
                "status": status,
                "content": content,
                "role": "assistant",
            }
        )
        produced = estimate_tokens(json.dumps(content)) + reasoning
        body = {
            "id": "resp_" + _token_id(call.seed, 40),
            "object": "response",
            "created_at": _CREATED,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": incomplete,
            "instructions": None,
            "max_output_tokens": call.max_tokens,
            "model": self._model(call.model),
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "reasoning": {"effort": None, "summary": None},
            "service_tier": "default",
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": {
                "input_tokens": call.input_tokens,
                "input_tokens_details": {"cached_tokens": call.cache_read, "cache_write_tokens": 0},
                "output_tokens": produced,
                "output_tokens_details": {"reasoning_tokens": reasoning},
                "total_tokens": call.input_tokens + produced,
            },
            "user": None,
            "metadata": {},
        }
        headers = (
            ("content-type", "application/json"),
            ("openai-processing-ms", str(int(latency * 1000))),
            ("openai-version", "2020-10-01"),
            ("x-ratelimit-limit-requests", "10000"),
            ("x-ratelimit-remaining-requests", "9999"),
            ("x-ratelimit-reset-requests", "6ms"),
            ("x-request-id", "req_" + hashlib.sha256((call.seed + "req").encode()).hexdigest()[:32]),
        )
        return Response(200, headers, _pretty(body))


WIRES: dict[str, Wire] = {w.name: w for w in (_Anthropic(), _OpenAI(), _OpenRouter(), _Google())}
RESPONSES: Wire = _Responses()
"""OpenAI's Responses API: provider openai, its own request and reply shapes."""


def anthropic_token_headers(input_tokens: int, output_tokens: int) -> list[tuple[str, str]]:
    """Anthropic's token rate-limit headers on a 200 (input, output and combined), a minute's window.

    Cache reads do not count against Anthropic's input-token limit, so they are left out.
    """
    reset = _reset_time(60)
    headers = []
    for name, limit, used in (
        ("input-tokens", 2_000_000, input_tokens),
        ("output-tokens", 400_000, output_tokens),
        ("tokens", 2_400_000, input_tokens + output_tokens),
    ):
        headers += [
            (f"anthropic-ratelimit-{name}-limit", str(limit)),
            (f"anthropic-ratelimit-{name}-remaining", str(max(limit - used, 0))),
            (f"anthropic-ratelimit-{name}-reset", reset),
        ]
    return headers


def rate_limit_headers(provider: str, wait: float) -> list[tuple[str, str]]:
    """The rate-limit headers each provider sends with a 429 (Gemini sends none)."""
    if provider == "anthropic":
        return [
            ("anthropic-ratelimit-requests-limit", "50"),
            ("anthropic-ratelimit-requests-remaining", "0"),
            ("anthropic-ratelimit-requests-reset", _reset_time(wait)),
        ]
    if provider in ("openai", "azure-openai"):
        reset = f"{int(wait * 1000)}ms" if wait < 1 else f"{wait:g}s"
        return [
            ("x-ratelimit-limit-requests", "500"),
            ("x-ratelimit-remaining-requests", "0"),
            ("x-ratelimit-reset-requests", reset),
            ("x-ratelimit-limit-tokens", "30000000"),
            ("x-ratelimit-remaining-tokens", "29999000"),
            ("x-ratelimit-reset-tokens", "0s"),
        ]
    return []


def apply_quirk(response: Response, kind: str | None) -> Response:
    """The response with a transport quirk applied (all of them valid, all must parse)."""
    body = response.body
    headers = response.headers
    if kind == "pretty":
        body = _pretty(json.loads(body))
    elif kind == "leading_whitespace":
        body = b"\n         \n\n         \n" + body
    elif kind == "gzip":
        # mtime=0 keeps the compressed bytes stable.
        body = gzip.compress(body, mtime=0)
        headers = (*headers, ("content-encoding", "gzip"))
    return replace(response, headers=headers, body=body)


def unparsable_message(provider: str) -> str:
    """The provider's 400 message for a body that is not JSON."""
    if provider == "google":
        return "Invalid JSON payload received. Unexpected token."
    if provider == "anthropic":
        return "There was an error parsing the body of your request. Please check that it is valid JSON."
    return (
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your "
        "HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
    )
