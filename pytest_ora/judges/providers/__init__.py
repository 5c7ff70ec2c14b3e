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
from ...core.vocabulary import CLOUD_CREDENTIALS, PROVIDER_KEY_ENVS
from .base import ProviderClient

__all__ = ["DEFAULT_KEY_ENV", "api_key_for", "client_for", "key_env_for", "missing_extra", "secrets_for"]

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


def _azure() -> ProviderClient:
    from .azure import AzureOpenAIClient

    return AzureOpenAIClient()


def _bedrock() -> ProviderClient:
    from .bedrock import BedrockClient

    return BedrockClient()


def _vertex() -> ProviderClient:
    from .vertex import VertexClient

    return VertexClient()


_CLIENTS: Mapping[str, Callable[[], ProviderClient]] = MappingProxyType(
    {
        "anthropic": _anthropic,
        "openai": partial(_openai, "openai"),
        "openai-compatible": partial(_openai, "openai-compatible"),
        "google": _google,
        "azure-openai": _azure,
        "bedrock": _bedrock,
        "vertex": _vertex,
    }
)


def client_for(role: RoleSpec) -> ProviderClient:
    """The client speaking the role's provider wire format."""
    return _CLIENTS[role.provider]()


def key_env_for(role: RoleSpec) -> str:
    """The environment variable the role's key is read from (for bedrock and vertex: where the cloud credentials come from)."""
    if role.api_token_env:
        return role.api_token_env
    if role.api_key_env:
        return role.api_key_env
    return DEFAULT_KEY_ENV.get(role.provider) or CLOUD_CREDENTIALS[role.provider]


def api_key_for(role: RoleSpec, environ: Mapping[str, str], *, chains: bool = True) -> Secret | None:
    """The role's credential, or None when there is none (a keyless loopback judge).

    A key or token from the environment; for bedrock the AWS credentials botocore's chain finds
    (packed, see aws.py), for vertex an access token from Application Default Credentials.
    `chains=False` (a replay) never consults a cloud credential chain, which may refresh a token
    over the network: only credentials set in `environ` are read.
    """
    if role.provider == "bedrock" and not role.api_key_env:
        from .aws import packed_credentials

        return packed_credentials(environ, chain=chains)
    if role.provider == "vertex" and not role.api_token_env and not role.api_key_env:
        if not chains:
            return None
        from .gcp import adc_token

        return adc_token(environ)
    # Surrounding whitespace is never part of a key: it comes from `$(cat keyfile)` and breaks the header.
    value = environ.get(key_env_for(role), "").strip()
    return Secret(value) if value else None


def secrets_for(role: RoleSpec, environ: Mapping[str, str], *, chains: bool = True) -> tuple[Secret, ...]:
    """Every credential value the role's calls carry, each to be redacted wherever text is written."""
    key = api_key_for(role, environ, chains=chains)
    if key is None:
        return ()
    if role.provider == "bedrock" and not role.api_key_env:
        from .aws import unpack

        return tuple(Secret(part) for part in unpack(key) if part)
    return (key,)


def missing_extra(role: RoleSpec) -> str | None:
    """The optional extra a live call of the role needs and this install lacks (bedrock: botocore; vertex: google-auth)."""
    if role.provider == "bedrock" and not role.api_key_env:
        from .aws import available
    elif role.provider == "vertex" and not role.api_token_env and not role.api_key_env:
        from .gcp import available
    else:
        return None
    return None if available() else f"pytest-ora[{role.provider}]"
