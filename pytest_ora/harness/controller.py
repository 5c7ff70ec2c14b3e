"""The controller: checks the judges before the run, keeps every finished record, writes the report.

Like pytest-xdist's DSession it runs in the process that owns the terminal (the xdist controller,
or the only process of a run without -n); it never runs an item. The items' records reach it on
their reports (harness/worker.py puts them there).
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ..bundle.design import option_problems
from ..core.errors import IntakeError, OraError
from ..core.numbers import round_half_away
from ..core.plan import Plan
from ..core.record import CaptureRecord, RecordStore, record_from_text
from ..core.vocabulary import is_live
from ..judges.budget import PRICES_AS_OF, price_for
from ..method.kinds import terminal_lines
from ..reports.charts import charts_available
from ..reports.methodology import RunFacts, secret_lines
from ..reports.notes import incomplete_notice, notices
from ..reports.output import OutputDir, estimate_table
from ..reports.spend import judge_spend, spend_lines
from ..reports.tables import SummaryRow, fit_table, public_row, summarize
from .drift import drift_lines
from .gates import GateContext, GateResult, any_set, evaluate, gate_reports
from .gates import validate as validate_gates
from .options import Options
from .outcomes import drop_record
from .progress import LiveProgress
from .provenance import run_moment, suite_commit, tool_version
from .selection import Selection, selection_for
from .session import NO_BUNDLE, OraRun
from .signals import SignalGuard
from .strategy import JudgingStrategy, judging_strategy
from .warmup import WarmUp
from .xdist import distributes, stop_controller

__all__ = ["OraController"]
_SETTLE_SECONDS = 10.0
"""Longest an interrupt waits for the warm-up's imports to end before it is raised (see harness/signals.py)."""


class OraController:
    """One run's controller state: the output directory, the records, the report and the gates."""

    def __init__(self, run: OraRun) -> None:
        self.run = run
        self.config = run.config
        self.options = run.options
        self._started = run_moment()
        self._output: OutputDir | None = None
        self._records = RecordStore()
        """Every finished capture's record, compressed until the report reads them."""
        self._claimed = False
        self._selected: int | None = None
        self._estimates: dict[str, dict[str, Any]] = {}
        self._unjudged: list[str] = []
        self._summarized: tuple[int, list[SummaryRow]] | None = None
        self._added = 0
        """Records kept so far (one kept again counts again): what a summary was made from."""
        self.report_error: str | None = None
        """Why the report could not be written at the end (a full disk, a vanished directory), if so."""
        self.gate_failures: list[str] = []
        """Quality gates that failed (--ora-fail-under, --ora-fail-lowscore-pct): said on the terminal; exit 1."""
        self._progress: LiveProgress | None = None
        self.journal_error: str | None = None
        """Why a ledger row could not be journaled mid-run (a full disk), if so; the run stopped there."""
        self.session: pytest.Session | None = None
        self._finished = False
        self._writing: threading.Thread | None = None
        """Under xdist, the report being written while xdist's session end waits for the workers to exit."""
        self._writing_error: BaseException | None = None
        self._warm_up = WarmUp()
        """The session end's libraries, imported while a live run's judges work (harness/warmup.py)."""
        self.signals = SignalGuard(settle=lambda: self._warm_up.wait(timeout=_SETTLE_SECONDS))
        self.judging: JudgingStrategy = judging_strategy(run)
        """Live or batch judging (--ora-batch), and what its step before the items did."""
        self.labels: Any = None
        """Human labels (--ora-labels or bundle.yaml `labels:`), checked at start."""
        self.gate_results: list[GateResult] = []
        """Every set gate's verdict (harness.gates), holding or failing."""
        self.facts: RunFacts | None = None
        """What the report said about the run (complete, stopped_by), once it was written."""

    def plan(self) -> Plan:
        return self.run.plan()

    def start(self) -> None:
        """Intake, judge checks and the output directory, before any item runs."""
        plan = self.plan()
        wrong = option_problems(
            plan.bundle.manifest.configurations, [item.capture for item in plan.bundle.captures], self.options.cluster,
            self.options.reference, self.options.pairs,
        )
        if wrong:
            raise pytest.UsageError("; ".join(wrong))
        if self.options.substitutes and not self.options.panel_label:
            raise pytest.UsageError("--ora-substitute changes the judging panel: name it with --ora-panel-label")
        if self.options.budget_usd is not None:
            unpriced = [j for j in plan.panel.judges if price_for(j.spec.model, self.run.prices()) is None]
            if unpriced:
                names = ", ".join(f"{j.label} ({j.spec.model})" for j in unpriced)
                raise pytest.UsageError(f"--ora-budget-usd needs a price for {names}: add it with --ora-prices FILE")
        if self.options.prices is not None:
            self.run.prices()  # a bad price file is one usage error now, not one failure per capture later
        _check_roles(plan, self.options)
        self.labels = self._labels(plan)
        validate_gates(self.options, plan.rubric)
        self._records = RecordStore([planned.capture.capture_id for planned in plan.captures])
        if self.options.batch and self.options.record not in ("once", "new_episodes"):
            raise pytest.UsageError("--ora-batch records judge calls: use it with --ora-record once or new_episodes")
        if self.config.option.collectonly:
            return  # nothing is judged: leave the judges and the last report alone
        if not self.options.dry_run and is_live(self.options.record) and self._needs_network(plan):
            # Checks a live run makes before its first call; their modules load HTTP clients, which a replay never needs.
            from ..judges.keyguard import check_keys
            from ..judges.reachability import check_reachable, missing_keys
            from ..judges.recordings import RecordingsError, check_bundle, note_recording

            _check_recordable(self.options.cassettes)
            try:
                check_bundle(self.options.cassettes, plan.bundle.manifest.bundle, recording=True, bind=False)
            except RecordingsError as error:
                raise pytest.UsageError(str(error)) from None
            missing = missing_keys(plan.panel, os.environ)
            if missing:
                raise pytest.UsageError("live judging needs API keys: " + "; ".join(missing))
            try:
                check_keys(plan, os.environ)
                check_reachable(plan.panel, os.environ, timeout=self.options.timeout)
            except OraError as error:
                raise pytest.UsageError(str(error)) from None
            # Recording starts now: the directory is this bundle's, and this rubric version joins its record.
            check_bundle(self.options.cassettes, plan.bundle.manifest.bundle, recording=True)
            note_recording(plan.rubric, self.options.cassettes)
            if self.config.get_verbosity() >= 0:
                budget = None if self.options.budget_usd is None else Decimal(str(self.options.budget_usd))
                self._progress = LiveProgress(self.run.in_flight_log(), self.run.prices(), budget)
        baseline = None if self.options.dry_run else self._baseline()
        self._output = OutputDir(self.options.out)
        self._output.baseline, self._output.regression_min = baseline, self.options.regression_min
        try:
            self._output.claim(estimate=self.options.dry_run)
        except OraError as error:
            raise pytest.UsageError(str(error)) from None
        self._claimed = True
        self.signals.install()

    def _baseline(self) -> Any:
        """--ora-baseline's run, read now: claiming the output directory may move it to runs/ (SPEC 18)."""
        from ..reports.baseline import BaselineError, load_baseline, regression_min

        if self.options.baseline is None:
            if self.options.fail_regression:
                raise pytest.UsageError("--ora-fail-regression compares with a baseline: give --ora-baseline DIR")
            return None
        rubric = self.plan().rubric
        span = float(rubric.scale_max) - float(rubric.scale_min)
        if regression_min(self.options.regression_min, (float(rubric.scale_min), float(rubric.scale_max))) > span:
            raise pytest.UsageError(
                f"--ora-regression-min {self.options.regression_min} is more than the rubric's whole scale "
                f"({float(rubric.scale_min):g} to {float(rubric.scale_max):g})"
            )
        try:
            return load_baseline(self.options.baseline)
        except BaselineError as error:
            raise pytest.UsageError(str(error)) from None

    def _needs_network(self, plan: Plan) -> bool:
        if self.options.record in ("all", "new_episodes"):
            return True
        if not plan.panel.judges:
            return False
        from ..judges.cassettes import cassette_path

        judged = (p.capture.capture_id for p in plan.captures if p.status == "judge")
        return any(not cassette_path(self.options.cassettes, cid).is_file() for cid in judged)

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
            drop_record(report)

    def _keep(self, report: pytest.TestReport) -> None:
        if self._output is None:
            return
        estimate = getattr(report, "ora_estimate", None)
        if estimate is not None:
            self._estimates[estimate["capture_id"]] = estimate
        text: str | None = getattr(report, "ora_record", None)  # the worker's record_text()
        if text is None:
            return
        record = record_from_text(text)
        self._added += 1
        if record["status"] == "budget":
            self._unjudged.append(record["capture_id"])
        if self.journal_error is not None:
            self._records.add(record, text=text)
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
            self._records.add(record, line, text)  # the report's ledger writes the very line journaled now
        if self._progress is not None:
            self._show_progress(record)

    def _show_progress(self, record: CaptureRecord) -> None:
        assert self._progress is not None
        self._progress.total = self._selected
        self._progress.add(record)
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and self._progress.due():
            # Start on a line of its own: after -n N's progress dots ensure_newline() alone does not.
            reporter.ensure_newline()
            if getattr(reporter, "_width_of_current_line", 0):
                reporter.write("\n")
            reporter.write_line(self._progress.line())

    @pytest.hookimpl(wrapper=True, tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> Any:
        """Around every plugin's session end: signals wait until the report is written and the lock released."""
        self.signals.hold()
        try:
            if self.run.active and not self._finished:
                if self.options.fail_calibration is not None or self.options.fail_regression:
                    # These gates read the statistics and the baseline comparison, which the report computes: write it
                    # now, before junitxml writes its file, so the gate can still be a testcase there.
                    self.finish(int(session.exitstatus))
                self.report_gates()
                if not self._finished and distributes(self.config):
                    self._write_meanwhile(int(session.exitstatus))
            return (yield)
        finally:
            if self.run.active:
                self.finish(int(session.exitstatus))  # waits for the report; writes it if another hook raised first
            self.signals.restore()
            if self.signals.held is not None:
                import signal

                name = signal.Signals(self.signals.held).name
                sys.stderr.write(f"ora: {name} arrived while the report was written; it was finished first\n")
                session.exitstatus = pytest.ExitCode.INTERRUPTED

    def _write_meanwhile(self, exitstatus: int) -> None:
        """Under xdist: write the report on a thread while xdist's session end waits for the workers to exit.

        Every worker has ended its session by now (xdist's loop waits for each one's last event), so
        every record is here. What follows in this thread is mostly waiting: the workers' processes
        winding down, then the other plugins' session ends (the gates are already reported, for
        junitxml). finish(), called by this plugin's last session-end hook, waits for the thread,
        so the terminal summary and the exit status read a finished report.
        """
        self._finished = True

        def write() -> None:
            try:
                self._write(exitstatus)
            except BaseException as error:  # re-raised where finish() waits, in the main thread
                self._writing_error = error

        self._writing = threading.Thread(target=write, name="ora-report", daemon=True)
        self._writing.start()

    def finish(self, exitstatus: int) -> None:
        """Write the report from what was collected, even after an interruption; once (or wait for it)."""
        if self._writing is not None:
            writing, self._writing = self._writing, None
            writing.join()
            error, self._writing_error = self._writing_error, None
            if error is not None:
                raise error
            return
        if self._finished:
            return
        self._finished = True
        self._write(exitstatus)

    def _write(self, exitstatus: int) -> None:
        if not self._claimed or self._output is None:
            return
        try:
            if self.options.dry_run:
                self._output.write_estimate(self.plan(), list(self._estimates.values()))
            else:
                self._warm_up.wait()
                self.facts = self._facts(exitstatus)
                self._output.write_report(self.plan(), self._records, self.facts, self._summary())
        except OraError as error:
            self.report_error = str(error)  # said in the terminal summary; the run exits with a usage error
        finally:
            self._output.release()

    def note_selection(self, nodeids: list[str]) -> None:
        """Count the captures this run selected (after -k / -m), from collected node ids."""
        known = {planned.capture.capture_id for planned in self.plan().captures}
        self._selected = sum(1 for nodeid in nodeids if _param(nodeid) in known)
        if self._claimed and self.options.record != "none" and not self.options.dry_run:
            self._warm_up.start(charts=charts_available())  # a live run: its session end computes afresh

    def judge_before_items(self, nodeids: list[str]) -> None:
        """The judging strategy's step before any item runs (--ora-batch submits the first asks here)."""
        if not self._claimed:
            return  # --collect-only, or a start that stopped: nothing is judged
        known = {planned.capture.capture_id: planned for planned in self.plan().captures}
        self.judging.before_items([known[_param(nodeid)] for nodeid in nodeids if _param(nodeid) in known])

    def _labels(self, plan: Plan) -> Any:
        """The human labels, checked against the bundle's captures and the rubric's scale; a bad line stops the run."""
        from ..bundle.labels import labels_path, read_labels

        try:
            found = labels_path(self.options.labels, plan.bundle.manifest.labels, plan.bundle.root)
            if found is None:
                return None
            return read_labels(found[0], found[1], plan.rubric, {p.capture.capture_id for p in plan.captures})
        except IntakeError as error:
            raise pytest.UsageError(str(error).replace("capture bundle failed intake", "human labels refused", 1)) from None

    def _facts(self, exitstatus: int) -> RunFacts:
        deviations = []
        selected = self._selected
        total = len(self.plan().captures)
        if selected is not None and selected < total:
            deviations.append(f"partial run ({self.selection().banner()}); earlier reports are under runs/")
        if selected is not None and len(self._records) < selected and exitstatus != pytest.ExitCode.INTERRUPTED:
            missing = selected - len(self._records)
            deviations.append(f"{missing} selected captures have no record (a worker crashed or stopped); re-run to complete")
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            deviations.append(f"run interrupted: {len(self._records)} captures recorded; re-run to complete")
        if self._unjudged:
            deviations.append(
                f"budget reached: judge spend hit --ora-budget-usd {self.options.budget_usd}; "
                f"{len(self._unjudged)} captures were not started (re-run with a larger budget: recorded calls replay free)"
            )
        if self.options.budget_usd is not None:
            spent = self.run.spend_log().total()
            deviations.append(f"live judge spend this run: ${spent:.4f} of a ${self.options.budget_usd} budget (price table {PRICES_AS_OF} defaults{', overridden' if self.options.prices else ''})")
        if self.judging.summary is not None:
            deviations.append(self.judging.summary.sentence())
        errors = sum(1 for r in self._records if r["status"] == "error")
        if errors:
            deviations.append(f"{errors} captures could not be judged (see Errors); they are not in the means")
        stopped_by = self._stopped_by(exitstatus)
        facts = RunFacts(
            complete=stopped_by is None,
            stopped_by=stopped_by,
            judged=len(self._records) - len(self._unjudged),
            scoring_date=self.options.scoring_date,
            record_mode=self.options.record,
            selected=selected if selected is not None else len(self._records),
            deviations=tuple(deviations),
            selection=self.selection().banner(),
            spend=tuple(self.spend()),
            seed=self.options.seed,
            disagreement=self.options.disagreement,
            labels=self.labels,
            cluster=self.options.cluster,
            reference=self.options.reference,
            pairs=self.options.pairs,
            run={"pytest_ora_version": tool_version(), "suite_commit": suite_commit(Path(self.config.rootpath)),
                 "started_utc": self._started, "ended_utc": run_moment()},
        )
        import dataclasses

        return dataclasses.replace(facts, notices=tuple(notices(self.plan(), facts)))

    def _stopped_by(self, exitstatus: int) -> str | None:
        """What stopped the run before its selection was judged; None when it was not stopped."""
        import signal

        selected = self._selected if self._selected is not None else len(self._records)
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            received = self.signals.received
            return "SIGTERM" if received == signal.SIGTERM else "interrupt (Ctrl-C)"
        if self._unjudged:
            return "budget (--ora-budget-usd)"
        if self.journal_error is not None:
            return "ledger journal error"
        if len(self._records) < selected:
            maxfail = int(getattr(self.config.option, "maxfail", 0) or 0)
            reporter = self.config.pluginmanager.get_plugin("terminalreporter")
            failures = len(reporter.stats.get("failed", [])) + len(reporter.stats.get("error", [])) if reporter else 0
            return "maxfail (-x / --maxfail)" if maxfail and failures >= maxfail else "a worker crashed or stopped"
        return None

    def selection(self) -> Selection:
        """How much of the bundle this run selected, and by what."""
        total = len(self.plan().captures)
        selected = self._selected if self._selected is not None else len(self._records)
        return selection_for(self.config, selected, total)

    def spend(self) -> list[str]:
        """Live judge spend per judge (tokens x price) and the total; empty when nothing was called live."""
        try:
            prices = self.run.prices()
        except pytest.UsageError:
            prices = {}
        batched = self.judging.summary.usd if self.judging.summary is not None else None
        return spend_lines(judge_spend(self._records, prices), batched)

    def _gate(self) -> list[GateResult]:
        """Every set CI gate's verdict on this run's summary (harness.gates)."""
        plan = self.plan()
        summary = [(row.model_dump()["configuration"], values) for row, values in self._summary()]
        return evaluate(GateContext(self.options, plan.rubric, summary, self._calibration(), self._baseline_comparison()))

    def _summary(self) -> list[SummaryRow]:
        """The summary rows of the records kept so far: the gates and the terminal ask for the same ones."""
        if self._summarized is None or self._summarized[0] != self._added:
            plan = self.plan()
            self._summarized = (self._added, list(summarize(self._records, plan.lanes, plan.rubric)))
        return self._summarized[1]

    def _baseline_comparison(self) -> dict[str, Any] | None:
        """baseline.json, for --ora-fail-regression (the report is written first: see pytest_sessionfinish)."""
        if not self.options.fail_regression or self._output is None:
            return None
        import json

        from ..reports.baseline import BASELINE_JSON

        try:
            data = json.loads((self._output.path / BASELINE_JSON).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def _calibration(self) -> dict[str, Any] | None:
        """stats.json's `calibration`, for --ora-fail-calibration (the report is written first: see pytest_sessionfinish)."""
        if self.options.fail_calibration is None or self._output is None:
            return None
        import json

        try:
            stats = json.loads((self._output.path / "stats.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        data = stats.get("calibration") if isinstance(stats, dict) else None
        return data if isinstance(data, dict) else None

    def report_gates(self) -> None:
        """Before junitxml writes its file: each failing gate as a failed testcase ora-gate::<option>."""
        if not self._claimed or self.options.dry_run:
            return
        try:
            # No gate set: the summary is left to the report, which under xdist is written while the workers exit.
            self.gate_results = self._gate() if any_set(self.options) else []
        except Exception as error:  # a gate must never cost the report: the session end says it failed
            self.gate_results = [GateResult("gates", "", (f"could not be evaluated: {error}",))]
        self.gate_failures = [f"{result.name}: {message}" for result in self.gate_results for message in result.failures]
        for report in gate_reports(self.gate_results):
            self.config.hook.pytest_runtest_logreport(report=report)

    def failure_rule(self) -> str:
        """Why a low score is low, after its overall: '< 4.0' (ora-1.0), or the vote that failed it."""
        rubric = self.plan().rubric
        if rubric.failure_below is None:
            return f"({rubric.failure_vote} vote)"
        return f"< {round_half_away(rubric.failure_below, 1)}"

    def summary_lines(self, width: int = 200) -> list[str]:
        """The terminal's ora summary; nothing when the run wrote nothing (--collect-only, a stopped start)."""
        if not self._claimed:
            return []
        plan = self.plan()
        if self.options.dry_run:
            return [*estimate_table(list(self._estimates.values())).splitlines(), "",
                    f"ora: estimate written to {self.options.out} (the last report there is untouched)"]
        table = [public_row(row, values, plan.rubric) for row, values in self._summary()]
        banner = self.selection().banner()
        lines = [f"ora: {banner}"] if banner else []
        incomplete = incomplete_notice(self.facts) if self.facts is not None else None
        if incomplete is not None:
            lines.insert(0, f"ora: {incomplete}")
        lines += drift_lines(self._records, self.config)
        lines += fit_table(table, width, plan.rubric)
        spend = self.spend()
        if spend:
            lines += ["", "ora: judge spend this run (tokens x price): " + "; ".join(spend)]
        lines += [result.line() for result in self.gate_results]
        written = f"ora: report written to {self.options.out}" if self.report_error is None else f"ora: REPORT NOT WRITTEN: {self.report_error}"
        lines += terminal_lines(self._records, plan.rubric)
        stopped = [] if self.journal_error is None else [f"ora: STOPPED: {self.journal_error}"]
        progress = [self._progress.line(final=True), ""] if self._progress is not None else []
        return [*progress, *lines, "", *secret_lines(self._records), *stopped, written]

    def close(self) -> None:
        self.run.limits.close()


def _check_recordable(directory: Path) -> None:
    """Refuse a live run whose recordings could not be written: every judge call would be paid, then lost."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        raise pytest.UsageError(
            f"cannot record judge calls in {directory}: {error.strerror or error}; "
            "choose a writable directory with --ora-cassettes"
        ) from None


def _check_roles(plan: Plan, options: Options) -> None:
    """--ora-rpm / --ora-tpm must name a role of the panel."""
    roles = sorted({judge.role for judge in plan.panel.judges})
    for unit, pairs in (("rpm", options.rpm), ("tpm", options.tpm)):
        for role, _ in pairs:
            if role not in roles:
                raise pytest.UsageError(
                    f"--ora-{unit} {role}=...: no judge of the panel has role {role!r}; roles: {', '.join(roles)}"
                )


def _param(nodeid: str) -> str:
    head, _, rest = nodeid.partition("[")
    return rest[:-1] if rest.endswith("]") else ""
