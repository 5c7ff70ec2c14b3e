"""`kind: scores`: judges score every criterion on the rubric's scale (the Ora judging method's schema)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any

from pydantic import Field, ValidationError

from ....core.errors import show_value
from ....core.models import JudgeReply
from ....core.record import CaptureRecord
from ....core.rubric import Rubric
from ...scoring import Scores, combine, judge_overall
from ...votes import verdict
from ..base import JudgedKind, ReplyProblem, first_error
from ..replyschema import asked, closed_model, one_of, strict_schema, whole_score

__all__ = ["KIND", "ScoresKind", "check_scale", "scale_values"]


class ScoresKind(JudgedKind[JudgeReply]):
    """Per-criterion scores, weighted; the cap, votes and verdicts come from the rubric."""

    name = "scores"

    def formula(self, rubric: Rubric) -> str:
        return rubric.scores_formula()

    def instructions(self, rubric: Rubric) -> str:
        echo = (
            "entry_key copied exactly from the packet (the packet withholds the configuration: do not guess it)"
            if rubric.blind
            else "entry_key and configuration copied exactly from the packet"
        )
        return (
            f"Reply with one JSON object and nothing else, matching the reply schema: {echo}, judge_model "
            "set to your model id, a number for every criterion under scores, a concise note for every criterion under "
            "notes, and a one-sentence impression." + (_verdict_instructions(rubric) if rubric.judge_verdict else "")
        )

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        names = rubric.names
        score = _score(rubric)
        fields: dict[str, object] = {
            "scores": closed_model("Scores", dict.fromkeys(names, score)),
            "notes": closed_model("Notes", dict.fromkeys(names, str)),
        }
        omit = {"configuration"} if rubric.blind else set()
        if rubric.judge_verdict:
            fields.update(
                rationale=str, overall_verdict=one_of([band.name for band in rubric.verdicts], _bands(rubric))
            )
        else:
            omit |= {"rationale", "overall_verdict"}
        return strict_schema(asked(JudgeReply, fields, omit))

    def check(
        self,
        payload: object,
        rubric: Rubric,
        entry_key: str,
        configuration: str | None,
        material: Mapping[str, Any] | None = None,
    ) -> JudgeReply | ReplyProblem:
        if rubric.blind and isinstance(payload, dict) and "configuration" in payload:
            return ReplyProblem(
                "configuration", show_value(payload["configuration"]), "is not a field of a blind reply"
            )
        if rubric.blind and isinstance(payload, dict):
            payload = {**payload, "configuration": ""}
        if not rubric.judge_verdict and isinstance(payload, dict):
            for name in ("rationale", "overall_verdict"):
                if name in payload:
                    return ReplyProblem(
                        name, show_value(payload[name]), f"is not a field of rubric {rubric.version}'s reply"
                    )
        try:
            parsed = JudgeReply.model_validate(payload)
        except ValidationError as error:
            return first_error(error, payload)
        return _check_against(parsed, rubric, entry_key, None if rubric.blind else configuration)

    def record_fields(self, reply: JudgeReply, rubric: Rubric) -> dict[str, Any]:
        fields: dict[str, Any] = {
            "scores": {name: str(reply.scores[name]) for name in rubric.names},
            "notes": {name: reply.notes[name] for name in rubric.names},
            "impression": reply.impression,
        }
        if rubric.judge_verdict:
            fields.update(
                rationale=reply.rationale,
                overall_verdict=reply.overall_verdict,
                computed_verdict=verdict(rubric, judge_overall(fields["scores"], rubric)),
            )
        return fields

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        return combine([judge["scores"] for judge in record["judges"]], rubric)

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {name: float(mean) for name, mean in scores.means.items()}

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return rubric.names


KIND = ScoresKind()


def _bands(rubric: Rubric) -> str:
    """The verdict bands as the judge is told them: each band's least mean of the scores, highest first."""
    return "; ".join(
        f"{band.name}: mean >= {float(band.min):g}" if band.min is not None else f"{band.name}: below"
        for band in rubric.verdicts
    )


def _verdict_instructions(rubric: Rubric) -> str:
    return (
        " Also give rationale: one or two sentences on your lowest-scored dimension, and overall_verdict: the band "
        f"the mean of your scores falls in, one of {', '.join(band.name for band in rubric.verdicts)} ({_bands(rubric)})."
    )


def _score(rubric: Rubric) -> object:
    """A score as the judge is asked for it: a whole number on a scale of whole steps, else a number (of the step)."""
    if rubric.scale_step == 1 and rubric.scale_min.denominator == 1:
        return whole_score(int(rubric.scale_min), int(rubric.scale_max))
    step = float(rubric.scale_step) if rubric.scale_step is not None else None
    return Annotated[float, Field(ge=float(rubric.scale_min), le=float(rubric.scale_max), multiple_of=step)]


def _check_against(
    reply: JudgeReply, rubric: Rubric, entry_key: str, configuration: str | None
) -> JudgeReply | ReplyProblem:
    for group, values in (("scores", reply.scores), ("notes", reply.notes)):
        for name in rubric.names:
            if name not in values:
                return ReplyProblem(f"{group}.{name}", "nothing", "is missing")
        for name in values:
            if name not in rubric.names:
                return ReplyProblem(
                    f"{group}.{name}", show_value(values[name]), f"is not a criterion of rubric {rubric.version}"
                )
    problem = check_scale(reply.scores, rubric) or _blank_text(reply, rubric) or _verdict_problem(reply, rubric)
    if problem is not None:
        return problem
    if reply.entry_key != entry_key:
        return ReplyProblem("entry_key", show_value(reply.entry_key), f"does not match the packet's {entry_key!r}")
    if configuration is not None and reply.configuration != configuration:
        return ReplyProblem(
            "configuration", show_value(reply.configuration), f"does not match the packet's {configuration!r}"
        )
    return reply


def scale_values(rubric: Rubric, limit: int) -> list[Fraction]:
    """The scores check_scale accepts, low to high (a declared step: its multiples within the scale; none:
    whole steps from the minimum, one choice among the accepted); [] when there would be more than `limit`."""
    low, high = Fraction(rubric.scale_min), Fraction(rubric.scale_max)
    step = Fraction(rubric.scale_step) if rubric.scale_step is not None else Fraction(1)
    first = math.ceil(low / step) * step if rubric.scale_step is not None else low
    if first > high or (high - first) / step + 1 > limit:
        return []
    return [first + step * k for k in range(math.floor((high - first) / step) + 1)]


def _blank_text(reply: JudgeReply, rubric: Rubric) -> ReplyProblem | None:
    """Every criterion's note and the impression are text (the Ora method's reply schema), never blank."""
    for name in rubric.names:
        if not reply.notes[name].strip():
            return ReplyProblem(
                f"notes.{name}", show_value(reply.notes[name]), "is blank: every criterion needs a note"
            )
    if not reply.impression.strip():
        return ReplyProblem("impression", show_value(reply.impression), "is blank: the reply needs an impression")
    return None


def _verdict_problem(reply: JudgeReply, rubric: Rubric) -> ReplyProblem | None:
    """A rubric with judge_verdict: a non-blank rationale and one of its bands; never guessed when absent."""
    if not rubric.judge_verdict:
        return None
    if reply.rationale is None or not reply.rationale.strip():
        return ReplyProblem("rationale", show_value(reply.rationale), "is missing or blank")
    names = [band.name for band in rubric.verdicts]
    if reply.overall_verdict not in names:
        return ReplyProblem("overall_verdict", show_value(reply.overall_verdict), f"is not one of {', '.join(names)}")
    return None


def check_scale(scores: Mapping[str, Any], rubric: Rubric) -> ReplyProblem | None:
    """Every criterion scored once, on the rubric's scale and step, no other name."""
    for name in rubric.names:
        if name not in scores:
            return ReplyProblem(f"scores.{name}", "nothing", "is missing")
    for name in scores:
        if name not in rubric.names:
            return ReplyProblem(
                f"scores.{name}", show_value(scores[name]), f"is not a criterion of rubric {rubric.version}"
            )
    for name in rubric.names:
        score = Fraction(scores[name])
        if not rubric.scale_min <= score <= rubric.scale_max:
            scale = f"{rubric.scale_min}-{rubric.scale_max}"
            return ReplyProblem(f"scores.{name}", str(scores[name]), f"is outside the scale {scale}")
        if rubric.scale_step is not None and (score / rubric.scale_step).denominator != 1:
            return ReplyProblem(
                f"scores.{name}", str(scores[name]), f"is not a multiple of the scale step {rubric.scale_step}"
            )
    return None
