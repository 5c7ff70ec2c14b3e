"""Token usage: what a provider billed for a judge call, in the one shape a reply and a record both carry.

A provider client reports one call's usage; the panel adds up a judge's calls on a capture (re-asks
included) into the judge's record; the reports add records up. It is plain builtins, so a record
travels between xdist processes and into the ledger as it is.
"""

from __future__ import annotations

from typing import TypedDict

from typing_extensions import NotRequired

__all__ = ["Usage", "add_usage", "reported_usage"]


class Usage(TypedDict):
    """Tokens billed for one call, or for one judge's calls on one capture (re-asks included)."""

    input_tokens: int
    """All input tokens billed, cached ones included."""
    output_tokens: int
    """All output tokens billed, reasoning ones included."""
    cached_input_tokens: int
    """Read from the provider's prompt cache (inside input_tokens)."""
    reasoning_tokens: int
    cache_write_input_tokens: NotRequired[int]
    """Written to the prompt cache (inside input_tokens; Anthropic bills them above the input price).
    Absent when none were written and prompt caching was off, and in records made before prompt caching."""


def reported_usage(
    input_tokens: int = 0,
    output_tokens: int = 0,
    cached_input_tokens: int = 0,
    reasoning_tokens: int = 0,
    cache_write_input_tokens: int = 0,
) -> Usage:
    """One call's usage as its provider reported it (cache writes only when there were some)."""
    usage = Usage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cached_input_tokens=cached_input_tokens,
        reasoning_tokens=reasoning_tokens,
    )
    if cache_write_input_tokens:
        usage["cache_write_input_tokens"] = cache_write_input_tokens
    return usage


def add_usage(total: Usage, more: Usage) -> Usage:
    """The sum of two usages; cache writes are kept when either one has them."""
    usage = Usage(
        input_tokens=total["input_tokens"] + more["input_tokens"],
        output_tokens=total["output_tokens"] + more["output_tokens"],
        cached_input_tokens=total["cached_input_tokens"] + more["cached_input_tokens"],
        reasoning_tokens=total["reasoning_tokens"] + more["reasoning_tokens"],
    )
    if "cache_write_input_tokens" in total or "cache_write_input_tokens" in more:
        usage["cache_write_input_tokens"] = total.get("cache_write_input_tokens", 0) + more.get(
            "cache_write_input_tokens", 0
        )
    return usage
