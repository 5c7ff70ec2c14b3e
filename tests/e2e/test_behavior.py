"""kind behavior (the judge skill's SM scenarios): the caps, exact ids, and a live run through the
reference judge."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_ora.core.usage import reported_usage
from pytest_ora.judges.providers.base import ProviderReply
from pytest_ora.judges.reply import ReplyProblem, check_reply
from pytest_ora.method.kinds.behavior.kind import judge_behavior
from pytest_ora.method.rubric import get_rubric

BEHAVIOR = get_rubric("judge-behavior-1.0")
SCORES = {
    "clear_actionable": Fraction(8),
    "well_structured": Fraction(7),
    "in_character": Fraction(9),
    "enhances_delivery": Fraction(8),
}


def material(baseline: int = 10, bonus: int = 4) -> dict[str, Any]:
    return {
        "criteria": [
            {"id": f"B{i}", "category": "facilitation", "description": f"behaviour {i}"} for i in range(1, baseline + 1)
        ],
        "bonus": [{"id": f"X{i}", "category": "", "description": f"bonus {i}"} for i in range(1, bonus + 1)],
    }


def test_execution_caps_baseline_at_40_and_bonus_at_10() -> None:
    # The judge skill's example: 8 baseline and 2 bonus demonstrated, scores 8/7/9/8: 46 + 18.75 + 21.25 = 86
    seed = judge_behavior(8, 2, SCORES, BEHAVIOR)
    assert (seed["execution"], seed["quality"], seed["persona"], seed["total"]) == (
        46,
        Fraction(75, 4),
        Fraction(85, 4),
        86,
    )
    capped = judge_behavior(10, 4, SCORES, BEHAVIOR)
    assert capped["execution"] == 40 + 10  # 50 and 12 before the caps
    assert judge_behavior(0, 0, SCORES, BEHAVIOR)["execution"] == 0


def reply(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "entry_key": "sm:standup",
        "configuration": "coach",
        "judge_model": "m",
        "behaviors": [{"id": item["id"], "demonstrated": True, "evidence": "q"} for item in material()["criteria"]],
        "bonus": [{"id": item["id"], "demonstrated": False, "evidence": ""} for item in material()["bonus"]],
        "scores": {name: 7 for name in BEHAVIOR.names},
        "assessment": "ok",
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda r: r["behaviors"].pop(0), "behaviors[B1]"),
        (lambda r: r["bonus"].append({"id": "X9", "demonstrated": True, "evidence": ""}), "bonus.4.id"),
        (lambda r: r["bonus"].append({"id": "B1", "demonstrated": True, "evidence": ""}), "bonus.4.id"),
    ],
)
def test_a_reply_must_answer_exactly_the_listed_behaviours(change: Any, field: str) -> None:
    data = reply()
    change(data)
    problem = check_reply(
        ProviderReply(payload=data, text=None, stop="complete", usage=reported_usage(1, 1)),
        BEHAVIOR,
        "sm:standup",
        "coach",
        material(),
    )
    assert isinstance(problem, ReplyProblem) and problem.field == field


def write_bundle(root: Path, anthropic: str, openai: str) -> None:
    root.mkdir()
    (root / "bundle.yaml").write_text(
        yaml.safe_dump(
            {
                "bundle": "behavior-test",
                "created": "2026-04-20",
                "configurations": ["coach", "rookie"],
                "rubric": "judge-behavior-1.0",
                "panel": ["judge-a", "judge-b"],
            }
        )
    )
    (root / "optimum.yaml").write_text(
        yaml.safe_dump(
            {
                "snapshot": "s",
                "frozen_at": "2026-04-20",
                "roles": {
                    "judge-a": {"model": "claude-opus-4-7", "provider": "anthropic", "route": anthropic},
                    "judge-b": {"model": "gpt-5.4", "provider": "openai", "route": openai},
                },
            }
        )
    )
    answers = {
        "coach": "\n".join(f"- [B{i}] did behaviour {i}" for i in range(1, 11))
        + "\n- [X1] bonus\n- [X2] bonus\n- [X3] bonus\n- [X4] bonus",
        "rookie": "- [B1] did behaviour 1\n- [B2] did behaviour 2\nAlso B3, a little.",
    }
    lines = [
        {
            "entry_key": "sm:standup",
            "configuration": name,
            "prompt": "Facilitate the stand-up.",
            "answer": text,
            "behaviors": material(),
            "acceptance": {"passed": True},
        }
        for name, text in answers.items()
    ]
    (root / "captures.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_a_behavior_bundle_is_judged_live_and_capped(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_ora.testing.server import ReferenceJudge

    pytester.makepyfile(
        test_sm="""
        def test_capture(ora_capture, ora):
            ora.skip_unless_scorable(ora_capture)
            ora.record(ora.judge(ora_capture))
    """
    )
    monkeypatch.setenv("ANTHROPIC_API_KEY", "reference-judge-test-key")
    monkeypatch.setenv("OPENAI_API_KEY", "reference-judge-test-key")
    with ReferenceJudge() as judge:
        write_bundle(pytester.path / "bundle", judge.route("anthropic"), judge.route("openai"))
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--ora-bundle", "bundle", "--ora-record", "all"
        )
    assert result.ret in (0, 1) and result.parseoutcomes().get("failed", 0) == 0
    rows = {
        json.loads(line)["configuration"]: json.loads(line)
        for line in (pytester.path / "ora-results" / "ledger.jsonl").read_text().splitlines()
    }
    coach = rows["coach"]["behavior_judges"]
    assert [(j["behaviors"], j["bonus"], j["execution"]) for j in coach] == [(10, 4, 50.0)] * 2  # capped: 40 + 10
    rookie = rows["rookie"]
    assert {j["execution"] for j in rookie["behavior_judges"]} <= {10.0, 15.0}  # B3 in passing: judges may differ
    assert rookie["execution"] == sum(j["execution"] for j in rookie["behavior_judges"]) / 2
    assert (
        "execution = min(5*baseline demonstrated, 40)" in (pytester.path / "ora-results" / "methodology.md").read_text()
    )
    # verify re-renders the reports and checks the data files against each other: this kind's ledger too
    from pytest_ora.reports.verify import verify

    assert verify(pytester.path / "ora-results")[1] == []
    heading = next(
        line
        for line in (pytester.path / "ora-results" / "summary.md").read_text().splitlines()
        if line.startswith("| Configuration")
    )
    assert [cell.strip() for cell in heading.split("|")[7:10]] == ["Execution", "Quality", "Persona"]
