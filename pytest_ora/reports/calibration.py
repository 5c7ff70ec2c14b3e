"""The Calibration section of summary.md and report.html, rendered from stats.json alone.

The section says how many captures people labelled before any figure, marks every figure over
fewer than SMALL_N captures as unstable, and puts the raters' own agreement (the ceiling) beside
the judges'. The chart plots each judge and the panel against the human mean, one panel per
criterion and one for overall, on the rubric's scale, with the line of perfect agreement.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..method.markdowntable import tabulated
from .fewunits import SMALL_ROWS, TOO_FEW

__all__ = [
    "CHART_TITLE",
    "calibration_chart",
    "calibration_html",
    "calibration_markdown",
    "gate_message",
    "held_message",
]

CHART_TITLE = "Judge vs human per criterion"
_HEADERS = (
    "Judge",
    "Criterion",
    "n",
    "alpha vs human",
    "95% bootstrap",
    "Quadratic kappa",
    "Bias (judge - human)",
    "95% t interval",
    "MAE",
    "Spearman rho",
)


def _fmt(value: Any, places: int = 3) -> str:
    return "" if value is None else f"{value:.{places}f}"


def _signed(value: Any) -> str:
    return "" if value is None else f"{value:+.2f}"


def _range(pair: Sequence[float] | None) -> str:
    return "" if pair is None else f"[{pair[0]:+.2f}, {pair[1]:+.2f}]"


def _plain_range(pair: Sequence[float] | None) -> str:
    return "" if pair is None else f"[{pair[0]:.2f}, {pair[1]:.2f}]"


def _judge_name(label: str) -> str:
    return "panel mean" if label == "panel" else f"Judge {label}"


def _n(row: Mapping[str, Any]) -> str:
    return f"{row['n']} (small n)" if row.get("small_n") else str(row["n"])


def _rows(data: Mapping[str, Any]) -> list[list[str]]:
    rows = []
    for judge in data["judges"]:
        for row in [*judge["criteria"], judge["overall"]]:
            rows.append(
                [
                    _judge_name(judge["judge"]),
                    row["criterion"],
                    _n(row),
                    _fmt(row["krippendorff_alpha"]),
                    _plain_range(row.get("alpha_interval")) if int(row["n"]) >= SMALL_ROWS else TOO_FEW,
                    _fmt(row["quadratic_kappa"]),
                    _signed(row["bias"]),
                    _range(row["bias_interval"]),
                    _fmt(row["mae"], 2),
                    _fmt(row["spearman_rho"]),
                ]
            )
    return rows


def _ceiling_rows(data: Mapping[str, Any]) -> list[list[str]]:
    humans = data["humans"]
    return [
        [row["criterion"], _n(row), _fmt(row["krippendorff_alpha"])] for row in [*humans["criteria"], humans["overall"]]
    ]


def _lead(data: Mapping[str, Any]) -> list[str]:
    raters = data["raters"]
    lines = [
        f"Human labels from {data['source']}: {data['labels']} labels by {len(raters)} rater{'s' if len(raters) != 1 else ''} "
        f"on {data['captures_labelled']} captures; {data['captures']} of them scored in this run"
        + (f" ({data['not_scored']} labelled captures not scored here are left out)." if data["not_scored"] else "."),
    ]
    if data["captures"] < data["small_n_below"]:
        lines.append(
            f"Only {data['captures']} labelled captures: every figure below is unstable at this n (marked small n); "
            f"label {data['small_n_below']} or more (50-100 is better) before trusting a judge on them."
        )
    return lines


def _notes(data: Mapping[str, Any]) -> list[str]:
    notes: dict[str, list[str]] = {}
    for judge in data["judges"]:
        for row in [*judge["criteria"], judge["overall"]]:
            for note in (row.get("note") or "").split("; "):
                if note and not note.startswith("only "):
                    notes.setdefault(note, []).append(f"{_judge_name(judge['judge'])} {row['criterion']}")
    return [f"- {', '.join(where)}: {note}" for note, where in notes.items()]


def calibration_markdown(data: Mapping[str, Any]) -> str:
    """summary.md's Calibration section."""
    if data.get("kind") == "preference":
        from .preference import preference_markdown

        return preference_markdown(data)
    lines = ["", "## Calibration against human labels", "", *_lead(data), ""]
    lines += [tabulated(_rows(data), headers=_HEADERS, tablefmt="github", disable_numparse=True), ""]
    if data["humans"] is not None:
        lines += [
            f"### Human vs human (the ceiling, {data['humans']['raters']} raters)",
            "",
            tabulated(
                _ceiling_rows(data),
                headers=("Criterion", "Captures with 2+ raters", "alpha"),
                tablefmt="github",
                disable_numparse=True,
            ),
            "",
        ]
    else:
        lines += [
            "Human vs human: not computed (one rater); a second rater on the same captures gives the ceiling.",
            "",
        ]
    notes = _notes(data)
    if notes:
        lines += ["Not computed:", *notes, ""]
    lines.append(f"Method: {data['method']}")
    return "\n".join(lines) + "\n"


def gate_message(data: Mapping[str, Any] | None, threshold: Any) -> str | None:
    """Why --ora-fail-calibration A fails (after the option and its value), or None when it holds."""
    if data is None:
        return "no human labels in this run (give --ora-labels FILE or `labels:` in bundle.yaml)"
    if data.get("kind") == "preference":
        from .preference import preference_gate

        return preference_gate(data, threshold)
    if data["captures"] < data["gate_minimum"]:
        return (
            f"only {data['captures']} labelled captures were scored (at least {data['gate_minimum']} "
            "are needed to judge a judge)"
        )
    alpha = next(j["overall"]["krippendorff_alpha"] for j in data["judges"] if j["judge"] == "panel")
    if alpha is None:
        return "the panel's alpha vs humans on overall is undefined (no variation)"
    if alpha < float(threshold):
        return f"the panel's alpha vs humans on overall is {alpha:.3f} < {threshold} over {data['captures']} labelled captures"
    return None


def held_message(data: Mapping[str, Any], threshold: Any) -> str:
    """What a holding --ora-fail-calibration A says (after the option and its value)."""
    if data.get("kind") == "preference":
        from .preference import preference_held

        return preference_held(data, threshold)
    alpha = next(j["overall"]["krippendorff_alpha"] for j in data["judges"] if j["judge"] == "panel")
    return f"the panel's alpha vs humans on overall is {alpha:.3f} >= {threshold} over {data['captures']} labelled captures"


def _html_table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    def attrs(i: int) -> str:
        return ' class="num"' if i >= 2 else ""

    head = "".join(f"<th{attrs(i)}>{escape(h)}</th>" for i, h in enumerate(headers))
    body = "".join(
        "<tr>" + "".join(f"<td{attrs(i)}>{escape(c)}</td>" for i, c in enumerate(row)) + "</tr>" for row in rows
    )
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def calibration_html(data: Mapping[str, Any] | None, scale: Sequence[float]) -> str:
    """report.html's Calibration section body; empty without labels."""
    if not data:
        return ""
    if data.get("kind") == "preference":
        from .preference import preference_html

        return preference_html(data)
    parts = [f'<p class="note">{escape(line)}</p>' for line in _lead(data)]
    svg = calibration_chart(data, scale)
    if svg:
        parts.append(
            f'<figure class="chart calibration-chart" data-chart="calibration" style="max-width: 820px"><figcaption>{escape(CHART_TITLE)}'
            f"</figcaption>{svg}</figure>"
        )
        parts.append(
            '<p class="note">Each point is a labelled capture: the human mean across, the judge (or the panel '
            "mean) up, the judges drawn side by side around each human value. On the dashed line judge and people agree; "
            "above it the judge scores higher.</p>"
        )
    parts.append(_html_table(_HEADERS, _rows(data)))
    if data["humans"] is not None:
        parts.append(f"<h3>Human vs human (the ceiling, {data['humans']['raters']} raters)</h3>")
        parts.append(_html_table(("Criterion", "Captures with 2+ raters", "alpha"), _ceiling_rows(data)))
    for note in _notes(data):
        parts.append(f'<p class="note">{escape(note[2:])}</p>')
    parts.append(f'<p class="note">Method: {escape(data["method"])}</p>')
    return '<section id="calibration"><h2>Calibration against human labels</h2>' + "".join(parts) + "</section>"


def calibration_chart(data: Mapping[str, Any], scale: Sequence[float]) -> str:
    """The judge-vs-human scatter, one small panel per criterion and overall, as inline SVG ('' without matplotlib).

    Kept by the session-end cache like the other charts: a replay of unchanged labels and cassettes
    neither imports matplotlib nor draws it again."""
    from . import charts
    from .resultcache import cached

    if not charts.charts_available() or not data["points"]:
        return ""
    inputs = {"data": data, "scale": [float(value) for value in scale]}
    return cached("calibration-chart", inputs, lambda: {"svg": _draw_calibration_chart(data, scale)})["svg"]


def _draw_calibration_chart(data: Mapping[str, Any], scale: Sequence[float]) -> str:
    import matplotlib
    from matplotlib.figure import Figure

    from . import charts

    names = [*data["criteria"], "overall"]
    labels = [judge["judge"] for judge in data["judges"]]
    columns = 3
    rows = -(-len(names) // columns)
    low, high = float(scale[0]), float(scale[1])
    pad = (high - low) * 0.05
    with matplotlib.rc_context(charts._STYLE):  # type: ignore[arg-type]  # the report's own chart style
        figure = Figure(figsize=(6.4, 2.4 * rows + 0.5), layout="constrained")
        grid = figure.subplots(rows, columns, squeeze=False)
        for index, name in enumerate(names):
            axes = grid[index // columns][index % columns]
            axes.plot([low, high], [low, high], color="#9aa3ad", linewidth=0.8, linestyle="--")
            for j, label in enumerate(labels):
                # Judges side by side around each human value, so that equal scores on a discrete scale do not hide each other.
                dodge = (j - (len(labels) - 1) / 2) * (high - low) * 0.012
                xs = [p["human"][index] + dodge for p in data["points"]]
                ys = [p["judges"][label][index] for p in data["points"]]
                panel = label == "panel"
                axes.plot(
                    xs,
                    ys,
                    "D" if panel else "o",
                    color="#29323c" if panel else charts._PALETTE[j % len(charts._PALETTE)],
                    markersize=3.5 if panel else 3,
                    alpha=0.9 if panel else 0.6,
                    linestyle="none",
                    label=_judge_name(label),
                )
            axes.set_xlim(low - pad, high + pad)
            axes.set_ylim(low - pad, high + pad)
            axes.set_aspect("equal")
            axes.set_title(name, fontsize=9)
            if index % columns == 0:
                axes.set_ylabel("judge")
            if index // columns == rows - 1:
                axes.set_xlabel("human mean")
        for index in range(len(names), rows * columns):
            grid[index // columns][index % columns].set_visible(False)
        handles, legend = grid[0][0].get_legend_handles_labels()
        figure.legend(handles, legend, loc="outside lower center", ncols=len(labels), fontsize=8, frameon=False)
        buffer = io.StringIO()
        figure.savefig(buffer, format="svg", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    text = re.sub(r'(id="|url\(#|href="#)', r"\g<1>ora-calibration-", text)
    return re.sub(
        r'<svg ([^>]*?)width="[^"]*" height="[^"]*"', rf'<svg \1role="img" aria-label="{CHART_TITLE}"', text, count=1
    )
