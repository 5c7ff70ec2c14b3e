"""The reference judge's deterministic scorer: a test double, not a real judge.

Scores come from surface features of the answer (method step names found, or, without numbered
steps, the reference answer's or the prompt's key terms used; reasoning markers, structure,
prompt words reused, hedges), so any rubric's scores spread and repeat predictably and a better
answer by these features scores higher (docs/concepts/reference-judge.md says exactly
how). They measure nothing about quality; they exist so the harness can be exercised end to end.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..judges.packet import read_header, read_sections
from ..method.rubric import ORA_V1

__all__ = [
    "CRITERIA",
    "HEDGES",
    "ORA_SHAPE",
    "REASONING_MARKERS",
    "Features",
    "Shape",
    "features",
    "half_point",
    "judge_offset",
    "judge_reply",
    "method_steps",
    "reply_shape",
]

CRITERIA: tuple[str, ...] = ORA_V1.names
REASONING_MARKERS: tuple[str, ...] = ("because", "therefore", "evidence", "since", "implies")
HEDGES: tuple[str, ...] = ("assume", "assumption", "uncertain", "likely", "confidence", "unknown", "risk")

_PACKET_TITLE = "# Ora judge packet"
_METHOD_HEADING = re.compile(r"^#{2,3}[ \t]+method\b.*$", re.IGNORECASE | re.MULTILINE)
_NEXT_HEADING = re.compile(r"^#{1,2}[ \t]", re.MULTILINE)
_STEP = re.compile(r"^[ \t]*\d+[.)][ \t]+\*\*(?P<name>[^*\n]+?)\*\*", re.MULTILINE)
_STRUCTURE = re.compile(r"^[ \t]*(?:#{1,6}[ \t]|\d+[.)][ \t]|[-*\u2022][ \t]|\|)", re.MULTILINE)
_MARKERS = re.compile(r"\b(?:" + "|".join(REASONING_MARKERS) + r")\b", re.IGNORECASE)
_CONTENT_WORD = re.compile(r"[a-z]{5,}")
# Common long words that say nothing about the prompt's subject.
_STOPWORDS = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "among",
        "because",
        "before",
        "being",
        "below",
        "between",
        "could",
        "doing",
        "during",
        "every",
        "given",
        "other",
        "their",
        "there",
        "these",
        "those",
        "through",
        "under",
        "until",
        "which",
        "while",
        "would",
        "should",
        "where",
        "whose",
        "within",
        "without",
        "please",
        "answer",
        "using",
        "based",
    ]
)

_FILLER = frozenset(["question", "asks", "asked", "this", "that", "what", "here", "answer", "your"])
"""Words a restatement adds around the prompt's own ("the question asks ...")."""


@dataclass(frozen=True)
class Features:
    """What the scorer reads from one packet."""

    steps: tuple[str, ...]
    found: tuple[str, ...]
    words: int
    markers: int
    structure: int
    prompt_words: int
    shared_words: int
    hedges: tuple[str, ...]
    technique_named: bool
    points: int = 0
    """Key terms of what a good answer covers, when the spec lists no steps: the reference's, else the prompt's."""
    points_found: int = 0
    points_source: str = ""
    """'reference' or 'prompt' when coverage is read from key terms; '' otherwise."""
    restates: bool = False
    """Every word of four letters or more in the answer is the prompt's own: it only restates the prompt."""

    @property
    def coverage(self) -> float:
        """Share of the method's steps the answer names; else of the key terms it uses; else a guess."""
        if self.steps:
            return len(self.found) / len(self.steps)
        if self.points:
            return self.points_found / self.points
        return 0.5 if self.technique_named else 0.0

    @property
    def overlap(self) -> float:
        """Share of the prompt's content words the answer reuses."""
        return self.shared_words / self.prompt_words if self.prompt_words else 0.5


def method_steps(specification: str) -> tuple[str, ...]:
    """Step names of the spec's `## Method` section (`1. **Name**: ...`); the whole spec if none."""
    heading = _METHOD_HEADING.search(specification)
    body = specification
    if heading is not None:
        rest = specification[heading.end() :]
        end = _NEXT_HEADING.search(rest)
        body = rest[: end.start()] if end else rest
    names = (match.group("name").strip().rstrip(":.").strip() for match in _STEP.finditer(body))
    return tuple(name for name in names if name)


def _normal(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


def features(
    specification: str,
    prompt: str,
    answer: str,
    technique: str = "",
    reference: str | None = None,
    prompt_points: bool = False,
) -> Features:
    """The surface features of an answer against its spec and prompt.

    Coverage reads the spec's numbered method steps. A spec without steps reads, instead, the key
    terms (content words of five letters or more) of the reference answer when the packet holds
    one, or, with `prompt_points` (a plain score reply to a packet without a specification), of the prompt.
    """
    steps = method_steps(specification)
    normal_answer = _normal(answer)
    found = tuple(step for step in steps if _normal(step) in normal_answer)
    prompt_words = set(_CONTENT_WORD.findall(prompt.lower())) - _STOPWORDS
    answer_words = set(_CONTENT_WORD.findall(answer.lower()))
    lowered = answer.lower()
    hedges = tuple(word for word in HEDGES if re.search(rf"\b{word}", lowered))
    named = bool(technique) and _normal(technique.replace("-", " ")) in normal_answer
    points: set[str] = set()
    source = ""
    if not steps and reference is not None:
        points, source = set(_CONTENT_WORD.findall(reference.lower())) - _STOPWORDS, "reference"
    elif not steps and prompt_points:
        points, source = prompt_words, "prompt"
    own = set(re.findall(r"[a-z]{4,}", lowered)) - set(re.findall(r"[a-z]{4,}", prompt.lower())) - _STOPWORDS - _FILLER
    return Features(
        restates=bool(re.search(r"[a-z]{4,}", lowered)) and not own,
        points=len(points),
        points_found=len(points & answer_words),
        points_source=source if points else "",
        steps=steps,
        found=found,
        words=len(re.findall(r"[A-Za-z0-9']+", answer)),
        markers=len(_MARKERS.findall(answer)),
        structure=len(_STRUCTURE.findall(answer)),
        prompt_words=len(prompt_words),
        shared_words=len(prompt_words & answer_words),
        hedges=hedges,
        technique_named=named,
    )


def half_point(value: float) -> float:
    """Round half up to the nearest half point, within the 0-10 scale."""
    return min(10.0, max(0.0, math.floor(value * 2 + 0.5) / 2))


def judge_offset(model: str, entry_key: str, configuration: str, criterion: str) -> float:
    """A per-judge nudge of -0.5, 0 or +0.5 (half the time 0) so two judges sometimes differ."""
    digest = hashlib.sha256(f"{model}\n{entry_key}\n{configuration}\n{criterion}".encode()).digest()
    return (-0.5, 0.0, 0.0, 0.5)[digest[0] % 4]


def _base_scores(found: Features) -> dict[str, float]:
    if found.restates:  # the prompt's own words back: nothing answered, however well it "covers" the prompt
        return dict.fromkeys(CRITERIA, 1.0)
    structure = min(found.structure, 6) / 6
    coverage = found.coverage
    return {
        "fidelity": 1.5 + 7.5 * coverage + 1.0 * structure,
        "soundness": 1.5 + 4.5 * min(found.markers, 6) / 6 + 2.0 * structure + 2.0 * coverage,
        "completeness": 1.0 + 6.0 * coverage + 3.0 * min(found.words, 300) / 300,
        "relevance": 1.0 + 9.0 * found.overlap,
        "calibration": 1.5 + 8.5 * min(len(found.hedges), 4) / 4,
    }


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _notes(found: Features, artifact: str) -> dict[str, str]:
    if found.restates:
        return dict.fromkeys(CRITERIA, f"The answer only restates the prompt: it adds no word of its own{artifact}.")
    missing = [step for step in found.steps if step not in found.found]
    if found.points_source:
        covered = f"{found.points_found} of {_plural(found.points, 'key term')} of the {found.points_source}"
        return {
            "fidelity": f"Uses {covered}.",
            "soundness": f"{_plural(found.markers, 'reasoning marker')} and {_plural(found.structure, 'structured line')} carry the argument.",
            "completeness": f"Covers {found.coverage:.0%} of the {found.points_source}'s key terms in {_plural(found.words, 'word')}{artifact}.",
            "relevance": f"Reuses {found.shared_words} of {_plural(found.prompt_words, 'content word')} from the prompt.",
            "calibration": f"Names {_plural(len(found.hedges), 'hedge or assumption term')}"
            + (f" ({', '.join(found.hedges)})" if found.hedges else "")
            + ".",
        }
    if found.steps:
        fidelity = f"Executes {len(found.found)} of {_plural(len(found.steps), 'method step')}"
        fidelity += f"; missing {', '.join(missing[:3])}{' and more' if len(missing) > 3 else ''}." if missing else "."
    else:
        named = "named" if found.technique_named else "not named"
        fidelity = f"The specification lists no numbered steps; the technique is {named}."
    hedges = f" ({', '.join(found.hedges)})" if found.hedges else ""
    markers, lines = _plural(found.markers, "reasoning marker"), _plural(found.structure, "structured line")
    return {
        "fidelity": fidelity,
        "soundness": f"{markers} and {lines} carry the argument.",
        "completeness": f"Covers {found.coverage:.0%} of the method in {_plural(found.words, 'word')}{artifact}.",
        "relevance": f"Reuses {found.shared_words} of {_plural(found.prompt_words, 'content word')} from the prompt.",
        "calibration": f"Names {_plural(len(found.hedges), 'hedge or assumption term')}{hedges}.",
    }


def _empty_notes(artifact: str) -> dict[str, str]:
    return {
        "fidelity": "The answer is empty, so no method step is executed.",
        "soundness": "An empty answer offers no reasoning to assess.",
        "completeness": f"An empty answer surfaces nothing{artifact}.",
        "relevance": "An empty answer does not engage the prompt.",
        "calibration": "An empty answer states no assumptions or uncertainty.",
    }


def _artifact_clause(images: Sequence[bytes], artifact_text: str | None) -> str:
    clauses = [f"image artifact of {len(image)} bytes seen" for image in images]
    if artifact_text is not None:
        clauses.append(f"text artifact of {len(artifact_text)} characters seen")
    return "".join(f"; {clause}" for clause in clauses)


def _impression(technique: str, scores: dict[str, float]) -> str:
    mean = sum(scores.values()) / len(scores)
    band = next((a for a in ORA_V1.anchors if a.low <= math.floor(mean) <= a.high), ORA_V1.anchors[0])
    return f"Reference judge view of {technique or 'this entry'}: {band.meaning}."


@dataclass(frozen=True)
class Shape:
    """What the request's reply schema asks for: criteria, scale, step, whether to echo the configuration."""

    criteria: tuple[str, ...]
    low: float
    high: float
    step: float
    echo_configuration: bool
    checklist: bool = False
    """The schema asks for per-item findings (kind checklist)."""
    compare: bool = False
    """The schema asks for two contestants and a winner (kind compare)."""
    behavior: bool = False
    """The schema asks for per-behaviour answers (kind behavior)."""
    coherence: bool = False
    """The schema asks for a chain rating (kind coherence)."""
    bands: tuple[tuple[str, float | None], ...] = ()
    """The schema asks for a rationale and an overall_verdict among these bands (name, least mean), highest first."""


ORA_SHAPE = Shape(CRITERIA, 0.0, 10.0, 0.5, True)


def reply_shape(body: Any) -> Shape:
    """The reply schema a request carries (tool input schema, json_schema, responseSchema), else the Ora judging method's."""
    rating = _find_schema(body, "rating")
    if rating is not None:
        return Shape(("coherence",), 0.0, 10.0, 1.0, "configuration" in rating["properties"], coherence=True)
    schema = _find_schema(body)
    if schema is None:
        return ORA_SHAPE
    scores = schema["properties"]["scores"]
    names = tuple(scores.get("required") or scores.get("properties", {}))
    first: dict[str, Any] = next(iter(scores.get("properties", {}).values()), {})
    kind = str(first.get("type", "number")).lower()
    step = 1.0 if kind == "integer" else float(first.get("multipleOf", 0.5))
    low, high = float(first.get("minimum", 0)), float(first.get("maximum", 10))
    echo, checklist = "configuration" in schema["properties"], "findings" in schema["properties"]
    compare = _find_schema(body, "contestants") is not None
    return Shape(
        names or CRITERIA,
        low,
        high,
        step,
        echo,
        checklist,
        compare,
        "behaviors" in schema["properties"],
        bands=_bands(schema["properties"].get("overall_verdict")),
    )


def _bands(verdict: Any) -> tuple[tuple[str, float | None], ...]:
    """The verdict bands an overall_verdict property names ("PASS_STRONG: mean >= 4; ..."), else none."""
    if not isinstance(verdict, dict):
        return ()
    bands: list[tuple[str, float | None]] = []
    for part in str(verdict.get("description", "")).split(";"):
        name, _, rule = part.strip().partition(": ")
        least = rule.partition(">= ")[2]
        bands.append((name, float(least) if least else None))
    return tuple(bands)


def _find_schema(node: Any, key: str = "scores") -> dict[str, Any] | None:
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and isinstance(properties.get(key), dict):
            return node
        children: Any = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _find_schema(child, key)
        if found is not None:
            return found
    return None


def _on_scale(value: float, shape: Shape) -> float:
    """A 0-10 base value mapped onto the shape's scale, on its step, within its range."""
    raw = shape.low + (shape.high - shape.low) * value / 10
    steps = math.floor((raw - shape.low) / shape.step + 0.5)
    return min(shape.high, max(shape.low, shape.low + steps * shape.step))


def _number(value: float) -> float | int:
    return int(value) if value == int(value) else value


def judge_reply(
    text: str,
    model: str,
    images: Sequence[bytes] = (),
    shape: Shape = ORA_SHAPE,
    prefer_first: bool = False,
    plain: bool = True,
) -> dict[str, Any]:
    """The reply object for a rendered judge packet, echoing its entry_key and configuration.

    Other rubrics (any criteria, scale, step; blind) are answered from the request's reply schema:
    each criterion takes one of the Ora judging method's five base scores in turn, mapped onto the scale.
    """
    if shape.compare:
        return compare_reply(text, model, shape, prefer_first)
    if shape.coherence:
        return coherence_reply(text, model, shape)
    if shape != ORA_SHAPE:
        return _other_reply(text, model, images, shape)
    # The packet leads the user turn; tolerate a client that put other text before it.
    start = text.find(_PACKET_TITLE)
    if start > 0 and not text.startswith(_PACKET_TITLE):
        text = text[start:]
    header = read_header(text)
    sections = read_sections(text)
    entry_key = header.get("entry_key", "")
    configuration = header.get("configuration", "")
    technique = header.get("technique", "")
    answer = sections.get("ANSWER", "")
    artifact = _artifact_clause(images, sections.get("ARTIFACT"))
    if not answer.strip():
        # An empty answer scores 0-1 on every criterion, whatever the offset.
        scores = {c: min(1.0, max(0.0, 0.5 + judge_offset(model, entry_key, configuration, c))) for c in CRITERIA}
        notes = _empty_notes(artifact)
    else:
        found = features(
            sections.get("SPECIFICATION", ""),
            sections.get("PROMPT", ""),
            answer,
            technique,
            sections.get("REFERENCE"),
            prompt_points=plain and "SPECIFICATION" not in sections,
        )
        base = _base_scores(found)
        scores = {
            c: half_point(half_point(base[c]) + judge_offset(model, entry_key, configuration, c)) for c in CRITERIA
        }
        notes = _notes(found, artifact)
    return {
        "entry_key": entry_key,
        "configuration": configuration,
        "judge_model": model,
        "scores": scores,
        "notes": notes,
        "impression": _impression(technique, scores),
    }


def _other_reply(text: str, model: str, images: Sequence[bytes], shape: Shape) -> dict[str, Any]:
    # Checklist and behaviour replies keep reading coverage as before (their items carry what matters).
    base_reply = judge_reply(text, model, images, plain=not (shape.checklist or shape.behavior))
    entry_key, configuration = base_reply["entry_key"], base_reply["configuration"]
    bases = base_reply["scores"]
    scores: dict[str, float | int] = {}
    notes: dict[str, str] = {}
    for index, name in enumerate(shape.criteria):
        source = CRITERIA[index % len(CRITERIA)]
        nudge = judge_offset(model, entry_key, configuration, name) * 2 * shape.step
        value = _on_scale(bases[source], shape) + nudge
        scores[name] = _number(min(shape.high, max(shape.low, value)))
        notes[name] = f"{name}: read as {source}. {base_reply['notes'][source]}"
    reply: dict[str, Any] = {"entry_key": entry_key}
    if shape.echo_configuration:
        reply["configuration"] = configuration
    if shape.checklist:
        reply.update(
            judge_model=model,
            **checklist_answers(text, model, entry_key, configuration),
            scores=scores,
            assessment=base_reply["impression"],
        )
        return reply
    if shape.behavior:
        reply.update(
            judge_model=model,
            **behavior_answers(text, model, entry_key, configuration),
            scores=scores,
            assessment=base_reply["impression"],
        )
        return reply
    reply.update(judge_model=model, scores=scores, notes=notes, impression=base_reply["impression"])
    if shape.bands:
        lowest = min(shape.criteria, key=lambda name: (scores[name], name))
        mean = sum(float(value) for value in scores.values()) / len(scores)
        reply["rationale"] = f"{lowest} is the lowest dimension at {scores[lowest]}: {notes[lowest]}"
        reply["overall_verdict"] = next(name for name, least in shape.bands if least is None or mean >= least)
    return reply


_LISTED = re.compile(r"^- (?P<id>\S+) \[(?P<severity>[^\]\n]+)\]:", re.MULTILINE)
_TAGGED = re.compile(r"^[ \t]*(?:[-*][ \t]+)?\[(?P<tag>[A-Za-z0-9][A-Za-z0-9_.:-]*)\][ \t]*(?P<text>.*)$", re.MULTILINE)


def checklist_answers(text: str, model: str, entry_key: str, configuration: str) -> dict[str, Any]:
    """A checklist judge's per-item answers, read from the answer's tagged lines.

    `[ID] ...` naming a listed id: found, by every judge. A listed id named bare (no brackets): found
    by a judge only when its offset for that id is not negative, so judges sometimes disagree.
    `[NEW] ...`: a valid novel finding. Any other `[TAG] ...`: a false positive.
    """
    sections = read_sections(text)
    listed = [match.group("id") for match in _LISTED.finditer(sections.get("CHECKLIST", ""))]
    answer = sections.get("ANSWER", "")
    findings = [
        {"id": name, "found": hit, "evidence": quote}
        for name, hit, quote in _seen(listed, answer, model, entry_key, configuration)
    ]
    novel, false = [], []
    for match in _TAGGED.finditer(answer):
        tag, claim = match.group("tag"), match.group("text").strip()
        if tag == "NEW":
            novel.append(
                {"description": claim, "valid": True, "reasoning": "a real defect the checklist does not list"}
            )
        elif tag not in listed:
            false.append({"claim": claim, "why_invalid": f"{tag} names no defect in the code under review"})
    return {"findings": findings, "novel": novel, "false_positives": false}


def compare_reply(text: str, model: str, shape: Shape, prefer_first: bool = False) -> dict[str, Any]:
    """Both responses scored as single answers would be, the higher weighted sum winning (equal: a tie).

    prefer_first makes a position-biased judge: it names response-1 the winner whatever is shown.
    """
    sections = read_sections(text)
    single = replace(shape, compare=False, echo_configuration=False)
    contestants, totals = {}, []
    for label in ("response-1", "response-2"):
        # Each response is scored as the ANSWER of the same packet (the compare packet has none).
        answer = f"\n\n<<<BEGIN ANSWER {_NONCE}>>>\n{sections.get(label.upper(), '')}\n<<<END ANSWER {_NONCE}>>>"
        scored = _other_reply(text + answer, model, (), single)
        contestants[label] = {"scores": scored["scores"], "notes": scored["notes"]}
        totals.append(sum(scored["scores"].values()))
    if prefer_first:
        winner, why = "response-1", "Response-1 is better (this reference judge always prefers the first answer shown)."
    elif totals[0] == totals[1]:
        winner, why = "tie", f"Both responses sum to {totals[0]:g} over the criteria."
    else:
        winner = "response-1" if totals[0] > totals[1] else "response-2"
        why = f"{winner} sums to {max(totals):g} over the criteria against {min(totals):g}."
    entry_key = read_header(text).get("entry_key", "")
    return {
        "entry_key": entry_key,
        "judge_model": model,
        "contestants": contestants,
        "winner": winner,
        "justification": why,
    }


_NONCE = "0" * 16


def _seen(
    listed: Sequence[str], answer: str, model: str, entry_key: str, configuration: str
) -> list[tuple[str, bool, str]]:
    """(id, seen, evidence): `[ID]` lines are seen by every judge; a bare mention only when the judge's offset allows."""
    tagged = {match.group("tag"): match.group(0).strip() for match in _TAGGED.finditer(answer)}
    seen = []
    for name in listed:
        if name in tagged:
            seen.append((name, True, tagged[name]))
            continue
        bare = re.search(rf"(?<![\w\[]){re.escape(name)}(?![\w\]])", answer) is not None
        hit = bare and judge_offset(model, entry_key, configuration, name) >= 0
        seen.append((name, hit, f"mentioned in passing: {name}" if hit else ""))
    return seen


def behavior_answers(text: str, model: str, entry_key: str, configuration: str) -> dict[str, Any]:
    """A behaviour judge's per-item answers: demonstrated as checklist_answers reads found."""
    sections = read_sections(text)
    body = sections.get("BEHAVIORS", "")
    baseline_text, _, bonus_text = body.partition("\nBonus:")
    answer = sections.get("ANSWER", "")
    groups = {}
    for field, part in (("behaviors", baseline_text), ("bonus", bonus_text)):
        listed = [match.group("id") for match in _LISTED.finditer(part)]
        groups[field] = [
            {"id": name, "demonstrated": hit, "evidence": quote}
            for name, hit, quote in _seen(listed, answer, model, entry_key, configuration)
        ]
    return groups


_STORY = re.compile(r"\b[A-Z][A-Z0-9]*-\d+\b")
_LEVELS = ("excellent", "good", "poor")


def coherence_reply(text: str, model: str, shape: Shape) -> dict[str, Any]:
    """A chain rating: the SM phase's first story id (ABC-123) carried by the three later phases.

    All three carry it: excellent; two: good; fewer: poor. A judge whose offset for the chain is
    negative rates one level lower, so judges sometimes split and the panel falls back to good.
    """
    header, sections = read_header(text), read_sections(text)
    entry_key, configuration = header.get("entry_key", ""), header.get("configuration", "")
    story = _STORY.search(sections.get("SM", ""))
    carried = (
        0 if story is None else sum(story.group(0) in sections.get(name, "") for name in ("TEA", "DEV", "REVIEWER"))
    )
    level = {3: 0, 2: 1}.get(carried, 2)
    if judge_offset(model, entry_key, configuration, "coherence") < 0:
        level = min(level + 1, 2)
    reply: dict[str, Any] = {"entry_key": entry_key}
    if shape.echo_configuration:
        reply["configuration"] = configuration
    named = story.group(0) if story else "(none)"
    carrying = [
        name.lower()
        for name in ("TEA", "DEV", "REVIEWER")
        if story is not None and story.group(0) in sections.get(name, "")
    ]
    reasoning = (
        f"{carried} of the 3 later phases carry the story id {named} that the SM phase opened"
        f" ({', '.join(carrying) or 'none of tea, dev, reviewer'}): a chain whose phases keep to one story reads as one "
        "piece of work, one whose later phases drop it reads as separate answers."
    )
    reply.update(judge_model=model, rating=_LEVELS[level], reasoning=reasoning)
    return reply
