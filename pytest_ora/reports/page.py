"""The report page of a finished run: its page data from the run's rows, then the HTML."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..core.rubric import Rubric
from .html import render_html
from .pagedata import optional_section, page_data

__all__ = ["OPTIONAL_FILES", "read_optional", "report_page", "stale_compare"]

OPTIONAL_FILES = {"statistics": "stats.json", "compare": "compare.json"}
"""Results other parts of a run may write beside the tables; the page shows them when present."""


def statistics_input(stats: Any, hypotheses: Any) -> Any:
    """stats.json (and hypotheses.json) in the page's statistics shape; anything else is passed on to be checked."""
    if not isinstance(stats, dict) or "comparisons" not in stats:
        return stats
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

    agreement = stats.get("agreement") or {}
    rows = [*(agreement.get("criteria") or []), *([agreement["overall"]] if agreement.get("overall") else [])]
    alpha = float((stats.get("pairs") or {}).get("alpha", 0.05))
    extended = "pairs" in stats
    few = int(agreement.get("captures") or 0) < SMALL_ROWS and extended
    result: dict[str, Any] = {
        "configurations": {
            c["configuration"]: {
                "overall_interval": shown_interval(c),
                "failure_interval": c.get("failure_rate_interval"),
                "interval_method": c.get("interval_method"),
                "small_n": c.get("small_n"),
            }
            for c in stats.get("configurations") or []
        },
        "agreement": {
            r["criterion"]: {
                "alpha": r.get("krippendorff_alpha"),
                "kappa": r.get("quadratic_kappa"),
                "exact": r.get("exact"),
                "within_one": r.get("within_one"),
                "alpha_interval": None if few else r.get("alpha_interval"),
                "alpha_interval_note": TOO_FEW if few else None,
                "alpha_ordinal": r.get("alpha_ordinal"),
                "fleiss_kappa": r.get("fleiss_kappa"),
                "icc_2k": r.get("icc_2k"),
            }
            for r in rows
        },
        "paired": [
            {
                "a": c["first"],
                "b": c["second"],
                "n": c["n"],
                "mean_difference": c["mean_difference"],
                "interval": shown_interval(c),
                "p_value": c.get("p_value"),
                "p_holm": c.get("p_holm"),
                **(
                    {
                        "interval_method": c.get("interval_method"),
                        "small_n": c.get("small_n"),
                        "p_shown": p_text(c.get("p_value"), bool(c.get("p_floor"))),
                        "p_holm_shown": p_text(c.get("p_holm"), bound=bool(c.get("p_holm_bound"))),
                        "p_t": c.get("p_t"),
                        "mde_80_adjusted": c.get("mde_80_adjusted"),
                        "reading": reading(c, alpha, int((stats.get("pairs") or {}).get("holm_family", 1))),
                    }
                    if extended
                    else {}
                ),
            }
            for c in stats["comparisons"]
            if c.get("mean_difference") is not None
        ],
    }
    if stats.get("recorded_calibration"):
        result["recorded_calibration_note"] = recorded_calibration_line(stats["recorded_calibration"])
    if extended:
        result["intervals_note"] = INTERVAL_WORDS
        if stats.get("noise"):
            result["noise_note"] = noise_words(stats["noise"])
        judges = stats.get("judges") or []
        result["judges"] = [{"judge": j["judge"], **row} for j in judges for row in j["configurations"]]
        result["self_preference"] = [{"judge": j["judge"], **row} for j in judges for row in j["self_preference"]]
    if isinstance(hypotheses, dict) and hypotheses.get("hypotheses"):
        verdict = hypotheses.get("verdict") or {}
        result["hypotheses"] = {
            "verdict": verdict.get("result"),
            "detail": "; ".join(verdict.get("reasons") or []) or None,
            "null_pass_probability": verdict.get("null_pass_probability"),
            "rows": [
                {**h, "interval": shown_interval(h)}
                for h in hypotheses["hypotheses"]
                if h.get("mean_delta") is not None
            ],
        }
    return result


def read_optional(directory: Path) -> tuple[dict[str, Any], list[str]]:
    """The optional sections found in the output directory, by section name; why any was left out."""
    found: dict[str, Any] = {}
    notes: list[str] = []
    for section, name in OPTIONAL_FILES.items():
        path = directory / name
        if not path.is_file():
            continue
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            notes.append(f"{name} is not shown: {error}")
            continue
        if section == "statistics":
            extra = directory / "hypotheses.json"
            try:
                raw = statistics_input(raw, json.loads(extra.read_text(encoding="utf-8")) if extra.is_file() else None)
            except (OSError, ValueError, KeyError, TypeError) as error:
                notes.append(f"{name} is not shown: {error}")
                continue
        value, note = optional_section(section, raw, name)
        if value is not None:
            found[section] = value
        if note is not None:
            notes.append(note)
    return found, notes


def report_page(
    bundle: str,
    rubric: Rubric,
    rows: Iterable[BaseModel],
    summary: Sequence[BaseModel],
    table: Sequence[Sequence[str]],
    methodology: Mapping[str, Any],
    directory: Path,
) -> str:
    """report.html from a run's ledger and summary rows, its methodology facts (run.json) and any
    optional results in `directory`: what the run wrote, so `verify` renders the same bytes."""
    optional, notes = read_optional(directory)
    stale = stale_compare(optional.get("compare"), rubric, summary)
    if stale:
        optional.pop("compare")
        notes.append(stale)
    data = page_data(
        bundle=bundle,
        rubric=rubric,
        judges=[{"label": j["label"], "model": j["model"], "provider": j["provider"]} for j in methodology["judges"]],
        rows=rows,
        summary=summary,
        table=table,
        scoring_date=methodology["scoring_date"],
        statistics=optional.get("statistics"),
        compare=optional.get("compare"),
        notes=notes,
    )
    if methodology.get("notices"):
        data["notices"] = list(methodology["notices"])  # incomplete run, local judge: at the top of the page
    data.update(compare_sections(directory))
    return render_html(data, calibration=_calibration(directory, data["rubric"]["scale"]))


def stale_compare(
    compare: Sequence[Mapping[str, Any]] | None, rubric: Rubric, summary: Sequence[BaseModel]
) -> str | None:
    """Why compare.json is not this run's (an earlier run's or another bundle's), or None when it is."""
    if not compare:
        return None
    if rubric.kind != "compare":
        return f"compare.json is not shown: this run's rubric {rubric.version} is not a compare rubric (the file is another run's)"
    judged = {str(getattr(row, "configuration", "")): getattr(row, "judged", None) for row in summary}
    for pair in compare:
        name = f"{pair['a']}+{pair['b']}"
        items = int(pair["wins"]) + int(pair["ties"]) + int(pair["losses"])
        if name not in judged or judged[name] != items or pair.get("items", items) != items:
            return (
                f"compare.json is not shown: its pair {pair['a']} vs {pair['b']} ({items} items) is not this run's "
                f"(judged here: {judged.get(name, 'no such pair')}); it is from an earlier run or another bundle"
            )
    return None


def _calibration(directory: Path, scale: Sequence[float]) -> str:
    """The Calibration section from stats.json's `calibration`, when the run had human labels."""
    from .calibration import calibration_html

    try:
        stats = json.loads((directory / "stats.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return calibration_html(stats.get("calibration") if isinstance(stats, dict) else None, scale)


def compare_sections(directory: Path) -> dict[str, Any]:
    """The baseline and history parts of the page, from the files beside the ledger: texts.json (the capture view's prompt,
    context and answer), runs.json (the earlier runs), baseline.json (Since baseline)."""
    from .baseline import BASELINE_JSON
    from .baselinedata import BaselineDataError, parse_baseline_comparison
    from .runs import RUNS_NAME
    from .texts import read_texts

    sections: dict[str, Any] = {}
    texts, note = read_texts(directory)
    if texts is not None:
        sections["texts"] = texts
    problems = [note] if note else []
    path = directory / RUNS_NAME
    if path.is_file():
        try:
            sections["runs"] = json.loads(path.read_text(encoding="utf-8"))["runs"]
        except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
            problems.append(f"{RUNS_NAME} is not shown: {error}")
    if (directory / BASELINE_JSON).is_file():
        try:
            sections["baseline"] = parse_baseline_comparison((directory / BASELINE_JSON).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, BaselineDataError) as error:
            problems.append(f"{BASELINE_JSON} is not shown: {error}")
    if problems:
        sections["compare_notes"] = problems
    return sections
