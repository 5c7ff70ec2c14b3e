"""Judge spend: a price table, the spend shared by every process of a run, and dry-run estimates.

Prices are USD per million tokens, matched by the longest model-id prefix. Cached input is
charged at the full input price, so the guard errs on the side of stopping early.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

__all__ = [
    "DEFAULT_PRICES",
    "PRICES_AS_OF",
    "OUTPUT_TOKENS_ESTIMATE",
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
IMAGE_TOKENS_ESTIMATE = 1600
"""An image's input tokens for dry-run estimates (about a 1,100 x 1,100 px image on Anthropic)."""


@dataclass(frozen=True)
class Price:
    """USD per million tokens."""

    input: Decimal
    output: Decimal


def _price(text_in: str, text_out: str) -> Price:
    return Price(Decimal(text_in), Decimal(text_out))


DEFAULT_PRICES: Mapping[str, Price] = {
    "claude-opus-4-7": _price("5", "25"),
    "claude-opus-4-6": _price("5", "25"),
    "claude-opus-4-5": _price("5", "25"),
    "claude-opus-4": _price("15", "75"),
    "claude-sonnet-4": _price("3", "15"),
    "claude-haiku-4": _price("1", "5"),
    "claude-3-5-haiku": _price("0.8", "4"),
    "gpt-5-nano": _price("0.05", "0.4"),
    "gpt-5-mini": _price("0.25", "2"),
    "gpt-5": _price("1.25", "10"),
    "gpt-4.1-mini": _price("0.4", "1.6"),
    "gpt-4.1": _price("2", "8"),
    "gpt-4o-mini": _price("0.15", "0.6"),
    "gpt-4o": _price("2.5", "10"),
    "o3": _price("2", "8"),
    "o4-mini": _price("1.1", "4.4"),
    "gemini-3-pro": _price("2", "12"),
    "gemini-2.5-pro": _price("1.25", "10"),
    "gemini-2.5-flash": _price("0.3", "2.5"),
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
            prices[str(prefix)] = Price(Decimal(str(entry["input"])), Decimal(str(entry["output"])))
        except (KeyError, TypeError, ArithmeticError):
            raise ValueError(
                f"{path}: entry {prefix!r} must be {{input: USD, output: USD}} per million tokens, got {entry!r}"
            ) from None
    return prices


def price_for(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of the longest prefix of the model id that the table names."""
    matches = [prefix for prefix in prices if model.startswith(prefix)]
    return prices[max(matches, key=len)] if matches else None


def cost(price: Price, input_tokens: int, output_tokens: int) -> Decimal:
    """USD for a number of tokens."""
    return (price.input * input_tokens + price.output * output_tokens) / Decimal(1_000_000)


def usage_cost(judges: Iterable[Mapping[str, Any]], prices: Mapping[str, Price]) -> Decimal:
    """USD for the tokens each judge record billed; judges without a price count nothing."""
    total = Decimal(0)
    for judge in judges:
        price = price_for(judge["model"], prices)
        if price is not None:
            total += cost(price, judge["usage"]["input_tokens"], judge["usage"]["output_tokens"])
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
