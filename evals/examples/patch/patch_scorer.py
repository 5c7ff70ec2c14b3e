"""A deterministic scorer (kind python): the answer's patch against the capture's reference patch.

Three criteria on 0-10, each a Jaccard overlap times 10: the files changed, the functions whose
hunks changed (the name git writes after a hunk's @@ header), and the changed lines (added and
removed, whitespace-trimmed). The answer's patch is its first ```diff block, else the whole answer.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

_FENCE = re.compile(r"```(?:diff|patch)\n(.*?)```", re.DOTALL)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$")
_DEF = re.compile(r"\b(?:def|class|function|func|fn)\s+([A-Za-z_][A-Za-z0-9_]*)")


def _patch(text: str) -> str:
    fenced = _FENCE.search(text)
    return fenced.group(1) if fenced else text


def parse(patch: str) -> tuple[set[str], set[str], set[str]]:
    """(files, file:function of each hunk, file:+/-line) of a unified diff."""
    files: set[str] = set()
    functions: set[str] = set()
    lines: set[str] = set()
    current = ""
    for line in patch.splitlines():
        if line.startswith("+++ "):
            current = line[4:].strip().removeprefix("b/")
            if current != "/dev/null":
                files.add(current)
        elif line.startswith("--- "):
            old = line[4:].strip().removeprefix("a/")
            if old != "/dev/null":
                files.add(old)
                current = old
        elif hunk := _HUNK.match(line):
            name = _DEF.search(hunk.group(1))
            if name:
                functions.add(f"{current}:{name.group(1)}")
        elif line[:1] in "+-" and line.strip() not in ("+", "-"):
            lines.add(f"{current}:{line[0]}{line[1:].strip()}")
            name = _DEF.search(line[1:])
            if name:
                functions.add(f"{current}:{name.group(1)}")
    return files, functions, lines


def _overlap(answer: set[str], reference: set[str]) -> Fraction:
    if not answer and not reference:
        return Fraction(10)
    return Fraction(10 * len(answer & reference), len(answer | reference))


def score(capture: Any) -> dict[str, Any]:
    """{files, functions, lines} on 0-10, rounded to one decimal (a rubric's scale takes decimals)."""
    reference = (capture.evidence or {}).get("reference_patch")
    if not isinstance(reference, str):
        raise ValueError("the capture has no evidence.reference_patch")
    got = parse(_patch(capture.answer))
    want = parse(reference)
    return {
        name: round(float(_overlap(mine, theirs)), 1)
        for name, mine, theirs in zip(("files", "functions", "lines"), got, want)
    }
