"""Small capture bundles for tests, written the way a capture framework writes them."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

ENTRIES: dict[str, list[str]] = {
    "mode": ["argument-audit", "causal-dag"],
    "visual": ["causal-dag", "fishbone-diagram"],
    "lens": ["fishbone-diagram", "historian"],
}
"""Scored set after collisions: 2 modes, 1 visual, 1 lens (causal-dag and fishbone-diagram collide)."""
SCORED_SET = {"mode": 2, "visual": 1, "lens": 1}
STEPS = ["Extract the claim", "Map the premises", "Test each inference", "Weigh the evidence"]


def spec_text(family: str, technique: str) -> str:
    steps = "\n".join(f"{i}. **{step}**: do {step.lower()} for {technique}." for i, step in enumerate(STEPS, 1))
    return (
        f"# {technique.title()} ({family}: {technique})\n\nSource: test specification.\n\n"
        f"## Purpose\nAnalyse with {technique}.\n\n## Method\n{steps}\n\n"
        "## Output structure\n- one section per step\n\n## Failure signs\n- naming the technique only\n"
    )


def executed_answer(technique: str) -> str:
    sections = "\n\n".join(
        f"## {step}\nBecause the evidence shows the warehouse budget shifted, therefore the claim holds; "
        "the assumption is uncertain and likely needs checking."
        for step in STEPS
    )
    return f"Applying {technique} to the warehouse budget.\n\n{sections}"


def capture(entry_key: str, configuration: str, **changes: Any) -> dict[str, Any]:
    family, _, technique = entry_key.partition(":")
    data: dict[str, Any] = {
        "entry_key": entry_key,
        "configuration": configuration,
        "prompt": f"Use {technique} on the warehouse budget decision of the regional logistics team.",
        "answer": executed_answer(technique),
        "target": "argument-audit" if family == "lens" else technique,  # a lens's host mode (its spec is written)
        "visual_artifact": None,
        "model_snapshot": {"big-1": "claude-opus-4-7", "big-2": "gpt-5.4"},
        "acceptance": {"passed": True, "reason": None, "notes": "accepted"},
        "cost_usd": 0.25,
        "wall_clock_minutes": 1.5,
    }
    data.update(changes)
    return data


def write_bundle(
    root: Path,
    *,
    configurations: tuple[str, ...] = ("optimum", "big-1"),
    routes: dict[str, str] | None = None,
    edit: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None,
    manifest: dict[str, Any] | None = None,
    skip_specs: tuple[str, ...] = (),
) -> Path:
    """Write a bundle under root and return root; `edit` may rewrite the capture list."""
    routes = routes or {
        "big-1": "https://api.anthropic.com/v1/messages",
        "big-2": "https://api.openai.com/v1/chat/completions",
    }
    root.mkdir(parents=True, exist_ok=True)
    data = {
        "bundle": "test-bundle",
        "created": "2026-06-20",
        "configurations": list(configurations),
        "scored_set": dict(SCORED_SET),
    }
    data.update(manifest or {})
    (root / "bundle.yaml").write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    roles = {
        "big-1": {"model": "claude-opus-4-7", "provider": "anthropic", "route": routes["big-1"]},
        "big-2": {"model": "gpt-5.4", "provider": "openai", "route": routes["big-2"]},
    }
    optimum = {"snapshot": "optimum-2026-06-18", "frozen_at": "2026-06-18T09:00:00Z", "roles": roles}
    (root / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")
    captures = [
        capture(f"{family}:{technique}", configuration)
        for family, techniques in ENTRIES.items()
        for technique in techniques
        for configuration in configurations
    ]
    if edit is not None:
        captures = edit(captures)
    lines = [json.dumps(item) if isinstance(item, dict) else str(item) for item in captures]
    (root / "captures.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for family, techniques in ENTRIES.items():
        for technique in techniques:
            if f"{family}:{technique}" in skip_specs:
                continue
            path = root / "specs" / family / f"{technique}.md"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(spec_text(family, technique), encoding="utf-8")
    return root


def read_captures(bundle: Path) -> list[dict[str, Any]]:
    """The rows of a bundle's captures.jsonl, as written."""
    path = bundle / "captures.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_captures(bundle: Path, rows: list[dict[str, Any]]) -> None:
    """A bundle's captures.jsonl made of these rows."""
    (bundle / "captures.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
