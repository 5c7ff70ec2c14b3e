"""`kind: coherence` (the judge skill's relay chain coherence): each judge rates a chain of four
answers (SM, TEA, Dev, Reviewer) excellent, good or poor; the rubric maps ratings to multipliers.

The panel's rating is the majority, else `good`. When the capture holds the chain's phase scores,
the multiplier is applied to their mean: adjusted = mean(sm, tea, dev, reviewer) x multiplier.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any, Literal

from ....core.models import Capture
from ....core.record import CaptureRecord
from ....core.rubric import Rubric
from ...scoring import Scores, is_failure
from ..base import JudgedKind, ReplyObject, ReplyProblem, check_echo, parse_reply
from ..capabilities import LedgerExtra, Material, OwnRubric
from ..replyschema import asked, strict_schema

__all__ = ["KIND", "PHASES", "RATINGS", "CoherenceKind", "CoherenceReply", "panel_rating"]

RATINGS = ("excellent", "good", "poor")
PHASES = ("sm", "tea", "dev", "reviewer")
FALLBACK = "good"
"""The panel's rating when no rating has a majority (the judge skill's neutral multiplier)."""


class CoherenceReply(ReplyObject):
    """A judge's coherence reply: a rating and its reasoning."""

    entry_key: str
    configuration: str = ""
    judge_model: str
    rating: Literal["excellent", "good", "poor"]
    reasoning: str


def panel_rating(ratings: Sequence[str]) -> str:
    """The rating more than half of the panel gives, else good."""
    return next((r for r in RATINGS if ratings.count(r) * 2 > len(ratings)), FALLBACK)


class CoherenceKind(JudgedKind[CoherenceReply], Material, OwnRubric, LedgerExtra):
    """A chain's coherence as a multiplier; no criterion scores."""

    name = "coherence"
    answer_in_packet = False

    def check_rubric(self, rubric: Rubric) -> str | None:
        missing = [r for r in RATINGS if r not in rubric.param("multipliers")]
        if missing:
            return f"field 'params.multipliers': missing {', '.join(missing)} (excellent, good, poor)"
        return None

    def formula(self, rubric: Rubric) -> str:
        m = rubric.param("multipliers")
        pairs = ", ".join(f"{r} {float(m[r]):g}" for r in RATINGS)
        return (
            f"each judge rates the chain excellent, good or poor; multipliers {pairs}; the panel's rating is the "
            f"majority, else good; overall = the multiplier; adjusted = mean(sm, tea, dev, reviewer phase scores) x "
            f"multiplier when the capture holds phase_scores; {rubric.failure_text()}"
        )

    def material(self, capture: Capture) -> dict[str, Any] | None:
        if capture.chain is None:
            return None
        material: dict[str, Any] = {"chain": capture.chain.model_dump()}
        if capture.phase_scores is not None:
            material["phase_scores"] = {k: str(v) for k, v in capture.phase_scores.model_dump().items()}
        return material

    def capture_problem(self, capture: Capture) -> tuple[str, str] | None:
        if capture.chain is None:
            return "chain", "is missing: kind coherence judges a chain of four answers {sm, tea, dev, reviewer}"
        return None

    def material_sections(self, material: Mapping[str, Any]) -> list[tuple[str, str]]:
        # phase_scores stay out of the packet: the judge rates coherence, not the phases
        return [(phase.upper(), str(material["chain"][phase])) for phase in PHASES]

    def instructions(self, rubric: Rubric) -> str:
        echo = "entry_key copied exactly from the packet" + ("" if rubric.blind else " and configuration")
        question = rubric.criteria[0].question
        return (
            f"The SM, TEA, DEV and REVIEWER sections hold one relay chain's four answers, in order. {question} "
            f"Reply with one JSON object and nothing else, matching the reply schema: {echo}, judge_model set to "
            "your model id, rating one of excellent, good or poor, and your reasoning."
        )

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        return strict_schema(asked(CoherenceReply, {}, {"configuration"} if rubric.blind else ()))

    def check(
        self,
        payload: object,
        rubric: Rubric,
        entry_key: str,
        configuration: str | None,
        material: Mapping[str, Any] | None = None,
    ) -> CoherenceReply | ReplyProblem:
        reply = parse_reply(CoherenceReply, payload, rubric)
        if isinstance(reply, ReplyProblem):
            return reply
        return check_echo(reply.entry_key, reply.configuration, rubric, entry_key, configuration) or reply

    def record_fields(self, reply: CoherenceReply, rubric: Rubric) -> dict[str, Any]:
        return {"scores": {}, "notes": {}, "impression": reply.reasoning, "answers": {"rating": reply.rating}}

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        multipliers = rubric.param("multipliers")
        ratings = [judge["answers"]["rating"] for judge in record["judges"]]
        rating = panel_rating(ratings)
        multiplier = multipliers[rating]
        details: dict[str, Any] = {
            "rating": rating,
            "multiplier_exact": str(multiplier),
            "judge_ratings": [
                {"label": j["label"].removeprefix("Judge "), "rating": r} for j, r in zip(record["judges"], ratings)
            ],
            "chain_mean_phase": None,
            "adjusted_phase": None,
        }
        phases = record["material"].get("phase_scores")
        if phases is not None:
            mean = sum((Fraction(phases[p]) for p in PHASES), Fraction(0)) / len(PHASES)
            details.update(
                chain_mean_phase=float(mean),
                adjusted_phase=float(mean * multiplier),
                adjusted_phase_exact=str(mean * multiplier),
            )
        own = tuple(multipliers[r] for r in ratings)
        return Scores(
            means={"multiplier": multiplier},
            weighted=multiplier,
            overall=multiplier,
            failure=is_failure(rubric, multiplier, {}),
            judge_overalls=own,
            votes={},
            verdict=None,
            details=details,
        )

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        return {
            "rating": (str | None, None),
            "multiplier_exact": (str | None, None),
            "judge_ratings": (list[dict[str, Any]], []),
            "chain_mean_phase": (float | None, None),
            "adjusted_phase": (float | None, None),
            "adjusted_phase_exact": (str | None, None),
        }

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {"multiplier": float(scores.means["multiplier"]), **scores.details}

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return ("multiplier",)


KIND = CoherenceKind()
