"""A mode's data as the captures a bundle run would judge: the rubric, and one item per thing to score.

The judge skill's names are kept as given: a contestant's spec and character, a team's theme are
shown to the judges in the CONTEXT section and key the result. Captures need slug configurations,
so each item gets a neutral one (contestant-1, contestant-2, team1, team2, chain), listed in the
result's `items` beside the name it stands for.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...core.models import Behaviors, Capture, Chain, Checklist
from ...core.plan import Pair, PlannedCapture
from .data import PHASES, CoherenceData, CompareData, Contestant, DataError, PhaseData, SoloData

__all__ = ["Item", "Judgment", "judgment_of"]


@dataclass(frozen=True)
class Item:
    """One thing the panel scores: the name the result uses, and the capture as a bundle run would plan it."""

    name: str
    planned: PlannedCapture


@dataclass(frozen=True)
class Judgment:
    """What one call judges: the built-in rubric and the items, in the order given."""

    mode: str
    rubric: str
    items: tuple[Item, ...]


def _capture(mode: str, configuration: str, prompt: str, answer: str, context: str | None, **fields: object) -> Capture:
    return Capture.model_validate(
        {
            "entry_key": f"judge:{mode}",
            "configuration": configuration,
            "prompt": prompt,
            "answer": answer,
            "context": context,
            **fields,
        }
    )


def _contestant(spec: str, character: str, code: str | None) -> str:
    text = f"Contestant: {spec} ({character})"
    return text if code is None else f"{text}\n\nCode under review:\n{code}"


def _lists(data: SoloData | CompareData) -> tuple[str, dict[str, object]]:
    """The rubric and the capture field a checklist or behaviour list makes; the unified rubric without one."""
    if data.baseline_issues is not None:
        return "judge-checklist-2.0", {"checklist": Checklist(issues=data.baseline_issues, bonus=data.bonus_issues)}
    if data.baseline_criteria is not None:
        return "judge-behavior-1.0", {
            "behaviors": Behaviors(criteria=data.baseline_criteria, bonus=data.bonus_criteria)
        }
    if data.bonus_issues or data.bonus_criteria:
        raise DataError("--data: bonus_issues / bonus_criteria go with baseline_issues / baseline_criteria")
    return "judge-solo-1.0", {}


def _solo(data: SoloData) -> Judgment:
    rubric, lists = _lists(data)
    capture = _capture(
        "solo",
        "contestant-1",
        data.challenge,
        data.response,
        _contestant(data.spec, data.character, data.code),
        gold_standard=data.gold_standard,
        **lists,
    )
    return Judgment("solo", rubric, (Item(data.spec, PlannedCapture(capture, 1, "judge")),))


def _compare(data: CompareData) -> Judgment:
    one, two = data.contestants
    if one.spec == two.spec:
        raise DataError(f"--data: field 'contestants' names the spec {one.spec!r} twice: the result is keyed by spec")
    rubric, lists = _lists(data)

    def capture(slot: str, contestant: Contestant, context: str) -> Capture:
        return _capture("compare", slot, data.challenge, contestant.response, context, **lists)

    if lists:  # a checklist or behaviour list: each contestant scored on it, the higher total wins
        return Judgment(
            "compare",
            rubric,
            tuple(
                Item(
                    c.spec,
                    PlannedCapture(
                        capture(f"contestant-{n}", c, _contestant(c.spec, c.character, data.code)), n, "judge"
                    ),
                )
                for n, c in enumerate(data.contestants, start=1)
            ),
        )
    shown = "Contestants, in no particular order: " + "; ".join(f"{c.spec} ({c.character})" for c in data.contestants)
    shown = shown if data.code is None else f"{shown}\n\nCode under review:\n{data.code}"
    first, second = capture("contestant-1", one, shown), capture("contestant-2", two, shown)
    pair = Pair("contestant-1", "contestant-2")
    planned = PlannedCapture(
        first.model_copy(update={"configuration": pair.lane}), 1, "judge", partner=second, pair=pair
    )
    return Judgment("compare", "judge-compare-1.0", (Item(f"{one.spec} vs {two.spec}", planned),))


def _phase(mode: str, data: PhaseData) -> Judgment:
    items = []
    for number, (name, team) in enumerate((("team1", data.team1), ("team2", data.team2)), start=1):
        capture = _capture(mode, name, data.context, team.response, f"Team theme: {team.theme}")
        items.append(Item(name, PlannedCapture(capture, number, "judge")))
    return Judgment(mode, PHASES[mode], tuple(items))


def _coherence(data: CoherenceData) -> Judgment:
    chain = Chain(sm=data.sm_response, tea=data.tea_response, dev=data.dev_response, reviewer=data.reviewer_response)
    capture = _capture(
        "coherence", "chain", f"Evaluate chain coherence for {data.theme}.", "", f"Theme: {data.theme}", chain=chain
    )
    return Judgment("coherence", "judge-coherence-1.0", (Item(data.theme, PlannedCapture(capture, 1, "judge")),))


def judgment_of(mode: str, data: object) -> Judgment:
    """The rubric and items of a judged mode's checked data."""
    if isinstance(data, SoloData):
        return _solo(data)
    if isinstance(data, CompareData):
        return _compare(data)
    if isinstance(data, PhaseData):
        return _phase(mode, data)
    if isinstance(data, CoherenceData):
        return _coherence(data)
    raise DataError(f"mode {mode} calls no judge")
