"""Inter-judge agreement on one criterion (or on overall): captures x judges ratings in, figures out.

Krippendorff's alpha comes from the `krippendorff` package, the weighted kappa from statsmodels;
here are only the shares of captures on which the judges agree, and the choice of categories.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce

import krippendorff
import numpy as np
import numpy.typing as npt
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from .arrays import Scale, decimal_fraction

__all__ = [
    "MAX_ALPHA_CELLS",
    "MAX_KAPPA_CATEGORIES",
    "MAX_ORDINAL_POINTS",
    "Agreement",
    "agreement",
    "discrete_grid",
    "fleiss",
    "icc_2k",
    "interval_alpha",
    "ordinal_alpha",
]

MAX_ORDINAL_POINTS = 11
"""Ordinal alpha for integer scales of at most this many points (0-10, 1-5 Likert)."""
MAX_KAPPA_CATEGORIES = 101
"""A scale finer than this (0-10 in tenths) is treated as continuous: no kappa."""
MAX_ALPHA_CELLS = 1_000_000
"""krippendorff.alpha holds four captures x values x values arrays at once (8 MB each at this bound, 160 MB
in all for a 10x bundle's criteria); past it, interval alpha comes from the same coincidence formula in
closed form (`interval_alpha`), which a test holds to the library's value."""


@dataclass(frozen=True)
class Agreement:
    """How far the judges agree on one quantity over the scored captures."""

    n: int
    """Captures rated by every judge."""
    krippendorff_alpha: float | None
    """Interval-level alpha; None when undefined (fewer than two captures, or no variation at all)."""
    exact: float | None
    """Share of captures on which every judge gave the same value."""
    within_one: float | None
    """Share of captures on which the judges' spread is at most one scale step."""
    quadratic_kappa: float | None
    """Quadratic-weighted Cohen's kappa: two judges on a discrete scale only, else None."""
    note: str | None = None
    """Why a figure is missing, when one is."""
    alpha_ordinal: float | None = None
    """Ordinal-level alpha: integer scales of at most MAX_ORDINAL_POINTS points, every rating a whole point."""
    fleiss_kappa: float | None = None
    """Fleiss' kappa (statsmodels): three or more judges on a discrete scale."""
    icc_2k: float | None = None
    """ICC(2,k): two-way random effects, absolute agreement, the reliability of the panel's mean of k judges."""


def discrete_grid(values: npt.NDArray[np.float64], scale: Scale) -> npt.NDArray[np.float64] | None:
    """The evenly spaced categories from the scale's minimum that hold every value, or None if too fine.

    The spacing is the greatest common divisor of one scale step and every value's distance from
    the minimum (0-10 judged in half points: 21 categories), so no value is rounded.
    """
    unique = np.unique(values)
    offsets = [decimal_fraction(float(value)) - scale.minimum for value in unique]
    spacing = reduce(_gcd, offsets, scale.unit)
    count = (scale.range / spacing) + 1
    if count.denominator != 1 or count > MAX_KAPPA_CATEGORIES or any(o < 0 or o > scale.range for o in offsets):
        return None
    return np.array([float(scale.minimum + spacing * k) for k in range(int(count))])


def _gcd(a: Fraction, b: Fraction) -> Fraction:
    """Greatest common divisor of two non-negative rationals."""
    a, b = abs(a), abs(b)
    denominator = a.denominator * b.denominator // math.gcd(a.denominator, b.denominator)
    return Fraction(math.gcd(int(a * denominator), int(b * denominator)), denominator)


def _alpha(ratings: npt.NDArray[np.float64]) -> float | None:
    distinct = np.unique(ratings).size
    if ratings.shape[0] * distinct * distinct > MAX_ALPHA_CELLS:
        return interval_alpha(ratings)
    try:
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            value = float(krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval"))
    except ValueError:  # one value in the whole domain: agreement is undefined, not perfect
        return None
    return value if math.isfinite(value) else None


def interval_alpha(ratings: npt.NDArray[np.float64]) -> float | None:
    """Krippendorff's interval alpha of complete captures x judges ratings, in closed form.

    The library's coincidence matrix costs captures x values x values memory, gigabytes for a
    weighted overall with hundreds of distinct values. With the squared difference as the
    metric, both sums of the formula reduce to sums of values and squares:
    alpha = 1 - (N - 1) * sum_u [sum_{i!=j in u} (v_i - v_j)^2 / (m - 1)] / sum_{i!=j} (v_i - v_j)^2.
    A test checks it against krippendorff.alpha wherever the library fits.
    """
    units, judges = ratings.shape
    total = units * judges
    if units < 2 or judges < 2:
        return None
    within = float((2 * (judges * (ratings**2).sum(axis=1) - ratings.sum(axis=1) ** 2) / (judges - 1)).sum())
    between = 2 * (total * float((ratings**2).sum()) - float(ratings.sum()) ** 2)
    if between <= 0:
        return None  # no variation at all: agreement is undefined, not perfect
    return float(1 - (total - 1) * within / between)


def _kappa(ratings: npt.NDArray[np.float64], scale: Scale) -> float | None:
    grid = discrete_grid(ratings.ravel(), scale)
    if grid is None:
        return None
    spacing = grid[1] - grid[0] if grid.size > 1 else 1.0
    index = np.rint((ratings - grid[0]) / spacing).astype(np.intp)
    table = np.zeros((grid.size, grid.size))
    np.add.at(table, (index[:, 0], index[:, 1]), 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(cohens_kappa(table, weights=grid, wt="quadratic", return_results=False))
    return value if math.isfinite(value) else None


def agreement(ratings: npt.NDArray[np.float64], scale: Scale) -> Agreement:
    """Agreement of captures x judges ratings (rows with a missing rating are left out)."""
    complete = ratings[~np.isnan(ratings).any(axis=1)] if ratings.size else ratings.reshape(0, ratings.shape[-1])
    n, judges = complete.shape
    if n == 0 or judges < 2:
        return Agreement(
            n, None, None, None, None, "agreement needs two or more judges per capture" if judges < 2 else None
        )
    spread = complete.max(axis=1) - complete.min(axis=1)
    # A small tolerance: spreads of decimal scores (7.3 - 6.3) are not exact in binary.
    within = float(scale.unit) + 1e-9
    alpha = _alpha(complete) if n >= 2 else None
    kappa = _kappa(complete, scale) if judges == 2 else None
    return Agreement(
        n=n,
        krippendorff_alpha=alpha,
        exact=float(np.mean(spread <= 1e-9)),
        within_one=float(np.mean(spread <= within)),
        quadratic_kappa=kappa,
        note=_note(complete, scale, alpha, kappa),
        alpha_ordinal=ordinal_alpha(complete, scale),
        fleiss_kappa=fleiss(complete, scale) if judges >= 3 else None,
        icc_2k=icc_2k(complete),
    )


def ordinal_alpha(ratings: npt.NDArray[np.float64], scale: Scale) -> float | None:
    """Krippendorff's ordinal alpha (krippendorff.alpha) on an integer scale of at most MAX_ORDINAL_POINTS points."""
    low, high = scale.minimum, scale.maximum
    if low.denominator != 1 or high.denominator != 1 or high - low + 1 > MAX_ORDINAL_POINTS or ratings.shape[0] < 2:
        return None
    if not np.all(ratings == np.rint(ratings)):
        return None  # half points on a whole-point scale are not ordinal categories of it
    try:
        with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            value = float(
                krippendorff.alpha(
                    reliability_data=ratings.T,
                    level_of_measurement="ordinal",
                    value_domain=list(range(int(low), int(high) + 1)),
                )
            )
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def fleiss(ratings: npt.NDArray[np.float64], scale: Scale) -> float | None:
    """Fleiss' kappa (statsmodels fleiss_kappa over aggregate_raters) on the scale's discrete categories."""
    grid = discrete_grid(ratings.ravel(), scale)
    if grid is None or ratings.shape[0] < 2:
        return None
    spacing = grid[1] - grid[0] if grid.size > 1 else 1.0
    codes = np.rint((ratings - grid[0]) / spacing).astype(np.intp)
    table, _ = aggregate_raters(codes, n_cat=grid.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(fleiss_kappa(table, method="fleiss"))
    return value if math.isfinite(value) else None


def icc_2k(ratings: npt.NDArray[np.float64]) -> float | None:
    """ICC(2,k) of complete captures x judges ratings, from the two-way ANOVA mean squares.

    (MS_rows - MS_error) / (MS_rows + (MS_judges - MS_error) / n): Shrout and Fleiss's ICC(2,k), the
    figure pingouin.intraclass_corr reports as ICC(A,k), formerly ICC2k (a test holds the two equal).
    """
    n, k = ratings.shape
    if n < 2 or k < 2:
        return None
    grand = float(ratings.mean())
    rows = float(k * ((ratings.mean(axis=1) - grand) ** 2).sum()) / (n - 1)
    columns = float(n * ((ratings.mean(axis=0) - grand) ** 2).sum()) / (k - 1)
    residual = ratings - ratings.mean(axis=1, keepdims=True) - ratings.mean(axis=0, keepdims=True) + grand
    error = float((residual**2).sum()) / ((n - 1) * (k - 1))
    denominator = rows + (columns - error) / n
    if denominator <= 0:
        return None  # no variation between captures: reliability is undefined, not zero
    return float((rows - error) / denominator)


def _note(ratings: npt.NDArray[np.float64], scale: Scale, alpha: float | None, kappa: float | None) -> str | None:
    notes = []
    distinct = int(np.unique(ratings).size)
    if alpha is None:
        notes.append("alpha undefined: fewer than two captures or no variation")
    elif ratings.shape[0] * distinct * distinct > MAX_ALPHA_CELLS:
        notes.append(
            f"alpha in closed form: {distinct} distinct values over {ratings.shape[0]} captures exceed "
            "what krippendorff.alpha holds in memory (captures x values x values)"
        )
    if kappa is None and ratings.shape[1] == 2 and discrete_grid(ratings.ravel(), scale) is None:
        notes.append(f"kappa not computed: {distinct} distinct values are not on a discrete scale")
    elif kappa is None and ratings.shape[1] != 2:
        notes.append("kappa needs exactly two judges")
    return "; ".join(notes) or None
