"""disagreements.csv: the threshold, exact decimal spreads, widest first."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from pytest_ora.method.rubric import ORA_V1
from pytest_ora.reports.statsfiles import disagreements_csv
from pytest_ora.stats.arrays import RunArrays, Scale, scale_of
from pytest_ora.stats.disagreements import disagreements, threshold


def arrays(scores: list[list[list[float]]]) -> RunArrays:
    values = np.array(scores, dtype=float)
    n = values.shape[0]
    return RunArrays(
        capture_ids=tuple(f"mode:t{i}/optimum" for i in range(n)),
        entry_keys=tuple(f"mode:t{i}" for i in range(n)),
        configurations=("optimum",) * n,
        criteria=ORA_V1.names[: values.shape[2]],
        judges=("A", "B"),
        scores=values,
        judge_overall=values.mean(axis=2),
        overall=values.mean(axis=(1, 2)),
        failure=np.zeros(n, dtype=bool),
        critical=None,
        scale=scale_of(ORA_V1),
    )


@pytest.mark.parametrize(("given", "points"), [("30%", 3), ("3", 3), ("12.5%", Fraction(5, 4)), ("0", 0)])
def test_threshold_is_points_or_a_share_of_the_range(given: str, points: Fraction) -> None:
    assert threshold(given, scale_of(ORA_V1)) == points
    assert threshold("30%", Scale(Fraction(1), Fraction(5))) == Fraction(6, 5)


def test_listed_widest_first_with_exact_decimal_spreads() -> None:
    data = arrays(
        [
            [[7.3, 5.0], [4.3, 5.5]],  # fidelity spread 3.0 exactly (2.9999999999999996 in binary)
            [[9.0, 1.0], [4.0, 6.0]],  # fidelity 5.0, soundness 5.0
            [[6.0, 6.0], [6.5, 6.0]],  # no disagreement
        ]
    )

    found = disagreements(data, Fraction(3))

    assert [(d.capture_id, d.criterion, d.spread) for d in found] == [
        ("mode:t1/optimum", "fidelity", 5),
        ("mode:t1/optimum", "soundness", 5),
        ("mode:t0/optimum", "fidelity", 3),
    ]
    assert disagreements_csv(found, data.judges, "ora-1.0").splitlines() == [
        "capture_id,criterion,judge_a,judge_b,spread,rubric",
        "mode:t1/optimum,fidelity,9.0,4.0,5.0,ora-1.0",
        "mode:t1/optimum,soundness,1.0,6.0,5.0,ora-1.0",
        "mode:t0/optimum,fidelity,7.3,4.3,3.0,ora-1.0",
    ]
