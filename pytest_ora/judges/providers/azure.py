"""Azure OpenAI client: OpenAI's wire format on a deployment route or the v1 route, Azure's auth and content filters.

Routes: `https://{resource}.openai.azure.com/openai/deployments/{deployment}/chat/completions?api-version=...`
(the deployment picks the model; the api-version query is kept as given) or the v1 route
`https://{resource}.openai.azure.com/openai/v1/chat/completions` (or `/openai/v1/responses`), where the
body's model names the deployment. The key travels in the `api-key` header; a role naming
`api_token_env` sends a Microsoft Entra ID token as `Authorization: Bearer` instead.

A reply Azure's content filters stopped is a refusal, named with the filtered categories.

Reference: Microsoft Learn, "Azure OpenAI in Azure AI Foundry Models REST API reference" (chat
completions, api-version), "Azure OpenAI v1 API lifecycle", "Content filtering" (content_filter_results,
prompt_filter_results, the Responses API's content_filters) and "Authentication" (api-key, Entra ID).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from ...core.models import RoleSpec
from ._wire import fallback_error, items, mapping, read_json, string
from .base import ProviderReply
from .openai import OpenAIClient, _describe_error

__all__ = ["AzureOpenAIClient", "filtered_categories"]

_API = "Azure OpenAI"


@dataclass
class AzureOpenAIClient(OpenAIClient):
    """Chat Completions (or Responses on the v1 route) with Azure's api-key or Entra ID auth."""

    name: str = field(default="azure-openai", init=False)

    def auth_headers(self, role: RoleSpec, api_key: str | None) -> dict[str, str]:
        """`api-key`, or a bearer token when the role reads an Entra ID token (api_token_env); none without either."""
        if api_key is None:
            return {}
        return {"authorization": f"Bearer {api_key}"} if role.api_token_env else {"api-key": api_key}

    def parse_reply(self, response: httpx.Response) -> ProviderReply:
        """OpenAI's reply; a content-filter stop is a refusal naming what was filtered."""
        reply = super().parse_reply(response)
        if reply.stop != "refused" or reply.detail not in ("content_filter", "content_filter: "):
            return reply
        categories = filtered_categories(read_json(response, _API))
        detail = f"content_filter ({', '.join(categories)})" if categories else "content_filter"
        return ProviderReply(
            payload=reply.payload,
            text=reply.text,
            stop="refused",
            detail=detail,
            model=reply.model,
            usage=reply.usage,
            raw=reply.raw,
        )

    def error_message(self, response: httpx.Response) -> str:
        """`<code>: <message>`, with the filtered categories of a prompt Azure's content filters refused."""
        try:
            body = read_json(response, _API)
        except ValueError:
            return fallback_error(response)
        message = _describe_error(body) or fallback_error(response)
        inner = mapping(mapping(mapping(body).get("error")).get("innererror"))
        categories = _flagged(mapping(inner.get("content_filter_result")))
        return f"{message} (content filter: {', '.join(categories)})" if categories else message

    def reachability_request(self, role: RoleSpec, api_key: str | None) -> httpx.Request:
        """`GET .../openai/models` (with the route's api-version) or `.../openai/v1/models`: fails on a bad key or route."""
        url = httpx.URL(role.route)
        path, _, query = url.raw_path.decode("ascii").partition("?")
        prefix, found, rest = path.partition("/openai/")
        base = f"{prefix}/openai/v1/models" if found and rest.startswith("v1/") else f"{prefix}/openai/models"
        raw = base + (f"?{query}" if query else "")
        return httpx.Request(
            "GET", url.copy_with(raw_path=raw.encode("ascii")), headers=self.auth_headers(role, api_key)
        )


def filtered_categories(body: Any) -> list[str]:
    """The content-filter categories that stopped a reply or its prompt (chat or Responses), in the order Azure lists them."""
    body = mapping(body)
    found: list[str] = []
    for choice in items(body.get("choices")):
        found += _flagged(mapping(mapping(choice).get("content_filter_results")))
    for prompt in items(body.get("prompt_filter_results")):
        found += [f"prompt {name}" for name in _flagged(mapping(mapping(prompt).get("content_filter_results")))]
    for result in items(body.get("content_filters")):  # the Responses API
        entry = mapping(result)
        source = string(entry.get("source_type")) or ""
        prefix = "prompt " if source == "prompt" else ""
        found += [f"{prefix}{name}" for name in _flagged(mapping(entry.get("content_filter_results")))]
    return list(dict.fromkeys(found))


def _flagged(results: dict[str, Any]) -> list[str]:
    """The categories of one content_filter_results object that were filtered, with their severity when given."""
    flagged = []
    for name, value in results.items():
        entry = mapping(value)
        if entry.get("filtered") is True:
            severity = string(entry.get("severity"))
            flagged.append(f"{name} {severity}" if severity else name)
    return flagged
