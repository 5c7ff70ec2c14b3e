"""Power of a paired comparison: the smallest true mean difference a paired t-test detects (statsmodels TTestPower).

The standardized effect TTestPower solves for, times the spread of a unit's difference, is the
minimum detectable difference (MDE) on the overall's scale. With clusters the units are the
clusters and the spread is the clustered standard error times sqrt(clusters), so the MDE grows
with the design effect.
"""

from __future__ import annotations

import functools
import math
import warnings

from statsmodels.stats.power import TTestPower

__all__ = ["POWER", "minimum_detectable", "standardized_effect"]

POWER = 0.8


@functools.lru_cache(maxsize=4096)
def standardized_effect(units: int, alpha: float, power: float = POWER) -> float | None:
    """Cohen's d detected with `power` by a two-sided one-sample (paired) t-test on `units` units at `alpha`."""
    if units < 2 or not 0 < alpha < 1:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # root finding at tiny n warns before it converges
            value = TTestPower().solve_power(
                effect_size=None, nobs=units, alpha=alpha, power=power, alternative="two-sided"
            )
    except (ValueError, RuntimeError):
        return None
    effect = float(value)
    return effect if math.isfinite(effect) and effect > 0 else None


def minimum_detectable(units: int, standard_error: float | None, alpha: float, power: float = POWER) -> float | None:
    """The MDE of a mean difference whose standard error is `standard_error` over `units` units."""
    effect = standardized_effect(units, alpha, power)
    if effect is None or standard_error is None or not math.isfinite(standard_error):
        return None
    return effect * standard_error * math.sqrt(units)
