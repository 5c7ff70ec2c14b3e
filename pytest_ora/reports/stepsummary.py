"""The CI step summary: a short Markdown account of a run (its table, gates, regressions) appended to a file.

GitHub Actions shows the file named by GITHUB_STEP_SUMMARY on the job's page. The account is written from
the report's own data files (run.json, summary.json, baseline.json) and the gates' verdicts; every name a
user gave is escaped so it cannot break the Markdown, and every text passes the credential redaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..bundle.secrets import redact_shapes
from ..core.credentials import redact
from ..core.errors import OraError
from .aggregation import public_cells
from .baseline import BASELINE_JSON
from .baselinedata import BaselineComparison, BaselineDataError, read_baseline_comparison
from .renderers import RUN_DATA, summary_table_of
from .runfile import RunFileError, read_run_file

__all__ = ["GateLine", "append_step_summary", "escape", "step_summary_markdown"]

Shown = Callable[[str], str]
"""A text as the summary shows it: credentials redacted, Markdown escaped."""

_CHANGES_SHOWN = 10
"""The largest per-capture falls listed; the rest are counted (baseline.md lists them all)."""
_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]<>|~#&!"} | {"\n": " ", "\r": " ", "\t": " "})


@dataclass(frozen=True)
class GateLine:
    """One gate's verdict as the step summary shows it."""

    name: str
    """The option and its threshold as given ('--ora-fail-under 7')."""
    holds: bool
    details: tuple[str, ...]
    """What holding means, or one message per failing configuration."""


def escape(text: str) -> str:
    """Text shown as written: Markdown's special characters backslash-escaped, line breaks as spaces."""
    return text.translate(_SPECIAL)


def step_summary_markdown(
    directory: Path,
    gates: Sequence[GateLine],
    *,
    secrets: Sequence[str] = (),
    unwritten: str | None = None,
) -> str:
    """The run's account from the report in `directory`; `unwritten` says why this run wrote no report."""

    def shown(text: str) -> str:  # redacted before it is escaped, so an escaped key cannot slip past
        return escape(redact(redact_shapes(text), list(secrets)))

    lines = _heading(directory, unwritten, shown)
    if unwritten is None:
        lines += _table(directory, shown)
    lines += _gates(gates, shown)
    if unwritten is None:
        lines += _regressions(directory, shown)
    return "\n".join(lines) + "\n"


def append_step_summary(path: Path, text: str) -> None:
    """Append `text` to the step summary file in one write, a blank line before it when the file holds some."""
    with path.open("a", encoding="utf-8") as handle:
        handle.write(("\n" if handle.tell() else "") + text)


def _heading(directory: Path, unwritten: str | None, shown: Shown) -> list[str]:
    try:
        run = read_run_file(directory / RUN_DATA) if unwritten is None else None
    except RunFileError:
        run, unwritten = None, "its run data could not be read back"
    if run is None:
        return ["## pytest-ora", "", shown(f"No report was written: {unwritten}."), ""]
    facts = run.methodology
    lines = [f"## pytest-ora: {shown(run.bundle)}", ""]
    status = dict(facts.outcomes) if facts is not None else {}
    judged = ", ".join(f"{count} {name}" for name, count in status.items() if count)
    about = [
        f"rubric {run.rubric}",
        f"{facts.selected if facts is not None else 0} captures selected" + (f" ({judged})" if judged else ""),
        f"record mode {facts.record_mode if facts is not None else ''}",
    ]
    if run.pytest_ora_version:
        about.append(f"pytest-ora {run.pytest_ora_version}")
    lines += [shown("; ".join(about) + "."), ""]
    if facts is None:
        return lines
    if not facts.complete:
        lines += [f"**Incomplete run**: stopped by {shown(str(facts.stopped_by))}.", ""]
    for notice in facts.notices:
        lines += [f"> {shown(notice)}", ""]
    return lines


def _table(directory: Path, shown: Shown) -> list[str]:
    try:
        rubric, table = summary_table_of(directory)
    except (OraError, OSError, ValueError, KeyError):
        return ["The configuration table could not be read back from summary.json.", ""]
    headings, rows = public_cells(table, rubric)
    return [
        "| " + " | ".join(shown(cell) for cell in headings) + " |",
        "| " + " | ".join(["---"] + ["---:"] * (len(headings) - 1)) + " |",
        *("| " + " | ".join(shown(cell) for cell in row) + " |" for row in rows),
        "",
    ]


def _gates(gates: Sequence[GateLine], shown: Shown) -> list[str]:
    lines = ["### Gates", ""]
    if not gates:
        return [*lines, "No gate was set.", ""]
    for item in gates:
        verdict = "held" if item.holds else "FAILED"
        details = "; ".join(item.details)
        lines.append(f"- {shown(item.name)}: **{verdict}**" + (f": {shown(details)}" if details else ""))
    return [*lines, ""]


def _regressions(directory: Path, shown: Shown) -> list[str]:
    path = directory / BASELINE_JSON
    if not path.is_file():
        return []
    try:
        data = read_baseline_comparison(path)
    except BaselineDataError:
        return ["### Since the baseline", "", f"{BASELINE_JSON} could not be read back.", ""]
    return _comparison(data, shown)


def _comparison(data: BaselineComparison, shown: Shown) -> list[str]:
    lines = [
        "### Since the baseline",
        "",
        f"{data.shared} captures in both runs. A configuration regressed when its paired 95% interval of the "
        "difference in mean overall (this run minus the baseline) lies below 0.",
        "",
        "| Configuration | n | Difference | 95% interval | Regressed |",
        "| --- | ---: | ---: | --- | --- |",
    ]
    for row in data.configurations:
        flag = "**yes**" if row.regressed else ("no, improved" if row.improved else "no")
        difference = "" if row.mean_difference is None else f"{row.mean_difference:+.2f}"
        interval = "" if row.interval is None else f"[{row.interval[0]:.2f}, {row.interval[1]:.2f}]"
        lines.append(f"| {shown(row.configuration)} | {row.n} | {difference} | {interval} | {flag} |")
    falls = sorted((c for c in data.changes if c.change < 0), key=lambda c: (c.change, c.capture_id))
    lines += ["", f"Captures whose overall fell by at least {data.regression_min:g}: {len(falls)}."]
    for change in falls[:_CHANGES_SHOWN]:
        lines.append(
            f"- {shown(change.capture_id)} ({shown(change.configuration)}): {change.baseline:.2f} -> "
            f"{change.current:.2f} ({change.change:+.2f})"
        )
    if len(falls) > _CHANGES_SHOWN:
        lines.append(f"- and {len(falls) - _CHANGES_SHOWN} more (baseline.md lists every one)")
    return [*lines, ""]
