"""checklist.md (kind checklist): each judge's exact checklist figures and per-issue disagreement."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ....core.numbers import round_half_away
from ....core.record import CaptureRecord
from ....core.rubric import Rubric
from ...markdowntable import tabulated
from .. import formula
from .results import issue_disagreements, judge_results

__all__ = ["checklist_markdown"]


def _cell(value: Fraction, places: int = 3) -> str:
    return str(round_half_away(value, places))


def checklist_markdown(records: Sequence[CaptureRecord], rubric: Rubric) -> str:
    """Per scored capture: each judge's figures, then the listed ids the judges disagree on."""
    lines = [
        "# Checklist results",
        "",
        f"Rubric {rubric.version}, digest {rubric.digest}. Computed by pytest-ora in exact arithmetic from each "
        "judge's per-item answers (shown to three decimals, half away from zero); tp = found issues + valid novel "
        "findings, fp = false positives. Machine-written: do not edit.",
        "",
        f"Formula: {formula(rubric)}.",
    ]
    disagreeing = 0
    for record in records:
        if record["status"] != "scored":
            continue
        material = record["material"]
        results = judge_results(record["judges"], material, rubric)
        rows = [
            [
                judge["label"].removeprefix("Judge "),
                f"{r.found}/{len(material['issues'])}",
                f"{r.weighted_found}/{r.weighted_total}",
                r.tp,
                r.false_positives,
                r.novel_valid,
                _cell(r.recall),
                _cell(r.precision),
                _cell(r.f2),
                _cell(r.detection, 2),
                _cell(r.quality, 2),
                _cell(r.persona, 2),
                _cell(r.total, 2),
            ]
            for judge, r in zip(record["judges"], results)
        ]
        headers = [
            "Judge",
            "Found",
            "Weighted",
            "TP",
            "FP",
            "Novel valid",
            "Recall",
            "Precision",
            "F2",
            "Detection",
            "Quality",
            "Persona",
            "Total",
        ]
        lines += [
            "",
            f"## {record['capture_id']}",
            "",
            tabulated(rows, headers=headers, tablefmt="github", disable_numparse=True),
        ]
        split = issue_disagreements(record["judges"], material)
        disagreeing += len(split)
        if split:
            lines += ["", "Judges disagree on:"]
            lines += [
                f"- {row['id']} ({row['severity']}): found by {', '.join(row['found_by'])}; "
                f"missed by {', '.join(row['missed_by'])}"
                for row in split
            ]
        else:
            lines += ["", "The judges agree on every listed id."]
    lines += ["", f"Listed ids with judge disagreement, all captures: {disagreeing}.", ""]
    return "\n".join(lines)
