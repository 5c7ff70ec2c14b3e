"""The reference judge's prompt cache (a test double): cache writes and reads accounted as the providers report them.

Anthropic ("Prompt caching" guide): explicit `cache_control` breakpoints; the prefix up to a
breakpoint (tools, then system, then messages) is cached for 5 minutes from its last use; a call
reads the longest cached breakpoint prefix and writes the prefix up to its last breakpoint, in
`usage.cache_read_input_tokens` and `usage.cache_creation_input_tokens` (`input_tokens` is the rest).
Prefixes under 1,024 tokens are not cached.

OpenAI ("Prompt caching" guide): automatic for prompts of 1,024 tokens or more; the longest
previously seen identical prefix, in steps of 128 tokens, is reported in
`prompt_tokens_details.cached_tokens` (Chat Completions) or `input_tokens_details.cached_tokens`
(Responses), inside the input count.

Tokens are the reference judge's stand-in: four characters a token, of the canonical JSON of the
request's parts in cache order. A cache entry is readable by the calls that arrive after the one
that wrote it. The cache lives as long as the server.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["MIN_TOKENS", "STEP_TOKENS", "TTL", "CacheUse", "PromptCache"]

MIN_TOKENS = 1024
STEP_TOKENS = 128
TTL = 300.0


@dataclass(frozen=True)
class CacheUse:
    """Tokens of one call read from and written to the cache."""

    read: int = 0
    written: int = 0


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _tokens(text: str) -> int:
    return len(text) // 4


class PromptCache:
    """Prefix hashes per provider and model, each with its expiry; thread-safe."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, float] = {}
        self.reads = 0
        self.writes = 0

    def account(self, provider: str, body: Any, total: int) -> CacheUse:
        """What this request reads and writes; `total` its input tokens (the use never exceeds it)."""
        if not isinstance(body, dict):
            return CacheUse()
        if provider == "anthropic":
            use = self._anthropic(body)
        elif provider == "openai":
            use = self._openai(body)
        else:
            return CacheUse()
        read = min(use.read, total)
        return CacheUse(read, min(use.written, total - read))

    # --- Anthropic: explicit breakpoints ---------------------------------------------------

    def _anthropic(self, body: dict[str, Any]) -> CacheUse:
        segments: list[Any] = []
        breakpoints: list[int] = []
        for block in body.get("tools") or []:
            segments.append(block)
            if isinstance(block, dict) and "cache_control" in block:
                breakpoints.append(len(segments))
        system = body.get("system")
        for block in system if isinstance(system, list) else ([system] if system else []):
            segments.append(block)
            if isinstance(block, dict) and "cache_control" in block:
                breakpoints.append(len(segments))
        for message in body.get("messages") or []:
            content = message.get("content") if isinstance(message, dict) else None
            for block in content if isinstance(content, list) else [content]:
                segments.append(block)
                if isinstance(block, dict) and "cache_control" in block:
                    breakpoints.append(len(segments))
        model = str(body.get("model"))
        prefixes = []
        for end in breakpoints:
            text = _json(segments[:end])
            if _tokens(text) >= MIN_TOKENS:
                prefixes.append((_tokens(text), self._key("anthropic", model, text)))
        return self._use(prefixes, all_written=False)

    # --- OpenAI: automatic, in 128-token steps -----------------------------------------------

    def _openai(self, body: dict[str, Any]) -> CacheUse:
        # What OpenAI puts in the prefix, in order: the output schema and tools, then the messages.
        head: list[Any] = [body.get("response_format"), body.get("text"), body.get("tools"), body.get("instructions")]
        parts: list[Any] = []
        for message in body.get("messages") or body.get("input") or []:
            content = message.get("content") if isinstance(message, dict) else message
            parts.append(message.get("role") if isinstance(message, dict) else None)
            parts += content if isinstance(content, list) else [content]
        text = _json(head) + "".join(_json(part) for part in parts)
        model = str(body.get("model"))
        steps = range(MIN_TOKENS, _tokens(text) + 1, STEP_TOKENS)
        prefixes = [(tokens, self._key("openai", model, text[: tokens * 4])) for tokens in steps]
        return self._use(prefixes, all_written=True)

    # --- shared ----------------------------------------------------------------------------

    @staticmethod
    def _key(provider: str, model: str, text: str) -> str:
        return hashlib.sha256(f"{provider}\0{model}\0{text}".encode()).hexdigest()

    def _use(self, prefixes: list[tuple[int, str]], all_written: bool) -> CacheUse:
        """Read the longest live prefix, refresh it, store the others; Anthropic bills the stored part as written."""
        if not prefixes:
            return CacheUse()
        now = self._clock()
        with self._lock:
            read = 0
            for tokens, key in prefixes:
                if self._entries.get(key, 0.0) > now:
                    read = max(read, tokens)
            for _, key in prefixes:
                self._entries[key] = now + TTL
            longest = max(tokens for tokens, _ in prefixes)
            if read:
                self.reads += 1
            if longest > read:
                self.writes += 1
        # OpenAI bills no cache write: it caches as a side effect.
        return CacheUse(read, 0 if all_written else longest - read)
