"""`kind: compare` (the judge skill's compare mode): two configurations' answers head to head.

One item per entry and configuration pair. Every judge sees the two answers under the neutral
labels response-1 and response-2, twice, once in each order; its winner counts only when both
orders agree (otherwise a tie), which cancels a judge's position bias. The pair's winner is the
panel majority, else a tie.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ....core.blind import blind_names, withhold
from ....core.errors import Problem, show_value
from ....core.models import Capture, ExactNumber
from ....core.plan import Pair, PlannedCapture
from ....core.record import CaptureRecord, JudgeRecord
from ....core.rubric import Rubric, weight_text
from ....core.usage import Usage, add_usage
from ...scoring import Scores, is_failure
from ..base import JudgedKind, PacketBuilder, PacketT, ReplyObject, ReplyProblem, parse_reply
from ..capabilities import ItemShape, LedgerExtra, Material, OwnReports, OwnRubric, Terminal
from ..replyschema import asked, closed_model, strict_schema, whole_score
from ..scores.kind import check_scale
from .report import compare_files, compare_table

__all__ = ["COLUMNS", "KIND", "CompareKind", "CompareReply"]

Label = Literal["response-1", "response-2"]
LABELS: tuple[Label, Label] = ("response-1", "response-2")
ORDERS = ("first-second", "second-first")
COLUMNS = ("first_score", "second_score", "first_win", "tie", "second_win")
"""Per item: each contestant's weighted score (mean over judges and orders) and the result as 0/1."""


class _Contestant(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    scores: dict[str, ExactNumber]
    notes: dict[str, str]


class CompareReply(ReplyObject):
    """A judge's compare reply: both responses scored, a winner or a tie."""

    entry_key: str
    judge_model: str
    contestants: dict[Label, _Contestant] = Field(min_length=2)
    winner: Literal["response-1", "response-2", "tie"]
    justification: str


class CompareKind(JudgedKind[CompareReply], ItemShape, Material, OwnRubric, LedgerExtra, OwnReports, Terminal):
    """Pairwise comparison on the rubric's criteria; the result, never a score, is what counts."""

    name = "compare"
    files = ("compare.jsonl", "compare.json", "compare.md")
    """compare.jsonl is data; compare.json and compare.md are rendered from it (reports/renderers.py)."""
    answer_in_packet = False

    def check_rubric(self, rubric: Rubric) -> str | None:
        if not rubric.blind:
            return "field 'blind': kind compare must be blind (the judges never see configuration names)"
        return None

    def formula(self, rubric: Rubric) -> str:
        terms = " + ".join(f"{weight_text(c.weight)}*{c.name}" for c in rubric.criteria)
        return (
            f"Each judge scores both responses (weighted = {terms}) and names a winner or a tie, in both orders; "
            "a judge's winner counts only when both orders agree, else a tie; the pair's winner is the panel "
            "majority, else a tie; win rate = (wins + ties / 2) / items with a 95% Wilson interval"
        )

    def items(
        self,
        planned: list[PlannedCapture],
        pairs: Sequence[tuple[str, str]],
        configurations: Sequence[str],
        problems: list[Problem],
    ) -> list[PlannedCapture]:
        if not pairs:
            problems.append(
                Problem(
                    "bundle.yaml",
                    "kind compare needs configuration pairs",
                    field="compare",
                    fix="add compare: [[A, B]] to bundle.yaml or the rubric, or pass --ora-compare A:B",
                )
            )
            return []
        for first, second in pairs:
            for name in (first, second):
                if name not in configurations:
                    problems.append(
                        Problem(
                            "bundle.yaml",
                            "compares a configuration that bundle.yaml does not list",
                            field="compare",
                            value=show_value(f"{first}:{second}"),
                            fix=f"use configurations of {', '.join(configurations)}",
                        )
                    )
        if problems:
            return []
        by_entry: dict[str, dict[str, PlannedCapture]] = {}
        for item in planned:
            by_entry.setdefault(item.capture.entry_key, {})[item.capture.configuration] = item
        items = []
        for lanes in by_entry.values():
            for first, second in pairs:
                a, b = lanes.get(first), lanes.get(second)
                if a is None or b is None:
                    continue  # a lane not captured: methodology.md lists it
                pair = Pair(first, second)
                capture = a.capture.model_copy(update={"configuration": pair.lane})
                blocked = next((p for p in (a, b) if p.status != "judge"), None)
                if blocked is None:
                    items.append(PlannedCapture(capture, a.line, "judge", partner=b.capture, pair=pair))
                else:
                    reason = f"{blocked.capture.configuration} is {blocked.status}: {blocked.reason}"
                    items.append(PlannedCapture(capture, a.line, blocked.status, reason, partner=b.capture, pair=pair))
        return items

    def lanes(self, configurations: Sequence[str], pairs: Sequence[tuple[str, str]]) -> tuple[str, ...]:
        return tuple(Pair(first, second).lane for first, second in pairs)

    def packets(
        self,
        planned: PlannedCapture,
        root: Path,
        rubric: Rubric,
        build: PacketBuilder[PacketT],
    ) -> list[tuple[str, PacketT, bytes | None]]:
        assert planned.partner is not None
        base = planned.capture.model_copy(
            update={"answer": "", "acceptance": planned.capture.acceptance.model_copy(update={"notes": ""})}
        )
        packet, _ = build(base, root, rubric)
        answers = (planned.capture.answer, planned.partner.answer)
        if rubric.blind_strict:  # each response as written, unless the rubric says `blind: strict`
            names = blind_names(planned.capture, planned.partner)
            answers = (withhold(answers[0], names), withhold(answers[1], names))
        shown = {"first-second": answers, "second-first": answers[::-1]}
        return [
            (order, packet.model_copy(update={"material": {"order": order, **dict(zip(LABELS, shown[order]))}}), None)
            for order in ORDERS
        ]

    def merge(self, replies: Sequence[Sequence[JudgeRecord]], rubric: Rubric) -> list[JudgeRecord]:
        forward, backward = replies
        merged = []
        for one, two in zip(forward, backward):
            orders = [_order(order, record) for order, record in zip(ORDERS, (one, two))]
            consistent = orders[0]["winner"] == orders[1]["winner"]
            record: JudgeRecord = {
                **one,
                "scores": {},
                "notes": {},
                "impression": str(one["answers"]["justification"]),
                "asks": one["asks"] + two["asks"],
                "attempts": one["attempts"] + two["attempts"],
                "usage": _usage(one, two),
                "answers": {
                    "orders": orders,
                    "consistent": consistent,
                    "winner": orders[0]["winner"] if consistent else "tie",
                },
            }
            merged.append(record)
        return merged

    def material(self, capture: Capture) -> dict[str, Any] | None:
        return None  # the two responses are set per order in packets()

    def capture_problem(self, capture: Capture) -> tuple[str, str] | None:
        return None

    def material_sections(self, material: Mapping[str, Any]) -> list[tuple[str, str]]:
        return [(label.upper(), str(material[label])) for label in LABELS]

    def instructions(self, rubric: Rubric) -> str:
        return (
            "The RESPONSE-1 and RESPONSE-2 sections hold two responses to the same PROMPT, in no particular order. "
            "Reply with one JSON object and nothing else, matching the reply schema: entry_key copied exactly from "
            "the packet, judge_model set to your model id, contestants with response-1 and response-2 each scored on "
            "every criterion (scores) with a concise note per criterion (notes), winner set to response-1, "
            "response-2 or tie, and a short justification."
        )

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        score = whole_score(int(rubric.scale_min), int(rubric.scale_max))
        contestant = asked(
            _Contestant,
            {
                "scores": closed_model("Scores", dict.fromkeys(rubric.names, score)),
                "notes": closed_model("Notes", dict.fromkeys(rubric.names, str)),
            },
        )
        return strict_schema(
            asked(CompareReply, {"contestants": closed_model("Contestants", dict.fromkeys(LABELS, contestant))})
        )

    def check(
        self,
        payload: object,
        rubric: Rubric,
        entry_key: str,
        configuration: str | None,
        material: Mapping[str, Any] | None = None,
    ) -> CompareReply | ReplyProblem:
        reply = parse_reply(CompareReply, payload, rubric)
        if isinstance(reply, ReplyProblem):
            return reply
        for label in LABELS:
            if label not in reply.contestants:
                return ReplyProblem(f"contestants.{label}", "nothing", "is missing")
            problem = check_scale(reply.contestants[label].scores, rubric)
            if problem is not None:
                return ReplyProblem(f"contestants.{label}.{problem.field}", problem.value, problem.reason)
        if reply.entry_key != entry_key:
            return ReplyProblem("entry_key", show_value(reply.entry_key), f"does not match the packet's {entry_key!r}")
        return reply

    def record_fields(self, reply: CompareReply, rubric: Rubric) -> dict[str, Any]:
        contestants = {
            label: {
                "scores": {n: str(reply.contestants[label].scores[n]) for n in rubric.names},
                "notes": dict(reply.contestants[label].notes),
            }
            for label in LABELS
        }
        return {
            "scores": {},
            "notes": {},
            "impression": reply.justification,
            "answers": {"contestants": contestants, "winner": reply.winner, "justification": reply.justification},
        }

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        judges = record["judges"]
        pair = Pair.of(record["configuration"])
        first, second = pair.first, pair.second
        totals: dict[str, list[Fraction]] = {"first": [], "second": []}
        for judge in judges:
            for order in judge["answers"]["orders"]:
                for side in ("first", "second"):
                    scores = order["scores"][side]
                    totals[side].append(
                        sum((c.weight * Fraction(scores[c.name]) for c in rubric.criteria), Fraction(0))
                    )
        winners = [judge["answers"]["winner"] for judge in judges]
        result = next((side for side in ("first", "second") if winners.count(side) * 2 > len(winners)), "tie")
        means = {
            "first_score": sum(totals["first"], Fraction(0)) / len(totals["first"]),
            "second_score": sum(totals["second"], Fraction(0)) / len(totals["second"]),
            "first_win": Fraction(result == "first"),
            "tie": Fraction(result == "tie"),
            "second_win": Fraction(result == "second"),
        }
        names = {"first": first, "second": second, "tie": "tie"}
        details = {
            "first": first,
            "second": second,
            "winner": names[result],
            "compare_judges": [
                {
                    "label": judge["label"].removeprefix("Judge "),
                    "winner": names[judge["answers"]["winner"]],
                    "consistent": judge["answers"]["consistent"],
                    "orders": [
                        {"order": o["order"], "shown_winner": o["shown_winner"], "winner": names[o["winner"]]}
                        for o in judge["answers"]["orders"]
                    ],
                }
                for judge in judges
            ],
        }
        overall = means["first_score"]
        return Scores(
            means=means,
            weighted=overall,
            overall=overall,
            failure=is_failure(rubric, overall, {}),
            judge_overalls=tuple(Fraction(0) for _ in judges),
            votes={},
            verdict=None,
            details=details,
        )

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        return {
            "first": (str | None, None),
            "second": (str | None, None),
            "winner": (str | None, None),
            "compare_judges": (list[dict[str, Any]], []),
        }

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {**{name: float(mean) for name, mean in scores.means.items()}, **scores.details}

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return COLUMNS

    def outputs(self, records: Sequence[CaptureRecord], rubric: Rubric) -> dict[str, str]:
        return compare_files(records, rubric)

    def terminal(self, records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
        return ["", *compare_table(records, rubric, "simple").splitlines()]


KIND = CompareKind()


def _order(order: str, record: JudgeRecord) -> dict[str, Any]:
    answers = record["answers"]
    side = (
        {"response-1": "first", "response-2": "second"}
        if order == "first-second"
        else {"response-1": "second", "response-2": "first"}
    )
    shown = answers["winner"]
    return {
        "order": order,
        "shown_winner": shown,
        "winner": "tie" if shown == "tie" else side[shown],
        "scores": {side[label]: answers["contestants"][label]["scores"] for label in LABELS},
        "notes": {side[label]: answers["contestants"][label]["notes"] for label in LABELS},
        "justification": answers["justification"],
    }


def _usage(one: JudgeRecord, two: JudgeRecord) -> Usage:
    return add_usage(one["usage"], two["usage"])
