"""Provider clients behind one interface (see base.py), and the registry that picks one per role."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from ...core.credentials import Secret
from ...core.models import RoleSpec
from .anthropic import AnthropicClient
from .base import ProviderClient
from .gemini import GeminiClient
from .openai import OpenAIClient

__all__ = [
    "DEFAULT_KEY_ENV",
    "AnthropicClient",
    "GeminiClient",
    "OpenAIClient",
    "api_key_for",
    "client_for",
    "key_env_for",
]

DEFAULT_KEY_ENV: Mapping[str, str] = MappingProxyType(
    {
        "anthropic": "ANTHROPIC_API_KEY",
        "openai": "OPENAI_API_KEY",
        "openai-compatible": "OPENROUTER_API_KEY",
        "google": "GEMINI_API_KEY",
    }
)
"""The environment variable holding a provider's key when the role names none."""

_CLIENTS: Mapping[str, Callable[[], ProviderClient]] = MappingProxyType(
    {
        "anthropic": AnthropicClient,
        "openai": lambda: OpenAIClient("openai"),
        "openai-compatible": lambda: OpenAIClient("openai-compatible"),
        "google": GeminiClient,
    }
)


def client_for(role: RoleSpec) -> ProviderClient:
    """The client speaking the role's provider wire format."""
    return _CLIENTS[role.provider]()


def key_env_for(role: RoleSpec) -> str:
    """The environment variable the role's key is read from."""
    return role.api_key_env or DEFAULT_KEY_ENV[role.provider]


def api_key_for(role: RoleSpec, environ: Mapping[str, str]) -> Secret | None:
    """The role's API key from `environ`, or None when unset or blank (a keyless loopback judge)."""
    # Surrounding whitespace is never part of a key: it comes from `$(cat keyfile)` and breaks the header.
    value = environ.get(key_env_for(role), "").strip()
    return Secret(value) if value else None
