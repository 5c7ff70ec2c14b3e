"""run.json's methodology block for tests that write a run directory by hand: every fact a run writes there."""

from __future__ import annotations

from typing import Any


def methodology_block(**changes: Any) -> dict[str, Any]:
    """The methodology block of a small two-judge run (reports/methodologydata.py), with `changes` applied."""
    block: dict[str, Any] = {
        "bundle": "b",
        "panel": "Optimum Big 1 / Big 2",
        "snapshot": None,
        "frozen_at": None,
        "no_judge": None,
        "judges": [
            {
                "label": "Judge A",
                "model": "claude-opus-4-7",
                "provider": "anthropic",
                "route": "http://127.0.0.1:8765/v1/messages",
                "origin": "Optimum big-1",
            },
            {
                "label": "Judge B",
                "model": "gpt-5.4",
                "provider": "openai",
                "route": "http://127.0.0.1:8765/v1/chat/completions",
                "origin": "Optimum big-2",
            },
        ],
        "scoring_date": "2026-11-30",
        "record_mode": "none",
        "rubric": {
            "version": "ora-1.0",
            "title": "Ora Performance Judging and Scoring v1.0",
            "formula": "overall = min(weighted, fidelity)",
            "digest": "sha256:0",
            "source": "builtin:ora-1.0",
            "kind": "scores",
            "rules": "",
            "blind": False,
            "history": ["ora-1.0 (2026-06-20): the first version."],
        },
        "scored_entry_count": 2,
        "entries": [["mode", 2]],
        "scored_set_captures": 4,
        "selected": 4,
        "records": 4,
        "outcomes": [["scored", 3], ["excluded", 1], ["unscorable", 0], ["error", 0]],
        "budget": 0,
        "spend": [],
        "reasks": [["Judge A", 0], ["Judge B", 1]],
        "tokens": [["Judge A input", 1200], ["Judge A output", 300], ["Judge B input", 1180], ["Judge B output", 290]],
        "exclusions": [["mode:a/small", "invalid capture (fallback): returned to capture audit"]],
        "secret_bearing": 0,
        "unscorable": [],
        "errors": [],
        "lanes_missing": [],
        "collision_losers": [],
        "deviations": [],
        "complete": True,
        "stopped_by": None,
        "notices": [],
    }
    block.update(changes)
    return block
