"""Each judge's checklist result and the issues the judges split on, from a capture's record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ....core.record import JudgeRecord
from ....core.rubric import Rubric
from ...checklist import JudgeChecklist, judge_checklist

__all__ = ["issue_disagreements", "judge_results"]


def judge_results(judges: Sequence[JudgeRecord], material: Mapping[str, Any], rubric: Rubric) -> list[JudgeChecklist]:
    """Each judge's exact checklist result, panel order."""
    issues = [(issue["id"], issue["severity"]) for issue in material["issues"]]
    bonus = [item["id"] for item in material["bonus"]]
    results = []
    for judge in judges:
        answers = judge["answers"]
        found = {name: bool(answer["found"]) for name, answer in answers["findings"].items()}
        results.append(
            judge_checklist(
                issues,
                found,
                bonus_found=sum(found[name] for name in bonus),
                novel_valid=sum(1 for novel in answers["novel"] if novel["valid"]),
                false_positives=len(answers["false_positives"]),
                scores={name: Fraction(value) for name, value in judge["scores"].items()},
                rubric=rubric,
            )
        )
    return results


def issue_disagreements(judges: Sequence[JudgeRecord], material: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Listed ids some judges found and others did not, in checklist order."""
    severities = {issue["id"]: issue["severity"] for issue in material["issues"]}
    severities.update({item["id"]: "bonus" for item in material["bonus"]})
    rows = []
    for name, severity in severities.items():
        found = [j["label"].removeprefix("Judge ") for j in judges if j["answers"]["findings"][name]["found"]]
        missed = [j["label"].removeprefix("Judge ") for j in judges if not j["answers"]["findings"][name]["found"]]
        if found and missed:
            rows.append({"id": name, "severity": severity, "found_by": found, "missed_by": missed})
    return rows
