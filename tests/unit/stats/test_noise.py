"""Judge noise: the variance components equal statsmodels' ANOVA and mixed model on the same data."""

from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import statsmodels.formula.api as smf
from statsmodels.regression.mixed_linear_model import MixedLM
from statsmodels.stats.anova import anova_lm

from pytest_ora.stats.arrays import RunArrays, Scale
from pytest_ora.stats.noise import components, noise_section


def crossed(captures: int, judges: int, samples: int, seed: int = 3) -> np.ndarray:
    """captures x judges x samples: capture sd 1.5, judge leniency sd 0.6, judge-by-capture sd 0.7, sample sd 0.8."""
    rng = np.random.default_rng(seed)
    capture = rng.normal(0, 1.5, (captures, 1, 1))
    judge = rng.normal(0, 0.6, (1, judges, 1))
    cell = rng.normal(0, 0.7, (captures, judges, 1))
    return 6 + capture + judge + cell + rng.normal(0, 0.8, (captures, judges, samples))


def frame(values: np.ndarray) -> pd.DataFrame:
    c, j, k = values.shape
    cap, jud, _ = np.meshgrid(np.arange(c), np.arange(j), np.arange(k), indexing="ij")
    return pd.DataFrame(
        {"y": values.ravel(), "cap": cap.ravel(), "jud": jud.ravel(), "cell": (cap * j + jud).ravel(), "one": 1}
    )


def test_the_mean_squares_are_statsmodels_anova_lm_of_the_two_way_model_with_interaction() -> None:
    values = crossed(24, 3, 3)
    found = components(values)
    assert found is not None
    table = anova_lm(smf.ols("y ~ C(cap) + C(jud) + C(cap):C(jud)", data=frame(values)).fit(), typ=1)
    mean_sq = table["sum_sq"] / table["df"]
    assert found.mean_squares["capture"] == pytest.approx(mean_sq["C(cap)"], rel=1e-9)
    assert found.mean_squares["judge"] == pytest.approx(mean_sq["C(jud)"], rel=1e-9)
    assert found.mean_squares["judge_by_capture"] == pytest.approx(mean_sq["C(cap):C(jud)"], rel=1e-9)
    assert found.mean_squares["within_judge"] == pytest.approx(mean_sq["Residual"], rel=1e-9)


def test_the_components_are_statsmodels_mixedlm_reml_on_the_same_data() -> None:
    values = crossed(20, 3, 3)
    found = components(values)
    assert found is not None
    model = MixedLM.from_formula(
        "y ~ 1",
        groups="one",
        re_formula="0",
        data=frame(values),
        vc_formula={"cap": "0 + C(cap)", "cell": "0 + C(cell)", "jud": "0 + C(jud)"},
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence chatter on a one-group model; the estimates are compared below
        # Nelder-Mead first: lbfgs alone can stop at a poorer optimum of this likelihood (its llf lower)
        fit = model.fit(reml=True, method=["nm", "lbfgs"])
    capture, cell, judge = (float(v) for v in fit.vcomp)  # vc_formula's keys in sorted order
    assert found.capture == pytest.approx(capture, rel=1e-3)
    assert found.judge == pytest.approx(judge, rel=1e-3)
    assert found.judge_by_capture == pytest.approx(cell, rel=1e-3)
    assert found.within_judge == pytest.approx(float(fit.scale), rel=1e-3)
    assert found.between_judge == pytest.approx(judge + cell, rel=1e-3)


def test_with_one_sample_within_judge_is_not_separated_and_the_residual_is_between_judge() -> None:
    values = crossed(24, 3, 1)
    found = components(values)
    assert found is not None and found.within_judge is None
    table = anova_lm(smf.ols("y ~ C(cap) + C(jud)", data=frame(values)).fit(), typ=1)
    residual = table["sum_sq"]["Residual"] / table["df"]["Residual"]
    assert found.judge_by_capture == pytest.approx(residual, rel=1e-9)  # interaction and sampling noise together
    capture = (table["sum_sq"]["C(cap)"] / table["df"]["C(cap)"] - residual) / 3
    assert found.capture == pytest.approx(capture, rel=1e-9)


def test_a_capture_missing_a_judge_or_a_sample_is_left_out() -> None:
    values = crossed(10, 2, 3)
    holed = values.copy()
    holed[4, 1, 2] = np.nan
    found = components(holed)
    assert found is not None and found.captures == 9
    assert found.mean_squares == components(np.delete(values, 4, axis=0)).mean_squares  # type: ignore[union-attr]


def arrays(values: np.ndarray) -> RunArrays:
    """One criterion ("quality", overall its score), two configurations splitting the captures."""
    c, j, _ = values.shape
    reduced = values.mean(axis=2)
    samples = np.concatenate([values[:, :, :, None], values[:, :, :, None]], axis=3)
    return RunArrays(
        capture_ids=tuple(f"e{i}/{'ab'[i % 2]}" for i in range(c)),
        entry_keys=tuple(f"e{i // 2}" for i in range(c)),
        configurations=tuple("ab"[i % 2] for i in range(c)),
        criteria=("quality",),
        judges=tuple("ABC"[:j]),
        scores=reduced[:, :, None],
        judge_overall=reduced,
        overall=reduced.mean(axis=1),
        failure=np.zeros(c, dtype=np.bool_),
        critical=None,
        scale=Scale(Fraction(0), Fraction(10)),
        samples=samples,
    )


def test_each_configuration_gets_the_width_judge_noise_accounts_for_and_what_k_samples_would_give() -> None:
    values = crossed(60, 2, 3)
    data = arrays(values)
    rows = [{"configuration": name, "t_interval": [5.0, 6.0]} for name in "ab"]
    section = noise_section(data, rows, "mean")
    assert section["samples"] == 3 and section["overall"]["within_judge"] is not None
    for row in section["configurations"]:
        widths = row["width_with_samples"]
        assert widths["3"] == pytest.approx(1.0)  # the run's own K gives the run's own width
        assert widths["1"] > widths["3"] > widths["5"] > widths["10"] > 1.0 - row["judge_noise_width"]
        assert 0 < row["judge_noise_width"] < 1.0 and 0 < row["judge_noise_share"] < 1
    shares = section["overall"]["shares"]
    assert sum(shares.values()) == pytest.approx(1.0)


def test_a_configuration_spread_less_than_the_judges_noise_gets_no_split_and_says_why() -> None:
    values = crossed(40, 2, 3)
    values[0::2] = (
        values[0::2].mean(axis=(1, 2), keepdims=True).mean()
        + values[0::2]
        - values[0::2].mean(axis=(1, 2), keepdims=True)
    )
    data = arrays(values)  # configuration a: only the judges' noise moves its captures' overall
    section = noise_section(data, [{"configuration": "a", "t_interval": [5.0, 6.0]}], "mean")
    row = section["configurations"][0]
    assert row["judge_noise_width"] is None and row["width_with_samples"] is None
    assert "too few captures to split its interval's width" in row["note"]


def test_summary_words_say_where_the_variance_lies_and_that_one_sample_cannot_separate_within_judge() -> None:
    from pytest_ora.reports.statsfiles import noise_words

    one = noise_section(arrays(crossed(60, 2, 1)), [{"configuration": "a", "t_interval": [5.0, 6.0]}], "mean")
    words = noise_words(one)
    assert words.startswith(
        "Judge noise: of the variance of a judge's overall score (60 captures every judge scored), "
    )
    assert "cannot be told apart" in words and "--ora-judge-samples 3" in words
    three = noise_section(arrays(crossed(60, 2, 3)), [{"configuration": "a", "t_interval": [5.0, 6.0]}], "mean")
    words = noise_words(three)
    assert "3 samples per judge" in words and "within a judge, from one sample to the next" in words
    assert "with 10 samples per judge that interval would be" in words
