"""Cell B's "memory + harness": a deterministic stand-in for an agent harness, so the example runs offline.

pytest-ora calls `answer(request)` once per task (request: entry_key, configuration, prompt, context,
messages, metadata, attempt) and records what it returns; a replay never calls it. A real harness
would call its model here (and may be `async def`); this one writes a decision memo from the
materials with a fixed playbook, the "memory" a harness brings.
"""

from __future__ import annotations

from typing import Any

PLAYBOOK = (
    ("Map the materials", "every document is read before any recommendation"),
    ("Weigh the tradeoffs", "each option's cost is set against its risk"),
    ("Recommend a sequence", "the order of the moves follows the hard dates"),
    ("Name the owners", "each step gets one accountable owner and a metric"),
)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """A decision memo: the question, one section per playbook step citing the materials, the assumptions."""
    materials = [line.strip() for line in (request.get("context") or "").splitlines() if line.strip()]
    lines = [f"## Decision memo: {request['prompt']}", ""]
    for number, (step, rule) in enumerate(PLAYBOOK, start=1):
        cited = materials[(number - 1) % len(materials)] if materials else "the brief"
        lines.append(
            f"{number}. **{step}**: {rule}, because {cited[0].lower() + cited[1:]} Therefore this step "
            f"shapes the recommendation."
        )
        lines.append("")
    lines.append("We assume the figures in the materials are current; if they are not, the sequence changes first.")
    text = "\n".join(lines)
    return {
        "answer": text,
        "usage": {"input": len(request["prompt"] + (request.get("context") or "")) // 4, "output": len(text) // 4},
        "model": "claude-opus-4-7 + memory-harness",
    }
