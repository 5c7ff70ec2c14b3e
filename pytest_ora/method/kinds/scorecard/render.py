"""SCORECARD-RESULT.md, rendered from scorecard.json alone: grade and raw value in one cell, configurations side by side."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...markdowntable import tabulated

__all__ = ["INTERPRETATION", "RESULT", "SCORECARD_RESULT", "result_markdown", "scorecard_markdown"]

SCORECARD_RESULT = "SCORECARD-RESULT.md"
RESULT = "RESULT.md"
INTERPRETATION = "## Interpretation"
"""RESULT.md's last section: a person's, left empty by pytest-ora; `verify` checks what comes before it."""
GRADES = ("PASS", "PARTIAL", "FAIL", "UNKNOWN", "N/A")


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _raw(cell: Mapping[str, Any]) -> str:
    """The raw value a pair's cell shows beside its grade ("1.7x tokens"), or "" when it shows none."""
    text = str(cell["cell"])
    prefix = f"{cell['grade']} ("
    return text[len(prefix) : -1] if text.startswith(prefix) and text.endswith(")") else ""


def _aggregate_cell(counts: Mapping[str, int], cells: list[Mapping[str, Any]]) -> str:
    """Each grade's count with the raw values behind it, in the same cell: `1 PARTIAL (1.7x tokens)`."""
    shown = []
    for grade in GRADES:
        if not counts.get(grade):
            continue
        raws = [_raw(cell) for cell in cells if cell["grade"] == grade]
        detail = "; ".join(raw for raw in raws if raw)
        shown.append(f"{counts[grade]} {grade}" + (f" ({detail})" if detail else ""))
    if not any(counts.get(g) for g in GRADES[:4]):
        shown.insert(0, "none graded")
    return ", ".join(shown)


def _pair_cell(name: str, cell: Mapping[str, Any]) -> str:
    """A pair's cell; Code Shape's lists each violation beside its grade."""
    text = str(cell["cell"])
    if name == "code_shape" and isinstance(cell.get("raw"), list) and cell["raw"]:
        text += ": " + "; ".join(str(item) for item in cell["raw"])
    return text


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
        *(
            f"- {axis['title']} ({axis['how']}){': ' + axis['source'] if axis['source'] else ''}"
            for axis in data["axes"]
        ),
        "",
        "## Pairs",
        "",
    ]
    rows = []
    for pair in data["pairs"]:
        for name, cells in pair["axes"].items():
            rows.append(
                [
                    pair["entry_key"],
                    titles[name],
                    *(_escape(_pair_cell(name, cells[c])) if c in cells else "" for c in configurations),
                ]
            )
    lines.append(tabulated(rows, headers=["Entry", "Axis", *configurations], tablefmt="github", disable_numparse=True))
    lines += ["", "## Aggregate", ""]
    aggregate = [
        [
            titles[axis["name"]],
            *(
                _escape(
                    _aggregate_cell(
                        data["aggregate"][c][axis["name"]],
                        [
                            pair["axes"][axis["name"]][c]
                            for pair in data["pairs"]
                            if c in pair["axes"].get(axis["name"], {})
                        ],
                    )
                )
                for c in configurations
            ),
        ]
        for axis in data["axes"]
    ]
    lines.append(tabulated(aggregate, headers=["Axis", *configurations], tablefmt="github", disable_numparse=True))
    excluded = [c for c in data["captures"] if c["status"] != "scored"]
    lines += ["", "## Not graded", ""]
    lines += [f"- {c['capture_id']}: {c['status']}: {c['reason']}" for c in excluded] or ["- none"]
    lines += ["", "## Scorecard history", "", *(f"- {entry}" for entry in data["history"]), ""]
    return "\n".join(lines)


def result_markdown(data: Mapping[str, Any]) -> str:
    """RESULT.md: links scorecard.json and SCORECARD-RESULT.md, and leaves the interpretation to a person."""
    return "\n".join(
        [
            f"# Result: {data['bundle']}",
            "",
            f"- Grades and raw values, machine-written (scorecard {data['scorecardVersion']}): [scorecard.json](scorecard.json)",
            f"- The same, rendered from it, never hand-edited: [{SCORECARD_RESULT}]({SCORECARD_RESULT})",
            "",
            "pytest-ora writes everything above the interpretation and never its body; `python -m pytest_ora verify` "
            "checks these links, not the interpretation.",
            "",
            INTERPRETATION,
            "",
        ]
    )
