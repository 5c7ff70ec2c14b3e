"""The controller: keeps to the run's events (start, each finished record, the session end) and their state.

Like pytest-xdist's DSession it runs in the process that owns the terminal (the xdist controller,
or the only process of a run without -n); it never runs an item. The items' records reach it on
their reports (harness/worker.py puts them there). The checks before the run are in
harness/startchecks.py (those of the options and files at configure time), the terminal lines in harness/reporter.py, the facts the report states in
harness/runfacts.py, the report's writing (and its thread) in harness/reportwriting.py.
"""

from __future__ import annotations

import sys
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import pytest

from ..core.errors import OraError
from ..core.plan import Plan
from ..core.record import RecordStore, record_from_text
from ..reports.aggregation import SummaryRow, summarize
from ..reports.charts import charts_available
from ..reports.judgesites import all_local
from ..reports.methodology import RunFacts
from ..reports.output import OutputDir
from .gates import GateContext, GateResult, any_set, evaluate, gate_reports
from .outcomes import drop_record, junit_lowscore, junit_only
from .progress import LiveProgress
from .provenance import run_moment
from .reporter import RunReporter
from .reportwriting import ReportWriting, written_baseline_comparison, written_calibration
from .run import NO_BUNDLE, OraRun
from .runfacts import run_facts
from .signals import SignalGuard
from .startchecks import OptionChecks, check_live, check_options
from .stepsummary import write_step_summary
from .strategy import JudgingStrategy, judging_strategy
from .warmup import WarmUp
from .xdist import distributes, stop_controller

if TYPE_CHECKING:
    from ..bundle.labels import LabelSet
    from ..bundle.preferences import PreferenceSet

__all__ = ["OraController"]
_SETTLE_SECONDS = 10.0
"""Longest an interrupt waits for the warm-up's imports to end before it is raised (see harness/signals.py)."""


class OraController:
    """One run's controller state: the output directory, the records, the report and the gates."""

    def __init__(self, run: OraRun) -> None:
        self.run = run
        self.config = run.config
        self.options = run.options
        self.started = run_moment()
        """When the run started (UTC; the reproducible-build moment when SOURCE_DATE_EPOCH is set)."""
        self._output: OutputDir | None = None
        self.records = RecordStore()
        """Every finished capture's record, compressed until the report reads them."""
        self.claimed = False
        """The output directory is this run's: the checks passed and the report will be written."""
        self.selected: int | None = None
        """Captures this run selected (after -k / -m), once collected."""
        self.estimates: dict[str, dict[str, Any]] = {}
        self.unjudged: list[str] = []
        """Captures not started: the budget was reached."""
        self._summarized: tuple[int, list[SummaryRow]] | None = None
        self._added = 0
        """Records kept so far (one kept again counts again): what a summary was made from."""
        self.report_error: str | None = None
        self.kept_last = False
        """The run scored nothing and had no judge error, so it left the last report in --ora-out as it was."""
        """Why the report could not be written at the end (a full disk, a vanished directory), if so."""
        self.gate_failures: list[str] = []
        """Quality gates that failed (--ora-fail-under, --ora-fail-lowscore-pct): said on the terminal; exit 1."""
        self.progress: LiveProgress | None = None
        self.journal_error: str | None = None
        """Why a ledger row could not be journaled mid-run (a full disk), if so; the run stopped there."""
        self.session: pytest.Session | None = None
        self._writing = ReportWriting(self._write)
        self._warm_up = WarmUp()
        """The session end's libraries, imported while a live run's judges work (harness/warmup.py)."""
        self.signals = SignalGuard(settle=lambda: self._warm_up.wait(timeout=_SETTLE_SECONDS))
        self.judging: JudgingStrategy = judging_strategy(run)
        """Live or batch judging (--ora-batch), and what its step before the items did."""
        self.labels: LabelSet | PreferenceSet | None = None
        """Human labels (--ora-labels or bundle.yaml `labels:`), checked at start."""
        self.gate_results: list[GateResult] = []
        """Every set gate's verdict (harness.gates), holding or failing."""
        self.facts: RunFacts | None = None
        """What the report said about the run (complete, stopped_by), once it was written."""
        self.reporter = RunReporter(self)
        """The run's terminal lines (harness/reporter.py)."""
        self._checks: OptionChecks | None = None
        """What the configure-time checks read (None before them, or under --collect-only)."""

    def plan(self) -> Plan:
        return self.run.plan()

    def configure(self) -> None:
        """The checks of the options and files, when pytest configures: a usage error stops the run before collection."""
        self._checks = check_options(self.run, self.config)
        if self._checks is not None:
            self.labels = self._checks.labels

    def start(self) -> None:
        """A live run's judges checked, then the output directory claimed, before any item runs."""
        checks = self._checks
        plan = self.plan()
        self.records = RecordStore([planned.capture.capture_id for planned in plan.captures])
        if checks is None:
            return  # --collect-only: nothing is judged; leave the judges and the last report alone
        live = check_live(self.run)
        if live and self.config.get_verbosity() >= 0:
            budget = None if self.options.budget_usd is None else Decimal(str(self.options.budget_usd))
            self.progress = LiveProgress(self.run.in_flight_log(), self.run.prices(), budget)
            self.progress.priced_only = all_local(plan)
            self.progress.candidates = bool(plan.bundle.manifest.candidates)
        self._output = OutputDir(self.options.out)
        self._output.baseline, self._output.regression_min = checks.baseline, self.options.regression_min
        try:
            self._output.claim(estimate=self.options.dry_run or self.options.generate_only)
        except OraError as error:
            raise pytest.UsageError(str(error)) from None
        self.claimed = True
        self.signals.install()

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Under xdist a worker's missing-bundle collection error reaches the controller only as a report."""
        usage_errors = self.run.usage_errors
        if report.failed and NO_BUNDLE in str(report.longrepr) and NO_BUNDLE not in usage_errors:
            usage_errors.append(NO_BUNDLE)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Any:
        """Keep a finished item's record and journal it; then let no report keep it.

        The terminal reporter keeps every report to the end: once its record is kept here, the
        report drops it.
        """
        self._keep(report)
        try:
            return (yield)
        finally:
            junit_lowscore(self.config, report, self.reporter.failure_rule)
            drop_record(report)

    def _keep(self, report: pytest.TestReport) -> None:
        if self._output is None:
            return
        estimate = getattr(report, "ora_estimate", None)
        if estimate is not None:
            self.estimates[estimate["capture_id"]] = estimate
        text: str | None = getattr(report, "ora_record", None)  # the worker's record_text()
        if text is None:
            return
        record = record_from_text(text)
        self._added += 1
        if record["status"] == "budget":
            self.unjudged.append(record["capture_id"])
        if self.journal_error is not None:
            self.records.add(record, text=text)
            return
        line: str | None = None
        try:
            line = report.ora_ledger  # the worker makes it with the record
            self._output.append(line)
        except OraError as error:
            # Raised from a hook it would be an INTERNALERROR; instead the run stops starting captures
            # (their results could not be kept) and says why at the end, with exit code 4.
            self.journal_error = str(error)
            stop = "ora: the ledger journal could not be written (see the ora summary)"
            if self.session is not None:
                self.session.shouldstop = stop
            stop_controller(self.config, stop)
        finally:
            self.records.add(record, line, text)  # the report's ledger writes the very line journaled now
        if self.progress is not None:
            self.reporter.show_progress(record)

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Any:
        """Around every plugin's session end: signals wait until the report is written and the lock released."""
        self.signals.hold()
        try:
            if self.run.active and not self._writing.finished:
                if self.options.fail_calibration is not None or self.options.fail_regression:
                    # These gates read the statistics and the baseline comparison, which the report computes: write it
                    # now, before junitxml writes its file, so the gate can still be a testcase there.
                    self.finish(int(session.exitstatus))
                self.report_gates()
                if not self._writing.finished and distributes(self.config):
                    self._writing.meanwhile(int(session.exitstatus))
            return (yield)
        finally:
            if self.run.active:
                self.finish(int(session.exitstatus))  # waits for the report; writes it if another hook raised first
                write_step_summary(self)  # --ora-step-summary: the table, the gates, the regressions
            self.signals.restore()
            if self.signals.held is not None:
                import signal

                name = signal.Signals(self.signals.held).name
                sys.stderr.write(f"ora: {name} arrived while the report was written; it was finished first\n")
                session.exitstatus = pytest.ExitCode.INTERRUPTED

    def finish(self, exitstatus: int) -> None:
        """Write the report from what was collected, even after an interruption; once (or wait for it)."""
        self._writing.finish(exitstatus)

    def _write(self, exitstatus: int) -> None:
        if not self.claimed or self._output is None:
            return
        try:
            if self.options.dry_run:
                self._output.write_estimate(self.plan(), list(self.estimates.values()))
            elif self.options.generate_only:
                self._output.write_generated(self.plan(), self.records)
            else:
                self._warm_up.wait()
                self.facts = run_facts(self, self.reporter, exitstatus)
                # Nothing scored and no judge call failed (an empty selection, only skips): the last report stays.
                # An interrupted or stopped run still writes its (incomplete) report.
                self.kept_last = self.facts.complete and not any(
                    record["status"] in ("scored", "error") for record in self.records
                )
                if self.kept_last:
                    self._output.keep_last_report()
                else:
                    self._output.write_report(self.plan(), self.records, self.facts, self.summary())
        except OraError as error:
            self.report_error = str(error)  # said in the terminal summary; the run exits with a usage error
        finally:
            self._output.release()

    def note_selection(self, nodeids: list[str]) -> None:
        """Count the captures this run selected (after -k / -m), from collected node ids."""
        known = {planned.capture.capture_id for planned in self.plan().captures}
        self.selected = sum(1 for nodeid in nodeids if _param(nodeid) in known)
        if self.claimed and self.options.record != "none" and not (self.options.dry_run or self.options.generate_only):
            self._warm_up.start(charts=charts_available())  # a live run: its session end computes afresh

    def judge_before_items(self, nodeids: list[str]) -> None:
        """The judging strategy's step before any item runs (--ora-batch submits the first asks here)."""
        if not self.claimed:
            return  # --collect-only, or a start that stopped: nothing is judged
        known = {planned.capture.capture_id: planned for planned in self.plan().captures}
        self.judging.before_items([known[_param(nodeid)] for nodeid in nodeids if _param(nodeid) in known])

    def summary(self) -> list[SummaryRow]:
        """The summary rows of the records kept so far: the gates and the terminal ask for the same ones."""
        if self._summarized is None or self._summarized[0] != self._added:
            plan = self.plan()
            self._summarized = (self._added, list(summarize(self.records, plan.lanes, plan.rubric)))
        return self._summarized[1]

    def report_gates(self) -> None:
        """Before junitxml writes its file: each failing gate as a failed testcase ora-gate::<option>."""
        if not self.claimed or self.options.dry_run or self.options.generate_only:
            return
        try:
            # No gate set: the summary is left to the report, which under xdist is written while the workers exit.
            self.gate_results = self._gate() if any_set(self.options) else []
        except Exception as error:  # a gate must never cost the report: the session end says it failed
            self.gate_results = [GateResult("gates", "", (f"could not be evaluated: {error}",))]
        self.gate_failures = [
            f"{result.name}: {message}" for result in self.gate_results for message in result.failures
        ]
        for report in gate_reports(self.gate_results):
            self.config.hook.pytest_runtest_logreport(report=report)
        junit_only(self.config, gate_reports(self.gate_results, held=True))  # a held gate: a passed testcase

    def _gate(self) -> list[GateResult]:
        """Every set CI gate's verdict on this run's summary (harness.gates); the report is written first when they read it."""
        plan = self.plan()
        summary = [(row.model_dump()["configuration"], values) for row, values in self.summary()]
        out = None if self._output is None else self._output.path
        calibration = (
            written_calibration(out) if out is not None and self.options.fail_calibration is not None else None
        )
        baseline = written_baseline_comparison(out) if out is not None and self.options.fail_regression else None
        return evaluate(GateContext(self.options, plan.rubric, summary, calibration, baseline))

    def close(self) -> None:
        self.run.limits.close()


def _param(nodeid: str) -> str:
    _head, _, rest = nodeid.partition("[")
    return rest[:-1] if rest.endswith("]") else ""
