"""Aggregation and the report files (the Ora judging method).

Reports are machine-written from the records; the same records give the same bytes.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction
from typing import Any

from pydantic import BaseModel

from ..core.csvtext import csv_line
from ..core.models import JudgeColumn, PanelJudge
from ..core.numbers import round_half_away
from ..core.record import CaptureRecord, JudgeRecord
from ..core.rubric import Rubric
from ..method.kinds import combined, formula, get_kind, graded, panel_kind
from ..method.markdowntable import tabulated
from ..method.rubric import ORA_V1
from ..method.scoring import exact
from .rows import candidate_ledger_model, ledger_model, summary_model

__all__ = [
    "PUBLIC_COLUMNS",
    "LedgerCsv",
    "SummaryRow",
    "fit_table",
    "ledger_csv",
    "ledger_csv_lines",
    "ledger_row",
    "public_cells",
    "public_columns",
    "public_row",
    "summarize",
    "summary_csv",
    "summary_json",
    "summary_markdown",
    "summary_table",
]

PUBLIC_COLUMNS = (
    "configuration",
    "judged",
    "unscorable",
    "excluded",
    "errors",
    "overall",
    "fidelity",
    "soundness",
    "completeness",
    "relevance",
    "calibration",
    "failure_rate_pct",
    "cost_per_100_usd",
    "minutes_per_run",
)


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


def _panel_judge(judge: JudgeRecord, overall: Fraction) -> PanelJudge:
    samples = judge.get("samples")
    return PanelJudge(
        label=judge["label"].removeprefix("Judge "),
        role=judge["role"],
        model=judge["model"],
        scores={name: float(exact(score)) for name, score in judge["scores"].items()},
        notes=judge["notes"],
        impression=judge["impression"],
        overall=float(overall),
        samples=None
        if samples is None
        else [{name: float(exact(score)) for name, score in sample.items()} for sample in samples],
    )


def ledger_row(record: CaptureRecord, rubric: Rubric) -> BaseModel:
    """The ledger row of one capture; scores are recomputed exactly from the judges' replies."""
    fields: dict[str, Any] = {
        key: record[key]
        for key in ("capture_id", "entry_key", "family", "technique", "configuration", "status", "reason")
    }
    judges = record["judges"]
    if rubric.panel_size == 2:
        if len(judges) >= 1:
            fields["judge_a"] = _judge_column(judges[0])
        if len(judges) >= 2:
            fields["judge_b"] = _judge_column(judges[1])
    if record["status"] == "scored" and graded(rubric.kind) is not None:  # a cell per axis, no scores
        fields.update(grades=record["grades"], failure=record["failure"])
    if record["status"] == "scored" and judges:
        kind = panel_kind(rubric.kind)
        scores = kind.panel(record, rubric)
        fields.update(kind.ledger_fields(scores, rubric))
        fields.update(weighted=float(scores.weighted), overall=float(scores.overall), failure=scores.failure)
        fields["judges"] = [_panel_judge(judge, own) for judge, own in zip(judges, scores.judge_overalls)]
        if rubric.verdicts:
            fields["verdict"] = scores.verdict
        fields.update(scores.votes)
        if rubric.recorded_under:
            fields["recorded_under"] = rubric.recorded_under
    fields.update({key: record[key] for key in ("names_itself", "withheld") if key in record})
    candidate = record.get("candidate")
    if candidate is not None:
        fields.update(candidate)
        return candidate_ledger_model(rubric)(rubric=rubric.version, rubric_digest=rubric.digest, **fields)
    return ledger_model(rubric)(rubric=rubric.version, rubric_digest=rubric.digest, **fields)


def _labels(rubric: Rubric) -> list[str]:
    return [chr(ord("a") + index) for index in range(rubric.panel_size)]


class LedgerCsv:
    """ledger.csv a line at a time: one flat row per capture, <label>_<criterion> per judge beside the means."""

    def __init__(self, rubric: Rubric) -> None:
        self.names = list(get_kind(rubric.kind).summary_columns(rubric))
        self.labels = _labels(rubric)
        header = ["capture_id", "entry_key", "family", "technique", "configuration", "status", "reason"]
        header += [f"judge_{label}_model" for label in self.labels]
        header += [f"{label}_{n}" for label in self.labels for n in self.names] + self.names
        header += ["weighted", "overall", "failure", "rubric", "rubric_digest"]
        header += [f"{label}_overall" for label in self.labels]
        header += (["verdict"] if rubric.verdicts else []) + list(rubric.vote_names)
        grades = graded(rubric.kind)
        header += [f"grade_{axis}" for axis in (grades.grade_columns(rubric) if grades else ())]  # each axis's cell
        self.header = header

    def _text(self, cells: Sequence[Any]) -> str:
        return csv_line(cells)

    def heading(self) -> str:
        return self._text(self.header)

    def line(self, row: BaseModel) -> str:
        data = row.model_dump()
        labels, names, header = self.labels, self.names, self.header
        panel = {judge["label"].lower(): judge for judge in data["judges"]}
        columns: dict[str, Any] = {label: data.get(f"judge_{label}") or panel.get(label) for label in labels}
        line = [data[key] for key in header[:7]]
        line += [columns[label]["model"] if columns[label] else "" for label in labels]
        line += [_cell(columns[label]["scores"].get(n) if columns[label] else None) for label in labels for n in names]
        line += [_cell(data[n]) for n in names]
        line += [
            _cell(data["weighted"]),
            _cell(data["overall"]),
            _cell(data["failure"]),
            data["rubric"],
            data["rubric_digest"],
        ]
        line += [_cell(panel[label]["overall"] if label in panel else None) for label in labels]
        grades = data.get("grades") or {}
        line += [
            _cell(grades.get(key.removeprefix("grade_")) if key.startswith("grade_") else data.get(key))
            for key in header[len(line) :]
        ]
        return self._text(line)


def ledger_csv(rows: Iterable[BaseModel], rubric: Rubric) -> str:
    """ledger.csv as one string (verify renders it so)."""
    return "".join(ledger_csv_lines(rows, rubric))


def ledger_csv_lines(rows: Iterable[BaseModel], rubric: Rubric) -> Iterator[str]:
    """ledger.csv a line at a time (the session end streams it: a 100x ledger is never one string)."""
    table = LedgerCsv(rubric)
    yield table.heading()
    for row in rows:
        yield table.line(row)


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _float(value: Fraction | None) -> float | None:
    return None if value is None else float(value)


class _Tally:
    """One configuration's sums over its records, added one record at a time (exact Fractions)."""

    def __init__(self, columns: Sequence[str], rubric: Rubric) -> None:
        self.statuses: Counter[str] = Counter()
        self.scored = 0
        self.sums = dict.fromkeys(("overall", *columns), Fraction(0))
        self.failures = 0
        self.counts = dict.fromkeys(_counts(rubric), 0)
        self.costs: list[Fraction] = [Fraction(0), Fraction(0)]  # sum, count
        self.minutes: list[Fraction] = [Fraction(0), Fraction(0)]

    def add(self, record: CaptureRecord, rubric: Rubric) -> None:
        status = record["status"]
        self.statuses[status] += 1
        if status != "excluded":
            for tally, value in ((self.costs, record["cost_usd"]), (self.minutes, record["wall_clock_minutes"])):
                if value is not None:
                    tally[0] += exact(value)
                    tally[1] += 1
        if status != "scored" or not record["judges"]:
            return  # a scorecard grades axes: no scores
        scores = combined(record, rubric)
        self.scored += 1
        self.sums["overall"] += scores.overall
        for column in self.sums.keys() - {"overall"}:
            self.sums[column] += scores.means[column]
        self.failures += scores.failure
        for band in rubric.verdicts:
            self.counts[f"verdict_{band.name}"] += scores.verdict == band.name
        for vote in rubric.vote_names:
            self.counts[vote] += scores.votes[vote]

    def values(self) -> dict[str, Fraction | None]:
        n = self.scored
        mean_cost = self.costs[0] / self.costs[1] if self.costs[1] else None
        return {
            **{name: total / n if n else None for name, total in self.sums.items()},
            "failure_rate": Fraction(self.failures, n) if n else None,
            "cost_per_100": None if mean_cost is None else mean_cost * 100,
            "minutes": self.minutes[0] / self.minutes[1] if self.minutes[1] else None,
            **{key: Fraction(count) for key, count in self.counts.items()},
        }


SummaryRow = tuple[BaseModel, dict[str, Fraction | None]]
"""A configuration's summary row and the exact values the public table rounds."""


def summarize(records: Iterable[CaptureRecord], configurations: Sequence[str], rubric: Rubric) -> list[SummaryRow]:
    """One row per configuration (table order), with the exact values the public table rounds.

    Each record is added to its configuration's sums as it comes: a pass over a 10x run's records
    holds none of them.
    """
    columns = get_kind(rubric.kind).summary_columns(rubric)
    tallies = {name: _Tally(columns, rubric) for name in configurations}
    for record in records:
        name = record["configuration"]
        if name not in tallies:
            tallies[name] = _Tally(columns, rubric)
        tallies[name].add(record, rubric)
    model = summary_model(rubric)
    rows = []
    for name, tally in tallies.items():
        values = tally.values()
        row = model(
            configuration=name,
            judged=tally.statuses["scored"],
            unscorable=tally.statuses["unscorable"],
            excluded=tally.statuses["excluded"],
            errors=tally.statuses["error"],
            budget=tally.statuses["budget"],
            mean_overall=_float(values["overall"]),
            **{f"mean_{c}": _float(values[c]) for c in columns},
            failure_rate=_float(values["failure_rate"]),
            cost_per_100_queries_usd=_float(values["cost_per_100"]),
            minutes_per_run=_float(values["minutes"]),
            rubric=rubric.version,
            rubric_digest=rubric.digest,
            **tally.counts,
        )
        rows.append((row, values))
    return rows


def _counts(rubric: Rubric) -> list[str]:
    return [f"verdict_{band.name}" for band in rubric.verdicts] + list(rubric.vote_names)


def public_columns(rubric: Rubric) -> tuple[str, ...]:
    """The public table's columns for this rubric (PUBLIC_COLUMNS with ora-1.0), counts last."""
    names = get_kind(rubric.kind).summary_columns(rubric)
    return (
        "configuration",
        "judged",
        "unscorable",
        "excluded",
        "errors",
        "overall",
        *names,
        "failure_rate_pct",
        "cost_per_100_usd",
        "minutes_per_run",
        *_counts(rubric),
    )


def public_row(row: BaseModel, values: dict[str, Fraction | None], rubric: Rubric) -> list[str]:
    """A configuration's public-table cells, rounded half away from zero, in public_columns order."""
    rounding = rubric.rounding
    data = row.model_dump()

    def fmt(key: str, places: int, scale: int = 1) -> str:
        value = values[key]
        return "" if value is None else str(round_half_away(value * scale, places))

    return [
        data["configuration"],
        str(data["judged"]),
        str(data["unscorable"]),
        str(data["excluded"]),
        str(data["errors"]),
        fmt("overall", rounding.rating_places),
        *(fmt(name, rounding.rating_places) for name in get_kind(rubric.kind).summary_columns(rubric)),
        fmt("failure_rate", rounding.percent_places, 100),
        fmt("cost_per_100", rounding.dollar_places),
        fmt("minutes", rounding.minute_places),
        *(str(data[key]) for key in _counts(rubric)),
        str(data["budget"]),
    ]


def summary_json(
    rows: Sequence[BaseModel], selection: str = "", complete: bool = True, stopped_by: str | None = None
) -> str:
    """summary.json: one object per configuration at full precision; `selection` names a partial run,
    `complete` is false (and `stopped_by` says why) when the run stopped before its selection was judged."""
    extra = {"selection": selection or None, "complete": complete, "stopped_by": stopped_by}
    return json.dumps([{**row.model_dump(), **extra} for row in rows], indent=2) + "\n"


def summary_csv(table: Sequence[Sequence[str]], rubric: Rubric) -> str:
    """summary.csv: the public table as plain numbers; the last column names the rubric."""
    lines = [csv_line([*public_columns(rubric), "rubric", "rubric_digest", "budget"])]
    lines += [csv_line([*line[:-1], rubric.version, rubric.digest, line[-1]]) for line in table]
    return "".join(lines)


def _headings(rubric: Rubric) -> list[str]:
    titles = {c.name: c.title for c in rubric.criteria}
    names = get_kind(rubric.kind).summary_columns(rubric)
    return [
        "Configuration",
        "Judged",
        "Unscorable",
        "Excluded",
        "Errors",
        "Overall",
        *(titles.get(n, n.replace("_", " ").capitalize()) for n in names),
        "Failure rate",
        "Cost / 100 queries",
        "Minutes / run",
        *_counts(rubric),
    ]


def public_cells(table: Sequence[Sequence[str]], rubric: Rubric) -> tuple[list[str], list[list[str]]]:
    """The public table as shown: its headings and rows, the failure rate with %, the cost with $.

    The last cell of a row, Budget (captures not started once --ora-budget-usd was reached), shows
    only when some configuration has one.
    """
    rate = _rate_index(rubric)
    budget = any(line[-1] != "0" for line in table)
    given = _given
    shown = [
        [
            *line[:rate],
            f"{line[rate]}%" if line[rate] else "",
            given(line[rate + 1], line[1], f"${line[rate + 1]}"),
            given(line[rate + 2], line[1], line[rate + 2]),
            *line[rate + 3 : -1],
            *(line[-1:] if budget else []),
        ]
        for line in table
    ]
    return [*_headings(rubric), *(["Budget"] if budget else [])], shown


def _given(cell: str, judged: str, shown: str) -> str:
    """A cost or minutes cell: empty with captures judged means the bundle gave no cost_usd / wall_clock_minutes."""
    return shown if cell else ("not given" if judged != "0" else "")


def summary_table(table: Sequence[Sequence[str]], fmt: str = "github", rubric: Rubric = ORA_V1) -> str:
    """The public table as text (markdown for summary.md, plain for the terminal)."""
    headings, shown = public_cells(table, rubric)
    if rubric.kind == "compare":  # a pair has no overall, criteria or failure rate: counts, cost, minutes only
        rate = _rate_index(rubric)
        keep = (0, 1, 2, 3, 4, rate + 1, rate + 2)
        headings, shown = [headings[i] for i in keep], [[line[i] for i in keep] for line in shown]
    return tabulated(
        shown,
        headers=headings,
        tablefmt=fmt,
        disable_numparse=True,
        colalign=("left",) + ("right",) * (len(headings) - 1),
    )


def _rate_index(rubric: Rubric) -> int:
    """Where the failure rate sits in a public row: after the counts, overall and the criteria."""
    return 6 + len(get_kind(rubric.kind).summary_columns(rubric))


def fit_table(table: Sequence[Sequence[str]], width: int, rubric: Rubric = ORA_V1) -> list[str]:
    """The terminal's table: the full one if it fits, else fewer columns, else one line per configuration."""
    full = summary_table(table, fmt="simple", rubric=rubric).splitlines()
    if max(map(len, full), default=0) <= width or rubric.kind == "compare":
        return full
    rate = _rate_index(rubric)
    keep = (0, 1, 4, 5, rate, rate + 1, rate + 2)  # configuration, judged, errors, overall, failure, cost, minutes
    headings = ["Configuration", "Judged", "Errors", "Overall", "Fail %", "$ / 100", "Min / run"]
    cells = [
        [_given(line[i], line[1], line[i]) if i in (rate + 1, rate + 2) else line[i] for i in keep] for line in table
    ]
    compact = tabulated(
        cells,
        headers=headings,
        tablefmt="simple",
        disable_numparse=True,
        colalign=("left",) + ("right",) * (len(keep) - 1),
    ).splitlines()
    if max(map(len, compact), default=0) <= width:
        return [*compact, "(narrow terminal: criterion columns are in summary.md)"]
    return [
        f"{line[0]}: overall {line[5] or '-'}, judged {line[1]}, failure rate {f'{line[rate]}%' if line[rate] else '-'}"
        for line in table
    ]


def _failing(rubric: Rubric) -> str:
    return "below the threshold" if rubric.failure_vote is None else f"whose {rubric.failure_vote} vote holds"


_COMPARE_NOTE = (
    "Each row is a configuration pair (first+second), judged head to head: its wins, ties, losses, win rate with its "
    "Wilson interval, each judge's position consistency and the judges' agreement on the winner are in the "
    "head-to-head table (compare.md); a compare run has no overall score and no failure rate. Cost and minutes are "
    "means over the pair's accepted captures. Machine-written: do not edit.\n\n"
)


def summary_markdown(
    table: Sequence[Sequence[str]],
    rubric: Rubric,
    bundle: str,
    preface: Sequence[str] = (),
    appendix: Sequence[str] = (),
) -> str:
    """summary.md: the public table with the rubric and formula it was computed with.

    `preface` goes first (a partial run's selection banner, the judges); `appendix` after the table.
    """
    head = "".join(f"{line}\n\n" for line in preface)
    tail = "".join(f"\n{block}\n" for block in appendix)
    return (
        f"# Configuration summary: {bundle}\n\n"
        f"{head}"
        f"Rubric {rubric.version} ({rubric.title}). {formula(rubric)}.\n"
        + (f"Rules: {rubric.rules()}.\n" if rubric.rules() else "")
        + f"Rubric digest {rubric.digest}.\n"
        + (
            _COMPARE_NOTE
            if rubric.kind == "compare"
            else "Ratings are judge means over scored captures, rounded half away from zero to one decimal; "
            f"failure rate is the share of scored captures {_failing(rubric)}; cost and minutes are "
            "means over the configuration's accepted captures. Machine-written: do not edit.\n\n"
        )
        + f"{summary_table(table, rubric=rubric)}\n{tail}"
    )
