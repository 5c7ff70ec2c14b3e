"""The run's terminal lines: live progress, the ora summary, how much of the bundle was selected, the spend.

Like xdist's terminal reporter beside its DSession: the controller keeps to the run's events, this
module says them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from ..core.numbers import round_half_away
from ..core.plan import Pair
from ..core.record import CaptureRecord
from ..method.kinds import terminal_lines
from ..reports.aggregation import fit_table, public_row
from ..reports.judgesites import CANDIDATE_SPEND_HEADING, all_local
from ..reports.methodology import secret_lines
from ..reports.notes import incomplete_notice
from ..reports.output import estimate_table
from ..reports.spend import candidate_spend, candidate_spend_lines, judge_spend, priced_total, spend_lines
from .candidates.summary import candidate_lines, generated_lines
from .drift import drift_lines
from .runstate import RunState
from .selection import Selection, selection_for

__all__ = ["RunReporter"]


class RunReporter:
    """Says the controller's run on the terminal."""

    def __init__(self, controller: RunState) -> None:
        self.controller = controller

    def show_progress(self, record: CaptureRecord) -> None:
        """A live run's progress line, when one is due."""
        run = self.controller
        progress = run.progress
        assert progress is not None
        progress.total = run.selected
        progress.add(record)
        reporter = run.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and progress.due():
            # Start on a line of its own: after -n N's progress dots ensure_newline() alone does not.
            reporter.ensure_newline()
            if getattr(reporter, "_width_of_current_line", 0):
                reporter.write("\n")
            reporter.write_line(progress.line())

    def selection(self) -> Selection:
        """How much of the bundle this run selected, and by what."""
        run = self.controller
        total = len(run.plan().captures)
        selected = run.selected if run.selected is not None else len(run.records)
        return selection_for(run.config, selected, total)

    def spend(self) -> list[str]:
        """Live judge spend per judge (tokens x price) and the total; empty when nothing was called live."""
        run = self.controller
        try:
            prices = run.run.prices()
        except pytest.UsageError:
            prices = {}
        batched = run.judging.summary.usd if run.judging.summary is not None else None
        return spend_lines(judge_spend(run.records, prices), batched)

    def candidate_spend(self) -> list[str]:
        """Live candidate spend per candidate configuration, apart from the judges', and both together; empty when
        no candidate was called live."""
        run = self.controller
        try:
            prices = run.run.prices()
        except pytest.UsageError:
            prices = {}
        batched = run.judging.summary.usd if run.judging.summary is not None else None
        return candidate_spend_lines(
            candidate_spend(run.records), priced_total(judge_spend(run.records, prices), batched)
        )

    def failure_rule(self) -> str:
        """Why a low score is low, after its overall: '< 4.0' (ora-1.0), or the vote that failed it."""
        rubric = self.controller.plan().rubric
        if rubric.failure_below is None:
            return f"({rubric.failure_vote} vote)"
        return f"< {round_half_away(rubric.failure_below, 1)}"

    def summary_lines(self, width: int = 200) -> list[str]:
        """The terminal's ora summary; nothing when the run wrote nothing (--collect-only, a stopped start)."""
        run = self.controller
        if not run.claimed:
            return []
        plan = run.plan()
        options = run.options
        if options.dry_run:
            return [
                *estimate_table(list(run.estimates.values())).splitlines(),
                "",
                f"ora: estimate written to {options.out} (the last report there is untouched)",
            ]
        if options.generate_only:
            if run.report_error is not None:
                return [f"ora: CAPTURES NOT WRITTEN: {run.report_error}"]
            return generated_lines(run.records, options.out)
        table = [public_row(row, values, plan.rubric) for row, values in run.summary()]
        banner = self.selection().banner()
        lines = [f"ora: {banner}"] if banner else []
        incomplete = incomplete_notice(run.facts) if run.facts is not None else None
        if incomplete is not None:
            lines.insert(0, f"ora: {incomplete}")
        lines += drift_lines(run.records, run.config)
        compare = plan.rubric.kind == "compare"
        # A compare run's table is its pairs' head to head (the kind's lines below): no configuration table.
        lines += [] if run.kept_last or compare else fit_table(table, width, plan.rubric)
        spend = self.spend()
        if spend:
            heading = (
                "judge spend this run (tokens x price)"
                if not all_local(plan)
                else "judges on this machine, nothing paid; at the named models' prices this run's calls would cost (tokens x price)"
            )
            lines += [*([""] if lines else []), f"ora: {heading}: " + "; ".join(spend)]
        candidates = self.candidate_spend()
        if candidates:
            lines += [
                f"ora: {CANDIDATE_SPEND_HEADING[0].lower()}{CANDIDATE_SPEND_HEADING[1:]}: " + "; ".join(candidates)
            ]
        lines += candidate_lines(run.records)
        lines += [result.line() for result in run.gate_results]
        written = (
            f"ora: report written to {options.out}"
            if run.report_error is None
            else f"ora: REPORT NOT WRITTEN: {run.report_error}"
        )
        if run.kept_last and run.report_error is None:
            written = f"ora: nothing scored in this run: the last report in {options.out} is left as it was"
        if compare and not run.kept_last:
            lines += _pairs_left_out(table)
        lines += terminal_lines(run.records, plan.rubric)
        if plan.rubric.kind == "compare" and run.report_error is None and not run.kept_last:
            lines += _preference_lines(options.out)
        stopped = [] if run.journal_error is None else [f"ora: STOPPED: {run.journal_error}"]
        progress = [run.progress.line(final=True), ""] if run.progress is not None else []
        return [*progress, *lines, "", *secret_lines(run.records), *stopped, written]


def _pairs_left_out(table: Sequence[Sequence[str]]) -> list[str]:
    """A compare run's items not in its head to head, per pair (public rows: pair, judged, unscorable, excluded, errors)."""
    lines = []
    for row in table:
        pair, judged, unscorable, excluded, errors = row[:5]
        counts = ((unscorable, "unscorable"), (excluded, "excluded"), (errors, "errors"))
        left = [f"{n} {what}" for n, what in counts if n != "0"]
        if left:
            named = Pair.of(pair)
            lines.append(
                f"ora: pair {named.first} vs {named.second}: {judged} items judged; "
                f"not in the head to head: {', '.join(left)}"
            )
    return ["", *lines] if lines else []


def _preference_lines(out: Path | None) -> list[str]:
    """A compare run's calibration against people's preferences, from the stats.json it just wrote (none without labels)."""
    from ..reports.preference import preference_terminal
    from .reportwriting import written_calibration

    data = written_calibration(out) if out is not None else None
    return ["", *preference_terminal(data)] if data is not None and data.get("kind") == "preference" else []
