"""The report page of a finished run: its page data from the run's rows, then the HTML."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from ..core.rubric import Rubric
from .html import render_html
from .hypothesesdata import HypothesesFile, HypothesesFileError, parse_hypotheses_file
from .methodologydata import MethodologyFacts
from .pagedata import CompareRow, CompareSections, OptionalResults, Statistics, compare_rows, not_shown, page_data
from .statsdata import StatsFile, StatsFileError, parse_stats_file, read_stats_file

__all__ = ["OPTIONAL_FILES", "read_optional", "report_page", "stale_compare"]

OPTIONAL_FILES = {"statistics": "stats.json", "compare": "compare.json"}
"""Results other parts of a run may write beside the tables; the page shows them when present."""


def statistics_input(stats: StatsFile, hypotheses: HypothesesFile | None) -> Statistics:
    """stats.json (and hypotheses.json) in the page's statistics shape."""
    from .statsfiles import (
        INTERVAL_WORDS,
        SMALL_ROWS,
        TOO_FEW,
        noise_words,
        p_text,
        reading,
        recorded_calibration_line,
        shown_interval,
    )

    agreement = stats.agreement
    rows = [*agreement.criteria, agreement.overall]
    alpha = float(stats.pairs.alpha) if stats.pairs is not None else 0.05
    family = stats.pairs.holm_family if stats.pairs is not None else 1
    extended = stats.pairs is not None
    few = agreement.captures < SMALL_ROWS and extended
    result: dict[str, object] = {
        "configurations": {
            c.configuration: {
                "overall_interval": shown_interval(c),
                "failure_interval": c.failure_rate_interval,
                "interval_method": c.interval_method,
                "small_n": c.small_n,
            }
            for c in stats.configurations
        },
        "agreement": {
            r.criterion: {
                "alpha": r.krippendorff_alpha,
                "kappa": r.quadratic_kappa,
                "exact": r.exact,
                "within_one": r.within_one,
                "alpha_interval": None if few else r.alpha_interval,
                "alpha_interval_note": TOO_FEW if few else None,
                "alpha_ordinal": r.alpha_ordinal,
                "fleiss_kappa": r.fleiss_kappa,
                "icc_2k": r.icc_2k,
            }
            for r in rows
        },
        "paired": [
            {
                "a": c.first,
                "b": c.second,
                "n": c.n,
                "mean_difference": c.mean_difference,
                "interval": shown_interval(c),
                "p_value": c.p_value,
                "p_holm": c.p_holm,
                **(
                    {
                        "interval_method": c.interval_method,
                        "small_n": c.small_n,
                        "p_shown": p_text(c.p_value, bool(c.p_floor)),
                        "p_holm_shown": p_text(c.p_holm, bound=bool(c.p_holm_bound)),
                        "p_t": c.p_t,
                        "mde_80_adjusted": c.mde_80_adjusted,
                        "reading": reading(c, alpha, family),
                    }
                    if extended
                    else {}
                ),
            }
            for c in stats.comparisons
            if c.mean_difference is not None
        ],
    }
    if stats.recorded_calibration:
        result["recorded_calibration_note"] = recorded_calibration_line(stats.recorded_calibration)
    if extended:
        result["intervals_note"] = INTERVAL_WORDS
        if stats.noise:
            result["noise_note"] = noise_words(stats.noise)
        judges = stats.judges or []
        result["judges"] = [{"judge": j.judge, **row.model_dump()} for j in judges for row in j.configurations]
        result["self_preference"] = [
            {"judge": j.judge, **row.model_dump()} for j in judges for row in j.self_preference
        ]
    if hypotheses is not None and hypotheses.hypotheses:
        verdict = hypotheses.verdict
        result["hypotheses"] = {
            "verdict": None if verdict is None else verdict.result,
            "detail": None if verdict is None else "; ".join(verdict.reasons) or None,
            "null_pass_probability": None if verdict is None else verdict.null_pass_probability,
            "rows": [
                {**h.model_dump(exclude_unset=True), "interval": shown_interval(h)}
                for h in hypotheses.hypotheses
                if h.mean_delta is not None
            ],
        }
    return Statistics.model_validate(result)


def read_optional(directory: Path) -> tuple[OptionalResults, list[str]]:
    """The optional results found in the output directory; why any was left out."""
    statistics: Statistics | None = None
    compare: list[CompareRow] | None = None
    notes: list[str] = []
    path = directory / OPTIONAL_FILES["statistics"]
    if path.is_file():
        extra = directory / "hypotheses.json"
        try:
            hypotheses = parse_hypotheses_file(extra.read_text(encoding="utf-8")) if extra.is_file() else None
            statistics = statistics_input(parse_stats_file(path.read_text(encoding="utf-8")), hypotheses)
        except HypothesesFileError as error:
            notes.append(f"{extra.name} is not shown: {error}")
        except ValidationError as error:  # the rows in the page's shape
            notes.append(not_shown(error, path.name))
        except (OSError, ValueError, KeyError, TypeError, StatsFileError) as error:  # noise, calibration: JSON values
            notes.append(f"{path.name} is not shown: {error}")
    path = directory / OPTIONAL_FILES["compare"]
    if path.is_file():
        try:
            compare, note = compare_rows(json.loads(path.read_text(encoding="utf-8")), path.name)
        except (OSError, ValueError) as error:
            notes.append(f"{path.name} is not shown: {error}")
        else:
            notes += [note] if note is not None else []
    return OptionalResults(statistics, compare), notes


def report_page(
    bundle: str,
    rubric: Rubric,
    rows: Iterable[BaseModel],
    summary: Sequence[BaseModel],
    table: Sequence[Sequence[str]],
    methodology: MethodologyFacts,
    directory: Path,
) -> str:
    """report.html from a run's ledger and summary rows, its methodology facts (run.json) and any
    optional results in `directory`: what the run wrote, so `verify` renders the same bytes."""
    optional, notes = read_optional(directory)
    compare = optional.compare
    stale = stale_compare(compare, rubric, summary)
    if stale:
        compare = None
        notes.append(stale)
    data = page_data(
        bundle=bundle,
        rubric=rubric,
        judges=[{"label": j.label, "model": j.model, "provider": j.provider} for j in methodology.judges],
        rows=rows,
        summary=summary,
        table=table,
        scoring_date=methodology.scoring_date,
        statistics=optional.statistics,
        compare=compare,
        notes=notes,
    )
    if methodology.notices:
        data["notices"] = list(methodology.notices)  # incomplete run, local judge: at the top of the page
    sections = compare_sections(directory)  # in this order: texts, runs, baseline, compare_notes
    if "texts" in sections:
        data["texts"] = sections["texts"]
    if "runs" in sections:
        data["runs"] = sections["runs"]
    if "baseline" in sections:
        data["baseline"] = sections["baseline"]
    if "compare_notes" in sections:
        data["compare_notes"] = sections["compare_notes"]
    return render_html(data, calibration=_calibration(directory, data["rubric"]["scale"]))


def stale_compare(compare: Sequence[CompareRow] | None, rubric: Rubric, summary: Sequence[BaseModel]) -> str | None:
    """Why compare.json is not this run's (an earlier run's or another bundle's), or None when it is."""
    if not compare:
        return None
    if rubric.kind != "compare":
        return f"compare.json is not shown: this run's rubric {rubric.version} is not a compare rubric (the file is another run's)"
    judged = {str(getattr(row, "configuration", "")): getattr(row, "judged", None) for row in summary}
    for pair in compare:
        name = f"{pair.a}+{pair.b}"
        items = pair.wins + pair.ties + pair.losses
        if name not in judged or judged[name] != items or (pair.items is not None and pair.items != items):
            return (
                f"compare.json is not shown: its pair {pair.a} vs {pair.b} ({items} items) is not this run's "
                f"(judged here: {judged.get(name, 'no such pair')}); it is from an earlier run or another bundle"
            )
    return None


def _calibration(directory: Path, scale: Sequence[float]) -> str:
    """The Calibration section from stats.json's `calibration`, when the run had human labels."""
    from .calibration import calibration_html

    try:
        stats = read_stats_file(directory / "stats.json")
    except StatsFileError:
        return ""
    return calibration_html(stats.calibration, scale)


def compare_sections(directory: Path) -> CompareSections:
    """The baseline and history parts of the page, from the files beside the ledger: texts.json (the capture view's prompt,
    context and answer), runs.json (the earlier runs), baseline.json (Since baseline)."""
    from .baseline import BASELINE_JSON
    from .baselinedata import BaselineDataError, parse_baseline_comparison
    from .runs import RUNS_NAME, RunsFile
    from .texts import read_texts

    sections: CompareSections = {}
    texts, note = read_texts(directory)
    if texts is not None:
        sections["texts"] = texts.shown()
    problems = [note] if note else []
    path = directory / RUNS_NAME
    if path.is_file():
        try:
            sections["runs"] = RunsFile.model_validate_json(path.read_text(encoding="utf-8")).runs
        except ValidationError as error:
            problems.append(not_shown(error, RUNS_NAME))
        except (OSError, UnicodeDecodeError) as error:
            problems.append(f"{RUNS_NAME} is not shown: {error}")
    if (directory / BASELINE_JSON).is_file():
        try:
            sections["baseline"] = parse_baseline_comparison((directory / BASELINE_JSON).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, BaselineDataError) as error:
            problems.append(f"{BASELINE_JSON} is not shown: {error}")
    if problems:
        sections["compare_notes"] = problems
    return sections
