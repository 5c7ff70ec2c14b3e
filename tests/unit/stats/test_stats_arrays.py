"""The adapter: ledger rows (two-judge or N-judge) to captures x judges x criteria arrays."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from test_report import record

from pytest_ora.method.rubric import ORA_V1
from pytest_ora.method.scoring import combine
from pytest_ora.reports.aggregation import ledger_row
from pytest_ora.stats.arrays import decimal_fraction, run_arrays, scale_of


def test_two_judge_rows_are_read_from_judge_a_and_judge_b() -> None:
    scored = record("optimum", "scored", scores=("8", "7.5", "6", "9", "5"), key="mode:a")
    rows = [ledger_row(r, ORA_V1).model_dump() for r in (scored, record("big-1", "excluded", key="mode:a"))]
    for row in rows:
        del row["judges"]  # a ledger row written before N-judge panels
    rows[0]["judge_b"]["scores"]["fidelity"] = 6.0  # the judges differ on one criterion

    data = run_arrays(rows, ORA_V1)

    assert data.capture_ids == ("mode:a/optimum",)  # only scored captures
    assert data.judges == ("A", "B")
    assert data.scores.shape == (1, 2, 5)
    assert data.scores[0, :, 0].tolist() == [8.0, 6.0]
    own_b = combine(
        [{"fidelity": "6", "soundness": "7.5", "completeness": "6", "relevance": "9", "calibration": "5"}], ORA_V1
    )
    assert data.judge_overall[0, 1] == float(own_b.overall)
    assert data.overall.tolist() == [rows[0]["overall"]]
    assert data.critical is None  # ora-1.0 has no votes


def test_a_two_judge_row_of_today_is_read_from_its_judges_list() -> None:
    row = ledger_row(record("optimum", "scored", scores=("8", "7.5", "6", "9", "5")), ORA_V1).model_dump()
    row["judges"][1]["scores"]["fidelity"] = 6.0
    row["judge_b"]["scores"]["fidelity"] = 1.0  # the list wins where both are present

    data = run_arrays([row], ORA_V1)

    assert data.judges == ("A", "B")
    assert data.scores[0, :, 0].tolist() == [8.0, 6.0]


def test_n_judge_rows_are_read_from_the_judges_list_with_their_labels_and_overall() -> None:
    judges = [
        {"label": label, "scores": dict(zip(ORA_V1.names, values)), "overall": own}
        for label, values, own in (
            ("A", (8, 8, 8, 8, 8), 8.0),
            ("B", (6, 6, 6, 6, 6), 6.0),
            ("C", (7, 7, 7, 7, 7), 7.0),
        )
    ]
    row = {
        "capture_id": "lens:x/optimum",
        "entry_key": "lens:x",
        "configuration": "optimum",
        "status": "scored",
        "judges": judges,
        "judge_a": None,
        "overall": 7.0,
        "failure": False,
        "critical": False,
    }

    data = run_arrays([row], ORA_V1)

    assert data.judges == ("A", "B", "C")
    assert data.judge_overall.tolist() == [[8.0, 6.0, 7.0]]
    assert np.array_equal(data.critical, np.array([False]))


def test_scale_and_exact_decimals() -> None:
    scale = scale_of(ORA_V1)
    assert (scale.minimum, scale.maximum, scale.step, scale.unit) == (0, 10, None, 1)
    assert decimal_fraction(7.3) - decimal_fraction(4.3) == 3
    assert decimal_fraction(0.1) == Fraction(1, 10)


def test_no_scored_rows_give_empty_arrays() -> None:
    data = run_arrays([], ORA_V1)
    assert data.scores.shape == (0, 0, 5) and data.overall.size == 0


@pytest.mark.parametrize("status", ["excluded", "unscorable", "error"])
def test_unscored_rows_are_left_out(status: str) -> None:
    assert run_arrays([ledger_row(record("optimum", status), ORA_V1).model_dump()], ORA_V1).capture_ids == ()
