"""The contract's fixed names that several modules and the options share; cheap to import."""

from __future__ import annotations

__all__ = ["FAMILIES", "IMAGE_TYPES", "PROVIDERS", "RECORD_MODES", "SECRET_REASON", "is_live"]

FAMILIES: tuple[str, ...] = ("mode", "visual", "lens")
"""Entry families, in table order."""

PROVIDERS: tuple[str, ...] = ("anthropic", "openai", "openai-compatible", "google")
"""Judge providers a role of optimum.yaml may name (the reference judge speaks all of them)."""

IMAGE_TYPES = {".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp"}
"""Artifact suffixes sent to a judge as an image, with their media types."""

SECRET_REASON = "secret-bearing input"
"""The reason an unscorable capture gives when it holds text shaped like a credential."""

RECORD_MODES = ("none", "once", "new_episodes", "all")
"""none replays only (the default); once records missing cassettes; new_episodes adds new calls; all re-records."""


def is_live(mode: str) -> bool:
    """Whether a record mode may send requests to the judges."""
    return mode != "none"
