"""The `swebench` and `ground-truth` scorers: the judge skill's weights, each point from a documented check.

Every check reads only the scenario (its gold patch, tests and problem statement) and the response
text; the same inputs always give the same scores. Points are exact fractions; a component's score
is the sum of its checks' points, the total the sum of the components (0-100).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import PurePosixPath
from typing import Any

from .patch import Code, Patch, parse_patch, response_code, syntax_ok
from .scenario import Scenario

__all__ = ["GROUND_TRUTH_WEIGHTS", "MODES", "SWEBENCH_WEIGHTS", "Check", "Scored", "ground_truth", "swebench"]

SWEBENCH_WEIGHTS: Mapping[str, int] = {"root_cause": 30, "fix_quality": 40, "completeness": 20, "persona": 10}
GROUND_TRUTH_WEIGHTS: Mapping[str, int] = {
    "file_identification": 20,
    "location_identification": 20,
    "fix_logic_match": 40,
    "completeness": 20,
}

_CAUSAL = re.compile(
    r"\b(because|root cause|caused by|causes|due to|the (?:bug|problem|issue) is|this means|which means|results? in|leads? to)\b",
    re.IGNORECASE,
)
_EDGE = re.compile(
    r"\b(edge[- ]cases?|corner[- ]cases?|empty|none|null|zero|boundary|regression|backwards?[- ]compat\w*|unicode|whitespace)\b",
    re.IGNORECASE,
)
_TEST = re.compile(r"\bdef test_\w+|\btests?/[\w/.-]+\.py\b|pytest\.raises|\bassert\b")
_VOICE = re.compile(r"\b(I|I'm|I've|I'd|(?i:we|we'll|let's|my|our))\b")
_STRUCTURE = re.compile(r"^(?:#{1,6} \S|\s*(?:[-*] |\d+[.)] )\S)", re.MULTILINE)
_CODE_WORD = re.compile(
    r"`(?P<code>[^`\n]+)`|\b(?P<word>[A-Za-z_]+_[A-Za-z0-9_]*|[a-z]+[A-Z]\w*|[A-Z][a-z]+[A-Z]\w*)\b"
)


@dataclass(frozen=True)
class Check:
    """One documented check: its points earned out of its maximum, and what it saw."""

    points: Fraction
    maximum: int
    seen: str


@dataclass(frozen=True)
class Scored:
    """A scenario's scores: per component its checks; the components' points; the total."""

    mode: str
    instance_id: str
    weights: Mapping[str, int]
    checks: Mapping[str, Mapping[str, Check]]

    def component(self, name: str) -> Fraction:
        return sum((check.points for check in self.checks[name].values()), Fraction(0))

    @property
    def total(self) -> Fraction:
        return sum((self.component(name) for name in self.weights), Fraction(0))

    def percent(self, name: str) -> Fraction:
        """A component's points as a share of its weight, 0-100 (the kind python criterion's score)."""
        return self.component(name) * 100 / self.weights[name]

    def detail(self) -> dict[str, Any]:
        """The detailed JSON written beside the response file."""
        return {
            "mode": self.mode,
            "instance_id": self.instance_id,
            "weights": dict(self.weights),
            "scores": {
                name: {
                    "score": _number(self.component(name)),
                    "max": weight,
                    "checks": {
                        key: {"points": _number(check.points), "max": check.maximum, "seen": check.seen}
                        for key, check in self.checks[name].items()
                    },
                }
                for name, weight in self.weights.items()
            },
            "total": _number(self.total),
        }


def _number(value: Fraction) -> int | float:
    """Exact when whole, else four decimals (as the judge command reports every number)."""
    return int(value) if value.denominator == 1 else round(float(value), 4)


def _share(found: int, total: int) -> Fraction:
    return Fraction(found, total) if total else Fraction(0)


def _named(text: str, path: str) -> bool:
    """The response names the file: its full path, or its file name as a word."""
    name = PurePosixPath(path).name
    return path in text or re.search(rf"(?<![\w/.]){re.escape(name)}\b", text) is not None


def _files_named(text: str, files: list[str]) -> tuple[int, str]:
    named = [path for path in files if _named(text, path)]
    return len(named), f"named {len(named)} of {len(files)} changed files ({', '.join(named) or 'none'})"


def _locations_named(text: str, locations: list[str]) -> tuple[int, str]:
    named = [name for name in locations if re.search(rf"\b{re.escape(name)}\b", text)]
    return len(named), f"named {len(named)} of {len(locations)} changed locations ({', '.join(named) or 'none'})"


def _statement_terms(problem: str) -> set[str]:
    """Code-like terms of the problem statement: `backticked` text and snake_case or camelCase words."""
    terms = set()
    for match in _CODE_WORD.finditer(problem):
        terms.add((match.group("code") or match.group("word")).strip("()"))
    return {term for term in terms if len(term) > 2}


def _explains(text: str, problem: str) -> Check:
    """Explanation (15): 7.5 for a causal statement (because, root cause, due to, ...), 7.5 for naming a code term of the problem statement."""
    causal = _CAUSAL.search(text)
    terms = sorted(term for term in _statement_terms(problem) if term in text)
    points = Fraction(15, 2) * (causal is not None) + Fraction(15, 2) * bool(terms)
    seen = f"causal statement: {causal.group(0) if causal else 'none'}; problem terms named: {', '.join(terms[:5]) or 'none'}"
    return Check(points, 15, seen)


def _logic_match(gold: Patch, code: Code) -> tuple[Fraction, str]:
    """Mean over the gold patch's non-blank added code lines (its comment-only lines left out when it adds code) of
    the best similarity with a proposed line (whitespace collapsed; 1 when equal, else difflib's ratio); 0 without
    proposed code. A proposed diff's lines count only in hunks of a file the gold patch changes (same path or file
    name): a change to another file is not the gold fix's logic, however alike its lines read."""
    wanted = [" ".join(line.split()) for line in gold.added_code if line.strip()]
    proposed = [" ".join(line.split()) for line in code.lines_for(gold.files) if line.strip()]
    if not wanted or not proposed:
        if not proposed and code.lines:
            return Fraction(0), "no proposed code in a file the gold patch changes"
        return Fraction(0), "no proposed code" if not proposed else "the gold patch adds no line"
    best = []
    for line in wanted:
        best.append(max(_similarity(line, other) for other in proposed))
    mean = sum(best, Fraction(0)) / len(best)
    exact_lines = sum(1 for value in best if value == 1)
    return (
        mean,
        f"{exact_lines} of {len(wanted)} gold added lines proposed exactly; mean best similarity {float(mean):.3f}",
    )


def _similarity(one: str, other: str) -> Fraction:
    """difflib's ratio, 2 x matched characters / both lengths, as an exact fraction."""
    matched = sum(
        block.size for block in difflib.SequenceMatcher(None, one, other, autojunk=False).get_matching_blocks()
    )
    return Fraction(2 * matched, len(one) + len(other))


def _tests(text: str, scenario: Scenario, full: int) -> Check:
    """Test coverage: all points for proposing a test (def test_..., a tests/ file, pytest.raises, assert) or naming a
    FAIL_TO_PASS test; half for only speaking of tests."""
    failing = [name for name in scenario.FAIL_TO_PASS if name.rpartition("::")[2] and name.rpartition("::")[2] in text]
    proposed = _TEST.search(text)
    if failing or proposed:
        what = (
            f"FAIL_TO_PASS named: {', '.join(failing)}"
            if failing
            else f"test proposed: {proposed.group(0) if proposed else ''}"
        )
        return Check(Fraction(full), full, what)
    if re.search(r"\btests?\b", text, re.IGNORECASE):
        return Check(Fraction(full, 2), full, "tests mentioned, none proposed")
    return Check(Fraction(0), full, "no test")


def swebench(scenario: Scenario, response: str) -> Scored:
    """The `swebench` structured rubric: root_cause 30, fix_quality 40, completeness 20, persona 10.

    root_cause: bug location (15: half for naming a file the gold patch changes, half for naming a
    function or class it changes; all 15 on the file when the patch names no location) and
    explanation (15: see _explains).
    fix_quality: addresses the issue (20 x the similarity of the proposed code to the gold patch's
    added lines, see _logic_match), minimal (10 when the proposed change has at most 3x the gold
    patch's changed lines, 5 at most 6x, else 0; 0 without code), syntax correct (10 when the
    proposed Python parses, see patch.syntax_ok; 5 when no Python is proposed to check; 0 when it
    does not parse or no code is proposed).
    completeness: edge cases (10 for two distinct edge-case terms such as empty, None, boundary,
    regression; 5 for one) and test coverage (10, see _tests).
    persona: in-character delivery, read as a voice (5 for a first-person voice: I, we, let's, ...)
    and a structured delivery (5 for headings or at least two list items): a proxy, not a reading
    of character.
    """
    gold = parse_patch(scenario.patch)
    code = response_code(response)
    files, files_seen = _files_named(response, gold.files)
    places, places_seen = _locations_named(response, gold.locations)
    if gold.locations:
        location = Fraction(15, 2) * _share(files, len(gold.files)) + Fraction(15, 2) * _share(
            places, len(gold.locations)
        )
    else:
        location = 15 * _share(files, len(gold.files))
    match, match_seen = _logic_match(gold, code)
    ratio = Fraction(code.changed, gold.changed) if gold.changed else Fraction(0)
    minimal = Fraction(0) if code.empty else Fraction(10) if ratio <= 3 else Fraction(5) if ratio <= 6 else Fraction(0)
    syntax = syntax_ok(code)
    syntax_points = Fraction(0) if code.empty or syntax is False else Fraction(10) if syntax else Fraction(5)
    edges = sorted({match.group(0).lower() for match in _EDGE.finditer(response)})
    voice = _VOICE.search(response)
    structure = len(_STRUCTURE.findall(response))
    checks = {
        "root_cause": {
            "bug_location": Check(location, 15, f"{files_seen}; {places_seen}"),
            "explanation": _explains(response, scenario.problem_statement),
        },
        "fix_quality": {
            "addresses_issue": Check(20 * match, 20, match_seen),
            "minimal": Check(
                minimal,
                10,
                "no proposed code"
                if code.empty
                else f"{code.changed} proposed changed lines for the gold patch's {gold.changed}",
            ),
            "syntax_correct": Check(
                syntax_points,
                10,
                {
                    True: "the proposed Python parses",
                    False: "the proposed Python does not parse",
                    None: "no Python to check",
                }[syntax]
                if not code.empty
                else "no proposed code",
            ),
        },
        "completeness": {
            "edge_cases": Check(Fraction(min(len(edges), 2) * 5), 10, f"edge-case terms: {', '.join(edges) or 'none'}"),
            "test_coverage": _tests(response, scenario, 10),
        },
        "persona": {
            "voice": Check(
                Fraction(5) * (voice is not None), 5, f"first-person voice: {voice.group(0) if voice else 'none'}"
            ),
            "structure": Check(
                Fraction(5) * (structure >= 2 or bool(re.search(r"^#{1,6} ", response, re.MULTILINE))),
                5,
                f"{structure} headings or list items",
            ),
        },
    }
    return Scored("swebench", scenario.instance_id, SWEBENCH_WEIGHTS, checks)


def ground_truth(scenario: Scenario, response: str) -> Scored:
    """The `ground-truth` comparison with the gold patch: file 20, location 20, fix logic 40, completeness 20.

    file_identification: 20 x the share of the gold patch's changed files the response names (full
    path, or file name). location_identification: 20 x the share of the functions and classes the
    gold patch changes (hunk headers, definitions on changed lines) the response names; with none
    to name, 20 x the file share. fix_logic_match: 40 x the similarity of the proposed code to the
    gold patch's added lines (see _logic_match). completeness: a code change proposed (10), a
    causal explanation (5), a test proposed or a FAIL_TO_PASS test named (5, half for mentioning tests).
    """
    gold = parse_patch(scenario.patch)
    code = response_code(response)
    files, files_seen = _files_named(response, gold.files)
    places, places_seen = _locations_named(response, gold.locations)
    location = _share(places, len(gold.locations)) if gold.locations else _share(files, len(gold.files))
    match, match_seen = _logic_match(gold, code)
    causal = _CAUSAL.search(response)
    checks = {
        "file_identification": {"files": Check(20 * _share(files, len(gold.files)), 20, files_seen)},
        "location_identification": {
            "locations": Check(
                20 * location, 20, places_seen if gold.locations else f"the gold patch names no location; {files_seen}"
            )
        },
        "fix_logic_match": {"gold_lines": Check(40 * match, 40, match_seen)},
        "completeness": {
            "code_change": Check(
                Fraction(0 if code.empty else 10),
                10,
                "no proposed code" if code.empty else f"{len(code.diffs)} diffs, {len(code.blocks)} code blocks",
            ),
            "explanation": Check(
                Fraction(5) * (causal is not None), 5, f"causal statement: {causal.group(0) if causal else 'none'}"
            ),
            "test": _tests(response, scenario, 5),
        },
    }
    return Scored("ground-truth", scenario.instance_id, GROUND_TRUTH_WEIGHTS, checks)


MODES: Mapping[str, tuple[Callable[[Scenario, str], Scored], str]] = {
    "swebench": (swebench, "swebench_judge_"),
    "ground-truth": (ground_truth, "gt_judge_"),
}
"""Mode -> its scorer and the prefix that replaces `run_` in the detailed JSON's file name."""
