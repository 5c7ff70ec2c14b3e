"""Provider clients behind one interface (see base.py), and the registry that picks one per role.

Each client's module is imported when a role first needs it: they load httpx, which a process that
sends no judge call (an xdist controller replaying cassettes) never needs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from types import MappingProxyType

from ...core.credentials import Secret
from ...core.models import RoleSpec
from ...core.vocabulary import PROVIDER_KEY_ENVS
from .base import ProviderClient

__all__ = ["DEFAULT_KEY_ENV", "api_key_for", "client_for", "key_env_for"]

DEFAULT_KEY_ENV: Mapping[str, str] = MappingProxyType(PROVIDER_KEY_ENVS)
"""The environment variable holding a provider's key when the role names none."""


def _anthropic() -> ProviderClient:
    from .anthropic import AnthropicClient

    return AnthropicClient()


def _openai(flavour: str) -> ProviderClient:
    from .openai import OpenAIClient

    return OpenAIClient(flavour)


def _google() -> ProviderClient:
    from .gemini import GeminiClient

    return GeminiClient()


_CLIENTS: Mapping[str, Callable[[], ProviderClient]] = MappingProxyType(
    {
        "anthropic": _anthropic,
        "openai": partial(_openai, "openai"),
        "openai-compatible": partial(_openai, "openai-compatible"),
        "google": _google,
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
