"""Every report file, rendered from the output directory's machine-written data: one registry.

Each renderer names the report it writes, the data files it reads, and renders the report from
those files alone. The session end writes the data files, then runs every renderer
(reports/output.py); `python -m pytest_ora verify DIR` runs the same renderers over the same data
and names any report whose bytes differ (reports/verify.py). Adding a report file is its
rendering function and one `@register` line here.
"""

from __future__ import annotations

import glob
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..core.errors import OraError
from ..core.filenames import capture_relpath
from ..core.rubric import Rubric, RubricError
from ..method.kinds import get_kind
from ..method.kinds.compare.report import compare_json, compare_markdown
from ..method.kinds.scorecard.render import INTERPRETATION, result_markdown, scorecard_markdown
from ..method.rubric import builtin_text, check_not_builtin
from ..method.rubric_file import parse_rubric
from .aggregation import ledger_csv_lines, public_row, summary_csv, summary_markdown
from .hypothesesdata import HypothesesFileError
from .methodology import methodology_text
from .methodologydata import MethodologyFacts
from .page import report_page
from .pilot import pilot_summary
from .rows import ledger_model, summary_model
from .runfile import RunFile, RunFileError, SummaryNotes, read_run_file
from .statsdata import StatsFileError
from .statsfiles import statistics_sections

__all__ = [
    "DATA_FILES",
    "RENDERERS",
    "RUN_DATA",
    "Renderer",
    "VerifyError",
    "ledger_rows",
    "register",
    "render_reports",
    "run_data",
    "summary_table_of",
]

RUN_DATA = "run.json"
"""What the table renderers need beyond the tables' own data: the bundle id and the rubric file's text."""


class VerifyError(OraError, ValueError):
    """The directory's data cannot be read: the file and what is wrong with it."""


@dataclass(frozen=True)
class Renderer:
    """A report, the data files it is rendered from, and the rendering."""

    report: str
    inputs: tuple[str, ...]
    render: Callable[[Path], str]
    kind: str | None = None
    """The rubric kind whose runs have this report (None: every run's)."""
    statistics: bool = False
    """Whether the report reads the statistics files too: rendered again once they are written."""
    last: bool = False
    """Rendered only once the statistics are written (the page reads everything beside it)."""
    optional: bool = False
    """Rendered at the session end only when its data was written (baseline.md: a run given --ora-baseline)."""
    pieces: Callable[[Path], Iterator[str]] | None = None
    """The report in pieces, for one as long as the ledger (ledger.csv): the session end writes it without
    holding it whole; `render` joins the same pieces."""
    person_section: str | None = None
    """The heading after which the report is a person's (RESULT.md's interpretation): verify checks what
    comes before it and that the files it links exist, never what a person wrote below it."""

    def stream(self, directory: Path) -> Iterator[str]:
        """The report's text in the pieces the session end writes (one piece unless `pieces` is set)."""
        if self.pieces is not None:
            yield from self.pieces(directory)
        else:
            yield self.render(directory)

    def applies(self, rubric: Rubric) -> bool:
        return self.kind is None or self.kind == rubric.kind


RENDERERS: list[Renderer] = []
ALWAYS_WRITTEN = (
    "ledger.jsonl",
    "ledger.csv",
    "summary.json",
    "summary.md",
    "summary.csv",
    "methodology.md",
    "report.html",
)
"""Every run writes these (output.REPORT_FILES is this tuple): one missing was deleted."""
DATA_FILES = (
    "stats.json",
    "hypotheses.json",
    "disagreements.csv",
    "compare.jsonl",
    "texts.json",
    "runs.json",
    "cells.jsonl",
    "captures.jsonl",
)
"""Machine-written data no renderer reads whole: the statistics (summary.md's and methodology.md's
Statistics sections are rendered from stats.json and hypotheses.json when present)."""


def register(
    report: str,
    inputs: tuple[str, ...],
    kind: str | None = None,
    statistics: bool = False,
    last: bool = False,
    optional: bool = False,
    pieces: Callable[[Path], Iterator[str]] | None = None,
    person_section: str | None = None,
) -> Callable[[Callable[[Path], str]], Callable[[Path], str]]:
    """Decorator: add a renderer of `report` from `inputs` (names inside the output directory)."""

    def add(render: Callable[[Path], str]) -> Callable[[Path], str]:
        RENDERERS.append(Renderer(report, inputs, render, kind, statistics, last, optional, pieces, person_section))
        return render

    return add


def render_reports(directory: Path, rubric: Rubric, statistics: bool) -> list[Renderer]:
    """The renderers of this run's reports, from the data in `directory`: before the statistics files
    exist (statistics=False: every report but the last ones), or after them (the reports that read them)."""
    chosen = [
        r
        for r in RENDERERS
        if r.applies(rubric)
        and (r.statistics or r.last if statistics else not r.last)
        and not (r.optional and not all((directory / name).is_file() for name in r.inputs))
    ]
    return chosen


def run_data(
    bundle: str,
    rubric: Rubric,
    methodology: MethodologyFacts | None,
    summary_notes: dict[str, list[str]],
    run: Mapping[str, Any] | None = None,
) -> str:
    """run.json: pytest-ora's version, the suite's commit and the run's start and end (`run`), the bundle id, the
    rubric file's text (its digest is checked when verify re-reads it), the methodology facts, and what summary.md
    says around its table (selection, judges, per-family breakdown)."""
    text = (
        builtin_text(rubric.version)
        if rubric.source.startswith("builtin:")
        else Path(rubric.source).read_text(encoding="utf-8")
    )
    unknown = sorted(set(run or {}) - set(RunFile.model_fields))
    if unknown:  # RunFile passes over keys it does not know when reading; a writer never drops one
        raise TypeError(f"run.json has no field {', '.join(unknown)}: add it to RunFile (reports/runfile.py)")
    return RunFile(
        **(run or {}),
        bundle=bundle,
        rubric=rubric.version,
        rubric_digest=rubric.digest,
        rubric_text=text,
        methodology=methodology,
        summary_notes=SummaryNotes(**summary_notes),
    ).dumps()


def _run_file(directory: Path) -> RunFile:
    try:
        return read_run_file(directory / RUN_DATA)
    except RunFileError as error:
        raise VerifyError(str(error)) from None


def _json(directory: Path, name: str) -> Any:
    try:
        return json.loads((directory / name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise VerifyError(f"{directory / name}: cannot read the machine-written data ({error})") from None


def _run(directory: Path) -> tuple[str, Rubric]:
    data = _run_file(directory)
    if data.rubric_text is None:
        raise VerifyError(f"{directory / RUN_DATA}: not a run's data: field rubric_text: Field required")
    try:
        rubric = parse_rubric(data.rubric_text, f"{RUN_DATA} rubric", str(directory / RUN_DATA))
        bundle = data.bundle
    except RubricError as error:
        raise VerifyError(f"{directory / RUN_DATA}: {error}") from None
    try:
        check_not_builtin(rubric, f"{directory / RUN_DATA} rubric")
    except RubricError as error:
        raise VerifyError(str(error)) from None
    if rubric.digest != data.rubric_digest:
        raise VerifyError(
            f"{directory / RUN_DATA}: the rubric text does not match its recorded digest (edited by hand)"
        )
    return bundle, rubric


def _exact(value: float | int | None) -> Fraction | None:
    # summary.json keeps full precision: the shortest decimal that reads back as the float is the
    # exact mean whenever the mean is a decimal the public table can round to differently.
    return None if value is None else Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _summary_table(directory: Path) -> tuple[str, Rubric, list[list[str]]]:
    bundle, rubric = _run(directory)
    rows = _json(directory, "summary.json")
    model = summary_model(rubric)
    table = []
    columns = get_kind(rubric.kind).summary_columns(rubric)
    for data in rows:
        row = model.model_validate(data)
        values: dict[str, Fraction | None] = {
            "overall": _exact(data["mean_overall"]),
            **{name: _exact(data[f"mean_{name}"]) for name in columns},
            "failure_rate": _exact(data["failure_rate"]),
            "cost_per_100": _exact(data["cost_per_100_queries_usd"]),
            "minutes": _exact(data["minutes_per_run"]),
        }
        for key in [f"verdict_{band.name}" for band in rubric.verdicts] + list(rubric.vote_names):
            values[key] = Fraction(data[key])
        table.append(public_row(row, values, rubric))
    return bundle, rubric, table


def summary_table_of(directory: Path) -> tuple[Rubric, list[list[str]]]:
    """The rubric and the public table's rows as summary.md shows them, from the report's data in `directory`."""
    _, rubric, table = _summary_table(directory)
    return rubric, table


@register("summary.md", ("summary.json", RUN_DATA), statistics=True)
def _summary_md(directory: Path) -> str:
    bundle, rubric, table = _summary_table(directory)
    notes = _run_file(directory).summary_notes
    text = summary_markdown(table, rubric, bundle, notes.preface, notes.appendix)
    return text + _statistics(directory)[0]


def _statistics(directory: Path) -> tuple[str, str]:
    """The Statistics sections of summary.md and methodology.md, from stats.json when the run wrote one."""
    try:
        return statistics_sections(directory)
    except (StatsFileError, HypothesesFileError) as error:
        raise VerifyError(str(error)) from None
    except (ValueError, KeyError, TypeError) as error:  # stats.json's sections kept as JSON values (noise, calibration)
        raise VerifyError(f"{directory / 'stats.json'}: cannot read the machine-written data ({error})") from None


@register("summary.csv", ("summary.json", RUN_DATA))
def _summary_csv(directory: Path) -> str:
    _, rubric, table = _summary_table(directory)
    return summary_csv(table, rubric)


def ledger_rows(path: Path, rubric: Rubric) -> Iterator[Any]:
    """ledger.jsonl's rows as the rubric's ledger models, read one line at a time."""
    model = ledger_model(rubric)
    try:
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                if line.strip():
                    yield model.model_validate_json(line)
    except (OSError, ValueError) as error:
        raise VerifyError(f"{path}: cannot read the machine-written data ({error})") from None


def _ledger_rows(directory: Path, rubric: Rubric) -> Iterator[Any]:
    return ledger_rows(directory / "ledger.jsonl", rubric)


def _ledger_csv_lines(directory: Path) -> Iterator[str]:
    _, rubric = _run(directory)
    return ledger_csv_lines(_ledger_rows(directory, rubric), rubric)


@register("ledger.csv", ("ledger.jsonl", RUN_DATA), pieces=_ledger_csv_lines)
def _ledger_csv(directory: Path) -> str:
    return "".join(_ledger_csv_lines(directory))


@register("baseline.md", ("baseline.json",), last=True, optional=True)
def _baseline(directory: Path) -> str:
    from .baseline import baseline_markdown
    from .baselinedata import BaselineDataError, read_baseline_comparison

    try:
        return baseline_markdown(read_baseline_comparison(directory / "baseline.json"))
    except BaselineDataError as error:
        raise VerifyError(str(error)) from None


@register("report.html", ("ledger.jsonl", "summary.json", RUN_DATA), last=True)
def _report_html(directory: Path) -> str:
    bundle, rubric, table = _summary_table(directory)
    summary = [summary_model(rubric).model_validate(data) for data in _json(directory, "summary.json")]
    methodology = _methodology_facts(directory)
    return report_page(bundle, rubric, _ledger_rows(directory, rubric), summary, table, methodology, directory)


def _methodology_facts(directory: Path) -> MethodologyFacts:
    methodology = _run_file(directory).methodology
    if methodology is None:
        raise VerifyError(f"{directory / RUN_DATA}: not a run's data: field methodology: Field required")
    return methodology


@register("methodology.md", (RUN_DATA,), statistics=True)
def _methodology(directory: Path) -> str:
    _run(directory)  # the rubric text still matches its digest
    return methodology_text(_methodology_facts(directory)) + _statistics(directory)[1]


@register("SCORECARD-RESULT.md", ("scorecard.json",), kind="scorecard")
def _scorecard(directory: Path) -> str:
    try:
        return scorecard_markdown(_json(directory, "scorecard.json"))
    except (KeyError, TypeError) as error:
        raise VerifyError(f"{directory / 'scorecard.json'}: not a scorecard ({error})") from None


def _compare_rows(directory: Path) -> tuple[Rubric, list[dict[str, Any]]]:
    _, rubric = _run(directory)
    path = directory / "compare.jsonl"
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise VerifyError(f"{path}: cannot read the machine-written data ({error})") from None
    return rubric, rows


@register("compare.json", ("compare.jsonl", RUN_DATA), kind="compare")
def _compare_json(directory: Path) -> str:
    try:
        rubric, rows = _compare_rows(directory)
        return compare_json(rows, rubric)
    except (KeyError, TypeError, ZeroDivisionError) as error:
        raise VerifyError(f"{directory / 'compare.jsonl'}: not compare rows ({error})") from None


@register("compare.md", ("compare.jsonl", RUN_DATA), kind="compare")
def _compare_md(directory: Path) -> str:
    try:
        rubric, rows = _compare_rows(directory)
        return compare_markdown(rows, rubric)
    except (KeyError, TypeError, ZeroDivisionError) as error:
        raise VerifyError(f"{directory / 'compare.jsonl'}: not compare rows ({error})") from None


@register("ADVISORY-RESULT.md", ("advisory.json",), kind="advisory")
def _advisory(directory: Path) -> str:
    from ..method.kinds.advisory.render import advisory_markdown

    try:
        return advisory_markdown(_json(directory, "advisory.json"))
    except (KeyError, TypeError) as error:
        raise VerifyError(f"{directory / 'advisory.json'}: not an advisory result ({error})") from None


@register("checklist.md", ("ledger.jsonl", RUN_DATA), kind="checklist")
def _checklist_md(directory: Path) -> str:
    """From the ledger's rows, each judge's per-item answers under judges/ and each packet's checklist under packets/
    (the session end renders it once the worker of a run without -n has written them: harness/worker.py)."""
    from ..method.kinds.checklist.report import checklist_markdown

    _, rubric = _run(directory)
    records = []
    for row in map(json.loads, (directory / "ledger.jsonl").read_text(encoding="utf-8").splitlines()):
        record = dict(row)
        if row["status"] == "scored":
            packet = capture_relpath(str(row["capture_id"]), ".json")
            record["judges"] = _judge_answers(directory / "judges" / packet.parent, packet.stem, row["judges"])
            record["material"] = _json(directory / "packets", str(packet))["material"]
        records.append(record)
    try:
        return checklist_markdown(records, rubric)  # type: ignore[arg-type]  # rebuilt records, the fields it reads
    except (KeyError, TypeError, ValueError) as error:
        raise VerifyError(f"{directory}: the checklist answers under judges/ cannot be read ({error})") from None


def _judge_answers(folder: Path, configuration: str, judges: list[dict[str, Any]]) -> list[Any]:
    """The capture's judge files (named by panel slot), in the ledger's judge order (matched by role: a
    substituted judge's role is not its slot)."""
    by_role = {}
    for path in sorted(folder.glob(f"{glob.escape(configuration)}.*.json")):
        answers = _json(folder, path.name)
        if isinstance(answers, dict):
            by_role[answers.get("role")] = answers
    try:
        return [by_role[judge["role"]] for judge in judges]
    except KeyError as error:
        raise VerifyError(f"{folder}: no answers of judge role {error} for configuration {configuration}") from None


@register("RESULT.md", ("scorecard.json",), kind="scorecard", person_section=INTERPRETATION)
def _result(directory: Path) -> str:
    try:
        return result_markdown(_json(directory, "scorecard.json"))
    except (KeyError, TypeError) as error:
        raise VerifyError(f"{directory / 'scorecard.json'}: not a scorecard ({error})") from None


@register("pilot-summary.json", ("cells.jsonl", RUN_DATA), optional=True)
def _pilot_summary(directory: Path) -> str:
    try:
        pilot = _run_file(directory).pilot
        if pilot is None:
            raise KeyError("pilot")
        lines = (directory / "cells.jsonl").read_text(encoding="utf-8").splitlines()
        return pilot_summary([json.loads(line) for line in lines if line.strip()], pilot)
    except (KeyError, TypeError, ValueError, OSError) as error:
        raise VerifyError(
            f"{directory / 'cells.jsonl'}: not a pilot's cells and run.json pilot block ({error})"
        ) from None
