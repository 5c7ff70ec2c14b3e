"""The statistics' report files: stats.json, disagreements.csv, hypotheses.json and the Markdown sections.

Floats are written with 12 significant digits: the last bits of a sum may differ between numpy
builds, and byte-identical reports must not depend on them.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tabulate import tabulate

if TYPE_CHECKING:  # the sections render from stats.json alone: verify needs no numpy
    from ..stats.disagreements import Disagreement

__all__ = [
    "disagreements_csv", "hypotheses_markdown", "stable", "stable_json", "statistics_markdown", "statistics_method",
    "statistics_sections",
]


def stable(value: Any) -> Any:
    """Floats to 12 significant digits, non-finite to None, recursively."""
    if isinstance(value, float):
        return float(f"{value:.12g}") if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: stable(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [stable(item) for item in value]
    return value


def stable_json(data: dict[str, Any], rubric: str) -> str:
    """A report's JSON text: the rubric first, stable floats, two-space indent."""
    return json.dumps({"rubric": rubric, **stable(data)}, indent=2, ensure_ascii=False) + "\n"


def _number(value: float) -> str:
    return repr(float(f"{value:.12g}"))


def disagreements_csv(rows: Sequence[Disagreement], judges: Sequence[str], rubric: str) -> str:
    """disagreements.csv: capture_id, criterion, each judge's score, spread; widest first."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["capture_id", "criterion", *(f"judge_{label.lower()}" for label in judges), "spread", "rubric"])
    for row in rows:
        scores = ["" if math.isnan(score) else _number(score) for score in row.scores]
        writer.writerow([row.capture_id, row.criterion, *scores, _number(float(row.spread)), rubric])
    return out.getvalue()


def _fmt(value: float | None, places: int = 3) -> str:
    return "" if value is None else f"{value:.{places}f}"


def _pct(value: float | None) -> str:
    return "" if value is None else f"{100 * value:.0f}%"


def _range(pair: Sequence[float] | None, places: int = 2, scale: float = 1) -> str:
    return "" if pair is None else f"[{pair[0] * scale:.{places}f}, {pair[1] * scale:.{places}f}]"


def _table(rows: list[list[str]], headers: Sequence[str]) -> str:
    return tabulate(rows, headers=headers, tablefmt="github", disable_numparse=True)


def statistics_sections(directory: Path) -> tuple[str, str]:
    """summary.md's and methodology.md's Statistics sections, rendered from stats.json and hypotheses.json."""
    if not (directory / "stats.json").is_file():
        return "", ""
    data = json.loads((directory / "stats.json").read_text(encoding="utf-8"))
    path = directory / "hypotheses.json"
    hypotheses = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None
    return statistics_markdown(data, hypotheses), statistics_method(data, hypotheses)


def statistics_markdown(data: dict[str, Any], hypotheses: dict[str, Any] | None) -> str:
    """summary.md's Statistics section: agreement, intervals, paired comparisons, hypotheses."""
    method = data["method"]
    agree = data["agreement"]
    lines = [
        "",
        "## Statistics",
        "",
        f"Seed {method['seed']}, {method['resamples']:,} resamples, {method['confidence_level']:.0%} intervals; "
        "stats.json holds every figure at full precision.",
        "",
        f"### Judge agreement ({agree['captures']} scored captures, judges {', '.join(agree['judges'])})",
        "",
    ]
    if len(agree["judges"]) < 2:
        lines += ["Not applicable: agreement needs two or more judges per capture.", ""]
    else:
        lines += _agreement_lines(agree)
    threshold = data["disagreements"]
    lines += [f"Disagreements (spread >= {threshold['threshold']:g} points): {threshold['count']}, listed in disagreements.csv.", ""]
    lines += ["### Mean overall and failure rate by configuration", ""]
    rows = [
        [row["configuration"], str(row["n"]), _fmt(row["mean_overall"], 2), _range(row["mean_overall_interval"]),
         _pct(row["failure_rate"]), _range(row["failure_rate_interval"], 0, 100)]
        for row in data["configurations"]
    ]
    lines += [_table(rows, ["Configuration", "n", "Mean overall", "95% bootstrap", "Failure rate", "95% Wilson (%)"]), ""]
    lines += ["### Paired comparisons (first - second, shared scored entries)", ""]
    rows = [
        [row["first"], row["second"], str(row["n"]), _fmt(row["mean_difference"], 2), _range(row["interval"]),
         _fmt(row["p_value"], 4), _fmt(row["p_holm"], 4)]
        for row in data["comparisons"]
    ]
    lines += [_table(rows, ["First", "Second", "n", "Mean difference", "95% paired bootstrap", "p (sign-flip)", "p (Holm)"])]
    if hypotheses is not None:
        lines += ["", hypotheses_markdown(hypotheses)]
    if data.get("calibration"):  # human labels (SPEC 16): reports/calibration.py
        from .calibration import calibration_markdown

        lines.append(calibration_markdown(data["calibration"]).rstrip("\n"))
    return "\n".join(lines) + "\n"


def _agreement_lines(agree: dict[str, Any]) -> list[str]:
    rows = [
        [row["criterion"], _fmt(row["krippendorff_alpha"]), _pct(row["exact"]), _pct(row["within_one"]),
         _fmt(row["quadratic_kappa"])]
        for row in [*agree["criteria"], agree["overall"]]
    ]
    lines = [_table(rows, ["Criterion", "Krippendorff alpha", "Exact", "Within one step", "Quadratic kappa"]), ""]
    notes: dict[str, list[str]] = {}
    for row in [*agree["criteria"], agree["overall"]]:
        for note in (row["note"] or "").split("; "):
            if note:
                notes.setdefault(note, []).append(row["criterion"])
    if notes:
        lines += ["Not computed:", *(f"- {', '.join(names)}: {note}" for note, names in notes.items()), ""]
    return lines


def hypotheses_markdown(data: dict[str, Any]) -> str:
    """The hypothesis table and the verdict."""
    rows = [
        [row["id"], f"{row['better']} {'>=' if row['margin'] == 0 else '>'} {row['worse']}", f"{row['margin']:g}", str(row["n"]), _fmt(row["mean_delta"], 2),
         _range(row["interval"]), f"{row['directional']}/{row['n']}", f"{row['meets_margin']}/{row['n']}"]
        for row in data["hypotheses"]
    ]
    lines = ["### Hypotheses", "", _table(rows, ["Id", "Claim", "Margin", "Entries", "Mean delta", "95% bootstrap",
                                                 "Directional", "Meets margin"])]
    verdict = data["verdict"]
    if verdict is not None:
        lines += ["", f"Verdict: **{verdict['result']}** ({'; '.join(verdict['reasons'])})."]
    return "\n".join(lines)


def statistics_method(data: dict[str, Any], hypotheses: dict[str, Any] | None) -> str:
    """methodology.md's Statistics section: methods, seed, resamples, libraries."""
    method = data["method"]
    libraries = ", ".join(f"{name} {ver}" for name, ver in method["libraries"].items())
    lines = [
        "",
        "## Statistics",
        f"- Seed: {method['seed']} (--ora-seed); resamples: {method['resamples']:,}; confidence level: {method['confidence_level']:.0%}",
        f"- Agreement: {method['agreement']}",
        f"- Mean overall: {method['mean_interval']}",
        f"- Failure rate: {method['failure_interval']}",
        f"- Paired comparisons: {method['paired']}",
        f"- Disagreements: judges' spread on a criterion >= {data['disagreements']['threshold']:g} points "
        f"(--ora-disagreement {data['disagreements']['given_as']})",
    ]
    if hypotheses is not None:
        lines.append("- Hypotheses: per entry delta = overall(better) - overall(worse), compared with the margin exactly; "
                     "mean delta with a BCa bootstrap interval resampling entries")
    if data.get("calibration"):
        lines.append(f"- Calibration against human labels ({data['calibration']['source']}): {data['calibration']['method']}")
    lines += [f"- Libraries: {libraries}", "- Computed in the controller from the ledger rows in bundle order.", ""]
    return "\n".join(lines)
