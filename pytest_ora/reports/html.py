"""report.html: one self-contained page rendered from the page data, assets inlined.

Like coverage.py's htmlfiles, the template, stylesheet and script ship in the package
(`reports/assets/`) and are copied into the page, so it opens from disk with no network and no
server. The capture rows travel as JSON inside the page and are rendered by the script.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from html import escape
from importlib.resources import files
from string import Template
from typing import Any

from . import charts
from .baselinedata import BaselineComparison
from .pagedata import PageData
from .resultcache import cached

__all__ = ["REPORT_NAME", "render_html"]

REPORT_NAME = "report.html"


def _asset(name: str) -> str:
    return files("pytest_ora.reports").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _script_json(data: Mapping[str, Any]) -> str:
    """JSON that cannot close its <script> element: <, > and & are written as escapes."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _table(headings: Sequence[str], rows: Sequence[Sequence[Any]], numeric_from: int = 1) -> str:
    def attrs(i: int) -> str:
        return ' class="num"' if i >= numeric_from else ""

    head = "".join(f"<th{attrs(i)}>{escape(str(h))}</th>" for i, h in enumerate(headings))
    body = "".join(
        "<tr>" + "".join(f"<td{attrs(i)}>{escape(_cell(value))}</td>" for i, value in enumerate(row)) + "</tr>"
        for row in rows
    )
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.3g}" if abs(value) < 1 else f"{value:.2f}"
    if isinstance(value, (list, tuple)) and len(value) == 2:
        return f"[{_cell(value[0])}, {_cell(value[1])}]"
    return str(value)


def _notices(data: PageData) -> str:
    """An incomplete run and a judge on this machine are said before any number."""
    # Styled inline: a page without notices keeps its stylesheet byte for byte.
    style = "border-left:4px solid #b45309;padding:.4em .8em;background:#fff7ed;font-weight:600"
    return "".join(
        f'<p class="notice" role="alert" style="{style}">{escape(text)}</p>' for text in data.get("notices", ())
    )


def _summary(data: PageData) -> str:
    summary = data["summary"]
    return _table(summary["headings"], summary["rows"]) + (
        '<p class="note">Ratings are judge means over scored captures, rounded half away from zero; failure '
        f"rate is the share of scored captures that fail ({escape(data['rubric']['failure'])}); cost and minutes "
        "are means over accepted captures.</p>"
    )


def _charts(data: PageData, script: Mapping[str, object]) -> str:
    # Drawn again only when the page data changed: the same data gives the same SVG bytes.
    drawn = cached(
        "charts", {"data": script, "available": charts.charts_available()}, lambda: charts.render_charts(script)
    )
    if data["rubric"].get("kind") == "compare":  # win shares are no scores: reports/comparepage.py
        from .comparepage import COMPARE_CHARTS

        drawn = {name: svg for name, svg in drawn.items() if name in COMPARE_CHARTS}
    if not drawn and charts.charts_available():
        return (
            '<p class="note" id="no-charts">Nothing to chart: no configuration has a mean overall (see the tables).</p>'
        )
    if not drawn:
        return (
            '<p class="note" id="no-charts">Charts need the plotting library, which is not installed: '
            'pip install "pytest-ora[report]" and re-run (recorded judge calls replay free). '
            "The tables on this page hold every figure.</p>"
        )
    figures = "".join(
        f'<figure class="chart" data-chart="{name}"><figcaption>{escape(charts.CHART_TITLES[name])}</figcaption>{svg}</figure>'
        for name, svg in drawn.items()
    )
    notes = []
    if "statistics" not in data:
        notes.append("No statistics in this run (stats.json absent): the bars show means without intervals.")
        if "agreement" in drawn:
            notes.append(
                "Judge agreement is the share of judge pairs on scored captures that gave the same score, or "
                "scores within one point, per criterion."
            )
    if "agreement" not in drawn and data["rubric"].get("kind") != "compare":
        notes.append("No judge agreement to chart: no scored capture has two judges.")
    note = f'<p class="note">{escape(" ".join(notes))}</p>' if notes else ""
    return f'<div class="charts">{figures}</div>{note}'


# C901: one section per statistic the run wrote, in the page's order; each branch is one optional section.
def _statistics(data: PageData) -> str:  # noqa: C901
    stats = data.get("statistics")
    parts = []
    if stats:
        agreement = stats.get("agreement") or {}
        if stats.get("intervals_note"):
            parts.append(f'<p class="note" id="intervals-note">{escape(stats["intervals_note"])}</p>')
        if stats.get("noise_note"):
            parts.append(f'<p class="note" id="noise-note">{escape(stats["noise_note"])}</p>')
        if stats.get("recorded_calibration_note"):
            parts.append(f'<p class="note" id="recorded-calibration">{escape(stats["recorded_calibration_note"])}</p>')
        if agreement:
            fields: tuple[str, ...] = ("alpha", "kappa", "exact", "within_one")
            headings: tuple[str, ...] = (
                "criterion",
                "Krippendorff's alpha",
                "weighted kappa",
                "exact",
                "within one step",
            )
            if stats.get("intervals_note"):
                fields += ("alpha_interval", "alpha_ordinal", "fleiss_kappa", "icc_2k")
                headings += ("alpha 95% bootstrap", "ordinal alpha", "Fleiss kappa", "ICC(2,k)")
            parts.append(
                "<h3>Agreement</h3>"
                + _table(
                    headings,
                    [
                        [
                            name,
                            *(
                                values.get(f)
                                if f != "alpha_interval"
                                else values.get(f) or values.get("alpha_interval_note")
                                for f in fields
                            ),
                        ]
                        for name, values in agreement.items()
                    ],
                )
            )
        paired = stats.get("paired") or []
        if paired and stats.get("intervals_note"):
            parts.append(
                "<h3>Paired comparisons</h3>"
                + _table(
                    (
                        "pair",
                        "n",
                        "mean difference",
                        "95% interval",
                        "interval",
                        "p (sign-flip)",
                        "p (Holm)",
                        "p (t)",
                        "MDE 80% (Holm)",
                        "reading",
                    ),
                    [
                        [
                            f"{p['a']} - {p['b']}",
                            p.get("n"),
                            p.get("mean_difference"),
                            p.get("interval"),
                            ("t" if p.get("interval_method") == "t" else "BCa")
                            + (" (small n)" if p.get("small_n") else ""),
                            p.get("p_shown"),
                            p.get("p_holm_shown"),
                            p.get("p_t"),
                            p.get("mde_80_adjusted"),
                            p.get("reading"),
                        ]
                        for p in paired
                    ],
                )
            )
        elif paired:
            parts.append(
                "<h3>Paired comparisons</h3>"
                + _table(
                    ("pair", "n", "mean difference", "95% interval", "p", "p (Holm)"),
                    [
                        [
                            f"{p['a']} - {p['b']}",
                            p.get("n"),
                            p.get("mean_difference"),
                            p.get("interval"),
                            p.get("p_value"),
                            p.get("p_holm"),
                        ]
                        for p in paired
                    ],
                )
            )
        if stats.get("judges"):
            parts.append(
                "<h3>Judges</h3>"
                + _table(
                    ("judge", "configuration", "n", "mean overall", "95% t interval"),
                    [
                        [j["judge"], j["configuration"], j.get("n"), j.get("mean"), j.get("t_interval")]
                        for j in stats["judges"]
                    ],
                )
            )
            preference = stats.get("self_preference") or []
            parts.append(
                "<p class=\"note\">Self-preference: a judge's overall on a configuration running the judge's own model "
                "minus the other judges' mean on the same captures; flagged when its 95% t interval excludes 0.</p>"
                + (
                    _table(
                        ("judge", "configuration", "n", "own - others", "95% t interval", "self-preference"),
                        [
                            [
                                r["judge"],
                                r["configuration"],
                                r.get("n"),
                                r.get("difference"),
                                r.get("t_interval"),
                                "FLAGGED" if r.get("flagged") else "no",
                            ]
                            for r in preference
                        ],
                    )
                    if preference
                    else '<p class="note">No judge\'s model runs in a configuration: nothing to check.</p>'
                )
            )
        hypotheses = stats.get("hypotheses") or {}
        if hypotheses.get("rows"):
            verdict = str(hypotheses.get("verdict", ""))
            parts.append(
                f'<h3>Hypotheses: <span class="verdict-{escape(verdict)}">{escape(verdict)}</span></h3>'
                + (f"<p>{escape(str(hypotheses['detail']))}</p>" if hypotheses.get("detail") else "")
                + (
                    f'<p class="note">With the labels shuffled within each entry, the rule\'s count condition passes '
                    f"{100 * float(hypotheses['null_pass_probability']):.1f}% of the time by chance.</p>"
                    if hypotheses.get("null_pass_probability") is not None
                    else ""
                )
                + _table(
                    (
                        "hypothesis",
                        "better",
                        "worse",
                        "margin",
                        "mean delta",
                        "95% interval",
                        "directional",
                        "meets margin",
                    ),
                    [
                        [
                            r["id"],
                            r["better"],
                            r["worse"],
                            r["margin"],
                            r["mean_delta"],
                            r.get("interval"),
                            r.get("directional"),
                            r.get("meets_margin"),
                        ]
                        for r in hypotheses["rows"]
                    ],
                    numeric_from=3,
                )
            )
    else:
        parts.append(
            '<p class="note">No statistics in this run\'s output: intervals, agreement statistics, paired '
            "comparisons and hypotheses appear here when stats.json is written.</p>"
        )
    for note in data.get("notes", ()):
        parts.append(f'<p class="note">{escape(note)}</p>')
    compare = data.get("compare")
    if compare:
        parts.append(
            "<h3>Compare</h3>"
            + _table(
                ("pair", "wins", "ties", "losses", "win rate", "95% interval"),
                [
                    [
                        f"{c['a']} vs {c['b']}",
                        c.get("wins"),
                        c.get("ties"),
                        c.get("losses"),
                        c.get("win_rate"),
                        c.get("interval"),
                    ]
                    for c in compare
                ],
            )
        )
    return "".join(parts)


def _compare_summary(data: PageData) -> str:
    from .comparepage import compare_summary

    return compare_summary(data)


def _compare_statistics(data: PageData) -> str:
    from .comparepage import compare_statistics

    return compare_statistics(data)


def _options(values: Sequence[str]) -> str:
    return "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)


def _compare_sections(data: PageData) -> dict[str, str]:
    """The baseline and history sections: Since baseline (when the run had one), Earlier runs, and the matrix's notes."""
    from .since import earlier_runs_html, since_baseline_html

    baseline = data.get("baseline")
    since = (
        f'<section id="since-baseline"><h2>Since baseline</h2>{since_baseline_html(baseline)}</section>'
        if baseline
        else ""
    )
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in data.get("compare_notes", ()))
    return {
        "since_baseline": since,
        "since_nav": '<a href="#since-baseline">Since baseline</a> ' if baseline else "",
        "earlier_runs": earlier_runs_html(
            data.get("runs") or [], data["configurations"], means=data["rubric"].get("kind") != "compare"
        ),
        "compare_notes": notes,
    }


SCORES_PARTS = {
    "matrix_note": (
        '<p class="note">One row per entry, one column per configuration: each cell is the capture\'s overall, red where '
        "it is a failure ($failure_rule), green where it is not, grey where the capture was not scored. Click a heading "
        "to sort by it (again to reverse); Spread is the highest overall of the row minus the lowest. A cell opens its "
        "capture.</p>"
    ),
    "failure_option": '<option value="failure">scored, a failure</option>',
    "result_heading": '<th data-sort="5" class="num">Overall</th>',
    "earlier_note": (
        '<p class="note">The reports kept under runs/ beside this one when it was written, newest first, with each '
        "configuration's mean overall.</p>"
    ),
}
"""The parts of the page that speak of overall scores and failures, for every kind that has them."""

COMPARE_PARTS = {
    "matrix_note": (
        '<p class="note">One row per entry, one column per compared pair: each cell names the pair\'s winner (the '
        "panel majority, else a tie) and each judge's verdict; a judge whose two orders named different winners counts "
        'as a tie and is marked "orders disagree". Grey where the item was not scored. Click a heading to sort by it '
        "(first wins, then ties, then second wins; again to reverse). A cell opens its item. A compare run has no overall "
        "score and no failure.</p>"
    ),
    "failure_option": "",
    "result_heading": '<th data-sort="5">Winner</th>',
    "earlier_note": (
        '<p class="note">The reports kept under runs/ beside this one when it was written, newest first. A compare run '
        "has no mean overall: each earlier report's head-to-head table is in its compare.md.</p>"
    ),
}
"""The same parts for a compare run: winners and verdicts, never an overall or a failure."""


def _parts(data: PageData) -> dict[str, str]:
    rubric = data["rubric"]
    parts = COMPARE_PARTS if rubric.get("kind") == "compare" else SCORES_PARTS
    return {name: text.replace("$failure_rule", escape(rubric["failure"])) for name, text in parts.items()}


def render_html(data: PageData, calibration: str = "") -> str:
    """The whole page for the page data; the same data gives the same bytes."""
    # The captures' texts travel in an element of their own, parsed only when a capture is opened:
    # at 10x they are most of the page's bytes, and the first paint never waits for them.
    texts = data.get("texts")
    sections = _compare_sections(data)
    # The earlier runs are static HTML already (the script never reads them); the page's script data is JSON.
    script = {
        key: value.model_dump(by_alias=True) if isinstance(value, BaselineComparison) else value
        for key, value in data.items()
        if key not in ("texts", "runs")
    }
    rubric = data["rubric"]
    judges = "; ".join(f"{j['label']} = {j['model']} ({j['provider']})" for j in data["judges"]) or "none"
    return Template(_asset("report.html")).substitute(
        bundle=escape(data["bundle"]),
        rubric_version=escape(rubric["version"]),
        rubric_title=escape(rubric["title"]),
        formula=escape(rubric["formula"]),
        failure_rule=escape(rubric["failure"]),
        scoring_date=escape(data["scoring_date"]),
        judges=escape(judges),
        summary=_notices(data) + (_compare_summary(data) if rubric.get("kind") == "compare" else _summary(data)),
        charts=_charts(data, script),
        statistics=_compare_statistics(data) if rubric.get("kind") == "compare" else _statistics(data),
        calibration=calibration,
        calibration_nav='<a href="#calibration">Calibration</a> ' if calibration else "",
        family_options=_options(data["families"]),
        configuration_options=_options(data["configurations"]),
        status_options=_options(data["statuses"]),
        css=_asset("report.css"),
        js=_asset("report.js"),
        matrix_js=_asset("matrix.js"),
        data=_script_json(script),
        texts=_script_json(texts) if texts is not None else "null",
        **sections,
        **_parts(data),
    )
