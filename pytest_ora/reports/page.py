"""The report page of a finished run: its page data from the run's rows, then the HTML."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from ..bundle.intake import Plan
from .html import render_html
from .methodology import RunFacts
from .pagedata import optional_section, page_data

__all__ = ["OPTIONAL_FILES", "read_optional", "report_page"]

OPTIONAL_FILES = {"statistics": "stats.json", "compare": "compare.json"}
"""Results other parts of a run may write beside the tables; the page shows them when present."""


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
        value, note = optional_section(section, raw, name)
        if value is not None:
            found[section] = value
        if note is not None:
            notes.append(note)
    return found, notes


def report_page(
    plan: Plan,
    rows: Sequence[BaseModel],
    summary: Sequence[tuple[BaseModel, dict[str, Fraction | None]]],
    table: Sequence[Sequence[str]],
    facts: RunFacts,
    directory: Path,
) -> str:
    """report.html for a run's ledger rows and summary, with any optional results in `directory`."""
    optional, notes = read_optional(directory)
    data = page_data(
        bundle=plan.bundle.manifest.bundle,
        rubric=plan.rubric,
        judges=[{"label": j.label, "model": j.spec.model, "provider": j.spec.provider} for j in plan.panel.judges],
        rows=rows,
        summary=[row for row, _ in summary],
        table=table,
        scoring_date=facts.scoring_date,
        statistics=optional.get("statistics"),
        compare=optional.get("compare"),
        notes=notes,
    )
    return render_html(data)
