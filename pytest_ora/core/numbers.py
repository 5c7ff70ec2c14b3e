"""Exact numbers as printed: every table, kind and report rounds through here."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction

__all__ = ["round_half_away", "whole_percent"]

_CONTEXT = Context(prec=60)


def round_half_away(value: Fraction, places: int) -> Decimal:
    """Round an exact value half away from zero (6.25 -> 6.3, 12.5 -> 13)."""
    decimal = _CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))
    return decimal.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def whole_percent(share: float) -> str:
    """A share (0 to 1) as a whole percentage rounded half away from zero, as the summary table rounds it (0.225 -> 23%)."""
    return f"{round_half_away(Fraction(str(share)) * 100, 0)}%"
