"""Helpers the provider clients share: defensive reads of response JSON, and sibling URLs of a route."""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import httpx

from .base import loads_body

__all__ = [
    "base64_text",
    "count",
    "fallback_error",
    "items",
    "mapping",
    "path_segment",
    "read_json",
    "sibling_url",
    "snippet",
    "string",
]

_SNIPPET_LIMIT = 300


def read_json(response: httpx.Response, api: str) -> Any:
    """The response body as exact JSON; ValueError naming the API when it is not JSON."""
    try:
        return loads_body(response.content)
    except ValueError as error:
        raise ValueError(f"{api} response is not JSON ({error}): {snippet(response.text) or '(empty body)'}") from error


def snippet(text: str, limit: int = _SNIPPET_LIMIT) -> str:
    """`text` on one line, cut to `limit` characters, marked when cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def fallback_error(response: httpx.Response) -> str:
    """An error description for a body the provider's error format does not fit (an HTML proxy page, say)."""
    head = f"HTTP {response.status_code} {response.reason_phrase}".rstrip()
    body = snippet(response.text)
    return f"{head}: {body}" if body else f"{head} (empty body)"


def mapping(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (unknown shapes read as absent)."""
    return value if isinstance(value, dict) else {}


def items(value: Any) -> list[Any]:
    """`value` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def string(value: Any) -> str | None:
    """`value` when it is a string, else None."""
    return value if isinstance(value, str) else None


def count(value: Any) -> int:
    """A token count; anything but a whole non-negative number reads as 0."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
        return max(int(value), 0)
    return 0


def base64_text(data: bytes) -> str:
    """Base64 text of image bytes, as every provider's image content takes it."""
    return base64.b64encode(data).decode("ascii")


def path_segment(value: str) -> str:
    """`value` escaped to be one URL path segment (a model id with a slash stays one segment)."""
    return quote(value, safe=":@")


def sibling_url(route: str, endings: tuple[str, ...], replacement: str) -> httpx.URL:
    """The route with its trailing endpoint (one of `endings`) replaced, origin, prefix and query kept."""
    url = httpx.URL(route)
    path, _, query = url.raw_path.decode("ascii").partition("?")
    path = path.rstrip("/")
    base = next(
        (path[: -len(ending)] for ending in endings if path.endswith("/" + ending)),
        # An unusual route: its last segment is taken to be the endpoint.
        path.rpartition("/")[0] + "/",
    )
    raw = base + replacement + (f"?{query}" if query else "")
    return url.copy_with(raw_path=raw.encode("ascii"))
