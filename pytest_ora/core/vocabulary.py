"""The contract's fixed names that several modules and the options share; cheap to import."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "FAMILIES", "IMAGE_TYPES", "PROVIDERS", "Family", "Provider", "PROVIDER_KEY_ENVS", "RECORD_MODES", "SECRET_REASON", "is_live", "key_env_allowed",
]

Family = Literal["mode", "visual", "lens"]
FAMILIES: tuple[str, ...] = get_args(Family)
"""Entry families, in table order."""

Provider = Literal["anthropic", "openai", "openai-compatible", "google"]
PROVIDERS: tuple[str, ...] = get_args(Provider)
"""Judge providers a role of optimum.yaml may name (the reference judge speaks all of them)."""

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
"""Artifact suffixes sent to a judge as an image, with their media types."""

SECRET_REASON = "secret-bearing input"
"""The reason an unscorable capture gives when it holds text shaped like a credential."""

PROVIDER_KEY_ENVS: dict[str, str] = {
    "anthropic": "ANTHROPIC_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-compatible": "OPENROUTER_API_KEY",
    "google": "GEMINI_API_KEY",
}
"""The environment variable holding a provider's key when the role names none."""

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
    return name in PROVIDER_KEY_ENVS.values() or name.endswith("_API_KEY") or name in allowed
