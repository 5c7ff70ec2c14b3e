"""Context windows: a packet too large for a judge is unscorable, and never sent."""

from __future__ import annotations

from collections.abc import Mapping

from ..core.models import RoleSpec
from ..core.plan import Panel
from .budget import estimate_input_tokens
from .providers import client_for
from .providers.base import ImagePart, JudgePrompt

__all__ = ["DEFAULT_MAX_INPUT_TOKENS", "max_input_tokens", "over_window"]

DEFAULT_MAX_INPUT_TOKENS: Mapping[str, int] = {
    # Input limits the providers publish, by model-id prefix (longest wins), checked with the prices.
    "claude-": 200_000,
    "claude-opus-4-6": 1_000_000,
    "claude-opus-4-7": 1_000_000,
    "claude-sonnet-4-6": 1_000_000,
    "gpt-5": 272_000,
    "gpt-5.4": 1_000_000,
    "gpt-4.1": 1_000_000,
    "gpt-4o": 128_000,
    "o3": 200_000,
    "o4-mini": 200_000,
    "gemini-": 1_000_000,
}
"""A role's `max_input_tokens` in optimum.yaml overrides these; other models are not checked."""


def max_input_tokens(spec: RoleSpec) -> int | None:
    """The role's own limit, else the default for its model's prefix, else None (unchecked)."""
    if spec.max_input_tokens is not None:
        return spec.max_input_tokens
    matches = [prefix for prefix in DEFAULT_MAX_INPUT_TOKENS if spec.model.startswith(prefix)]
    return DEFAULT_MAX_INPUT_TOKENS[max(matches, key=len)] if matches else None


def over_window(panel: Panel, prompt: JudgePrompt) -> str | None:
    """Why the prompt cannot be sent to some judge (its estimated tokens exceed the window), or None."""
    images = sum(isinstance(part, ImagePart) for part in prompt.parts)
    # Four bytes a token undercounts no real text, so a packet that fits here fits the judge.
    texts = [prompt.system, *(part.text for part in prompt.parts if not isinstance(part, ImagePart))]
    size = sum(len(text.encode("utf-8")) for text in texts)
    for judge in panel.judges:
        limit = max_input_tokens(judge.spec)
        if limit is None or estimate_input_tokens(size, images) <= limit // 2:
            continue  # far below the window: the exact request need not be built
        request = client_for(judge.spec).build_request(judge.spec, prompt, None)
        tokens = estimate_input_tokens(len(request.content), images)
        if tokens > limit:
            return (
                f"packet is about {tokens:,} input tokens, over {judge.label} ({judge.spec.model})'s "
                f"context window of {limit:,} (max_input_tokens); not sent"
            )
    return None
