"""On the bundled sample: stats.json's agreement and intervals against the libraries, computed independently.

The judges' scores are read straight from the sample's cassettes (the recorded replies); the
report is written by the real OutputDir.write_report; the check recomputes every agreement figure
from the cassettes with krippendorff, a closed-form weighted kappa and plain counting.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest

from pytest_ora.bundle.intake import intake
from pytest_ora.core.plan import Plan
from pytest_ora.core.record import CaptureRecord, JudgeRecord, base_record
from pytest_ora.judges.cassettes import cassette_path
from pytest_ora.method.scoring import combine
from pytest_ora.reports.methodology import RunFacts
from pytest_ora.reports.output import OutputDir
from pytest_ora.stats.agreement import interval_alpha

ROOT = Path(__file__).parents[3]
USAGE = {"input_tokens": 1, "output_tokens": 1, "cached_input_tokens": 0, "reasoning_tokens": 0}


def recorded_scores(capture_id: str) -> dict[str, dict[str, float]]:
    """Judge A's (Anthropic tool input) and Judge B's (OpenAI JSON content) scores from a capture's cassette."""
    data = json.loads(cassette_path(ROOT / "cassettes", capture_id).read_text(encoding="utf-8"))
    scores = {}
    for interaction in data["interactions"]:
        body = interaction["response"]["body"]["json"]
        if interaction["request"]["uri"].endswith("/v1/messages"):
            scores["A"] = next(part["input"] for part in body["content"] if part["type"] == "tool_use")["scores"]
        else:
            scores["B"] = json.loads(body["choices"][0]["message"]["content"])["scores"]
    return scores


def judge(label: str, scores: dict[str, float]) -> JudgeRecord:
    return JudgeRecord(
        label=f"Judge {label}",
        slot="big-1" if label == "A" else "big-2",
        role="r",
        provider="p",
        model="m",
        resolved_model=None,
        judge_model="m",
        scores={k: repr(float(v)) for k, v in scores.items()},
        notes={},
        impression="",
        asks=1,
        attempts=1,
        usage=USAGE,  # type: ignore[typeddict-item]
    )


@pytest.fixture(scope="module")
def sample(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Plan, dict[str, dict[str, dict[str, float]]], dict[str, Any]]:
    """The sample's plan, its recorded scores, and the stats.json write_report makes of them."""
    plan = intake(ROOT / "evals" / "bundle")
    recorded: dict[str, dict[str, dict[str, float]]] = {}
    records: list[CaptureRecord] = []
    for planned in plan.captures:
        if planned.status != "judge":
            records.append(base_record(planned, planned.status, planned.reason))
            continue
        scores = recorded[planned.capture.capture_id] = recorded_scores(planned.capture.capture_id)
        record = base_record(planned, "scored")
        record["judges"] = [judge("A", scores["A"]), judge("B", scores["B"])]
        records.append(record)
    out = OutputDir(tmp_path_factory.mktemp("sample"))
    out.claim()
    try:
        out.write_report(plan, records, RunFacts(scoring_date="2026-06-20", record_mode="none", selected=len(records)))
    finally:
        out.release()
    return plan, recorded, json.loads((out.path / "stats.json").read_text(encoding="utf-8"))


def closed_form_qwk(a: np.ndarray, b: np.ndarray) -> float:
    """Quadratic-weighted kappa: 1 - mean squared disagreement / its expectation under independent judges."""
    return float(1 - np.mean((a - b) ** 2) / (a.var() + b.var() + (a.mean() - b.mean()) ** 2))


def test_agreement_per_criterion_matches_the_libraries(sample: Any) -> None:
    plan, recorded, stats = sample
    rows = {row["criterion"]: row for row in stats["agreement"]["criteria"]}
    assert stats["agreement"]["captures"] == len(recorded) == 1159
    for name in plan.rubric.names:
        a = np.array([scores["A"][name] for scores in recorded.values()])
        b = np.array([scores["B"][name] for scores in recorded.values()])
        row = rows[name]
        assert row["n"] == 1159
        assert row["krippendorff_alpha"] == pytest.approx(
            krippendorff.alpha(reliability_data=[a, b], level_of_measurement="interval"), abs=1e-11
        )
        assert row["quadratic_kappa"] == pytest.approx(closed_form_qwk(a, b), abs=1e-11)
        assert row["exact"] == pytest.approx(sum(x == y for x, y in zip(a, b)) / 1159, abs=1e-11)
        assert row["within_one"] == pytest.approx(sum(abs(x - y) <= 1 for x, y in zip(a, b)) / 1159, abs=1e-11)


def test_agreement_on_each_judges_own_overall(sample: Any) -> None:
    plan, recorded, stats = sample

    def own(scores: dict[str, float]) -> float:
        return float(combine([{k: repr(float(v)) for k, v in scores.items()}], plan.rubric).overall)

    a = np.array([own(scores["A"]) for scores in recorded.values()])
    b = np.array([own(scores["B"]) for scores in recorded.values()])
    overall = stats["agreement"]["overall"]
    assert overall["exact"] == pytest.approx(float(np.mean(a == b)), abs=1e-11)
    assert overall["within_one"] == pytest.approx(float(np.mean(np.abs(a - b) <= 1)), abs=1e-11)
    # ora-1.0's weighted, capped overall takes hundreds of values: krippendorff.alpha would need
    # captures x values x values numbers (gigabytes), so alpha comes from its closed form, which
    # agrees with the library on the first 150 captures (where the library fits); kappa needs a
    # discrete scale.
    distinct = np.unique(np.concatenate([a, b])).size
    assert distinct > 400
    assert overall["krippendorff_alpha"] == pytest.approx(interval_alpha(np.column_stack([a, b])), abs=1e-11)
    assert interval_alpha(np.column_stack([a[:150], b[:150]])) == pytest.approx(
        krippendorff.alpha(reliability_data=[a[:150], b[:150]], level_of_measurement="interval"), abs=1e-11
    )
    assert 0.9 < overall["krippendorff_alpha"] < 1
    assert overall["quadratic_kappa"] is None
    assert overall["note"] == (
        f"alpha in closed form: {distinct} distinct values over 1159 captures exceed what krippendorff.alpha holds in "
        f"memory (captures x values x values); kappa not computed: {distinct} distinct values are not on a discrete scale"
    )


def test_closed_form_interval_alpha_is_the_librarys() -> None:
    generator = np.random.default_rng(7)
    for judges in (2, 3, 5):
        truth = generator.normal(5, 2, size=(80, 1))
        ratings = np.round(truth + generator.normal(0, 1, size=(80, judges)), 1)
        library = krippendorff.alpha(reliability_data=ratings.T, level_of_measurement="interval")
        assert interval_alpha(ratings) == pytest.approx(library, abs=1e-11)
    assert interval_alpha(np.full((5, 2), 3.0)) is None


def test_per_configuration_means_and_wilson_intervals(sample: Any) -> None:
    plan, recorded, stats = sample
    z = 1.959963984540054
    for row in stats["configurations"]:
        overall = [
            combine(
                [{k: repr(float(v)) for k, v in s.items()} for s in (scores["A"], scores["B"])], plan.rubric
            ).overall
            for capture_id, scores in recorded.items()
            if capture_id.endswith(f"/{row['configuration']}")
        ]
        n, k = len(overall), sum(value < plan.rubric.failure_below for value in overall)
        assert (row["n"], row["failures"]) == (n, k)
        assert row["mean_overall"] == pytest.approx(float(sum(overall, Fraction(0)) / n), abs=1e-10)
        low, high = row["mean_overall_interval"]
        assert low < row["mean_overall"] < high
        p = k / n
        centre, half = (
            (p + z * z / (2 * n)) / (1 + z * z / n),
            z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)),
        )
        assert row["failure_rate_interval"] == pytest.approx([centre - half, centre + half], abs=1e-11)
    assert len(stats["comparisons"]) == math.comb(len(plan.bundle.manifest.configurations), 2)
