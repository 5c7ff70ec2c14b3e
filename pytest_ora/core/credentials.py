"""API keys as values that never print themselves."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

__all__ = ["Secret", "redact", "safe_route"]


class Secret(str):
    """A key: usable wherever a str is, but its repr (tracebacks, --showlocals, logs) is redacted."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "Secret('[redacted]')"


def redact(text: str, secrets: tuple[str, ...] | list[str]) -> str:
    """The text with every secret's value replaced."""
    for secret in secrets:
        if secret:
            text = text.replace(str.__str__(secret), "[redacted]")
    return text


def safe_route(route: str) -> str:
    """A route without its query string or user info, which may carry credentials."""
    parts = urlsplit(route)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
