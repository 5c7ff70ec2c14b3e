"""The judge skill's per-mode evaluation object, per judge and for the panel, every total computed by pytest-ora.

Totals come from the kinds' own exact arithmetic (method.kinds, method.checklist); a judge's own
arithmetic is never asked for. Numbers are exact when whole, else given to four decimals.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ...core.record import JudgeRecord
from ...core.rubric import Rubric
from ...method.checklist import JudgeChecklist
from ...method.kinds import combined
from ...method.kinds.behavior.kind import judge_behavior
from ...method.kinds.checklist.results import judge_results
from ...method.kinds.coherence.kind import panel_rating
from ...method.scoring import judge_overall
from .call import Judged

__all__ = ["Evaluation", "evaluate", "number"]

Evaluation = tuple[dict[str, Any], dict[str, Fraction], str | None, str | None]
"""(evaluation object, scores by name, winner, rating)."""


def number(value: Fraction | int) -> int | float:
    """Exact when whole, else four decimals (the judge skill reports three; nothing here is rounded before this)."""
    value = Fraction(value)
    return int(value) if value.denominator == 1 else round(float(value), 4)


def _judge_head(judge: JudgeRecord) -> dict[str, Any]:
    return {
        "label": judge["label"],
        "provider": judge["provider"],
        "model": judge["model"],
        "judge_model": judge["judge_model"],
        "asks": judge["asks"],
        "token_usage": {"input": judge["usage"]["input_tokens"], "output": judge["usage"]["output_tokens"]},
    }


def _dimension_scores(scores: dict[str, str], notes: dict[str, str], rubric: Rubric) -> dict[str, Any]:
    return {name: {"value": number(Fraction(scores[name])), "reasoning": notes.get(name, "")} for name in rubric.names}


def _weighted(scores: dict[str, Any], rubric: Rubric) -> Fraction:
    return sum((c.weight * Fraction(scores[c.name]) for c in rubric.criteria), Fraction(0))


# --- the unified rubric and the phase rubrics (kind scores) -------------------------------------


def _scores_item(judged: Judged, rubric: Rubric) -> tuple[dict[str, Any], list[dict[str, Any]], Fraction]:
    """The panel's seed object for one scored item, each judge's, and the panel's weighted total."""
    judges = judged.record["judges"]
    panel = combined(judged.record, rubric)
    own = [
        {
            "scores": _dimension_scores(j["scores"], j["notes"], rubric),
            "weighted_total": number(judge_overall(j["scores"], rubric)),
            "assessment": j["impression"],
        }
        for j in judges
    ]
    shared = {
        "scores": {name: {"value": number(panel.means[name])} for name in rubric.names},
        "weighted_total": number(panel.overall),
        "verdict": panel.verdict,
    }
    return shared, own, panel.overall


def _solo_scores(items: Sequence[Judged], rubric: Rubric) -> Evaluation:
    (judged,) = items
    shared, own, total = _scores_item(judged, rubric)
    judges = [{**_judge_head(j), **o} for j, o in zip(judged.record["judges"], own)]
    panel = {
        **shared,
        "assessment": " ".join(f"{j['label']}: {o['assessment']}" for j, o in zip(judged.record["judges"], own)),
    }
    return {**panel, "judges": judges}, {judged.item.name: total}, None, None


def _winner(totals: dict[str, Fraction]) -> str:
    best = max(totals.values())
    leaders = [name for name, value in totals.items() if value == best]
    return leaders[0] if len(leaders) == 1 else "tie"


def _phase(items: Sequence[Judged], rubric: Rubric, themes: dict[str, str]) -> Evaluation:
    panel: dict[str, Any] = {}
    per_judge: dict[str, dict[str, Any]] = {}
    own_totals: dict[str, dict[str, Fraction]] = {}
    totals: dict[str, Fraction] = {}
    for judged in items:
        shared, own, total = _scores_item(judged, rubric)
        name = judged.item.name
        totals[name] = total
        panel[name] = {"theme": themes[name], **shared}
        for judge, mine in zip(judged.record["judges"], own):
            entry = per_judge.setdefault(judge["label"], {**_judge_head(judge), "assessment": {}})
            entry[name] = {"theme": themes[name], "scores": mine["scores"], "weighted_total": mine["weighted_total"]}
            entry["assessment"][name] = mine["assessment"]
            own_totals.setdefault(judge["label"], {})[name] = judge_overall(judge["scores"], rubric)
    for label, entry in per_judge.items():
        entry["winner"] = _winner(own_totals[label])
    winner = _winner(totals)
    return {**panel, "winner": winner, "judges": list(per_judge.values())}, totals, winner, None


# --- checklist and behaviour lists ------------------------------------------------------------


def _by_severity(material: dict[str, Any], found: dict[str, bool]) -> dict[str, dict[str, int]]:
    severities: dict[str, dict[str, int]] = {}
    for issue in material["issues"]:
        counts = severities.setdefault(issue["severity"], {"found": 0, "total": 0})
        counts["total"] += 1
        counts["found"] += bool(found[issue["id"]])
    return severities


def _detection(result: JudgeChecklist, by_severity: dict[str, Any], rubric: Rubric) -> dict[str, Any]:
    weights = rubric.param("detection")
    return {
        "by_severity": by_severity,
        "novel_valid": number(result.novel_valid),
        "false_positive_count": number(result.false_positives),
        "metrics": {
            "weighted_found": number(result.weighted_found),
            "weighted_total": number(result.weighted_total),
            "recall": number(result.recall),
            "precision": number(result.precision),
            "f2_score": number(result.f2),
        },
        "components": {
            "recall_score": number(weights["recall"] * result.recall),
            "precision_score": number(weights["precision"] * result.precision),
            "novel_bonus": number(min(weights["novel_each"] * result.novel_valid, weights["novel_cap"])),
        },
        "subtotal": number(result.detection),
    }


def _pairs(scores: dict[str, Any], rubric: Rubric, quality: Fraction, persona: Fraction) -> dict[str, Any]:
    first, second = rubric.names[:2], rubric.names[2:4]
    return {
        "quality": {**{n: number(Fraction(scores[n])) for n in first}, "subtotal": number(quality)},
        "persona": {**{n: number(Fraction(scores[n])) for n in second}, "subtotal": number(persona)},
    }


def _checklist_item(judged: Judged, rubric: Rubric) -> tuple[dict[str, Any], list[dict[str, Any]], Fraction]:
    material = judged.record["material"]
    judges = judged.record["judges"]
    results = judge_results(judges, material, rubric)
    severities = {issue["id"]: issue["severity"] for issue in material["issues"]}
    own = []
    for judge, result in zip(judges, results):
        answers = judge["answers"]
        found = {name: bool(answer["found"]) for name, answer in answers["findings"].items()}
        own.append(
            {
                **_judge_head(judge),
                "baseline_findings": [
                    {
                        "id": name,
                        "severity": severities.get(name, "bonus"),
                        "found": answer["found"],
                        "evidence": answer["evidence"] or None,
                    }
                    for name, answer in answers["findings"].items()
                ],
                "novel_findings": answers["novel"],
                "false_positives": answers["false_positives"],
                "detection": _detection(result, _by_severity(material, found), rubric),
                **_pairs(judge["scores"], rubric, result.quality, result.persona),
                "weighted_total": number(result.total),
                "assessment": judge["impression"],
            }
        )
    count = len(results)

    def mean(values: Sequence[Fraction | int]) -> Fraction:
        return sum((Fraction(v) for v in values), Fraction(0)) / count

    panel_severity = {
        severity: {
            "found": number(mean([j["detection"]["by_severity"][severity]["found"] for j in own])),
            "total": counts["total"],
        }
        for severity, counts in own[0]["detection"]["by_severity"].items()
    }
    total = mean([r.total for r in results])
    panel = {
        "baseline_findings": [
            {
                "id": name,
                "severity": severities.get(name, "bonus"),
                "found_by": [j["label"] for j in judges if j["answers"]["findings"][name]["found"]],
                "missed_by": [j["label"] for j in judges if not j["answers"]["findings"][name]["found"]],
            }
            for name in judges[0]["answers"]["findings"]
        ],
        "novel_findings": [{"judge": j["label"], **novel} for j in own for novel in j["novel_findings"]],
        "false_positives": [{"judge": j["label"], **claim} for j in own for claim in j["false_positives"]],
        "detection": {
            "by_severity": panel_severity,
            "novel_valid": number(mean([r.novel_valid for r in results])),
            "false_positive_count": number(mean([r.false_positives for r in results])),
            "metrics": {
                "weighted_found": number(mean([r.weighted_found for r in results])),
                "weighted_total": number(results[0].weighted_total),
                "recall": number(mean([r.recall for r in results])),
                "precision": number(mean([r.precision for r in results])),
                "f2_score": number(mean([r.f2 for r in results])),
            },
            "subtotal": number(mean([r.detection for r in results])),
        },
        "quality": {
            **{n: number(mean([Fraction(j["scores"][n]) for j in judges])) for n in rubric.names[:2]},
            "subtotal": number(mean([r.quality for r in results])),
        },
        "persona": {
            **{n: number(mean([Fraction(j["scores"][n]) for j in judges])) for n in rubric.names[2:4]},
            "subtotal": number(mean([r.persona for r in results])),
        },
        "weighted_total": number(total),
    }
    return panel, own, total


def _behavior_item(judged: Judged, rubric: Rubric) -> tuple[dict[str, Any], list[dict[str, Any]], Fraction]:
    judges = judged.record["judges"]
    own = []
    totals, executions, qualities, personas = [], [], [], []
    for judge in judges:
        answers = judge["answers"]
        baseline = sum(bool(item["demonstrated"]) for item in answers["behaviors"].values())
        bonus = sum(bool(item["demonstrated"]) for item in answers["bonus"].values())
        parts = judge_behavior(baseline, bonus, {n: Fraction(v) for n, v in judge["scores"].items()}, rubric)
        totals.append(parts["total"])
        executions.append(parts["execution"])
        qualities.append(parts["quality"])
        personas.append(parts["persona"])
        own.append(
            {
                **_judge_head(judge),
                "baseline_behaviors": [
                    {"id": k, "demonstrated": v["demonstrated"], "evidence": v["evidence"] or None}
                    for k, v in answers["behaviors"].items()
                ],
                "bonus_behaviors": [
                    {"id": k, "demonstrated": v["demonstrated"], "evidence": v["evidence"] or None}
                    for k, v in answers["bonus"].items()
                ],
                "execution": {"baseline_count": baseline, "bonus_count": bonus, "subtotal": number(parts["execution"])},
                **_pairs(judge["scores"], rubric, parts["quality"], parts["persona"]),
                "weighted_total": number(parts["total"]),
                "assessment": judge["impression"],
            }
        )
    total = sum(totals, Fraction(0)) / len(totals)
    count = len(own)
    panel = {
        "baseline_behaviors": [
            {
                "id": name,
                "demonstrated_by": [j["label"] for j in judges if j["answers"]["behaviors"][name]["demonstrated"]],
                "missed_by": [j["label"] for j in judges if not j["answers"]["behaviors"][name]["demonstrated"]],
            }
            for name in judges[0]["answers"]["behaviors"]
        ],
        "execution": {"subtotal": number(sum(executions, Fraction(0)) / count)},
        "quality": {"subtotal": number(sum(qualities, Fraction(0)) / count)},
        "persona": {"subtotal": number(sum(personas, Fraction(0)) / count)},
        "weighted_total": number(total),
    }
    return panel, own, total


def _listed(items: Sequence[Judged], rubric: Rubric) -> Evaluation:
    item = _checklist_item if rubric.kind == "checklist" else _behavior_item
    if len(items) == 1:
        panel, own, total = item(items[0], rubric)
        return {**panel, "judges": own}, {items[0].item.name: total}, None, None
    contestants: dict[str, Any] = {}
    totals: dict[str, Fraction] = {}
    for judged in items:
        panel, own, total = item(judged, rubric)
        contestants[judged.item.name] = {**panel, "judges": own}
        totals[judged.item.name] = total
    winner = _winner(totals)
    justification = "the higher panel weighted_total wins" + (" (equal totals: a tie)" if winner == "tie" else "")
    return {"contestants": contestants, "winner": winner, "justification": justification}, totals, winner, None


# --- compare (both orders) and coherence ---------------------------------------------------------


def _compare(items: Sequence[Judged], rubric: Rubric, specs: tuple[str, str]) -> Evaluation:
    (judged,) = items
    side = {"first": specs[0], "second": specs[1], "tie": "tie"}
    panel = combined(judged.record, rubric)
    judges = []
    for judge in judged.record["judges"]:
        answers = judge["answers"]
        orders = [
            {
                "order": order["order"],
                "contestants": {
                    side[s]: {
                        "scores": _dimension_scores(order["scores"][s], order["notes"][s], rubric),
                        "weighted_total": number(_weighted(order["scores"][s], rubric)),
                    }
                    for s in ("first", "second")
                },
                "winner": side[order["winner"]],
                "justification": order["justification"],
            }
            for order in answers["orders"]
        ]
        judges.append(
            {
                **_judge_head(judge),
                "orders": orders,
                "consistent": answers["consistent"],
                "winner": side[answers["winner"]],
            }
        )
    totals = {specs[0]: panel.means["first_score"], specs[1]: panel.means["second_score"]}
    winner = {"contestant-1": specs[0], "contestant-2": specs[1]}.get(panel.details["winner"], "tie")
    agreeing = sum(1 for j in judges if j["winner"] == winner)
    evaluation = {
        "contestants": {spec: {"weighted_total": number(total)} for spec, total in totals.items()},
        "winner": winner,
        "justification": f"{agreeing} of {len(judges)} judges name {winner} in both orders"
        if winner != "tie"
        else "no winner named in both orders by a majority of the judges: a tie",
        "judges": judges,
    }
    return evaluation, totals, winner, None


def _coherence(items: Sequence[Judged], rubric: Rubric) -> Evaluation:
    (judged,) = items
    multipliers = rubric.param("multipliers")
    judges = [
        {
            **_judge_head(j),
            "rating": j["answers"]["rating"],
            "reasoning": j["impression"],
            "multiplier": number(multipliers[j["answers"]["rating"]]),
        }
        for j in judged.record["judges"]
    ]
    rating = panel_rating([j["rating"] for j in judges])
    evaluation = {
        "rating": rating,
        "multiplier": number(multipliers[rating]),
        "reasoning": " ".join(j["reasoning"] for j in judges),
        "judges": judges,
    }
    return evaluation, {}, None, rating


def evaluate(mode: str, items: Sequence[Judged], rubric: Rubric, names: dict[str, Any]) -> Evaluation:
    """The mode's evaluation object, its scores by name, the winner (compare, phase) and the rating (coherence)."""
    if rubric.kind in ("checklist", "behavior"):
        return _listed(items, rubric)
    if rubric.kind == "compare":
        return _compare(items, rubric, names["specs"])
    if rubric.kind == "coherence":
        return _coherence(items, rubric)
    if mode.startswith("phase-"):
        return _phase(items, rubric, names["themes"])
    return _solo_scores(items, rubric)
