"""`kind: checklist` (checklist v2): per listed id found / evidence, novel findings, false
positives and four 1-10 scores; pytest-ora computes recall, precision, F2 and the 0-100 total.

A reply must answer exactly the capture's listed ids: one left out or one invented is an invalid
reply (re-asked, then a failed item), never a silent zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from pydantic import StrictBool

from ....core.errors import show_value
from ....core.models import Capture, ExactNumber
from ....core.record import CaptureRecord
from ....core.rubric import Rubric, weight_text
from ...checklist import METRICS, JudgeChecklist, pair_problem, pair_terms
from ...scoring import Scores, is_failure
from ...votes import verdict, votes
from ..base import JudgedKind, ReplyObject, ReplyProblem, Strict, check_echo, parse_reply
from ..capabilities import LedgerExtra, Material, OwnReports, OwnRubric, Terminal
from ..replyschema import asked, closed_model, strict_schema, whole_score
from ..scores.kind import check_scale
from .results import issue_disagreements, judge_results

__all__ = ["KIND", "ChecklistKind", "ChecklistReply", "check_ids"]

_DETECTION = ("recall", "precision", "novel_each", "novel_cap")


class Finding(Strict):
    """The judge's answer for one listed id."""

    id: str
    found: StrictBool
    evidence: str | None = None


class Novel(Strict):
    """A finding beyond the checklist, and whether the judge holds it valid."""

    description: str
    valid: StrictBool
    reasoning: str


class FalsePositive(Strict):
    """A claim in the answer the judge holds invalid."""

    claim: str
    why_invalid: str


class ChecklistReply(ReplyObject):
    """A judge's checklist reply; configuration is empty when the rubric is blind."""

    entry_key: str
    configuration: str = ""
    judge_model: str
    findings: list[Finding]
    novel: list[Novel]
    false_positives: list[FalsePositive]
    scores: dict[str, ExactNumber]
    assessment: str


class ChecklistKind(JudgedKind[ChecklistReply], Material, OwnRubric, LedgerExtra, OwnReports, Terminal):
    """Expected findings weighted by severity; the weights and the detection formula come from the rubric."""

    name = "checklist"
    files = ("checklist.md",)
    answer_in_packet = True

    def check_rubric(self, rubric: Rubric) -> str | None:
        problem = pair_problem(self.name, rubric)
        if problem is not None:
            return problem
        if "other" not in rubric.param("severity_weights"):
            return "field 'params.severity_weights': give the severities' weights and `other` for any other category"
        missing = [name for name in _DETECTION if name not in rubric.param("detection")]
        if missing:
            return f"field 'params.detection': missing {', '.join(missing)} (recall, precision, novel_each, novel_cap)"
        return None

    def formula(self, rubric: Rubric) -> str:
        weights = ", ".join(f"{name} {weight_text(w)}" for name, w in rubric.param("severity_weights").items())
        d = {name: weight_text(value) for name, value in rubric.param("detection").items()}
        return (
            f"severity weights {weights}; recall = weighted found / weighted total; tp = found issues + valid novel "
            "findings; precision = tp / (tp + false positives), 0 when none; f2 = 5*precision*recall / "
            f"(4*precision + recall), 0 when both are 0; detection = {d['recall']}*recall + {d['precision']}*precision "
            f"+ min({d['novel_each']}*valid novel, {d['novel_cap']}); {pair_terms(rubric)}; "
            f"total = detection + quality + persona per judge; overall = the judges' mean total; {rubric.failure_text()}"
        )

    def material(self, capture: Capture) -> dict[str, Any] | None:
        return None if capture.checklist is None else capture.checklist.model_dump(mode="json")

    def capture_problem(self, capture: Capture) -> tuple[str, str] | None:
        if capture.checklist is None:
            return (
                "checklist",
                "is missing: kind checklist judges each answer against its checklist of expected findings",
            )
        return None

    def material_sections(self, material: Mapping[str, Any]) -> list[tuple[str, str]]:
        lines = [f"- {issue['id']} [{issue['severity']}]: {issue['description']}" for issue in material["issues"]]
        if material["bonus"]:
            lines += [
                "Bonus (extra credit):",
                *(f"- {item['id']} [bonus]: {item['description']}" for item in material["bonus"]),
            ]
        return [("CHECKLIST", "\n".join(lines))]

    def instructions(self, rubric: Rubric) -> str:
        echo = "entry_key copied exactly from the packet" + ("" if rubric.blind else " and configuration")
        weights = ", ".join(f"{name} {weight_text(w)}" for name, w in rubric.param("severity_weights").items())
        return (
            "The CHECKLIST section lists the expected findings with their severities (weights: "
            f"{weights}). Reply with one JSON object and nothing else, matching the reply schema: {echo}, "
            "judge_model set to your model id; findings: exactly one entry for every listed id (issues and "
            "bonus), no other id, each with found (true only when the ANSWER identifies it) and evidence (a quote "
            "from the answer, or empty); novel: valid or invalid findings the answer makes beyond the checklist, "
            "with your reasoning; false_positives: claims in the answer that are wrong, with why; scores: a whole "
            "number for every criterion; assessment: two or three sentences. Do not compute totals: pytest-ora does."
        )

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        score = whole_score(int(rubric.scale_min), int(rubric.scale_max))
        scores = closed_model("Scores", dict.fromkeys(rubric.names, score))
        return strict_schema(asked(ChecklistReply, {"scores": scores}, {"configuration"} if rubric.blind else ()))

    def check(
        self,
        payload: object,
        rubric: Rubric,
        entry_key: str,
        configuration: str | None,
        material: Mapping[str, Any] | None = None,
    ) -> ChecklistReply | ReplyProblem:
        reply = parse_reply(ChecklistReply, payload, rubric)
        if isinstance(reply, ReplyProblem):
            return reply
        assert material is not None, "a checklist packet carries its checklist"
        listed = [issue["id"] for issue in material["issues"]] + [item["id"] for item in material["bonus"]]
        problem = check_ids("findings", [f.id for f in reply.findings], listed, "found")
        if problem is not None:
            return problem
        problem = check_scale(reply.scores, rubric)
        if problem is not None:
            return problem
        return check_echo(reply.entry_key, reply.configuration, rubric, entry_key, configuration) or reply

    def record_fields(self, reply: ChecklistReply, rubric: Rubric) -> dict[str, Any]:
        return {
            "scores": {name: str(reply.scores[name]) for name in rubric.names},
            "notes": {},
            "impression": reply.assessment,
            "answers": {
                "findings": {f.id: {"found": f.found, "evidence": f.evidence or ""} for f in reply.findings},
                "novel": [n.model_dump() for n in reply.novel],
                "false_positives": [p.model_dump() for p in reply.false_positives],
            },
        }

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        judges = record["judges"]
        results = judge_results(judges, record["material"], rubric)
        count = len(results)
        means = {name: sum((r.values()[name] for r in results), Fraction(0)) / count for name in METRICS}
        overall = sum((r.total for r in results), Fraction(0)) / count
        own = tuple(r.total for r in results)
        voted = votes(rubric, own)
        labels = [judge["label"].removeprefix("Judge ") for judge in judges]
        details = {
            "checklist_judges": [_judge_row(label, r) for label, r in zip(labels, results)],
            "issue_disagreements": issue_disagreements(judges, record["material"]),
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
        return {
            "checklist_judges": (list[dict[str, Any]], []),
            "issue_disagreements": (list[dict[str, Any]], []),
        }

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {**{name: float(mean) for name, mean in scores.means.items()}, **scores.details}

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return METRICS

    def outputs(self, records: Sequence[CaptureRecord], rubric: Rubric) -> dict[str, str]:
        return {}  # checklist.md is rendered from the per-capture files by the registry (reports/renderers.py)

    def terminal(self, records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
        scored = [r for r in records if r["status"] == "scored"]
        split = sum(len(issue_disagreements(r["judges"], r["material"])) for r in scored)
        return [
            "",
            f"ora: checklist: {split} listed ids with judge disagreement over {len(scored)} captures (checklist.md)",
        ]


KIND = ChecklistKind()


def _judge_row(label: str, result: JudgeChecklist) -> dict[str, Any]:
    row: dict[str, Any] = {
        "label": label,
        "weighted_found": str(result.weighted_found),
        "weighted_total": str(result.weighted_total),
        "found": result.found,
        "bonus_found": result.bonus_found,
        "novel_valid": result.novel_valid,
        "tp": result.tp,
        "fp": result.false_positives,
    }
    for name, value in result.values().items():
        row[name] = float(value)
        row[f"{name}_exact"] = str(value)
    return row


def check_ids(field: str, answered: Sequence[str], listed: Sequence[str], verdict: str) -> ReplyProblem | None:
    """Exactly the listed ids, each once: an invented, repeated or missing id makes the reply invalid."""
    seen: set[str] = set()
    for index, name in enumerate(answered):
        if name not in listed:
            return ReplyProblem(f"{field}.{index}.id", show_value(name), "is not a listed id of this capture")
        if name in seen:
            return ReplyProblem(f"{field}.{index}.id", show_value(name), "answers a listed id a second time")
        seen.add(name)
    for name in listed:
        if name not in seen:
            return ReplyProblem(
                f"{field}[{name}]", "nothing", f"is missing: every listed id needs {verdict} and evidence"
            )
    return None
