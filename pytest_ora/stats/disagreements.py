"""Judge disagreements: (capture, criterion) pairs where the judges' spread reaches a threshold."""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .arrays import RunArrays, Scale, decimal_fraction

__all__ = ["DEFAULT_SHARE", "Disagreement", "disagreements", "threshold"]

DEFAULT_SHARE = "30%"
"""The default threshold: 30% of the scale's range (3 points on 0-10)."""


@dataclass(frozen=True)
class Disagreement:
    """One criterion of one capture on which the judges differ by at least the threshold."""

    capture_id: str
    criterion: str
    scores: tuple[float, ...]
    """Each judge's score, panel order."""
    spread: Fraction


def threshold(text: str, scale: Scale) -> Fraction:
    """--ora-disagreement as scale points: "3" is 3 points, "30%" is 30% of the scale's range."""
    text = text.strip()
    if text.endswith("%"):
        return Fraction(text[:-1]) / 100 * scale.range
    return Fraction(text)


@functools.lru_cache(maxsize=65_536)  # scores repeat: each (highest, lowest) pair is decided once
def _listed_spread(highest: float, lowest: float, at_least: Fraction) -> Fraction | None:
    """The exact spread when it reaches the threshold (a decimal's exact value orders as its float does)."""
    width = decimal_fraction(highest) - decimal_fraction(lowest)
    return width if width >= at_least else None


def disagreements(data: RunArrays, at_least: Fraction) -> list[Disagreement]:
    """Every (capture, criterion) with spread >= at_least, widest first, then in bundle and criterion order."""
    if not data.capture_ids or len(data.judges) < 2:
        return []
    with warnings.catch_warnings():
        # a criterion no judge scored (kind compare's captures) is an all-NaN slice: NaN, never a candidate
        warnings.simplefilter("ignore", RuntimeWarning)
        spread = np.nanmax(data.scores, axis=1) - np.nanmin(data.scores, axis=1)
    found = []
    # The float spread finds candidates; the exact decimal spread decides (7.3 - 4.3 is 3, not 2.9999999999999996).
    for i, k in zip(*np.nonzero(spread >= float(at_least) - 1e-6)):
        values = tuple(float(v) for v in data.scores[i, :, k])
        given = [v for v in values if not np.isnan(v)]
        width = _listed_spread(max(given), min(given), at_least)
        if width is not None:
            found.append(Disagreement(data.capture_ids[i], data.criteria[k], values, width))
    # Stable: ties keep bundle and criterion order. Spreads of decimal scores differ by far more than a
    # float's resolution, so the float orders them as the exact value does (and 10x faster).
    return sorted(found, key=lambda d: -float(d.spread))
