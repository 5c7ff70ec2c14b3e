"""The contract's fixed names that several modules and the options share; cheap to import."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "CLOUD_CREDENTIALS",
    "FAMILIES",
    "IMAGE_TYPES",
    "PROVIDERS",
    "PROVIDER_KEY_ENVS",
    "RECORD_MODES",
    "SECRET_REASON",
    "TOKEN_ENVS",
    "Family",
    "Provider",
    "is_live",
    "key_env_allowed",
]

Family = Literal["mode", "visual", "lens"]
FAMILIES: tuple[str, ...] = get_args(Family)
"""Entry families, in table order."""

Provider = Literal["anthropic", "openai", "openai-compatible", "google", "azure-openai", "bedrock", "vertex"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
"""Judge providers a role of optimum.yaml may name (the reference judge speaks all of them)."""

IMAGE_TYPES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
}
"""Artifact suffixes sent to a judge as an image, with their media types."""

SECRET_REASON = "secret-bearing input"
"""The reason an unscorable capture gives when it holds text shaped like a credential."""

PROVIDER_KEY_ENVS: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-compatible": "OPENROUTER_API_KEY",
    "google": "GEMINI_API_KEY",
    "azure-openai": "AZURE_OPENAI_API_KEY",
}
"""The environment variable holding a provider's key when the role names none (bedrock and vertex take
their cloud's credential chain instead of a key)."""

CLOUD_CREDENTIALS: dict[str, str] = {
    "bedrock": "AWS credentials (botocore's chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE, SSO, an instance role)",
    "vertex": "Google Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud auth application-default login, "
    "a service account), or a token in the variable the role's api_token_env names",
}
"""Where a cloud provider's credentials come from, as a message names them."""

TOKEN_ENVS = ("AZURE_OPENAI_AD_TOKEN",)
"""Bearer-token variables a role's api_token_env may name besides *_API_KEY (the openai package's Entra ID name)."""

RECORD_MODES = ("none", "once", "new_episodes", "all")
"""none replays only (the default); once records missing cassettes; new_episodes adds new calls; all re-records."""


def is_live(mode: str) -> bool:
    """Whether a record mode may send requests to the judges."""
    return mode != "none"


def key_env_allowed(name: str, allowed: tuple[str, ...] = ()) -> bool:
    """Whether a role's api_key_env may name this variable.

    A bundle is untrusted input: `api_key_env: PATH` or a CI deploy token's name would send that
    value, as a key, to whatever route the bundle names. By default only the providers' own key
    names and names ending in _API_KEY qualify; the user (never the bundle) may allow more.
    """
    return name in PROVIDER_KEY_ENVS.values() or name in TOKEN_ENVS or name.endswith("_API_KEY") or name in allowed
