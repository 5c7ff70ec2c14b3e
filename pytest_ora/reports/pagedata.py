"""The report page's input: one plain data structure built from the ledger and summary rows alone.

Required sections come from what every run writes (ledger rows, summary rows, the public table).
`statistics` and `compare` are optional: present when their files exist, absent otherwise, and
the page (charts, tables) shows what is there. The same rows give the same structure, so the
page is byte-stable for the same data.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypedDict, get_args

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from typing_extensions import NotRequired

from ..core.models import Status
from ..core.rubric import Rubric
from ..method.kinds import formula, get_kind
from .aggregation import public_cells
from .matrix import Extras

if TYPE_CHECKING:
    from .baselinedata import BaselineComparison
    from .runs import EarlierRun

__all__ = [
    "PAGE_SCHEMA",
    "STATUSES",
    "CompareRow",
    "CompareSections",
    "OptionalResults",
    "PageData",
    "PageTexts",
    "Statistics",
    "TextRow",
    "Turn",
    "agreement_from_ledger",
    "compare_rows",
    "not_shown",
    "page_data",
]

PAGE_SCHEMA = "ora-report-1"
STATUSES: tuple[str, ...] = get_args(Status)
"""A capture's statuses, in the order the page's filter lists them (the ledger's Status)."""
CAPTURE_COLUMNS = (
    "capture_id",
    "family",
    "configuration",
    "status",
    "reason",
    "overall",
    "failure",
    "means",
    "judges",
    "flags",
)
"""Each capture row is a list in this order; strings are indices into `captures.strings` (-1: none)."""
JUDGE_COLUMNS = ("label", "model", "scores", "notes", "impression", "asks", "overall")


Interval = tuple[float, float]


class _Section(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class ConfigurationStatistics(_Section):
    """One configuration's intervals."""

    overall_interval: Interval | None = None
    """95% bootstrap interval of mean overall."""
    failure_interval: Interval | None = None
    """95% Wilson interval of the failure rate (a share, 0 to 1)."""
    interval_method: str | None = None
    """"t" when overall_interval is the t interval, "bca" for the bootstrap (older files)."""
    small_n: bool | None = None
    """Fewer than 20 units: the row is marked small n."""


class Agreement(_Section):
    """Judge agreement on one criterion (or overall)."""

    alpha: float | None = None
    kappa: float | None = None
    exact: float | None = None
    within_one: float | None = None
    alpha_interval: Interval | None = None
    alpha_interval_note: str | None = None
    """Said instead of alpha_interval over too few captures ("too few units for an interval")."""
    alpha_ordinal: float | None = None
    fleiss_kappa: float | None = None
    icc_2k: float | None = None


class Paired(_Section):
    """A paired comparison of two configurations over their shared scored entries."""

    a: str
    b: str
    n: int
    mean_difference: float
    interval: Interval | None = None
    p_value: float | None = None
    p_holm: float | None = None
    interval_method: str | None = None
    small_n: bool | None = None
    p_shown: str | None = None
    """The p-value as the tables write it ('< 0.0002' on the resampling floor)."""
    p_holm_shown: str | None = None
    p_t: float | None = None
    mde_80_adjusted: float | None = None
    reading: str | None = None


class JudgeMean(_Section):
    """One judge's mean overall on one configuration."""

    judge: str
    configuration: str
    n: int
    mean: float | None = None
    t_interval: Interval | None = None


class SelfPreference(_Section):
    """A judge's own overall minus the other judges' on a configuration running the judge's model."""

    judge: str
    configuration: str
    n: int
    difference: float | None = None
    t_interval: Interval | None = None
    flagged: bool = False


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
    interval_method: str | None = None


class Hypotheses(_Section):
    verdict: str | None = None
    detail: str | None = None
    null_pass_probability: float | None = None
    rows: list[HypothesisRow] = []


class Statistics(_Section):
    """The page's statistics input (every part optional)."""

    configurations: dict[str, ConfigurationStatistics] = {}
    agreement: dict[str, Agreement] = {}
    paired: list[Paired] = []
    hypotheses: Hypotheses | None = None
    intervals_note: str | None = None
    """In words: what each interval is and when a row is small-n."""
    noise_note: str | None = None
    """Judge noise in words (stats.json `noise`)."""
    recorded_calibration_note: str | None = None
    """The run's agreement beside the rubric's recorded value, in words (stats.json `recorded_calibration`)."""
    judges: list[JudgeMean] = []
    self_preference: list[SelfPreference] = []


class CompareRow(_Section):
    """Head-to-head results of one configuration pair (compare.json of kind compare)."""

    a: str = Field(validation_alias=AliasChoices("a", "first"))
    b: str = Field(validation_alias=AliasChoices("b", "second"))
    wins: int
    ties: int
    losses: int
    win_rate: float
    interval: Interval | None = Field(default=None, validation_alias=AliasChoices("interval", "wilson_95"))
    items: int | None = None
    position_consistency: dict[str, float] = {}
    judge_agreement: dict[str, Any] | None = None


_COMPARE = TypeAdapter(list[CompareRow])


@dataclass(frozen=True)
class OptionalResults:
    """The results other parts of a run wrote beside the tables, in the page's shape (None: not shown)."""

    statistics: Statistics | None = None
    """From stats.json and hypotheses.json."""
    compare: list[CompareRow] | None = None
    """From compare.json."""


def not_shown(error: ValidationError, source: str) -> str:
    """Why a file beside the tables is not shown: its first bad field."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top)"
    return f"{source} is not shown: {where}: {first['msg']}"


def compare_rows(raw: object, source: str) -> tuple[list[CompareRow] | None, str | None]:
    """compare.json's rows in the page's shape, or None and a sentence saying why they are not shown."""
    try:
        return _COMPARE.validate_python(raw), None
    except ValidationError as error:
        return None, not_shown(error, source)


class PageRubric(TypedDict):
    """The rubric as the page names it."""

    version: str
    title: str
    formula: str
    criteria: list[str]
    scale: list[float]
    failure_below: float | None
    failure: str
    """What makes a capture a failure, in words."""
    kind: NotRequired[str]
    """Only "compare": the page then speaks of winners, not scores."""


class PageSummary(TypedDict):
    """The public table as shown."""

    headings: list[str]
    rows: list[list[str]]


class ConfigurationMeans(TypedDict):
    """One configuration's means (None throughout for a compare run)."""

    judged: int
    overall: float | None
    criteria: dict[str, float | None]
    failure_rate: float | None


class CaptureTable(TypedDict):
    """The capture table: rows of CAPTURE_COLUMNS, strings interned."""

    columns: list[str]
    judge_columns: list[str]
    strings: list[str]
    rows: list[list[Any]]


TextRow = tuple[str, int, int, int, int]
"""A capture's texts (texts.json): [capture_id, prompt, context, answer, second_answer], string indices (-1: none)."""
Turn = tuple[str, int]
"""[role, string index]: one turn of a transcript."""


class PageTexts(TypedDict):
    """texts.json as the page carries it: the string table, the rows, the transcripts when there are any."""

    strings: list[str]
    rows: list[TextRow]
    transcripts: NotRequired[dict[str, list[Turn]]]


class PageData(TypedDict):
    """Everything report.html shows; the script reads it as JSON (texts and runs travel apart)."""

    schema: str
    bundle: str
    scoring_date: str
    rubric: PageRubric
    judges: list[dict[str, str]]
    """label, model, provider."""
    configurations: list[str]
    families: list[str]
    statuses: list[str]
    summary: PageSummary
    means: dict[str, ConfigurationMeans]
    by_family: dict[str, dict[str, dict[str, Any]]]
    agreement: dict[str, dict[str, float | int]]
    captures: CaptureTable
    extras: dict[str, dict[str, Any]]
    statistics: NotRequired[dict[str, Any]]
    """Statistics dumped without its empty figures."""
    compare: NotRequired[list[dict[str, Any]]]
    notes: NotRequired[list[str]]
    notices: NotRequired[list[str]]
    """An incomplete run, a judge on this machine: said at the top of the page."""
    texts: NotRequired[PageTexts]
    runs: NotRequired[list[EarlierRun]]
    baseline: NotRequired[BaselineComparison]
    compare_notes: NotRequired[list[str]]


class CompareSections(TypedDict, total=False):
    """The parts of the page read from the files beside the ledger (texts.json, runs.json, baseline.json)."""

    texts: PageTexts
    runs: list[EarlierRun]
    baseline: BaselineComparison
    compare_notes: list[str]


class Strings:
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


def _judges(row: Any, names: Sequence[str], strings: Strings) -> list[list[Any]]:
    """The panel's judges of a scored row, with each one's asks where the two-judge columns keep them."""
    encoded = []
    for judge in getattr(row, "judges", []):
        column = getattr(row, f"judge_{judge.label.lower()}", None)
        encoded.append(
            [
                strings(f"Judge {judge.label}"),
                strings(judge.model),
                [judge.scores.get(name) for name in names],
                [strings(judge.notes.get(name)) for name in names],
                strings(judge.impression),
                column.asks if column is not None else None,
                judge.overall,
            ]
        )
    return encoded


def _flags(row: Any, rubric: Rubric) -> list[str]:
    """The verdict and the votes that hold, as short labels."""
    flags = []
    verdict = getattr(row, "verdict", None)
    if verdict:
        flags.append(f"verdict: {verdict}")
    flags += [vote for vote in rubric.vote_names if getattr(row, vote, None)]
    return flags


class _Captures:
    """The capture table, one row at a time: each row a list of CAPTURE_COLUMNS, strings interned."""

    def __init__(self, names: Sequence[str], rubric: Rubric) -> None:
        self.names = names
        self.rubric = rubric
        self.strings = Strings()
        self.rows: list[list[Any]] = []

    def add(self, row: Any) -> None:
        strings, names = self.strings, self.names
        scored = row.status == "scored"
        # A compare item has a winner, not an overall or a failure: its verdicts travel in the extras.
        scores = self.rubric.kind != "compare"
        self.rows.append(
            [
                strings(row.capture_id),
                strings(row.family),
                strings(row.configuration),
                strings(row.status),
                strings(row.reason),
                row.overall if scores else None,
                None if row.failure is None or not scores else int(row.failure),
                [getattr(row, name) for name in names] if scored and scores else None,
                _judges(row, names, strings),
                [strings(flag) for flag in _flags(row, self.rubric)],
            ]
        )

    def data(self) -> CaptureTable:
        return {
            "columns": list(CAPTURE_COLUMNS),
            "judge_columns": list(JUDGE_COLUMNS),
            "strings": self.strings.table,
            "rows": self.rows,
        }


class _Agreement:
    """Per criterion, over every pair of judges on each scored capture: the absolute gaps."""

    def __init__(self, names: Sequence[str]) -> None:
        self.gaps: dict[str, list[float]] = {name: [] for name in names}

    def add(self, row: Any) -> None:
        if row.status != "scored":
            return
        panel = row.judges
        for i, a in enumerate(panel):
            for b in panel[i + 1 :]:
                for name, gaps in self.gaps.items():
                    if name in a.scores and name in b.scores:
                        gaps.append(abs(a.scores[name] - b.scores[name]))

    def data(self) -> dict[str, dict[str, float | int]]:
        return {
            name: {
                "n": len(gaps),
                "exact": sum(gap == 0 for gap in gaps) / len(gaps),
                "within_one": sum(gap <= 1 for gap in gaps) / len(gaps),
                "mean_abs_diff": sum(gaps) / len(gaps),
            }
            for name, gaps in self.gaps.items()
            if gaps
        }


def agreement_from_ledger(rows: Iterable[Any], names: Sequence[str]) -> dict[str, dict[str, float | int]]:
    """Per criterion, over every pair of judges on each scored capture: exact agreement, within one point, mean gap."""
    agreement = _Agreement(names)
    for row in rows:
        agreement.add(row)
    return agreement.data()


class _ByFamily:
    """Family (in order of appearance) -> configuration -> the overalls of its scored captures."""

    def __init__(self, scores: bool = True) -> None:
        self.overalls: dict[str, dict[str, list[float]]] = {}
        self.scores = scores

    def add(self, row: Any) -> None:
        family = self.overalls.setdefault(row.family, {})
        if self.scores and row.status == "scored" and row.overall is not None:
            family.setdefault(row.configuration, []).append(row.overall)

    def data(self, configurations: Sequence[str]) -> dict[str, dict[str, Any]]:
        return {
            family: {c: {"n": len(v), "overall": sum(v) / len(v)} for c in configurations if (v := cells.get(c))}
            for family, cells in self.overalls.items()
            if cells
        }


def rubric_failure(rubric: Rubric) -> str:
    """What makes a capture a failure under this rubric, in words."""
    if rubric.failure_vote is not None:
        return f"the {rubric.failure_vote} vote holds"
    return f"overall below {float(rubric.failure_below):g}" if rubric.failure_below is not None else "never"


def page_data(
    *,
    bundle: str,
    rubric: Rubric,
    judges: Sequence[Mapping[str, str]],
    rows: Iterable[Any],
    summary: Sequence[Any],
    table: Sequence[Sequence[str]],
    scoring_date: str,
    statistics: Statistics | None = None,
    compare: Sequence[CompareRow] | None = None,
    notes: Sequence[str] = (),
) -> PageData:
    """Everything report.html shows, as plain JSON-able builtins.

    `rows` and `summary` are the rubric's ledger and summary rows (reports.rows); `table` its public table.
    The rows are read once, in order: a generator over a 10x ledger never holds more than one.
    """
    names = list(get_kind(rubric.kind).summary_columns(rubric))
    configurations = [row.configuration for row in summary]
    compare_run = rubric.kind == "compare"
    captures, agreement, by_family = _Captures(names, rubric), _Agreement(names), _ByFamily(scores=not compare_run)
    extras = Extras()
    for row in rows:
        captures.add(row)
        extras.add(row)
        agreement.add(row)
        by_family.add(row)
    headings, table_rows = public_cells(table, rubric)
    data: PageData = {
        "schema": PAGE_SCHEMA,
        "bundle": bundle,
        "scoring_date": scoring_date,
        "rubric": {
            "version": rubric.version,
            "title": rubric.title,
            "formula": formula(rubric),
            "criteria": names,
            "scale": [float(rubric.scale_min), float(rubric.scale_max)],
            "failure_below": None if rubric.failure_below is None else float(rubric.failure_below),
            "failure": rubric_failure(rubric),
        },
        "judges": [dict(judge) for judge in judges],
        "configurations": configurations,
        "families": list(by_family.overalls),
        "statuses": list(STATUSES),
        "summary": {"headings": headings, "rows": table_rows},
        "means": {
            row.configuration: {
                "judged": row.judged,
                "overall": None if compare_run else row.mean_overall,
                "criteria": {} if compare_run else {name: getattr(row, f"mean_{name}", None) for name in names},
                "failure_rate": None if compare_run else row.failure_rate,
            }
            for row in summary
        },
        "by_family": by_family.data(configurations),
        "agreement": agreement.data(),
        "captures": captures.data(),
        "extras": extras.data(),
    }
    if statistics is not None:
        data["statistics"] = statistics.model_dump(exclude_none=True)
    if compare:
        data["compare"] = [row.model_dump(exclude_none=True) for row in compare]
    if rubric.kind == "compare":  # the page shows what a compare run means: reports/comparepage.py
        data["rubric"]["kind"] = "compare"
    if notes:
        data["notes"] = list(notes)
    return data
