"""`kind: behavior` (the judge skill's SM scenarios): per listed behaviour demonstrated / evidence
and four 1-10 scores; pytest-ora computes execution (capped), quality, persona and the 0-100 total.

A reply must answer exactly the capture's listed baseline and bonus ids; one left out or one
invented is an invalid reply (re-asked, then a failed item), never a silent zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from pydantic import StrictBool

from ....core.models import Capture, ExactNumber
from ....core.record import CaptureRecord, JudgeRecord
from ....core.rubric import Rubric, weight_text
from ...checklist import pair_problem, pair_scores, pair_terms
from ...scoring import Scores, is_failure
from ...votes import verdict, votes
from ..base import JudgedKind, ReplyObject, ReplyProblem, Strict, check_echo, parse_reply
from ..capabilities import LedgerExtra, Material, OwnRubric
from ..checklist.kind import check_ids
from ..replyschema import asked, closed_model, strict_schema, whole_score
from ..scores.kind import check_scale

__all__ = ["KIND", "METRICS", "BehaviorKind", "BehaviorReply", "judge_behavior"]

METRICS = ("execution", "quality", "persona")
_EXECUTION = ("baseline_each", "baseline_cap", "bonus_each", "bonus_cap")


class Shown(Strict):
    """The judge's answer for one listed behaviour."""

    id: str
    demonstrated: StrictBool
    evidence: str | None = None


class BehaviorReply(ReplyObject):
    """A judge's behaviour reply; configuration is empty when the rubric is blind."""

    entry_key: str
    configuration: str = ""
    judge_model: str
    behaviors: list[Shown]
    bonus: list[Shown]
    scores: dict[str, ExactNumber]
    assessment: str


def judge_behavior(baseline: int, bonus: int, scores: Mapping[str, Fraction], rubric: Rubric) -> dict[str, Fraction]:
    """One judge's execution, quality, persona and total, exactly (caps and weights from the rubric)."""
    e = rubric.param("execution")
    execution = min(e["baseline_each"] * baseline, e["baseline_cap"]) + min(e["bonus_each"] * bonus, e["bonus_cap"])
    quality, persona = pair_scores(scores, rubric)
    return {"execution": execution, "quality": quality, "persona": persona, "total": execution + quality + persona}


class BehaviorKind(JudgedKind[BehaviorReply], Material, OwnRubric, LedgerExtra):
    """Behaviours demonstrated, capped; quality and persona from the first and second pair of criteria."""

    name = "behavior"
    answer_in_packet = True

    def check_rubric(self, rubric: Rubric) -> str | None:
        problem = pair_problem(self.name, rubric)
        if problem is not None:
            return problem
        missing = [name for name in _EXECUTION if name not in rubric.param("execution")]
        if missing:
            return f"field 'params.execution': missing {', '.join(missing)} (baseline_each, baseline_cap, bonus_each, bonus_cap)"
        return None

    def formula(self, rubric: Rubric) -> str:
        e = {name: weight_text(value) for name, value in rubric.param("execution").items()}
        return (
            f"execution = min({e['baseline_each']}*baseline demonstrated, {e['baseline_cap']}) + "
            f"min({e['bonus_each']}*bonus demonstrated, {e['bonus_cap']}); {pair_terms(rubric)}; "
            f"total = execution + quality + persona per judge; overall = the judges' mean total; {rubric.failure_text()}"
        )

    def material(self, capture: Capture) -> dict[str, Any] | None:
        return None if capture.behaviors is None else capture.behaviors.model_dump(mode="json")

    def capture_problem(self, capture: Capture) -> tuple[str, str] | None:
        if capture.behaviors is None:
            return "behaviors", "is missing: kind behavior judges each answer against its behaviours to demonstrate"
        return None

    def material_sections(self, material: Mapping[str, Any]) -> list[tuple[str, str]]:
        lines = [
            f"- {item['id']} [{item['category'] or 'baseline'}]: {item['description']}" for item in material["criteria"]
        ]
        bonus = [f"- {item['id']} [bonus]: {item['description']}" for item in material["bonus"]]
        return [("BEHAVIORS", "\n".join(lines + (["Bonus:", *bonus] if bonus else [])))]

    def instructions(self, rubric: Rubric) -> str:
        echo = "entry_key copied exactly from the packet" + ("" if rubric.blind else " and configuration")
        return (
            "The BEHAVIORS section lists the behaviours a good response demonstrates (baseline, then bonus). Reply "
            f"with one JSON object and nothing else, matching the reply schema: {echo}, judge_model set to your "
            "model id; behaviors: exactly one entry per listed baseline id, bonus: exactly one per listed bonus id, "
            "no other id, each with demonstrated (true only when the ANSWER shows it) and evidence (a quote, or "
            "empty); scores: a whole number for every criterion; assessment: two or three sentences. Do not compute "
            "totals: pytest-ora does."
        )

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        score = whole_score(int(rubric.scale_min), int(rubric.scale_max))
        scores = closed_model("Scores", dict.fromkeys(rubric.names, score))
        return strict_schema(asked(BehaviorReply, {"scores": scores}, {"configuration"} if rubric.blind else ()))

    def check(
        self,
        payload: object,
        rubric: Rubric,
        entry_key: str,
        configuration: str | None,
        material: Mapping[str, Any] | None = None,
    ) -> BehaviorReply | ReplyProblem:
        reply = parse_reply(BehaviorReply, payload, rubric)
        if isinstance(reply, ReplyProblem):
            return reply
        assert material is not None, "a behavior packet carries its behaviours"
        for field, group in (("behaviors", "criteria"), ("bonus", "bonus")):
            answered = [item.id for item in getattr(reply, field)]
            problem = check_ids(field, answered, [item["id"] for item in material[group]], "demonstrated")
            if problem is not None:
                return problem
        problem = check_scale(reply.scores, rubric)
        if problem is not None:
            return problem
        return check_echo(reply.entry_key, reply.configuration, rubric, entry_key, configuration) or reply

    def record_fields(self, reply: BehaviorReply, rubric: Rubric) -> dict[str, Any]:
        def shown(items: list[Shown]) -> dict[str, Any]:
            return {item.id: {"demonstrated": item.demonstrated, "evidence": item.evidence or ""} for item in items}

        return {
            "scores": {name: str(reply.scores[name]) for name in rubric.names},
            "notes": {},
            "impression": reply.assessment,
            "answers": {"behaviors": shown(reply.behaviors), "bonus": shown(reply.bonus)},
        }

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        judges = record["judges"]
        results = [_judge(judge, rubric) for judge in judges]
        means = {name: sum((r[name] for r in results), Fraction(0)) / len(results) for name in METRICS}
        overall = sum((r["total"] for r in results), Fraction(0)) / len(results)
        own = tuple(r["total"] for r in results)
        voted = votes(rubric, own)
        details = {
            "behavior_judges": [
                {
                    "label": j["label"].removeprefix("Judge "),
                    **_counts(j),
                    **{name: float(value) for name, value in r.items()},
                    **{f"{name}_exact": str(value) for name, value in r.items()},
                }
                for j, r in zip(judges, results)
            ],
            "behavior_disagreements": _disagreements(judges, record["material"]),
        }
        return Scores(
            means=means,
            weighted=overall,
            overall=overall,
            failure=is_failure(rubric, overall, voted),
            judge_overalls=own,
            votes=voted,
            verdict=verdict(rubric, overall),
            details=details,
        )

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        return {"behavior_judges": (list[dict[str, Any]], []), "behavior_disagreements": (list[dict[str, Any]], [])}

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {**{name: float(mean) for name, mean in scores.means.items()}, **scores.details}

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return METRICS


KIND = BehaviorKind()


def _counts(judge: JudgeRecord) -> dict[str, int]:
    answers = judge["answers"]
    return {
        group: sum(bool(item["demonstrated"]) for item in answers[group].values()) for group in ("behaviors", "bonus")
    }


def _judge(judge: JudgeRecord, rubric: Rubric) -> dict[str, Fraction]:
    counts = _counts(judge)
    scores = {name: Fraction(value) for name, value in judge["scores"].items()}
    return judge_behavior(counts["behaviors"], counts["bonus"], scores, rubric)


def _disagreements(judges: Sequence[JudgeRecord], material: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Listed behaviours some judges saw demonstrated and others did not, baseline then bonus."""
    rows = []
    for field, group in (("behaviors", "criteria"), ("bonus", "bonus")):
        for item in material[group]:
            shown = [
                j["label"].removeprefix("Judge ") for j in judges if j["answers"][field][item["id"]]["demonstrated"]
            ]
            missed = [
                j["label"].removeprefix("Judge ") for j in judges if not j["answers"][field][item["id"]]["demonstrated"]
            ]
            if shown and missed:
                rows.append({"id": item["id"], "group": field, "demonstrated_by": shown, "missed_by": missed})
    return rows
