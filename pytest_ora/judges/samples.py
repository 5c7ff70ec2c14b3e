"""Judge samples: each judge judges a capture K times, and its score per criterion is the reducer of the K.

Each sample is its own judge call and its own recorded exchange. Sample 1 is the ordinary call;
sample k > 1 ends its prompt with a line saying it is judgment k of this capture, so its request
differs from every other sample's (a cassette matches requests on their bytes and returns each
sample's own reply on replay, and no gateway or provider cache can hand one sample another's
answer). The line asks for nothing else; the judge reads the same packet, rubric and scale.

The mean of K decimal scores is written to `MEAN_PLACES` decimal places (half to even); the median
of an odd K is one of the scores, of an even K the mean of the middle two (exact).
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from ..core.plan import Panel
from ..core.rubric import Rubric

__all__ = ["MEAN_PLACES", "REDUCERS", "reduce_scores", "sample_line", "sampled_panel"]

REDUCERS = ("mean", "median")
MEAN_PLACES = 6
"""Decimal places of a mean of samples (a mean of three whole points is a repeating decimal)."""
SAMPLED_KINDS = ("scores",)
"""Rubric kinds whose judge replies are scores per criterion and nothing else, so samples reduce cleanly."""


def sampled_panel(panel: Panel, manifest: Any, rubric: Rubric, option: int | None) -> Panel:
    """The panel with its samples (the option, else bundle.yaml `judge_samples:`, else 1) and reducer.

    Raises ValueError, worded for the user, when K > 1 cannot apply to this rubric's kind.
    """
    samples = option if option is not None else (getattr(manifest, "judge_samples", None) or 1)
    reducer = getattr(manifest, "reducer", None) or "mean"
    if samples > 1 and rubric.kind not in SAMPLED_KINDS:
        given = "--ora-judge-samples" if option is not None else "bundle.yaml judge_samples"
        raise ValueError(
            f"{given} {samples}: judge samples need a rubric scored per criterion (kind scores); rubric "
            f"{rubric.version} is kind {rubric.kind}, whose replies do not reduce to a score per criterion. "
            "Use 1 sample with this rubric."
        )
    return dataclasses.replace(panel, samples=int(samples), reducer=reducer)


def sample_line(sample: int) -> str | None:
    """The line ending sample k's prompt (None for sample 1, the ordinary call)."""
    if sample <= 1:
        return None
    return (
        f"Repeated judgment: this is judgment {sample} of this capture, made independently of any other. "
        "Score it as you would the first time."
    )


def _mean(values: Sequence[Decimal]) -> Decimal:
    total = sum(values, Decimal(0)) / Decimal(len(values))
    return total.quantize(Decimal(1).scaleb(-MEAN_PLACES), rounding=ROUND_HALF_EVEN).normalize()


def _text(value: Decimal) -> str:
    """A decimal as a plain decimal string (no exponent: 10, not 1E+1)."""
    return format(value, "f")


def reduce_scores(samples: Sequence[Mapping[str, str]], reducer: str) -> dict[str, str]:
    """Each criterion's score over the samples: their mean or median, as a decimal string."""
    if reducer not in REDUCERS:
        raise ValueError(f"unknown reducer {reducer!r}; use mean or median")
    reduced = {}
    for name in samples[0]:
        values = [Decimal(sample[name]) for sample in samples]
        value = _mean(values) if reducer == "mean" else Decimal(statistics.median(values))
        reduced[name] = _text(value.normalize()) if value == value.to_integral_value() else _text(value)
    return reduced
