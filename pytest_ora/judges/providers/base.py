"""The small interface every provider client implements, and the values that cross it."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from ...core.models import RoleSpec
from ...core.strictjson import strict_loads
from ...core.usage import Usage, reported_usage

if TYPE_CHECKING:
    import httpx

__all__ = [
    "ImagePart",
    "JudgePrompt",
    "Part",
    "ProviderClient",
    "ProviderReply",
    "Sampling",
    "Stop",
    "TextPart",
    "dumps_body",
    "loads_body",
    "sampling_fields",
]

Stop = Literal["complete", "truncated", "refused", "empty"]


@dataclass(frozen=True)
class TextPart:
    """Text content of the user turn."""

    text: str
    cache_break: bool = False
    """Prompt caching: the request's prefix up to and including this part repeats across calls."""


@dataclass(frozen=True)
class ImagePart:
    """An image sent as image content (PNG, JPEG, GIF or WebP)."""

    media_type: str
    data: bytes


Part = TextPart | ImagePart


@dataclass(frozen=True)
class Sampling:
    """A candidate's sampling parameters, sent as given; a judge sends none (its client's own: temperature 0 where taken)."""

    temperature: float | None = None
    top_p: float | None = None


@dataclass(frozen=True)
class JudgePrompt:
    """Everything a judge call sends, independent of the provider's wire format."""

    system: str
    """The system prompt; empty: none is sent (a candidate without one)."""
    parts: tuple[Part, ...]
    reply_schema: dict[str, Any] | None
    """JSON Schema of the reply object (sent as tool input schema or structured-output schema); None for a
    candidate's call, answered in plain text: no tool, no structured output."""
    schema_name: str = "ora_judge_reply"
    """Name of the tool or structured-output schema."""
    max_tokens: int = 16000
    cache_key: str | None = None
    """Prompt caching on: a key shared by the calls whose prefix repeats (OpenAI's prompt_cache_key);
    None when caching is off (no breakpoints, no key)."""
    sampling: Sampling | None = None
    """A candidate's call: its sampling parameters exactly (None: a judge's call)."""


@dataclass(frozen=True)
class ProviderReply:
    """A successful (2xx) response, reduced to what validation needs."""

    payload: Any | None
    """The reply object when the transport carried one already parsed (a tool call's input)."""
    text: str | None
    """The reply's text when it came as text (JSON to be parsed by validation)."""
    stop: Stop
    """complete; truncated (token limit); refused; empty (no content at all)."""
    detail: str = ""
    """The provider's stop reason or refusal message, verbatim."""
    model: str | None = None
    """The resolved model snapshot the provider reports."""
    usage: Usage = field(default_factory=reported_usage)
    """Tokens billed for this call, as the provider reported them."""
    raw: str = ""
    """The response body as text, for error messages."""


class ProviderClient(Protocol):
    """One provider's wire format: how to ask, how to read the answer, how to read an error."""

    name: str

    def build_request(self, role: RoleSpec, prompt: JudgePrompt, api_key: str | None) -> httpx.Request:
        """The judge call as an HTTP request; the same inputs give the same bytes."""
        ...

    def parse_reply(self, response: httpx.Response) -> ProviderReply:
        """Read a 2xx response; raise ValueError naming what is malformed."""
        ...

    def error_message(self, response: httpx.Response) -> str:
        """The provider's own error message from a non-2xx response (never a credential)."""
        ...

    def reachability_request(self, role: RoleSpec, api_key: str | None) -> httpx.Request:
        """A cheap, unbilled request that succeeds only when the route, model and key work."""
        ...


def dumps_body(body: dict[str, Any]) -> bytes:
    """Request JSON, byte-stable: fixed key order as built, compact separators, UTF-8."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def loads_body(data: bytes | str) -> Any:
    """Response JSON with exact decimals, read strictly (strictjson); tolerates a BOM and surrounding whitespace."""
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    return strict_loads(text.strip())


def sampling_fields(prompt: JudgePrompt, *, temperature: str, top_p: str) -> dict[str, Any]:
    """A candidate's sampling parameters under the provider's names; only those it set."""
    sampling = prompt.sampling or Sampling()
    fields: dict[str, Any] = {}
    if sampling.temperature is not None:
        fields[temperature] = sampling.temperature
    if sampling.top_p is not None:
        fields[top_p] = sampling.top_p
    return fields
