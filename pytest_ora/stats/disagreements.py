"""Judge disagreements: (capture, criterion) pairs where the judges' spread reaches a threshold."""

from __future__ import annotations

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
        exact = [decimal_fraction(v) for v in values if not np.isnan(v)]
        width = max(exact) - min(exact)
        if width >= at_least:
            found.append(Disagreement(data.capture_ids[i], data.criteria[k], values, width))
    return sorted(found, key=lambda d: -d.spread)  # stable: ties keep bundle and criterion order
