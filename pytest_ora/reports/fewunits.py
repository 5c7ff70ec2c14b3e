"""Too few units: below SMALL_ROWS a row is marked small n and a bootstrap-only interval is not shown."""

from __future__ import annotations

__all__ = ["SMALL_ROWS", "TOO_FEW"]

SMALL_ROWS = 20
"""Fewer units than this: a row is marked small n, and a bootstrap-only figure shows no interval."""

TOO_FEW = "too few units for an interval"
"""What a table shows instead of a bootstrap interval over fewer than SMALL_ROWS units."""
