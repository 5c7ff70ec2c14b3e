"""The judge skill's checklist v2 arithmetic: recall, precision, F2, detection, quality, persona, total.

Pure functions over one judge's per-item answers and the capture's checklist, in exact fractions;
a judge's own arithmetic is never asked for or trusted. Every weight comes from the rubric.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..core.rubric import Rubric, weight_text

__all__ = ["METRICS", "JudgeChecklist", "judge_checklist", "severity_weight"]

METRICS = ("recall", "precision", "f2", "detection", "quality", "persona")
"""The per-capture values, panel means over the judges, in table order (total is the overall)."""


def severity_weight(severity: str, rubric: Rubric) -> Fraction:
    """A severity's weight from the rubric's severity_weights; `other` for any unlisted category."""
    weights = rubric.param("severity_weights")
    return weights.get(severity, weights["other"])


@dataclass(frozen=True)
class JudgeChecklist:
    """One judge's checklist result, exact."""

    weighted_found: Fraction
    weighted_total: Fraction
    found: int
    """Listed issues the judge found (bonus items not included)."""
    bonus_found: int
    novel_valid: int
    false_positives: int
    recall: Fraction
    precision: Fraction
    f2: Fraction
    detection: Fraction
    quality: Fraction
    persona: Fraction

    @property
    def tp(self) -> int:
        """True positives as the checklist counts them: found issues plus valid novel findings."""
        return self.found + self.novel_valid

    @property
    def total(self) -> Fraction:
        return self.detection + self.quality + self.persona

    def values(self) -> dict[str, Fraction]:
        """METRICS and total by name."""
        return {**{name: getattr(self, name) for name in METRICS}, "total": self.total}


def judge_checklist(
    issues: Sequence[tuple[str, str]],
    found: Mapping[str, bool],
    bonus_found: int,
    novel_valid: int,
    false_positives: int,
    scores: Mapping[str, Fraction],
    rubric: Rubric,
) -> JudgeChecklist:
    """One judge's result: `issues` are (id, severity) pairs; `found` maps every issue id to the judge's answer."""
    weighted_total = sum((severity_weight(severity, rubric) for _, severity in issues), Fraction(0))
    weighted_found = sum((severity_weight(severity, rubric) for name, severity in issues if found[name]), Fraction(0))
    recall = weighted_found / weighted_total if weighted_total else Fraction(0)
    hits = sum(1 for name, _ in issues if found[name])
    tp = hits + novel_valid
    precision = Fraction(tp, tp + false_positives) if tp + false_positives else Fraction(0)
    f2 = 5 * precision * recall / (4 * precision + recall) if 4 * precision + recall else Fraction(0)
    detection_weights = rubric.param("detection")
    novel = min(detection_weights["novel_each"] * novel_valid, detection_weights["novel_cap"])
    detection = detection_weights["recall"] * recall + detection_weights["precision"] * precision + novel
    quality, persona = pair_scores(scores, rubric)
    return JudgeChecklist(
        weighted_found=weighted_found,
        weighted_total=weighted_total,
        found=hits,
        bonus_found=bonus_found,
        novel_valid=novel_valid,
        false_positives=false_positives,
        recall=recall,
        precision=precision,
        f2=f2,
        detection=detection,
        quality=quality,
        persona=persona,
    )


def pair_problem(kind: str, rubric: Rubric) -> str | None:
    """Why the rubric's criteria cannot make the quality and persona pairs, or None."""
    if len(rubric.criteria) != 4:
        return f"field 'criteria': kind {kind} scores four criteria (two for quality, then two for persona)"
    return None


def pair_terms(rubric: Rubric) -> str:
    """The quality and persona formulas as the methodology note states them."""
    quality = " + ".join(f"{weight_text(c.weight)}*{c.name}" for c in rubric.criteria[:2])
    persona = " + ".join(f"{weight_text(c.weight)}*{c.name}" for c in rubric.criteria[2:4])
    return f"quality = {quality}; persona = {persona}"


def pair_scores(scores: Mapping[str, Fraction], rubric: Rubric) -> tuple[Fraction, Fraction]:
    """quality = the first two criteria weighted, persona = the last two (the judge skill: 12.5 / 10 each)."""
    first, second = rubric.criteria[:2], rubric.criteria[2:4]
    quality = sum((c.weight * scores[c.name] for c in first), Fraction(0))
    persona = sum((c.weight * scores[c.name] for c in second), Fraction(0))
    return quality, persona
