"""A run's panel agreement beside its rubric's recorded calibration: Fleiss' kappa, its bootstrap interval, the reading."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from pytest_ora.core.rubric import RecordedCalibration
from pytest_ora.method.rubric import get_rubric
from pytest_ora.method.rubric_file import digest_of
from pytest_ora.reports.statsdata import RecordedCalibrationSection
from pytest_ora.reports.statsfiles import recorded_calibration_line
from pytest_ora.stats.agreement import discrete_grid
from pytest_ora.stats.arrays import RunArrays, Scale
from pytest_ora.stats.recorded import _kappa, kappa_terms, recorded_calibration

LIKERT = Scale(Fraction(1), Fraction(5), Fraction(1))
RECORDED = RecordedCalibration("fleiss_kappa", 0.7878, "2026-04-24", "the trio's recorded agreement")


def _arrays(scores: np.ndarray) -> RunArrays:
    captures, judges, criteria = scores.shape
    return RunArrays(
        capture_ids=tuple(f"task:t{n}/cell-a" for n in range(captures)),
        entry_keys=tuple(f"task:t{n}" for n in range(captures)),
        configurations=("cell-a",) * captures,
        criteria=tuple(f"c{k}" for k in range(criteria)),
        judges=tuple(f"j{k}" for k in range(judges)),
        scores=scores,
        judge_overall=scores.mean(axis=2),
        overall=scores.mean(axis=(1, 2)),
        failure=np.zeros(captures, dtype=bool),
        critical=None,
        scale=LIKERT,
    )


def _noisy(captures: int, flip: float, seed: int = 7) -> np.ndarray:
    """Three judges who give each (capture, criterion) its true score, each moved one point with probability `flip`."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, (captures, 1, 6)).astype(float)
    moved = rng.random((captures, 3, 6)) < flip
    step = rng.choice([-1.0, 1.0], (captures, 3, 6))
    clipped: np.ndarray = np.clip(truth + moved * step, 1, 5)
    return clipped


def test_the_closed_form_kappa_equals_statsmodels_fleiss_kappa() -> None:
    scores = _noisy(40, 0.3)
    pooled = scores.transpose(0, 2, 1).reshape(-1, 3)
    table, _ = aggregate_raters((pooled - 1).astype(int), n_cat=5)
    grid = discrete_grid(scores.ravel(), LIKERT)
    assert grid is not None
    assert float(_kappa(kappa_terms(scores, grid).sum(axis=0), 3)) == pytest.approx(
        fleiss_kappa(table, method="fleiss"), abs=1e-12
    )
    assert recorded_calibration(_arrays(scores), RECORDED, seed=0)["run"]["value"] == pytest.approx(
        fleiss_kappa(table), abs=1e-12
    )


def test_when_the_recorded_value_is_outside_the_run_s_interval_the_run_says_recalibrate() -> None:
    # Given judges who agree far less than the record says
    result = recorded_calibration(_arrays(_noisy(60, 0.7)), RECORDED, seed=0)
    # Then the run's value, its interval, n and the word recalibrate are stated
    low, high = result["run"]["interval"]
    assert low <= result["run"]["value"] <= high < 0.7878
    assert result["run"]["captures"] == 60 and result["run"]["ratings"] == 360 and result["run"]["judges"] == 3
    assert result["verdict"] == "recalibrate" and result["recorded"]["value"] == 0.7878


def test_when_the_recorded_value_is_inside_the_interval_nothing_contradicts_it_and_nothing_more_is_claimed() -> None:
    scores = _noisy(12, 0.2)
    own = recorded_calibration(_arrays(scores), RECORDED, seed=0)["run"]["value"]
    result = recorded_calibration(_arrays(scores), RecordedCalibration("fleiss_kappa", round(own, 4), "d", "s"), seed=0)
    assert result["verdict"] == "consistent"
    assert "cannot confirm it either" in result["reading"]


def test_one_capture_compares_nothing() -> None:
    result = recorded_calibration(_arrays(_noisy(1, 0.2)), RECORDED, seed=0)
    assert result["verdict"] == "not compared" and result["run"]["interval"] is None


def test_the_same_seed_gives_the_same_interval() -> None:
    data = _arrays(_noisy(20, 0.4))
    assert recorded_calibration(data, RECORDED, seed=3) == recorded_calibration(data, RECORDED, seed=3)


def test_the_trio_rubric_records_its_calibration_outside_its_digest() -> None:
    rubric = get_rubric("trio-likert-1.1")
    assert rubric.calibration == RecordedCalibration(
        "fleiss_kappa", 0.7878, "2026-04-24", rubric.calibration.scope if rubric.calibration else ""
    )
    # a new measurement changes no score: the digest (and so every cassette recorded under it) stays
    assert digest_of({"rubric": "x", "calibration": {"value": 0.5}}) == digest_of({"rubric": "x"})
    assert get_rubric("trio-likert-1.0").calibration is None


def test_the_line_says_both_values_n_and_the_interval_in_plain_words() -> None:
    section = recorded_calibration(_arrays(_noisy(60, 0.7)), RECORDED, seed=0)
    line = recorded_calibration_line(RecordedCalibrationSection.model_validate(section))
    assert line.startswith(
        "Recorded calibration: Fleiss' kappa 0.7878 (2026-04-24; the trio's recorded agreement). This run: "
    )
    assert "60 captures, 360 ratings of 3 judges" in line and "Recalibrate: the recorded value lies outside" in line
