"""Aggregation and the report files (seed 000 Phases 6-7, SPEC section 7).

Reports are machine-written from the records; the same records give the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction
from typing import Any

from tabulate import tabulate

from ..method.rubric import Rubric
from ..method.scoring import combine, exact
from ..models import JudgeColumn, LedgerRow, SummaryRow
from ..record import CaptureRecord, JudgeRecord

__all__ = [
    "PUBLIC_COLUMNS",
    "fit_table",
    "ledger_csv",
    "ledger_row",
    "public_row",
    "round_half_away",
    "summarize",
    "summary_csv",
    "summary_json",
    "summary_markdown",
    "summary_table",
]

PUBLIC_COLUMNS = (
    "configuration", "judged", "unscorable", "excluded", "errors", "overall", "fidelity", "soundness",
    "completeness", "relevance", "calibration", "failure_rate_pct", "cost_per_100_usd", "minutes_per_run",
)
_CONTEXT = Context(prec=60)


def round_half_away(value: Fraction, places: int) -> Decimal:
    """Round an exact value half away from zero (6.25 -> 6.3, 12.5 -> 13)."""
    decimal = _CONTEXT.divide(Decimal(value.numerator), Decimal(value.denominator))
    return decimal.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def _number(value: Fraction) -> float | int:
    return int(value) if value.denominator == 1 else float(value)


def _judge_column(judge: JudgeRecord) -> JudgeColumn:
    return JudgeColumn(
        role=judge["role"],
        model=judge["model"],
        resolved_model=judge["resolved_model"],
        scores={name: float(exact(score)) for name, score in judge["scores"].items()},
        notes=judge["notes"],
        impression=judge["impression"],
        asks=judge["asks"],
    )


def ledger_row(record: CaptureRecord, rubric: Rubric) -> LedgerRow:
    """The ledger row of one capture; scores are recomputed exactly from the judges' replies."""
    fields: dict[str, Any] = {
        key: record[key]
        for key in ("capture_id", "entry_key", "family", "technique", "configuration", "status", "reason")
    }
    judges = record["judges"]
    if len(judges) >= 1:
        fields["judge_a"] = _judge_column(judges[0])
    if len(judges) >= 2:
        fields["judge_b"] = _judge_column(judges[1])
    if record["status"] == "scored":
        scores = combine([judge["scores"] for judge in judges], rubric)
        fields.update({name: float(mean) for name, mean in scores.means.items()})
        fields.update(weighted=float(scores.weighted), overall=float(scores.overall), failure=scores.failure)
    return LedgerRow(rubric=rubric.version, **fields)


def ledger_csv(rows: Sequence[LedgerRow], rubric: Rubric) -> str:
    """ledger.csv: one flat row per capture, a_<criterion> and b_<criterion> beside the means."""
    names = list(rubric.names)
    header = ["capture_id", "entry_key", "family", "technique", "configuration", "status", "reason"]
    header += ["judge_a_model", "judge_b_model"]
    header += [f"a_{n}" for n in names] + [f"b_{n}" for n in names] + names
    header += ["weighted", "overall", "failure", "rubric"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    for row in rows:
        data = row.model_dump()
        line = [data[key] for key in header[:7]]
        line += [row.judge_a.model if row.judge_a else "", row.judge_b.model if row.judge_b else ""]
        line += [_cell(row.judge_a.scores.get(n) if row.judge_a else None) for n in names]
        line += [_cell(row.judge_b.scores.get(n) if row.judge_b else None) for n in names]
        line += [_cell(data[n]) for n in names]
        line += [_cell(row.weighted), _cell(row.overall), _cell(row.failure), row.rubric]
        writer.writerow(line)
    return out.getvalue()


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _mean(values: Sequence[Fraction]) -> Fraction | None:
    return sum(values, Fraction(0)) / len(values) if values else None


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


def summarize(records: Iterable[CaptureRecord], configurations: Sequence[str], rubric: Rubric) -> list[tuple[SummaryRow, dict[str, Fraction | None]]]:
    """One row per configuration (table order), with the exact values the public table rounds."""
    by_config: dict[str, list[CaptureRecord]] = {name: [] for name in configurations}
    for record in records:
        by_config.setdefault(record["configuration"], []).append(record)
    rows = []
    for name, group in by_config.items():
        scored = [combine([j["scores"] for j in r["judges"]], rubric) for r in group if r["status"] == "scored"]
        accepted = [r for r in group if r["status"] != "excluded"]
        costs = [exact(r["cost_usd"]) for r in accepted if r["cost_usd"] is not None]
        minutes = [exact(r["wall_clock_minutes"]) for r in accepted if r["wall_clock_minutes"] is not None]
        mean_cost = _mean(costs)
        values: dict[str, Fraction | None] = {
            "overall": _mean([s.overall for s in scored]),
            **{c: _mean([s.means[c] for s in scored]) for c in rubric.names},
            "failure_rate": Fraction(sum(s.failure for s in scored), len(scored)) if scored else None,
            "cost_per_100": None if mean_cost is None else mean_cost * 100,
            "minutes": _mean(minutes),
        }
        row = SummaryRow(
            configuration=name,
            judged=len(scored),
            unscorable=sum(r["status"] == "unscorable" for r in group),
            excluded=sum(r["status"] == "excluded" for r in group),
            errors=sum(r["status"] == "error" for r in group),
            budget=sum(r["status"] == "budget" for r in group),
            mean_overall=_float(values["overall"]),
            **{f"mean_{c}": _float(values[c]) for c in rubric.names},
            failure_rate=_float(values["failure_rate"]),
            cost_per_100_queries_usd=_float(values["cost_per_100"]),
            minutes_per_run=_float(values["minutes"]),
            rubric=rubric.version,
        )
        rows.append((row, values))
    return rows


def public_row(row: SummaryRow, values: dict[str, Fraction | None], rubric: Rubric) -> list[str]:
    """A configuration's public-table cells, rounded half away from zero, in PUBLIC_COLUMNS order."""
    rounding = rubric.rounding

    def fmt(key: str, places: int, scale: int = 1) -> str:
        value = values[key]
        return "" if value is None else str(round_half_away(value * scale, places))

    return [
        row.configuration, str(row.judged), str(row.unscorable), str(row.excluded), str(row.errors),
        fmt("overall", rounding.rating_places),
        *(fmt(name, rounding.rating_places) for name in rubric.names),
        fmt("failure_rate", rounding.percent_places, 100),
        fmt("cost_per_100", rounding.dollar_places),
        fmt("minutes", rounding.minute_places),
        str(row.budget),
    ]


def summary_json(rows: Sequence[SummaryRow], selection: str = "") -> str:
    """summary.json: one object per configuration at full precision; `selection` names a partial run."""
    return json.dumps([{**row.model_dump(), "selection": selection or None} for row in rows], indent=2) + "\n"


def summary_csv(table: Sequence[Sequence[str]], rubric: Rubric) -> str:
    """summary.csv: the public table as plain numbers; the last column names the rubric."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*PUBLIC_COLUMNS, "rubric", "budget"])
    for line in table:
        writer.writerow([*line[:14], rubric.version, *line[14:]])
    return out.getvalue()


_HEADINGS = (
    "Configuration", "Judged", "Unscorable", "Excluded", "Errors", "Overall", "Fidelity", "Soundness",
    "Completeness", "Relevance", "Calibration", "Failure rate", "Cost / 100 queries", "Minutes / run",
)


def summary_table(table: Sequence[Sequence[str]], fmt: str = "github") -> str:
    """The public table as text (markdown for summary.md, plain for the terminal).

    The Budget column (captures not started once --ora-budget-usd was reached) shows only when
    some configuration has one.
    """
    budget = any(line[14:] and line[14] != "0" for line in table)
    shown = [
        [*line[:11], f"{line[11]}%" if line[11] else "", f"${line[12]}" if line[12] else "", line[13],
         *(line[14:15] if budget else [])]
        for line in table
    ]
    headings = (*_HEADINGS, "Budget") if budget else _HEADINGS
    return tabulate(shown, headers=headings, tablefmt=fmt, disable_numparse=True,
                    colalign=("left",) + ("right",) * (len(headings) - 1))


_COMPACT = (0, 1, 4, 5, 11, 12, 13)
"""Configuration, judged, errors, overall, failure rate, cost, minutes: the columns a narrow terminal keeps."""


def fit_table(table: Sequence[Sequence[str]], width: int) -> list[str]:
    """The terminal's table: the full one if it fits, else fewer columns, else one line per configuration."""
    full = summary_table(table, fmt="simple").splitlines()
    if max(map(len, full), default=0) <= width:
        return full
    headings = ["Configuration", "Judged", "Errors", "Overall", "Fail %", "$ / 100", "Min / run"]
    compact = tabulate([[line[i] for i in _COMPACT] for line in table], headers=headings, tablefmt="simple",
                       disable_numparse=True, colalign=("left",) + ("right",) * (len(_COMPACT) - 1)).splitlines()
    if max(map(len, compact), default=0) <= width:
        return [*compact, "(narrow terminal: criterion columns are in summary.md)"]
    return [f"{line[0]}: overall {line[5] or '-'}, judged {line[1]}, failure rate {line[11] or '-'}%" for line in table]


def summary_markdown(
    table: Sequence[Sequence[str]], rubric: Rubric, bundle: str, preface: Sequence[str] = (), appendix: Sequence[str] = ()
) -> str:
    """summary.md: the public table with the rubric and formula it was computed with.

    `preface` goes first (a partial run's selection banner, the judges); `appendix` after the table.
    """
    head = "".join(f"{line}\n\n" for line in preface)
    tail = "".join(f"\n{block}\n" for block in appendix)
    return (
        f"# Configuration summary: {bundle}\n\n"
        f"{head}"
        f"Rubric {rubric.version} ({rubric.title}). {rubric.formula()}.\n"
        "Ratings are judge means over scored captures, rounded half away from zero to one decimal; "
        "failure rate is the share of scored captures below the threshold; cost and minutes are "
        "means over the configuration's accepted captures. Machine-written: do not edit.\n\n"
        f"{summary_table(table)}\n{tail}"
    )
