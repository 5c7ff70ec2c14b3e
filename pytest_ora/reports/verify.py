"""`python -m pytest_ora verify DIR`: every report re-rendered from the directory's machine-written data.

A registry of renderers: each names the report it writes, the data files it reads, and renders
the report from those files alone. A report whose bytes differ from its rendering was edited by
hand (or its data was); verify names the file and the first line that differs. Features adding
reports (statistics, report.html, comparisons) register their own renderer here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..core.rubric import Rubric, RubricError
from ..method.kinds import get_kind
from ..method.kinds.scorecard.render import scorecard_markdown
from ..method.rubric import builtin_text
from ..method.rubric_file import parse_rubric
from .methodology import methodology_text
from .page import report_page
from .rows import ledger_model, summary_model
from .statistics import statistics_sections
from .tables import ledger_csv, public_row, summary_csv, summary_markdown

__all__ = ["DATA_FILES", "RENDERERS", "RUN_DATA", "Renderer", "VerifyError", "ledger_rows", "register", "run_data", "verify"]

RUN_DATA = "run.json"
"""What the table renderers need beyond the tables' own data: the bundle id and the rubric file's text."""


class VerifyError(ValueError):
    """The directory's data cannot be read: the file and what is wrong with it."""


@dataclass(frozen=True)
class Renderer:
    """A report, the data files it is rendered from, and the rendering."""

    report: str
    inputs: tuple[str, ...]
    render: Callable[[Path], str]


RENDERERS: list[Renderer] = []
DATA_FILES = ("stats.json", "hypotheses.json", "disagreements.csv")
"""Machine-written data no renderer reads whole: the statistics (summary.md's and methodology.md's
Statistics sections are rendered from stats.json and hypotheses.json when present)."""


def register(report: str, inputs: tuple[str, ...]) -> Callable[[Callable[[Path], str]], Callable[[Path], str]]:
    """Decorator: add a renderer of `report` from `inputs` (names inside the output directory)."""

    def add(render: Callable[[Path], str]) -> Callable[[Path], str]:
        RENDERERS.append(Renderer(report, inputs, render))
        return render

    return add


def run_data(bundle: str, rubric: Rubric, methodology: dict[str, Any], summary_notes: dict[str, list[str]]) -> str:
    """run.json: the bundle id, the rubric file's text (its digest is checked when verify re-reads it), the
    methodology facts, and what summary.md says around its table (selection, judges, per-family breakdown)."""
    if rubric.source.startswith("builtin:"):
        text = builtin_text(rubric.version)
    else:
        text = Path(rubric.source).read_text(encoding="utf-8")
    return json.dumps({"bundle": bundle, "rubric": rubric.version, "rubric_digest": rubric.digest,
                       "rubric_text": text, "methodology": methodology, "summary_notes": summary_notes},
                      indent=2, ensure_ascii=False) + "\n"


def _json(directory: Path, name: str) -> Any:
    try:
        return json.loads((directory / name).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise VerifyError(f"{directory / name}: cannot read the machine-written data ({error})") from None


def _run(directory: Path) -> tuple[str, Rubric]:
    data = _json(directory, RUN_DATA)
    try:
        rubric = parse_rubric(data["rubric_text"], f"{RUN_DATA} rubric", str(directory / RUN_DATA))
        bundle = str(data["bundle"])
    except (RubricError, KeyError, TypeError) as error:
        raise VerifyError(f"{directory / RUN_DATA}: {error}") from None
    if rubric.digest != data.get("rubric_digest"):
        raise VerifyError(f"{directory / RUN_DATA}: the rubric text does not match its recorded digest (edited by hand)")
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


@register("summary.md", ("summary.json", RUN_DATA))
def _summary_md(directory: Path) -> str:
    bundle, rubric, table = _summary_table(directory)
    notes = _json(directory, RUN_DATA).get("summary_notes") or {}
    text = summary_markdown(table, rubric, bundle, notes.get("preface", ()), notes.get("appendix", ()))
    return text + _statistics(directory)[0]


def _statistics(directory: Path) -> tuple[str, str]:
    """The Statistics sections (SPEC 10) of summary.md and methodology.md, from stats.json when the run wrote one."""
    try:
        return statistics_sections(directory)
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
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


@register("ledger.csv", ("ledger.jsonl", RUN_DATA))
def _ledger_csv(directory: Path) -> str:
    _, rubric = _run(directory)
    return ledger_csv(_ledger_rows(directory, rubric), rubric)


@register("report.html", ("ledger.jsonl", "summary.json", RUN_DATA))
def _report_html(directory: Path) -> str:
    bundle, rubric, table = _summary_table(directory)
    summary = [summary_model(rubric).model_validate(data) for data in _json(directory, "summary.json")]
    try:
        methodology = _json(directory, RUN_DATA)["methodology"]
        return report_page(bundle, rubric, _ledger_rows(directory, rubric), summary, table, methodology, directory)
    except (KeyError, TypeError) as error:
        raise VerifyError(f"{directory / RUN_DATA}: no methodology facts ({error})") from None


@register("methodology.md", (RUN_DATA,))
def _methodology(directory: Path) -> str:
    _run(directory)  # the rubric text still matches its digest
    try:
        text = methodology_text(_json(directory, RUN_DATA)["methodology"])
    except (KeyError, TypeError, ValueError) as error:
        raise VerifyError(f"{directory / RUN_DATA}: no methodology facts ({error})") from None
    return text + _statistics(directory)[1]


@register("SCORECARD-RESULT.md", ("scorecard.json",))
def _scorecard(directory: Path) -> str:
    try:
        return scorecard_markdown(_json(directory, "scorecard.json"))
    except (KeyError, TypeError) as error:
        raise VerifyError(f"{directory / 'scorecard.json'}: not a scorecard ({error})") from None


def _first_difference(written: str, rendered: str) -> int:
    for number, (left, right) in enumerate(zip(written.splitlines(), rendered.splitlines()), start=1):
        if left != right:
            return number
    return min(len(written.splitlines()), len(rendered.splitlines())) + 1


def verify(directory: Path) -> tuple[list[str], list[str], list[str]]:
    """(reports that match their rendering, problems naming each edited report, reports not checked)."""
    if not directory.is_dir():
        raise VerifyError(f"{directory}: not a directory (give an --ora-out directory)")
    matched: list[str] = []
    edited: list[str] = []
    for renderer in RENDERERS:
        target = directory / renderer.report
        if not target.is_file():
            continue
        missing = [name for name in renderer.inputs if not (directory / name).is_file()]
        if missing:
            edited.append(f"{renderer.report}: cannot be checked: {', '.join(missing)} is missing")
            continue
        rendered = renderer.render(directory)
        written = target.read_bytes().decode("utf-8", errors="replace")
        if written == rendered:
            matched.append(f"{renderer.report} (from {', '.join(renderer.inputs)})")
        else:
            line = _first_difference(written, rendered)
            edited.append(
                f"{renderer.report}: edited by hand: line {line} differs from its rendering of {', '.join(renderer.inputs)}"
            )
    checked = {renderer.report for renderer in RENDERERS}
    data = {name for renderer in RENDERERS for name in renderer.inputs} | set(DATA_FILES)
    unchecked = sorted(
        path.name for path in directory.iterdir()
        if path.is_file() and not path.name.startswith(".") and path.name not in checked | data
    )
    return matched, edited, unchecked
