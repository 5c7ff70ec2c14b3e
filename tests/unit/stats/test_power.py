"""Power: the minimum detectable difference has 80% power by statsmodels' own TTestPower.power."""

from __future__ import annotations

import math

import pytest
from statsmodels.stats.power import TTestPower

from pytest_ora.stats.power import minimum_detectable


@pytest.mark.parametrize(
    ("units", "sd", "alpha"), [(190, 3.7, 0.05), (190, 4.5, 0.05 / 15), (3, 0.3, 0.05), (20, 1.0, 0.01)]
)
def test_the_mde_has_80_percent_power(units: int, sd: float, alpha: float) -> None:
    mde = minimum_detectable(units, sd / math.sqrt(units), alpha)
    assert mde is not None
    assert TTestPower().power(effect_size=mde / sd, nobs=units, alpha=alpha, alternative="two-sided") == pytest.approx(
        0.8, abs=1e-4
    )


def test_the_issue_figures() -> None:
    # SD 3.7-4.5 at n = 190: 0.76-0.92 points at alpha 0.05, about 1.0-1.25 after Holm over 15 pairs.
    assert minimum_detectable(190, 3.7 / math.sqrt(190), 0.05) == pytest.approx(0.757, abs=0.01)
    assert minimum_detectable(190, 4.5 / math.sqrt(190), 0.05) == pytest.approx(0.92, abs=0.01)
    assert minimum_detectable(190, 3.7 / math.sqrt(190), 0.05 / 15) == pytest.approx(1.02, abs=0.02)


def test_undefined_cases() -> None:
    assert minimum_detectable(1, 1.0, 0.05) is None
    assert minimum_detectable(10, None, 0.05) is None
