"""`python -m pytest_ora verify DIR`: every report re-rendered from the directory's machine-written data.

It runs the renderers the session end ran (reports/renderers.py) over the same data files; a
report whose bytes differ from its rendering was edited by hand (or its data was): verify names
the file and the first line that differs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from .renderers import (
    ALWAYS_WRITTEN,
    DATA_FILES,
    RENDERERS,
    RUN_DATA,
    Renderer,
    VerifyError,
    _run,
    ledger_rows,
    register,
    run_data,
)

__all__ = [
    "ALWAYS_WRITTEN",
    "DATA_FILES",
    "RENDERERS",
    "RUN_DATA",
    "Renderer",
    "VerifyError",
    "ledger_rows",
    "register",
    "run_data",
    "verify",
]


def _first_difference(written: str, rendered: str) -> int:
    for number, (left, right) in enumerate(zip(written.splitlines(), rendered.splitlines()), start=1):
        if left != right:
            return number
    return min(len(written.splitlines()), len(rendered.splitlines())) + 1


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _links_problem(directory: Path, report: str, written: str, section: str) -> str | None:
    """Why a report with a person's section fails verify: that section's heading gone, or a link to no file."""
    if section not in written.splitlines():
        return f"{report}: its {section.lstrip('# ')} section heading is missing"
    for target in _LINK.findall(written.partition(section)[0]):
        if "/" in target or target.startswith(".") or not (directory / target).is_file():
            return f"{report}: links {target}, which is not a file beside it"
    return None


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
        if renderer.person_section is not None:
            problem = _links_problem(directory, renderer.report, written, renderer.person_section)
            if problem is not None:
                edited.append(problem)
                continue
            written, rendered = (text.partition(renderer.person_section)[0] for text in (written, rendered))
        if written == rendered:
            matched.append(f"{renderer.report} (from {', '.join(renderer.inputs)})")
        else:
            line = _first_difference(written, rendered)
            edited.append(
                f"{renderer.report}: edited by hand: line {line} differs from its rendering of {', '.join(renderer.inputs)}"
            )
    if (directory / RUN_DATA).is_file():
        # Every run writes these: one that is gone was deleted, and nothing else would say so.
        edited += [
            f"{name}: missing: every run writes it (deleted?)"
            for name in ALWAYS_WRITTEN
            if not (directory / name).is_file()
        ]
        if (directory / "ledger.jsonl").is_file():
            from .crosscheck import cross_check

            _, rubric = _run(directory)
            rows = [
                json.loads(line)
                for line in (directory / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
                if line.strip()
            ]
            edited += cross_check(directory, rubric, rows)
    checked = {renderer.report for renderer in RENDERERS}
    data = {name for renderer in RENDERERS for name in renderer.inputs} | set(DATA_FILES)
    unchecked = sorted(
        path.name
        for path in directory.iterdir()
        if path.is_file() and not path.name.startswith(".") and path.name not in checked | data
    )
    return matched, edited, unchecked
