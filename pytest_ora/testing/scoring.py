"""The reference judge's deterministic scorer: a test double, not a real judge.

Scores come from surface features of the answer (method step names found, reasoning markers,
prompt words reused, hedges), so a sample bundle's scores spread and repeat predictably. They
measure nothing about quality; they exist so the harness can be exercised end to end.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..judges.packet import read_header, read_sections
from ..method.rubric import ORA_V1

__all__ = [
    "CRITERIA",
    "HEDGES",
    "REASONING_MARKERS",
    "ORA_SHAPE",
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
    "about above after again against among because before being below between could doing "
    "during every given other their there these those through under until which while would "
    "should where whose within without please answer using based".split()
)


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

    @property
    def coverage(self) -> float:
        """Share of the method's steps the answer names (a guess when the spec lists none)."""
        if self.steps:
            return len(self.found) / len(self.steps)
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


def features(specification: str, prompt: str, answer: str, technique: str = "") -> Features:
    """The surface features of an answer against its spec and prompt."""
    steps = method_steps(specification)
    normal_answer = _normal(answer)
    found = tuple(step for step in steps if _normal(step) in normal_answer)
    prompt_words = set(_CONTENT_WORD.findall(prompt.lower())) - _STOPWORDS
    answer_words = set(_CONTENT_WORD.findall(answer.lower()))
    lowered = answer.lower()
    hedges = tuple(word for word in HEDGES if re.search(rf"\b{word}", lowered))
    named = bool(technique) and _normal(technique.replace("-", " ")) in normal_answer
    return Features(
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
    missing = [step for step in found.steps if step not in found.found]
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


ORA_SHAPE = Shape(CRITERIA, 0.0, 10.0, 0.5, True)


def reply_shape(body: Any) -> Shape:
    """The reply schema a request carries (tool input schema, json_schema, responseSchema), else seed 000's."""
    schema = _find_schema(body)
    if schema is None:
        return ORA_SHAPE
    scores = schema["properties"]["scores"]
    names = tuple(scores.get("required") or scores.get("properties", {}))
    first: dict[str, Any] = next(iter(scores.get("properties", {}).values()), {})
    kind = str(first.get("type", "number")).lower()
    step = 1.0 if kind == "integer" else float(first.get("multipleOf", 0.5))
    low, high = float(first.get("minimum", 0)), float(first.get("maximum", 10))
    return Shape(names or CRITERIA, low, high, step, "configuration" in schema["properties"])


def _find_schema(node: Any) -> dict[str, Any] | None:
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict) and isinstance(properties.get("scores"), dict):
            return node
        children: Any = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _find_schema(child)
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


def judge_reply(text: str, model: str, images: Sequence[bytes] = (), shape: Shape = ORA_SHAPE) -> dict[str, Any]:
    """The reply object for a rendered judge packet, echoing its entry_key and configuration.

    Other rubrics (any criteria, scale, step; blind) are answered from the request's reply schema:
    each criterion takes one of seed 000's five base scores in turn, mapped onto the scale.
    """
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
        found = features(sections.get("SPECIFICATION", ""), sections.get("PROMPT", ""), answer, technique)
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
    seed000 = judge_reply(text, model, images)
    entry_key, configuration = seed000["entry_key"], seed000["configuration"]
    bases = seed000["scores"]
    scores: dict[str, float | int] = {}
    notes: dict[str, str] = {}
    for index, name in enumerate(shape.criteria):
        source = CRITERIA[index % len(CRITERIA)]
        nudge = judge_offset(model, entry_key, configuration, name) * 2 * shape.step
        value = _on_scale(bases[source], shape) + nudge
        scores[name] = _number(min(shape.high, max(shape.low, value)))
        notes[name] = f"{name}: read as {source}. {seed000['notes'][source]}"
    reply: dict[str, Any] = {"entry_key": entry_key}
    if shape.echo_configuration:
        reply["configuration"] = configuration
    reply.update(judge_model=model, scores=scores, notes=notes, impression=seed000["impression"])
    return reply
