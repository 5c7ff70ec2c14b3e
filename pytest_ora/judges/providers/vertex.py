"""Vertex AI client: Gemini (`publishers/google/...:generateContent`) and Claude (`publishers/anthropic/...:rawPredict`).

Routes: `https://{location}-aiplatform.googleapis.com/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:generateContent`
speaks Gemini's wire format (the body as the Gemini API takes it); `.../publishers/anthropic/models/{model}:rawPredict`
speaks Anthropic's Messages format with `anthropic_version: vertex-2023-10-16` in the body and the model
in the URL, not the body. The token is an OAuth access token from Application Default Credentials
(gcp.py), or from the variable the role's api_token_env names, sent as `Authorization: Bearer`; a
role naming api_key_env sends a Vertex API key (express mode) as `x-goog-api-key`.

Reference: Google Cloud, "Vertex AI API" (projects.locations.publishers.models.generateContent and
rawPredict), "Use Claude models on Vertex AI" (anthropic_version vertex-2023-10-16), and
"Application Default Credentials".
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

import httpx

from ...core.models import RoleSpec
from ._wire import fallback_error, items, mapping, read_json, snippet
from .anthropic import AnthropicClient
from .base import JudgePrompt, ProviderReply, dumps_body
from .gemini import GeminiClient

__all__ = ["ANTHROPIC_VERSION", "VertexClient", "is_claude_route"]

ANTHROPIC_VERSION = "vertex-2023-10-16"
_API = "Vertex AI"
# FinishReason as a number (a client asking `$alt=json;enum-encoding=int`), by the enum's order.
_FINISH_NAMES = (
    "FINISH_REASON_UNSPECIFIED",
    "STOP",
    "MAX_TOKENS",
    "SAFETY",
    "RECITATION",
    "OTHER",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "MALFORMED_FUNCTION_CALL",
)


def is_claude_route(route: str) -> bool:
    """Whether the route is a Claude model's rawPredict (else a Gemini generateContent)."""
    path = httpx.URL(route).path
    return "/publishers/anthropic/" in path


@dataclass
class VertexClient:
    """Gemini or Claude on Vertex AI, chosen by the route's publisher."""

    name: str = field(default="vertex", init=False)

    def build_request(self, role: RoleSpec, prompt: JudgePrompt, api_key: str | None) -> httpx.Request:
        """Gemini's generateContent body, or Anthropic's Messages body without model and with Vertex's anthropic_version."""
        if is_claude_route(role.route):
            # A Vertex model id may carry its version after `@` (claude-sonnet-4-5@20250929): Anthropic's id is before it.
            native = json.loads(AnthropicClient().build_request(_unversioned(role), prompt, None).content)
            del native["model"]
            body = {"anthropic_version": ANTHROPIC_VERSION, **native}
        else:
            body = json.loads(GeminiClient().build_request(role, prompt, None).content)
        headers = _headers(role, api_key) | {"content-type": "application/json"}
        return httpx.Request("POST", role.route, headers=headers, content=dumps_body(body))

    def parse_reply(self, response: httpx.Response) -> ProviderReply:
        """A Claude message (content blocks) or a Gemini reply (candidates), told apart by its shape."""
        body = read_json(response, _API)
        if isinstance(body, dict) and body.get("type") == "message":
            return AnthropicClient().parse_reply(response)
        if isinstance(body, dict) and _numeric_finish(body):
            return replace(GeminiClient().parse_reply(_named_finish(response, body)), raw=response.text)
        return GeminiClient().parse_reply(response)

    def error_message(self, response: httpx.Response) -> str:
        """`<status>: <message>` from Google's error body; a Claude model's own error as Anthropic writes it."""
        try:
            body = read_json(response, _API)
        except ValueError:
            return fallback_error(response)
        if isinstance(body, dict) and body.get("type") == "error":
            return AnthropicClient().error_message(response)
        return GeminiClient().error_message(response)

    def reachability_request(self, role: RoleSpec, api_key: str | None) -> httpx.Request:
        """`GET .../publishers/{publisher}/models/{model}`: free, and fails on a bad token, route or model id."""
        url = httpx.URL(role.route)
        path = url.raw_path.decode("ascii").partition("?")[0]
        model_path = path.rpartition(":")[0] if ":" in path.rpartition("/")[2] else path
        start = model_path.find("/projects/")
        if start >= 0:
            # Publisher models are looked up outside the project: /v1/publishers/{publisher}/models/{model}.
            model_path = model_path[:start] + model_path[model_path.find("/publishers/") :]
        return httpx.Request("GET", url.copy_with(raw_path=model_path.encode("ascii")), headers=_headers(role, api_key))


def _unversioned(role: RoleSpec) -> RoleSpec:
    """The role with the model's `@version` suffix dropped."""
    return role.model_copy(update={"model": role.model.partition("@")[0]})


def _headers(role: RoleSpec, api_key: str | None) -> dict[str, str]:
    """A bearer token, or an express-mode API key; none at all without either (a loopback judge)."""
    if api_key is None:
        return {}
    if role.api_key_env and not role.api_token_env:
        return {"x-goog-api-key": api_key}
    return {"authorization": f"Bearer {api_key}"}


def _numeric_finish(body: dict[str, Any]) -> bool:
    return any(isinstance(mapping(candidate).get("finishReason"), int) for candidate in items(body.get("candidates")))


def _named_finish(response: httpx.Response, body: dict[str, Any]) -> httpx.Response:
    """The response with numeric finish reasons written as their names (Gemini's reader takes names)."""
    candidates = []
    for entry in items(body.get("candidates")):
        candidate = dict(mapping(entry))
        reason = candidate.get("finishReason")
        if isinstance(reason, int) and not isinstance(reason, bool):
            if not 0 <= reason < len(_FINISH_NAMES):
                raise ValueError(f"{_API} response has an unknown finishReason {reason}: {snippet(response.text)}")
            candidate["finishReason"] = _FINISH_NAMES[reason]
        candidates.append(candidate)
    rewritten = json.dumps({**body, "candidates": candidates}, default=str)
    return httpx.Response(response.status_code, headers=response.headers, content=rewritten.encode("utf-8"))
