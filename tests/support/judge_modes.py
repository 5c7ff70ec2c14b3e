"""Data for every mode of the judge command, shared by its tests (the command line, the Python call, the fixture)."""

from __future__ import annotations

from typing import Any

SOLO: dict[str, Any] = {
    "spec": "bmad/architect",
    "character": "Winston",
    "challenge": "Review this function for bugs: def div(a, b): return a / b",
    "response": "Winston here. The function divides without checking b: a ZeroDivisionError when b is 0. Root cause: "
    "no guard. Fix: raise ValueError for b == 0, or return None and document it.",
}
CONTESTANT_2 = {"spec": "bmad/dev", "character": "Amelia", "response": "Looks fine to me."}
SEVERITIES = (("C", "critical", 6), ("H", "high", 6), ("M", "medium", 8), ("L", "low", 2))
WORKED_ISSUES = [
    {"id": f"{prefix}{n}", "severity": severity, "description": f"{severity} issue {n}"}
    for prefix, severity, count in SEVERITIES
    for n in range(1, count + 1)
]
FOUND = ("C1", "C2", "C3", "C4", "C5", "H1", "H2", "H3", "H4", "M1", "M2", "M3", "L1")
WORKED_EXAMPLE: dict[str, Any] = {
    "spec": "reviewer",
    "character": "Sherlock",
    "challenge": "Review the payments module.",
    "code": "def pay(amount): ...",
    "response": "Findings:\n"
    + "\n".join(f"[{name}] {name} is present" for name in FOUND)
    + "\n[NEW] currency rounding drifts on refunds\n[NEW] webhook signature not checked\n[FAKE] the module leaks memory on import",
    "baseline_issues": WORKED_ISSUES,
}
"""The judge skill's checklist worked example: 6 critical, 6 high, 8 medium, 2 low; found 5, 4, 3, 1; two valid
novel findings; one false positive."""

CHAIN = "Story ABC-123: refunds must be idempotent."
MODES: dict[str, dict[str, Any]] = {
    "solo": SOLO,
    "solo-checklist": {
        **SOLO,
        "baseline_issues": [
            {"id": "ZERO", "severity": "critical", "description": "division by zero"},
            {"id": "TYPES", "severity": "low", "description": "no type check"},
        ],
        "response": SOLO["response"] + "\n[ZERO] b == 0 raises ZeroDivisionError",
    },
    "solo-behavior": {
        **SOLO,
        "baseline_criteria": [{"id": "ASK", "category": "facilitation", "description": "asks the team"}],
        "response": SOLO["response"] + "\n[ASK] I ask the team which behaviour they expect.",
    },
    "compare": {
        "contestants": [{k: SOLO[k] for k in ("spec", "character", "response")}, CONTESTANT_2],
        "challenge": SOLO["challenge"],
    },
    "compare-checklist": {
        "contestants": [
            {k: SOLO[k] for k in ("spec", "character", "response")},
            {**CONTESTANT_2, "response": "[ZERO] b may be zero."},
        ],
        "challenge": SOLO["challenge"],
        "baseline_issues": [
            {"id": "ZERO", "severity": "critical", "description": "division by zero"},
            {"id": "TYPES", "severity": "low", "description": "no type check"},
        ],
    },
    "phase-sm": {
        "team1": {
            "theme": "discworld",
            "response": "Story ABC-123 is ready: acceptance criteria listed, handoff to TEA.",
        },
        "team2": {"theme": "star-trek", "response": "Ready."},
        "context": "Write the story for refunds.",
    },
    "phase-tea": {
        "team1": {"theme": "discworld", "response": "Tests for ABC-123 fail (RED) as expected."},
        "team2": {"theme": "star-trek", "response": "Wrote tests."},
        "context": "Write failing tests for refunds.",
    },
    "phase-dev": {
        "team1": {"theme": "discworld", "response": "ABC-123 green: the refund is idempotent."},
        "team2": {"theme": "star-trek", "response": "Done."},
        "context": "Make the tests pass.",
    },
    "phase-reviewer": {
        "team1": {"theme": "discworld", "response": "ABC-123 approved: one nit on naming."},
        "team2": {"theme": "star-trek", "response": "LGTM."},
        "context": "Review the refund change.",
    },
    "coherence": {
        "theme": "discworld",
        "sm_response": CHAIN,
        "tea_response": "Tests for ABC-123.",
        "dev_response": "ABC-123 implemented.",
        "reviewer_response": "ABC-123 approved.",
    },
}
"""A case name -> its data (see mode_of for its mode)."""


def mode_of(case: str) -> str:
    """The mode a case runs in (solo-checklist is mode solo, compare-checklist mode compare)."""
    return {"solo-checklist": "solo", "solo-behavior": "solo", "compare-checklist": "compare"}.get(case, case)
