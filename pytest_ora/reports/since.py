"""report.html's "Since baseline" and "Earlier runs" sections, from baseline.json and runs.json.

Static HTML, every value escaped: the sections read without the script, and what a file holds
(configuration names, capture ids, judge names) can never become markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from .baselinedata import BaselineComparison
from .runs import EarlierRun

__all__ = ["MAX_RUNS_SHOWN", "earlier_runs_html", "since_baseline_html"]

MAX_RUNS_SHOWN = 50
"""The earlier runs report.html lists, newest first; runs.json lists them all."""

MAX_CHANGES = 200
"""Capture changes listed on the page (baseline.md and baseline.json list every one)."""


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return ""
    try:
        return f"{float(value):.{digits}f}"
    except (TypeError, ValueError):
        return escape(str(value))


def _range(value: Any) -> str:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        return ""
    return f"[{_num(value[0])}, {_num(value[1])}]"


def _text(value: Any) -> str:
    if isinstance(value, list):
        return escape("; ".join(str(v) for v in value))
    return escape("" if value is None else str(value))


def _table(headings: Sequence[str], rows: Sequence[Sequence[str]], numeric: Sequence[int] = (), cls: str = "") -> str:
    def attrs(i: int) -> str:
        return ' class="num"' if i in numeric else ""

    head = "".join(f"<th{attrs(i)}>{escape(h)}</th>" for i, h in enumerate(headings))
    body = "".join(
        "<tr>" + "".join(f"<td{attrs(i)}>{cell}</td>" for i, cell in enumerate(row)) + "</tr>" for row in rows
    )
    klass = f' class="{cls}"' if cls else ""
    return f'<div class="table-wrap"><table{klass}><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def since_baseline_html(data: BaselineComparison) -> str:
    """The section's body for baseline.json's data."""
    before, after = data.baseline, data.current
    parts = [
        f"<p>Baseline <code>{_text(before.path)}</code>, scored {_text(before.scoring_date)} under rubric "
        f"{_text(before.rubric)}; this run scored {_text(after.scoring_date)} under rubric "
        f"{_text(after.rubric)}. {_text(data.shared)} capture ids in both runs, "
        f"{_text(data.only_in_baseline)} only in the baseline, {_text(data.only_in_current)} only in this run.</p>",
        "<h3>What changed between the runs</h3>",
    ]
    if data.changed:
        parts.append(
            _table(
                ("what", "baseline", "this run"),
                [[_text(c.what), _text(c.baseline), _text(c.current)] for c in data.changed],
                cls="changed",
            )
        )
    else:
        parts.append(
            '<p class="same">Nothing: the same rubric version and digest, judges, panel, bundle and snapshot.</p>'
        )
    texts = data.texts
    if texts:
        parts.append(
            f"<p>Of {_text(texts.compared)} shared captures, {_text(texts.prompt)} have a "
            f"different prompt, {_text(texts.context)} a different context and "
            f"{_text(texts.answer)} a different answer.</p>"
        )
    else:
        parts.append('<p class="note">Prompts and answers were not compared: one of the runs kept no texts.json.</p>')
    rows = []
    for row in data.configurations:
        state = "regressed" if row.regressed else ("improved" if row.improved else "no change shown")
        rows.append(
            [
                _text(row.configuration),
                _text(row.n),
                _num(row.baseline_mean),
                _num(row.current_mean),
                _num(row.mean_difference),
                _range(row.interval),
                _text(row.interval_method),
                f'<span class="since-{escape(state.split()[0])}">{escape(state)}</span>',
            ]
        )
    parts.append("<h3>Per configuration</h3>")
    parts.append(
        f'<p class="note">Paired difference of mean overall, this run minus the baseline, over the captures both '
        f"scored; 95% interval: {_text(data.interval_rule)}. Regressed: the interval lies "
        "entirely below 0.</p>"
    )
    parts.append(
        _table(
            ("configuration", "n", "baseline", "this run", "difference", "95% interval", "method", ""),
            rows,
            numeric=(1, 2, 3, 4),
            cls="since-configurations",
        )
    )
    changes = data.changes
    parts.append(
        f"<h3>Captures whose overall changed by at least {_num(data.regression_min, 3).rstrip('0').rstrip('.')}"
        f" ({len(changes)})</h3>"
    )
    if changes:
        shown = changes[:MAX_CHANGES]
        parts.append(
            _table(
                ("capture", "baseline", "this run", "change"),
                [
                    [
                        f'<a href="#" class="open-capture" data-capture="{escape(c.capture_id, quote=True)}">'
                        f"{_text(c.capture_id)}</a>",
                        _num(c.baseline),
                        _num(c.current),
                        f'<span class="{"low" if c.change < 0 else "up"}">{_num(c.change)}</span>',
                    ]
                    for c in shown
                ],
                numeric=(1, 2, 3),
                cls="since-changes",
            )
        )
        if len(changes) > MAX_CHANGES:
            parts.append(
                f'<p class="note">The {MAX_CHANGES} largest drops first; baseline.md lists all {len(changes)}.</p>'
            )
    else:
        parts.append("<p>None.</p>")
    if data.flips:
        parts.append(f"<p>{len(data.flips)} captures changed status or failure flag (listed in baseline.md).</p>")
    return "".join(parts)


def earlier_runs_html(runs: Sequence[EarlierRun], configurations: Sequence[str], means: bool = True) -> str:
    """The earlier runs under runs/, newest first: date, selection, mean overall per configuration (when `means`)."""
    if not runs:
        return '<p class="note">No earlier runs: each new run into this output directory moves the last report to runs/NNNN.</p>'
    runs = list(runs)
    left_out = max(0, len(runs) - MAX_RUNS_SHOWN)
    runs = runs[left_out:]  # a page that lists 1,500 runs (and every configuration they had) is too big to open
    names = list(configurations) if means else []
    for run in runs if means else ():
        for name, _ in run.configurations or []:
            if name not in names:
                names.append(name)
    rows = []
    for run in reversed(list(runs)):
        if run.unreadable:
            # Said in the first mean column, or in the selection column when the page has none (a compare run).
            said = f"unreadable: {_text(run.unreadable)}"
            cells = ["", "", "", said, *[""] * (len(names) - 1)] if names else ["", "", said]
            rows.append([f"runs/{_text(run.run)}", *cells])
            continue
        overall = {name: value for name, value in run.configurations or []}
        rows.append(
            [
                f"runs/{_text(run.run)}",
                _text(run.scoring_date),
                _text(run.rubric),
                _text(run.selection),
                *[_num(overall.get(name)) for name in names],
            ]
        )
    table = _table(
        ("run", "date", "rubric", "selection", *names),
        rows,
        numeric=tuple(range(4, 4 + len(names))),
        cls="earlier-runs",
    )
    if left_out:
        table += (
            f'<p class="note">The newest {MAX_RUNS_SHOWN} runs are shown; {left_out} older ones are left out '
            "here and listed in runs.json.</p>"
        )
    return table
