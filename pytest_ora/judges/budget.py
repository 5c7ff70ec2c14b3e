"""Judge spend: a price table, the spend shared by every process of a run, and dry-run estimates.

Prices are USD per million tokens, matched by the longest model-id prefix. Input read from a
prompt cache is charged at the provider's cache-read price and input written to it at the
cache-write price (Anthropic bills writes above the input price; OpenAI and Gemini bill none),
as the providers' pricing pages give them; a price without cache rates charges the full input
price for both.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DEFAULT_PRICES",
    "OUTPUT_TOKENS_ESTIMATE",
    "PRICES_AS_OF",
    "Price",
    "SpendLog",
    "cost",
    "estimate_input_tokens",
    "load_prices",
    "price_for",
    "usage_cost",
]

PRICES_AS_OF = "2026-11"
"""When the defaults were last checked against the providers' list prices; override with --ora-prices."""
OUTPUT_TOKENS_ESTIMATE = 400
"""A reply's output tokens for dry-run estimates (notes for five criteria and an impression)."""
CANDIDATE_ANSWER_TOKENS_ESTIMATE = 800
"""A candidate's answer for dry-run estimates, in tokens (at most its max_tokens): its own output, and input to each judge."""
IMAGE_TOKENS_ESTIMATE = 1600
"""An image's input tokens for dry-run estimates (about a 1,100 x 1,100 px image on Anthropic)."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: Decimal
    output: Decimal
    cached_input: Decimal | None = None
    """Input read from the prompt cache; None: the input price."""
    cache_write: Decimal | None = None
    """Input written to the prompt cache (Anthropic, 5-minute cache); None: the input price."""


def _price(text_in: str, text_out: str, read: str | None = None, write: str | None = None) -> Price:
    """A price; `read`/`write` are the cache rates as multiples of the input price."""
    base = Decimal(text_in)
    return Price(
        base,
        Decimal(text_out),
        None if read is None else base * Decimal(read),
        None if write is None else base * Decimal(write),
    )


# Cache rates (as of PRICES_AS_OF): Anthropic reads 0.1x, 5-minute writes 1.25x the input price;
# OpenAI cached input 0.1x (GPT-5 family), 0.25x (GPT-4.1, o3, o4-mini), 0.5x (GPT-4o) with no
# write charge; Gemini implicit-cache reads 0.25x (2.5), 0.1x (3) with no write charge.
_CLAUDE = ("0.1", "1.25")


DEFAULT_PRICES: Mapping[str, Price] = {
    "claude-opus-4-7": _price("5", "25", *_CLAUDE),
    "claude-opus-4-6": _price("5", "25", *_CLAUDE),
    "claude-opus-4-5": _price("5", "25", *_CLAUDE),
    "claude-opus-4": _price("15", "75", *_CLAUDE),
    "claude-sonnet-4": _price("3", "15", *_CLAUDE),
    "claude-haiku-4": _price("1", "5", *_CLAUDE),
    "claude-3-5-haiku": _price("0.8", "4", *_CLAUDE),
    "gpt-5-nano": _price("0.05", "0.4", "0.1", "1"),
    "gpt-5-mini": _price("0.25", "2", "0.1", "1"),
    "gpt-5": _price("1.25", "10", "0.1", "1"),
    "gpt-4.1-mini": _price("0.4", "1.6", "0.25", "1"),
    "gpt-4.1": _price("2", "8", "0.25", "1"),
    "gpt-4o-mini": _price("0.15", "0.6", "0.5", "1"),
    "gpt-4o": _price("2.5", "10", "0.5", "1"),
    "o3": _price("2", "8", "0.25", "1"),
    "o4-mini": _price("1.1", "4.4", "0.25", "1"),
    "gemini-3-pro": _price("2", "12", "0.1", "1"),
    "gemini-2.5-pro": _price("1.25", "10", "0.25", "1"),
    "gemini-2.5-flash": _price("0.3", "2.5", "0.25", "1"),
}


def load_prices(path: Path | None) -> dict[str, Price]:
    """The defaults, overridden by a YAML or JSON file of `model-prefix: {input: USD, output: USD}`."""
    prices = dict(DEFAULT_PRICES)
    if path is None:
        return prices
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: must map model-id prefixes to {{input: USD, output: USD}} per million tokens")
    for prefix, entry in data.items():
        try:
            prices[str(prefix)] = Price(
                Decimal(str(entry["input"])),
                Decimal(str(entry["output"])),
                *(
                    None if entry.get(name) is None else Decimal(str(entry[name]))
                    for name in ("cached_input", "cache_write")
                ),
            )
        except (KeyError, TypeError, ArithmeticError, AttributeError):
            raise ValueError(
                f"{path}: entry {prefix!r} must be {{input: USD, output: USD}} per million tokens (optionally "
                f"cached_input and cache_write), got {entry!r}"
            ) from None
    return prices


_BEDROCK_ID = re.compile(
    r"^(?:(?:us|eu|apac|jp|au|ca|global)\.)?(?:anthropic|meta|amazon|mistral|cohere|deepseek|openai)\."
)
"""A Bedrock model id's inference-profile region and vendor (`us.anthropic.claude-sonnet-4-5-...`): the model follows."""


def price_for(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of the longest prefix of the model id that the table names (a Bedrock id by the model it names)."""
    matches = [prefix for prefix in prices if model.startswith(prefix)]
    if not matches and _BEDROCK_ID.match(model):
        return price_for(_BEDROCK_ID.sub("", model), prices)
    return prices[max(matches, key=len)] if matches else None


def cost(price: Price, input_tokens: int, output_tokens: int, cached: int = 0, written: int = 0) -> Decimal:
    """USD for a number of tokens; `cached` and `written` are the input tokens read from and written to the cache."""
    cached = min(max(cached, 0), input_tokens)
    written = min(max(written, 0), input_tokens - cached)
    plain = input_tokens - cached - written
    read_price = price.input if price.cached_input is None else price.cached_input
    write_price = price.input if price.cache_write is None else price.cache_write
    total = price.input * plain + read_price * cached + write_price * written + price.output * output_tokens
    return total / Decimal(1_000_000)


def usage_cost(judges: Iterable[Mapping[str, Any]], prices: Mapping[str, Price]) -> Decimal:
    """USD for the tokens each judge record billed, cache reads and writes at their rates; judges without a price count nothing."""
    total = Decimal(0)
    for judge in judges:
        price = price_for(judge["model"], prices)
        if price is not None:
            usage = judge["usage"]
            total += cost(
                price,
                usage["input_tokens"],
                usage["output_tokens"],
                usage.get("cached_input_tokens", 0),
                usage.get("cache_write_input_tokens", 0),
            )
    return total


def estimate_input_tokens(request_bytes: int, images: int) -> int:
    """A request's input tokens, roughly: four bytes of JSON per token, plus each image."""
    return request_bytes // 4 + images * IMAGE_TOKENS_ESTIMATE


class SpendLog:
    """Live judge spend of this run, shared by every process through one file per process."""

    def __init__(self, directory: Path, process: str) -> None:
        self.directory = directory
        self._own = directory / f"{process}.json"

    def total(self) -> Decimal:
        total = Decimal(0)
        for path in sorted(self.directory.glob("*.json")):
            try:
                total += Decimal(json.loads(path.read_text(encoding="utf-8"))["usd"])
            except (OSError, ValueError, KeyError):
                continue  # a file being replaced right now; its next version counts
        return total

    def add(self, usd: Decimal) -> None:
        current = Decimal(0)
        if self._own.is_file():
            current = Decimal(json.loads(self._own.read_text(encoding="utf-8"))["usd"])
        self.directory.mkdir(parents=True, exist_ok=True)
        temporary = self._own.with_suffix(".tmp")
        temporary.write_text(json.dumps({"usd": str(current + usd)}), encoding="utf-8")
        os.replace(temporary, self._own)
