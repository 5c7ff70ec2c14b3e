"""kind coherence and the phase rubrics (the judge skill's relay modes)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from pytest_ora.method.kinds import formula
from pytest_ora.method.kinds.coherence.kind import panel_rating
from pytest_ora.method.rubric import get_rubric, load_rubric
from pytest_ora.method.rubric_file import digest_of

PHASES = {
    "judge-phase-sm-1.0": {"clarity": 3, "handoff": 4, "completeness": 3},
    "judge-phase-tea-1.0": {"coverage": Fraction(7, 2), "red_state": Fraction(7, 2), "handoff": 3},
    "judge-phase-dev-1.0": {"green_state": 4, "code_quality": 3, "handoff": 3},
    "judge-phase-reviewer-1.0": {"detection": 4, "verdict": 3, "persona": 3},
}


@pytest.mark.parametrize(("version", "weights"), PHASES.items())
def test_the_phase_rubrics_carry_the_seeds_weights_and_anchor_mappings(
    version: str, weights: dict[str, Fraction]
) -> None:
    rubric = get_rubric(version)
    assert {c.name: c.weight for c in rubric.criteria} == weights and rubric.kind == "scores"
    assert (rubric.scale_min, rubric.scale_max, rubric.scale_step) == (1, 10, 1)
    solo = {c.name: c.anchors for c in get_rubric("judge-solo-1.0").criteria}
    mapped = {
        "clarity": "quality",
        "completeness": "depth",
        "coverage": "depth",
        "red_state": "correctness",
        "green_state": "correctness",
        "code_quality": "quality",
        "detection": "correctness",
        "persona": "persona",
    }
    for criterion in rubric.criteria:
        assert criterion.anchors == (solo[mapped[criterion.name]] if criterion.name in mapped else ())


def test_a_phase_rubric_becomes_a_compare_rubric_for_team_1_vs_team_2(tmp_path: Path) -> None:
    # python -m pytest_ora rubric show judge-phase-sm-1.0, then kind compare, blind, a new version
    data = yaml.safe_load((Path(__file__).parents[2] / "pytest_ora/method/rubrics/judge-phase-sm-1.0.yaml").read_text())
    data.update(rubric="compare-phase-sm-1.0", kind="compare", blind=True, failure={"below": 0})
    data.pop("verdicts")
    data["history"] = [
        {
            "version": "compare-phase-sm-1.0",
            "date": "2026-05-01",
            "change": "team 1 vs team 2",
            "digest": digest_of(data),
        }
    ]
    (tmp_path / "r.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    rubric = load_rubric(tmp_path / "r.yaml")
    from pytest_ora.method.kinds import get_kind

    schema = get_kind("compare").reply_schema(rubric)
    scores = schema["properties"]["contestants"]["properties"]["response-1"]["properties"]["scores"]
    assert scores["required"] == ["clarity", "handoff", "completeness"]
    assert "3*clarity + 4*handoff + 3*completeness" in formula(rubric)


def test_the_panel_rating_is_the_majority_else_good() -> None:
    assert panel_rating(["excellent", "excellent"]) == "excellent"
    assert panel_rating(["excellent", "poor"]) == "good"
    assert panel_rating(["poor", "poor", "excellent"]) == "poor"
    assert panel_rating(["excellent", "good", "poor"]) == "good"


def test_coherence_chains_are_rated_and_the_multiplier_applies_to_the_mean_phase_score(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_ora.testing.server import ReferenceJudge

    pytester.makepyfile(
        test_chain="""
        def test_capture(ora_capture, ora):
            ora.skip_unless_scorable(ora_capture)
            ora.record(ora.judge(ora_capture))
    """
    )
    chains = {
        "linked": {
            "sm": "Story PAY-12: retries need backoff.",
            "tea": "Tests for PAY-12 fail red.",
            "dev": "PAY-12 implemented; tests green.",
            "reviewer": "PAY-12 approved.",
        },
        "loose": {
            "sm": "Story PAY-13: cache warmup.",
            "tea": "Tests for PAY-13.",
            "dev": "Done.",
            "reviewer": "Looks fine.",
        },
    }
    monkeypatch.setenv("ANTHROPIC_API_KEY", "reference-judge-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "reference-judge-test-key")
    with ReferenceJudge() as judge:
        root = pytester.path / "bundle"
        root.mkdir()
        (root / "bundle.yaml").write_text(
            yaml.safe_dump(
                {
                    "bundle": "chains",
                    "created": "2026-04-20",
                    "configurations": ["team-1"],
                    "rubric": "judge-coherence-1.0",
                    "panel": ["a", "b"],
                }
            )
        )
        (root / "optimum.yaml").write_text(
            yaml.safe_dump(
                {
                    "snapshot": "s",
                    "frozen_at": "2026-04-20",
                    "roles": {
                        "a": {"model": "claude-opus-4-7", "provider": "anthropic", "route": judge.route("anthropic")},
                        "b": {"model": "gpt-5.4", "provider": "openai", "route": judge.route("openai")},
                    },
                }
            )
        )
        lines = [
            {
                "entry_key": f"relay:{name}",
                "configuration": "team-1",
                "prompt": "Theme: payments.",
                "answer": "",
                "chain": chain,
                "phase_scores": {"sm": 80, "tea": 70, "dev": 75, "reviewer": 65},
                "acceptance": {"passed": True},
            }
            for name, chain in chains.items()
        ]
        (root / "captures.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--ora-bundle", "bundle", "--ora-record", "all"
        )
    assert result.parseoutcomes().get("failed", 0) == 0
    rows = [json.loads(line) for line in (pytester.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    multipliers = {"excellent": Fraction(6, 5), "good": Fraction(1), "poor": Fraction(4, 5)}
    for row in rows:
        ratings = [j["rating"] for j in row["judge_ratings"]]
        assert row["rating"] == panel_rating(ratings)
        assert Fraction(row["multiplier_exact"]) == multipliers[row["rating"]]
        assert row["chain_mean_phase"] == 72.5
        assert Fraction(row["adjusted_phase_exact"]) == Fraction(145, 2) * multipliers[row["rating"]]
        assert row["failure"] == (row["rating"] == "poor")
    linked = next(r for r in rows if r["entry_key"] == "relay:linked")
    assert linked["rating"] in ("excellent", "good") and "poor" not in [j["rating"] for j in linked["judge_ratings"]]
    assert next(r for r in rows if r["entry_key"] == "relay:loose")["judge_ratings"][0]["rating"] == "poor"
    from pytest_ora.reports.verify import verify

    assert verify(pytester.path / "ora-results")[1] == []  # reports re-rendered, data files cross-checked
