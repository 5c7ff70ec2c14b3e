"""The report page's input: one plain data structure built from the ledger and summary rows alone.

Required sections come from what every run writes (ledger rows, summary rows, the public table).
`statistics` and `compare` are optional: present when their files exist, absent otherwise, and
the page (charts, tables) shows what is there. The same rows give the same structure, so the
page is byte-stable for the same data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from ..method.rubric import Rubric
from ..models import JudgeColumn, LedgerRow, SummaryRow
from ..vocabulary import FAMILIES
from .tables import summary_headings

__all__ = ["PAGE_SCHEMA", "STATUSES", "CompareRow", "Statistics", "agreement_from_ledger", "optional_section", "page_data"]

PAGE_SCHEMA = "ora-report-1"
STATUSES = ("scored", "excluded", "unscorable", "error")
CAPTURE_COLUMNS = ("capture_id", "family", "configuration", "status", "reason", "overall", "failure", "means", "judges")
"""Each capture row is a list in this order; strings are indices into `captures.strings`."""
JUDGE_COLUMNS = ("label", "model", "scores", "notes", "impression", "asks")


Interval = tuple[float, float]


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ConfigurationStatistics(_Section):
    """One configuration's intervals."""

    overall_interval: Interval | None = None
    """95% bootstrap interval of mean overall."""
    failure_interval: Interval | None = None
    """95% Wilson interval of the failure rate (a share, 0 to 1)."""


class Agreement(_Section):
    """Judge agreement on one criterion (or overall)."""

    alpha: float | None = None
    kappa: float | None = None
    exact: float | None = None
    within_one: float | None = None


class Paired(_Section):
    """A paired comparison of two configurations over their shared scored entries."""

    a: str
    b: str
    n: int
    mean_difference: float
    interval: Interval | None = None
    p_value: float | None = None
    p_holm: float | None = None


class HypothesisRow(_Section):
    """One hypothesis: its mean delta and whether it holds."""

    id: str
    better: str
    worse: str
    margin: float
    mean_delta: float
    interval: Interval | None = None
    directional: int | None = None
    meets_margin: int | None = None


class Hypotheses(_Section):
    verdict: str | None = None
    detail: str | None = None
    rows: list[HypothesisRow] = []


class Statistics(_Section):
    """The page's statistics input (every part optional)."""

    configurations: dict[str, ConfigurationStatistics] = {}
    agreement: dict[str, Agreement] = {}
    paired: list[Paired] = []
    hypotheses: Hypotheses | None = None


class CompareRow(_Section):
    """Head-to-head results of one configuration pair."""

    a: str
    b: str
    wins: int
    ties: int
    losses: int
    win_rate: float
    interval: Interval | None = None


_COMPARE = TypeAdapter(list[CompareRow])


def optional_section(name: str, raw: Any, source: str) -> tuple[Any, str | None]:
    """A section in the page's shape, or None and a sentence saying why it is not shown."""
    try:
        if name == "statistics":
            return Statistics.model_validate(raw).model_dump(exclude_none=True), None
        return [row.model_dump(exclude_none=True) for row in _COMPARE.validate_python(raw)], None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top)"
        return None, f"{source} is not shown: {where}: {first['msg']}"


class _Strings:
    """Interned strings: judges' notes repeat across captures and judges, so each is stored once."""

    def __init__(self) -> None:
        self.table: list[str] = []
        self._index: dict[str, int] = {}

    def __call__(self, text: str | None) -> int:
        if text is None:
            return -1
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self.table)
            self.table.append(text)
        return index


def _judge(label: str, judge: JudgeColumn, names: Sequence[str], strings: _Strings) -> list[Any]:
    return [
        strings(label),
        strings(judge.model),
        [judge.scores.get(name) for name in names],
        [strings(judge.notes.get(name)) for name in names],
        strings(judge.impression),
        judge.asks,
    ]


def _captures(rows: Sequence[LedgerRow], names: Sequence[str]) -> dict[str, Any]:
    strings = _Strings()
    encoded = []
    for row in rows:
        judges = [
            _judge(label, judge, names, strings)
            for label, judge in (("Judge A", row.judge_a), ("Judge B", row.judge_b))
            if judge is not None
        ]
        means = [getattr(row, name) for name in names] if row.status == "scored" else None
        encoded.append([
            strings(row.capture_id), strings(row.family), strings(row.configuration), strings(row.status),
            strings(row.reason), row.overall, None if row.failure is None else int(row.failure), means, judges,
        ])
    return {"columns": list(CAPTURE_COLUMNS), "judge_columns": list(JUDGE_COLUMNS), "strings": strings.table, "rows": encoded}


def agreement_from_ledger(rows: Sequence[LedgerRow], names: Sequence[str]) -> dict[str, dict[str, float | int]]:
    """Per criterion, over captures both judges scored: exact agreement, within one point, mean |A - B|."""
    result: dict[str, dict[str, float | int]] = {}
    pairs = [(row.judge_a, row.judge_b) for row in rows if row.status == "scored" and row.judge_a and row.judge_b]
    for name in names:
        gaps = [abs(a.scores[name] - b.scores[name]) for a, b in pairs if name in a.scores and name in b.scores]
        if not gaps:
            continue
        result[name] = {
            "n": len(gaps),
            "exact": sum(gap == 0 for gap in gaps) / len(gaps),
            "within_one": sum(gap <= 1 for gap in gaps) / len(gaps),
            "mean_abs_diff": sum(gaps) / len(gaps),
        }
    return result


def _by_family(rows: Sequence[LedgerRow], configurations: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Family -> configuration -> mean overall and failure share over its scored captures."""
    sums: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        if row.status == "scored" and row.overall is not None:
            sums.setdefault((row.family, row.configuration), []).append(row.overall)
    result: dict[str, dict[str, Any]] = {}
    for family in FAMILIES:
        cells = {}
        for configuration in configurations:
            values = sums.get((family, configuration))
            if values:
                cells[configuration] = {"n": len(values), "overall": sum(values) / len(values)}
        if cells:
            result[family] = cells
    return result


def page_data(
    *,
    bundle: str,
    rubric: Rubric,
    judges: Sequence[Mapping[str, str]],
    rows: Sequence[LedgerRow],
    summary: Sequence[SummaryRow],
    table: Sequence[Sequence[str]],
    scoring_date: str,
    statistics: Mapping[str, Any] | None = None,
    compare: Sequence[Mapping[str, Any]] | None = None,
    notes: Sequence[str] = (),
) -> dict[str, Any]:
    """Everything report.html shows, as plain JSON-able builtins."""
    names = list(rubric.names)
    configurations = [row.configuration for row in summary]
    data: dict[str, Any] = {
        "schema": PAGE_SCHEMA,
        "bundle": bundle,
        "scoring_date": scoring_date,
        "rubric": {
            "version": rubric.version,
            "title": rubric.title,
            "formula": rubric.formula(),
            "criteria": names,
            "scale": [float(rubric.scale_min), float(rubric.scale_max)],
            "failure_below": float(rubric.failure_below),
        },
        "judges": [dict(judge) for judge in judges],
        "configurations": configurations,
        "families": [family for family in FAMILIES if any(row.family == family for row in rows)],
        "statuses": list(STATUSES),
        "summary": {"headings": list(summary_headings()), "rows": [list(line) for line in table]},
        "means": {
            row.configuration: {
                "judged": row.judged,
                "overall": row.mean_overall,
                "criteria": {name: getattr(row, f"mean_{name}", None) for name in names},
                "failure_rate": row.failure_rate,
            }
            for row in summary
        },
        "by_family": _by_family(rows, configurations),
        "agreement": agreement_from_ledger(rows, names),
        "captures": _captures(rows, names),
    }
    if statistics:
        data["statistics"] = dict(statistics)
    if compare:
        data["compare"] = [dict(item) for item in compare]
    if notes:
        data["notes"] = list(notes)
    return data
