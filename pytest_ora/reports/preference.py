"""The Calibration section of a compare run (judges vs people's preferences), rendered from stats.json alone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..method.markdowntable import tabulated

__all__ = ["preference_gate", "preference_held", "preference_html", "preference_markdown", "preference_terminal"]

_HEADERS = (
    "Judge",
    "n",
    "Accuracy with ties",
    "Cohen's kappa",
    "n without ties",
    "Accuracy without ties",
    "Kappa without ties",
    "Position disagreement",
)
_HUMAN_HEADERS = (
    "Raters",
    "Pairs both labelled",
    "Agreement with ties",
    "Cohen's kappa",
    "n without ties",
    "Agreement without ties",
)


def _share(value: Any) -> str:
    return "undefined" if value is None else f"{value * 100:.0f}%"


def _kappa(value: Any) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _n(row: Mapping[str, Any]) -> str:
    return f"{row['n']} (small n)" if row.get("small_n") else str(row["n"])


def _name(label: str) -> str:
    return "panel" if label == "panel" else f"Judge {label}"


def _rows(judges: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    rows = []
    for row in judges:
        flips = row.get("position_disagreement")
        position = "" if flips is None else f"{_share(flips['share'])} ({flips['count']} of {flips['items']})"
        rows.append(
            [
                _name(row["judge"]),
                _n(row),
                _share(row["accuracy_with_ties"]),
                _kappa(row["kappa_with_ties"]),
                str(row["n_without_ties"]),
                _share(row["accuracy_without_ties"]),
                _kappa(row["kappa_without_ties"]),
                position,
            ]
        )
    return rows


def _human_rows(data: Mapping[str, Any]) -> list[list[str]]:
    return [
        [
            " & ".join(row["raters"]),
            str(row["n"]),
            _share(row["accuracy_with_ties"]),
            _kappa(row["kappa_with_ties"]),
            str(row["n_without_ties"]),
            _share(row["accuracy_without_ties"]),
        ]
        for row in data["human_vs_human"]
    ]


def _lead(data: Mapping[str, Any]) -> list[str]:
    majority = data["human_majority"]
    lines = [
        f"{data['labels']} preference labels by {len(data['raters'])} rater(s) ({', '.join(data['raters'])}) from "
        f"{data['source']}; {data['captures']} labelled pairs were judged in this run (human majority: "
        f"{majority['first']} first, {majority['second']} second, {majority['tie']} tie).",
        "A judge's verdict is its winner when both orders agree, else a tie; accuracy with ties compares first / "
        "second / tie; without ties counts only pairs where neither the judge nor the people chose a tie.",
    ]
    if data["captures"] < data["small_n_below"]:
        lines.append(f"Fewer than {data['small_n_below']} labelled pairs: every figure here is unstable.")
    if data["labelled_not_judged"]:
        lines.append(f"{len(data['labelled_not_judged'])} labelled pairs were not judged in this run and are left out.")
    return lines


def preference_markdown(data: Mapping[str, Any]) -> str:
    """summary.md's Calibration section of a compare run."""
    lines = ["", "## Calibration against human preferences", "", *_lead(data), ""]
    lines += [tabulated(_rows(data["judges"]), headers=_HEADERS, tablefmt="github", disable_numparse=True), ""]
    for family in data["families"] if len(data["families"]) > 1 else ():
        lines += [
            f"### Family {family['family']}",
            "",
            tabulated(_rows(family["judges"]), headers=_HEADERS, tablefmt="github", disable_numparse=True),
            "",
        ]
    if data["human_vs_human"]:
        lines += [
            "### Human vs human (the ceiling)",
            "",
            tabulated(_human_rows(data), headers=_HUMAN_HEADERS, tablefmt="github", disable_numparse=True),
            "",
        ]
    else:
        lines += ["Human vs human: not computed (no pair labelled by two raters).", ""]
    return "\n".join(lines)


def preference_terminal(data: Mapping[str, Any]) -> list[str]:
    """The terminal's Calibration lines of a compare run: each judge and the panel against the people, in one line each."""
    lines = [
        f"ora: calibration against human preferences: {data['captures']} labelled pairs judged "
        f"(raters: {', '.join(data['raters'])}); summary.md has the table by family"
    ]
    for row in data["judges"]:
        flips = row.get("position_disagreement")
        position = (
            ""
            if flips is None
            else f"; position disagreement {_share(flips['share'])} ({flips['count']} of {flips['items']})"
        )
        lines.append(
            f"  {_name(row['judge'])}: accuracy {_share(row['accuracy_with_ties'])} with ties (Cohen's kappa "
            f"{_kappa(row['kappa_with_ties'])}), {_share(row['accuracy_without_ties'])} without ties over "
            f"{row['n_without_ties']} pairs (kappa {_kappa(row['kappa_without_ties'])}){position}"
            + (" (small n)" if row.get("small_n") else "")
        )
    for row in data["human_vs_human"]:
        lines.append(
            f"  people {' & '.join(row['raters'])}: agreement {_share(row['accuracy_with_ties'])} with ties "
            f"(Cohen's kappa {_kappa(row['kappa_with_ties'])}) over {row['n']} pairs both labelled"
        )
    return lines


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def preference_html(data: Mapping[str, Any]) -> str:
    """report.html's Calibration section of a compare run."""
    parts = [f'<p class="note">{escape(line)}</p>' for line in _lead(data)]
    parts.append(_html_table(_HEADERS, _rows(data["judges"])))
    for family in data["families"] if len(data["families"]) > 1 else ():
        parts.append(f"<h3>Family {escape(family['family'])}</h3>" + _html_table(_HEADERS, _rows(family["judges"])))
    if data["human_vs_human"]:
        parts.append("<h3>Human vs human (the ceiling)</h3>" + _html_table(_HUMAN_HEADERS, _human_rows(data)))
    return '<section id="calibration"><h2>Calibration against human preferences</h2>' + "".join(parts) + "</section>"


def _panel(data: Mapping[str, Any]) -> Mapping[str, Any]:
    return next(row for row in data["judges"] if row["judge"] == "panel")


def preference_gate(data: Mapping[str, Any], threshold: Any) -> str | None:
    """Why --ora-fail-calibration K fails on a compare run (the panel's Cohen's kappa with ties), or None."""
    if data["captures"] < data["gate_minimum"]:
        return (
            f"only {data['captures']} labelled pairs were judged (at least {data['gate_minimum']} "
            "are needed to judge a judge)"
        )
    kappa = _panel(data)["kappa_with_ties"]
    if kappa is None:
        return "the panel's Cohen's kappa vs the human preferences is undefined (one class only)"
    if kappa < float(threshold):
        return f"the panel's Cohen's kappa vs the human preferences is {kappa:.3f} < {threshold} over {data['captures']} labelled pairs"
    return None


def preference_held(data: Mapping[str, Any], threshold: Any) -> str:
    """What a holding --ora-fail-calibration K says on a compare run."""
    kappa = _panel(data)["kappa_with_ties"]
    return f"the panel's Cohen's kappa vs the human preferences is {kappa:.3f} >= {threshold} over {data['captures']} labelled pairs"
