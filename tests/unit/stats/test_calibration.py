"""Judges against people: stats.json's `calibration` checked against the reference libraries,
on the bundled sample's labelled subset and on a judge panel built to share a bias."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from scipy import stats as scipy_stats
from test_statistics_sample import ROOT, judge, recorded_scores

from pytest_ora.bundle.intake import intake
from pytest_ora.bundle.labels import read_labels
from pytest_ora.core.record import CaptureRecord, base_record
from pytest_ora.method.rubric import get_rubric
from pytest_ora.method.scoring import combine
from pytest_ora.reports.calibration import calibration_markdown, gate_message
from pytest_ora.reports.methodology import RunFacts
from pytest_ora.reports.output import OutputDir
from pytest_ora.stats.arrays import run_arrays
from pytest_ora.stats.calibration import PANEL, SMALL_N, calibration, human_arrays
from pytest_ora.stats.statistics import run_statistics


def closed_form_qwk(a: np.ndarray, b: np.ndarray) -> float:
    """Quadratic-weighted kappa: 1 - mean squared disagreement / its expectation under independence."""
    return float(1 - np.mean((a - b) ** 2) / (a.var() + b.var() + (a.mean() - b.mean()) ** 2))


def t_interval(d: np.ndarray) -> tuple[float, float]:
    """Student t interval of a mean, from its definition."""
    half = scipy_stats.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    return float(d.mean() - half), float(d.mean() + half)


@pytest.fixture(scope="module")
def sample(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Any, dict[str, Any], dict[str, dict[str, dict[str, float]]], Any]:
    """The sample's labelled captures scored from their cassettes, and the stats.json write_report makes with the labels."""
    bundle = ROOT / "evals" / "bundle"
    plan = intake(bundle)
    labels = read_labels(
        bundle / "labels.jsonl", "labels.jsonl", plan.rubric, {p.capture.capture_id for p in plan.captures}
    )
    labelled = {label.capture_id for label in labels.labels}
    recorded: dict[str, dict[str, dict[str, float]]] = {}
    records: list[CaptureRecord] = []
    for planned in plan.captures:
        if planned.capture.capture_id not in labelled:
            continue
        scores = recorded[planned.capture.capture_id] = recorded_scores(planned.capture.capture_id)
        record = base_record(planned, "scored")
        record["judges"] = [judge("A", scores["A"]), judge("B", scores["B"])]
        records.append(record)
    out = OutputDir(tmp_path_factory.mktemp("sample-labels"))
    out.claim()
    try:
        facts = RunFacts(scoring_date="2026-06-20", record_mode="none", selected=len(records), labels=labels)
        out.write_report(plan, records, facts)
    finally:
        out.release()
    return plan, json.loads((out.path / "stats.json").read_text(encoding="utf-8")), recorded, labels


def test_the_sample_ships_30_labelled_captures_five_per_configuration(sample: Any) -> None:
    plan, stats, recorded, labels = sample
    assert len(labels.labels) == 30 and labels.raters == ("illustrative-1",)
    per = {name: sum(1 for c in recorded if c.endswith(f"/{name}")) for name in plan.bundle.manifest.configurations}
    assert per == {name: 5 for name in plan.bundle.manifest.configurations}
    assert stats["calibration"]["captures"] == 30 and stats["calibration"]["not_scored"] == 0


def test_the_samples_calibration_matches_the_reference_libraries(sample: Any) -> None:
    plan, stats, recorded, labels = sample
    human = {label.capture_id: {k: float(v) for k, v in label.scores} for label in labels.labels}
    order = [c for c in recorded]  # bundle order, as the ledger
    rows = {row["judge"]: row for row in stats["calibration"]["judges"]}
    assert list(rows) == ["A", "B", PANEL]

    def own(scores: dict[str, float]) -> float:
        return float(combine([{k: repr(float(v)) for k, v in scores.items()}], plan.rubric).overall)

    for label in ("A", "B", PANEL):
        for k, name in enumerate([*plan.rubric.names, "overall"]):
            h = np.array([own(human[c]) if name == "overall" else human[c][name] for c in order])
            if label == PANEL:
                both = [[recorded[c]["A"], recorded[c]["B"]] for c in order]
                if name == "overall":
                    j = np.array(
                        [
                            float(
                                combine([{n: repr(float(v)) for n, v in s.items()} for s in pair], plan.rubric).overall
                            )
                            for pair in both
                        ]
                    )
                else:
                    j = np.array([(pair[0][name] + pair[1][name]) / 2 for pair in both])
            else:
                j = np.array(
                    [own(recorded[c][label]) if name == "overall" else recorded[c][label][name] for c in order]
                )
            row = rows[label]["overall"] if name == "overall" else rows[label]["criteria"][k]
            assert row["criterion"] == name and row["n"] == 30 and row["small_n"] is False
            assert row["krippendorff_alpha"] == pytest.approx(
                krippendorff.alpha(reliability_data=[j, h], level_of_measurement="interval"), abs=1e-10
            )
            if name != "overall":
                assert row["quadratic_kappa"] == pytest.approx(closed_form_qwk(j, h), abs=1e-10)
            assert row["bias"] == pytest.approx(float(np.mean(j - h)), abs=1e-10)
            assert row["bias_interval"] == pytest.approx(list(t_interval(j - h)), abs=1e-10)
            assert row["mae"] == pytest.approx(float(np.mean(np.abs(j - h))), abs=1e-10)
            assert row["spearman_rho"] == pytest.approx(float(scipy_stats.spearmanr(j, h).statistic), abs=1e-10)
    assert stats["calibration"]["humans"] is None  # one rater: no ceiling to report


def shared_bias_rows(tmp_path: Path, bias: float = 1.5, captures: int = 40) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two judges that track people closely, except that both add `bias` to soundness: stats.json's data."""
    rubric = get_rubric("ora-1.0")
    rng = np.random.default_rng(23)
    names = rubric.names
    ids = [f"mode:t{i}/optimum" for i in range(captures)]
    people = {c: {n: int(rng.integers(1, 8)) for n in names} for c in ids}
    rows, lines = [], []
    noise = (-0.5, 0.0, 0.5, 0.0)  # each judge's small disagreements with people, zero on average over 40 captures
    for i, c in enumerate(ids):
        lines.append(json.dumps({"capture_id": c, "rater": "ana", "scores": people[c]}))
        judges = []
        for j, label in enumerate(("A", "B")):
            scores = {
                n: people[c][n] + noise[(i + j + k) % 4] + (bias if n == "soundness" else 0)
                for k, n in enumerate(names)
            }
            judges.append({"label": label, "scores": scores})
        overall = float(combine([{n: repr(v) for n, v in j["scores"].items()} for j in judges], rubric).overall)
        rows.append(
            {
                "capture_id": c,
                "entry_key": c.split("/")[0],
                "configuration": "optimum",
                "status": "scored",
                "overall": overall,
                "failure": overall < 4,
                "judges": judges,
            }
        )
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n")
    labels = read_labels(path, "labels.jsonl", rubric, set(ids))
    data = run_arrays(rows, rubric)
    result = run_statistics(
        data,
        ["optimum"],
        intake_free_manifest(),
        seed=0,
        disagreement="30%",
        resamples=200,
        labels=human_arrays(labels, rubric),
    )
    return result.data, {row["judge"]: row for row in result.data["calibration"]["judges"]}


def intake_free_manifest() -> Any:
    class Manifest:
        hypotheses = None
        verdict = None

    return Manifest()


def test_a_shared_bias_shows_against_people_while_the_judges_agree_with_each_other(tmp_path: Path) -> None:
    data, rows = shared_bias_rows(tmp_path)
    soundness = {row["criterion"]: row for row in data["agreement"]["criteria"]}["soundness"]
    # Judge vs judge: the shared +1.5 is invisible, the two judges agree closely
    assert soundness["krippendorff_alpha"] > 0.9 and soundness["within_one"] == 1.0
    for label in ("A", "B", PANEL):
        row = next(r for r in rows[label]["criteria"] if r["criterion"] == "soundness")
        low, high = row["bias_interval"]
        # Judge vs people: the bias is measured, with a t interval that excludes 0 and holds the truth
        assert row["bias"] == pytest.approx(1.5, abs=1e-9) and 0 < low < 1.5 < high
        # and the agreement with people drops below what the unbiased criteria reach
        unbiased = [r["krippendorff_alpha"] for r in rows[label]["criteria"] if r["criterion"] != "soundness"]
        assert row["krippendorff_alpha"] < min(unbiased) - 0.15
        for other in rows[label]["criteria"]:
            if other["criterion"] != "soundness":
                assert other["bias_interval"][0] < 0.3 and abs(other["bias"]) < 0.2
    markdown = calibration_markdown(data["calibration"])
    assert "| panel mean | soundness    | 40  |" in markdown


def test_without_bias_the_same_panel_is_calibrated(tmp_path: Path) -> None:
    _, rows = shared_bias_rows(tmp_path, bias=0.0)
    row = next(r for r in rows[PANEL]["criteria"] if r["criterion"] == "soundness")
    assert row["bias_interval"][0] < 0 < row["bias_interval"][1]
    assert row["krippendorff_alpha"] > 0.9


def test_two_raters_give_the_ceiling_and_a_small_n_says_so(tmp_path: Path) -> None:
    rubric = get_rubric("trio-likert-1.0")
    names = rubric.names
    ids = [f"task:t{i}/cell-a" for i in range(6)]
    rng = np.random.default_rng(5)
    truth = {c: {n: int(rng.integers(1, 6)) for n in names} for c in ids}
    lines = []
    for rater, shift in (("ana", 0), ("ben", 1)):
        for c in ids[: 6 if rater == "ana" else 4]:  # ben labels four of the six: missing values stay missing
            lines.append(
                json.dumps(
                    {
                        "capture_id": c,
                        "rater": rater,
                        "scores": {n: min(5, truth[c][n] + (shift if n == "accuracy" else 0)) for n in names},
                    }
                )
            )
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n")
    labels = read_labels(path, "labels.jsonl", rubric, set(ids) | {"task:unscored/cell-a"})
    humans = human_arrays(labels, rubric)
    rows = [
        {
            "capture_id": c,
            "entry_key": c.split("/")[0],
            "configuration": "cell-a",
            "status": "scored",
            "overall": float(combine([{n: str(v) for n, v in truth[c].items()}], rubric).overall),
            "failure": False,
            "judges": [{"label": "A", "scores": truth[c]}, {"label": "B", "scores": truth[c]}],
        }
        for c in ids[:5]
    ]
    result = calibration(run_arrays(rows, rubric), humans)
    assert result["captures_labelled"] == 6 and result["captures"] == 5 and result["not_scored"] == 1
    ceiling = {row["criterion"]: row for row in [*result["humans"]["criteria"], result["humans"]["overall"]]}
    for name in names:
        grid = np.full((2, 5), np.nan)
        for i, c in enumerate(ids[:5]):
            grid[0, i] = truth[c][name]
            if i < 4:
                grid[1, i] = min(5, truth[c][name] + (1 if name == "accuracy" else 0))
        expected = krippendorff.alpha(reliability_data=grid, level_of_measurement="interval")
        assert ceiling[name]["n"] == 4 and ceiling[name]["krippendorff_alpha"] == pytest.approx(expected, abs=1e-10)
    row = result["judges"][0]["criteria"][0]
    assert row["small_n"] is True and row["n"] == 5 < SMALL_N
    assert row["note"].startswith(f"only 5 labelled captures (fewer than {SMALL_N}): unstable")
    markdown = calibration_markdown(result)
    assert "Only 5 labelled captures" in markdown and "5 (small n)" in markdown
    assert "1 labelled captures not scored here are left out" in markdown
    assert "### Human vs human (the ceiling, 2 raters)" in markdown
    # The gate: too few labelled captures fail it whatever the alpha
    assert (
        gate_message(result, "0.5") == "only 5 labelled captures were scored (at least 10 are needed to judge a judge)"
    )
    assert gate_message(None, "0.5") is not None


def test_the_alpha_interval_resamples_captures_with_the_librarys_alpha(sample: Any) -> None:
    from pytest_ora.stats.calibration import _pair_alpha

    # The closed form used per resample is Krippendorff's interval alpha, resample by resample
    rng = np.random.default_rng(1)
    judge_values = rng.integers(0, 11, size=(50, 30)).astype(float)
    human_values = np.clip(judge_values + rng.integers(-2, 3, size=(50, 30)), 0, 10)
    vectorized = _pair_alpha(judge_values, human_values)
    for row in range(50):
        assert vectorized[row] == pytest.approx(
            krippendorff.alpha(
                reliability_data=[judge_values[row], human_values[row]], level_of_measurement="interval"
            ),
            abs=1e-10,
        )
    # On the sample: every alpha has an interval around it, and the seed fixes it
    _plan, stats, _recorded, _labels = sample
    for judge_row in stats["calibration"]["judges"]:
        for row in [*judge_row["criteria"], judge_row["overall"]]:
            low, high = row["alpha_interval"]
            assert low < row["krippendorff_alpha"] < high and high - low > 0.1  # 30 captures leave alpha uncertain
