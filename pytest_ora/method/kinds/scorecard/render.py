"""SCORECARD-RESULT.md, rendered from scorecard.json alone: grade and raw value in one cell, configurations side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tabulate import tabulate

__all__ = ["SCORECARD_RESULT", "scorecard_markdown"]

SCORECARD_RESULT = "SCORECARD-RESULT.md"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _aggregate_cell(counts: Mapping[str, int]) -> str:
    shown = [f"{counts[g]} {g}" for g in ("PASS", "PARTIAL", "FAIL", "UNKNOWN") if counts.get(g)]
    text = ", ".join(shown) or "none graded"
    return f"{text} (+{counts['N/A']} N/A)" if counts.get("N/A") else text


def scorecard_markdown(data: Mapping[str, Any]) -> str:
    """The rendered result; the same scorecard.json always gives the same bytes."""
    configurations: list[str] = data["configurations"]
    titles = {axis["name"]: axis["title"] for axis in data["axes"]}
    lines = [
        f"# Scorecard result: {data['bundle']}",
        "",
        f"Scorecard {data['scorecardVersion']} ({data['title']}), digest {data['rubric_digest']}. "
        f"Baseline configuration: {data['baseline'] or 'none'}.",
        "Rendered by pytest-ora from scorecard.json; never hand-edited (`python -m pytest_ora verify` checks). "
        "Grades are mechanical; N/A is left out of aggregation; UNKNOWN marks malformed, duplicate, "
        "unsupported or secret-bearing input. Interpretation belongs in RESULT.md.",
        "",
        "## Axes",
        "",
        *(f"- {axis['title']} ({axis['how']}){': ' + axis['source'] if axis['source'] else ''}" for axis in data["axes"]),
        "",
        "## Pairs",
        "",
    ]
    rows = []
    for pair in data["pairs"]:
        for name, cells in pair["axes"].items():
            rows.append([pair["entry_key"], titles[name], *(_escape(cells[c]["cell"]) if c in cells else "" for c in configurations)])
    lines.append(tabulate(rows, headers=["Entry", "Axis", *configurations], tablefmt="github", disable_numparse=True))
    lines += ["", "## Aggregate", ""]
    aggregate = [
        [titles[axis["name"]], *(_aggregate_cell(data["aggregate"][c][axis["name"]]) for c in configurations)]
        for axis in data["axes"]
    ]
    lines.append(tabulate(aggregate, headers=["Axis", *configurations], tablefmt="github", disable_numparse=True))
    excluded = [c for c in data["captures"] if c["status"] != "scored"]
    lines += ["", "## Not graded", ""]
    lines += [f"- {c['capture_id']}: {c['status']}: {c['reason']}" for c in excluded] or ["- none"]
    lines += ["", "## Scorecard history", "", *(f"- {entry}" for entry in data["history"]), ""]
    return "\n".join(lines)
