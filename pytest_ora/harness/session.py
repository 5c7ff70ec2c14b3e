"""The run's state, registered once on the plugin manager: options, the plan, the records, the report.

Under xdist the controller runs intake, checks the judges and writes the report; workers plan
their items and judge them. Without xdist one process does both.
"""

from __future__ import annotations

import os
import sys
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ..bundle.design import option_problems
from ..bundle.intake import intake, parse_substitution
from ..bundle.read import read_yaml
from ..core.errors import IntakeError, OraError, PacketDrift
from ..core.models import RoleSpec
from ..core.numbers import round_half_away
from ..core.plan import Plan, PlannedCapture
from ..core.record import CaptureRecord, RecordStore, base_record
from ..core.vocabulary import is_live
from ..judges.batch import BatchStopped, run_batches
from ..judges.budget import PRICES_AS_OF, Price, SpendLog, load_prices, price_for
from ..judges.cassettes import CassetteLibrary, cassette_path
from ..judges.inflight import InFlightLog
from ..judges.keyguard import check_keys
from ..judges.panel import Judging, describe
from ..judges.reachability import check_reachable, missing_keys
from ..judges.recordings import RecordingsError, bind_rubric, check_bundle, check_history, note_recording
from ..judges.transport import RetryPolicy
from ..method.kinds import formula, get_kind, mechanical
from ..reports.charts import charts_available
from ..reports.methodology import RunFacts, secret_lines
from ..reports.notes import incomplete_notice, local_judge_notice, notices
from ..reports.output import DRY_RUN_DIR, PROGRESS_DIR, SPEND_DIR, OutputDir, estimate_table
from ..reports.spend import judge_spend, spend_lines
from ..reports.tables import fit_table, ledger_row, public_row, summarize
from .drift import drift_lines, short_drift
from .gates import GateContext, GateResult, evaluate, gate_reports
from .gates import validate as validate_gates
from .options import Options
from .outcomes import overall_text, score_properties
from .pace import RunLimits, lookahead, worker_upcoming
from .progress import LiveProgress
from .runner import Budget, CaptureRunner, NotJudged
from .selection import Selection, selection_for
from .signals import SignalGuard
from .warmup import WarmUp
from .xdist import is_worker, stop_controller, worker_count, worker_id

__all__ = ["NO_BUNDLE", "OraSession"]

NO_BUNDLE = "scores a capture bundle, but none is set"
"""Said when a test needs ora_capture and no bundle is set; such a run exits as a usage error."""


class OraSession:
    """One pytest session's pytest-ora state."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.is_worker = is_worker(config)
        self._plan: Plan | None = None
        self._runner: CaptureRunner | None = None
        self._output: OutputDir | None = None
        self._records = RecordStore()
        """Every finished capture's record, compressed until the report reads them (controller only)."""
        self._claimed = False
        self._selected: int | None = None
        self._estimates: dict[str, dict[str, Any]] = {}
        self._unjudged: list[str] = []
        self._prices: dict[str, Price] | None = None
        self.report_error: str | None = None
        """Why the report could not be written at the end (a full disk, a vanished directory), if so."""
        self.usage_errors: list[str] = []
        """Misuse found during collection (a test needs a bundle, none is set): the run exits 4."""
        self.gate_failures: list[str] = []
        """Quality gates that failed (--ora-fail-under, --ora-fail-lowscore-pct): said on the terminal; exit 1."""
        self.gate_results: list[GateResult] = []
        """Every set gate's verdict (harness.gates), holding or failing."""
        self.facts: RunFacts | None = None
        """What the report said about the run (complete, stopped_by), once it was written."""
        self._order: list[PlannedCapture] = []
        self._position: dict[str, int] = {}
        self._progress: LiveProgress | None = None
        self.journal_error: str | None = None
        """Why a ledger row could not be journaled mid-run (a full disk), if so; the run stopped there."""
        self.session: pytest.Session | None = None
        self.signals = SignalGuard()
        self._finished = False
        self.batch_summary: Any = None
        self._warm_up = WarmUp()
        """What --ora-batch did this run (a judges.batch.BatchSummary), once it ran."""
        self.limits = RunLimits(config)
        """The run's shared rate-limit directory (xdist workers get it through workerinput)."""
        self.labels: Any = None
        """Human labels (--ora-labels or bundle.yaml `labels:`), checked at start (controller only)."""

    @property
    def active(self) -> bool:
        return self.options.bundle is not None

    def plan(self) -> Plan:
        """The bundle after intake, read once per process; bad input becomes a usage error."""
        if self._plan is None:
            assert self.options.bundle is not None
            try:
                roles = _roles(self.options.bundle)
                substitutions = tuple(parse_substitution(text, roles) for text in self.options.substitutes)
                plan = intake(
                    self.options.bundle, substitutions, self.options.panel_label, self.options.rubric, self.options.compare,
                    key_envs=self.options.key_envs,
                )
                self._plan = _bound(plan, self.options)
            except (IntakeError, ValueError, RecordingsError) as error:
                raise pytest.UsageError(str(error)) from None
        return self._plan

    # controller ------------------------------------------------------------------------------

    def start(self) -> None:
        """Intake, judge checks and the output directory, before any item runs (controller only)."""
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
            unpriced = [j for j in plan.panel.judges if price_for(j.spec.model, self.prices()) is None]
            if unpriced:
                names = ", ".join(f"{j.label} ({j.spec.model})" for j in unpriced)
                raise pytest.UsageError(f"--ora-budget-usd needs a price for {names}: add it with --ora-prices FILE")
        if self.options.prices is not None:
            self.prices()  # a bad price file is one usage error now, not one failure per capture later
        _check_roles(plan, self.options)
        self.labels = self._labels(plan)
        validate_gates(self.options, plan.rubric)
        self._records = RecordStore([planned.capture.capture_id for planned in plan.captures])
        if self.options.batch and self.options.record not in ("once", "new_episodes"):
            raise pytest.UsageError("--ora-batch records judge calls: use it with --ora-record once or new_episodes")
        if self.config.option.collectonly:
            return  # nothing is judged: leave the judges and the last report alone
        if not self.options.dry_run and is_live(self.options.record) and self._needs_network(plan):
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
                self._progress = LiveProgress(self._in_flight_log(), self.prices(), budget)
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

    def prices(self) -> dict[str, Price]:
        """The price table: the defaults, overridden by --ora-prices."""
        if self._prices is None:
            try:
                self._prices = load_prices(self.options.prices)
            except FileNotFoundError:
                raise pytest.UsageError(f"--ora-prices: {self.options.prices} does not exist") from None
            except (OSError, ValueError) as error:
                raise pytest.UsageError(f"--ora-prices: {error}") from None
        return self._prices

    def _needs_network(self, plan: Plan) -> bool:
        if self.options.record in ("all", "new_episodes"):
            return True
        if not plan.panel.judges:
            return False
        judged = (p.capture.capture_id for p in plan.captures if p.status == "judge")
        return any(not cassette_path(self.options.cassettes, cid).is_file() for cid in judged)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Under xdist a worker's missing-bundle collection error reaches the controller only as a report."""
        if report.failed and NO_BUNDLE in str(report.longrepr) and NO_BUNDLE not in self.usage_errors:
            self.usage_errors.append(NO_BUNDLE)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Any:
        """Keep a finished item's record and journal it (controller); then let no report keep it.

        Every process's terminal reporter keeps every report to the end, a worker's too: once its
        record is kept here, or sent on to the controller, the report drops it.
        """
        if not self.is_worker:
            self._keep(report)
        try:
            return (yield)
        finally:
            if hasattr(report, "ora_record"):
                del report.ora_record

    def _keep(self, report: pytest.TestReport) -> None:
        if self._output is None:
            return
        estimate = getattr(report, "ora_estimate", None)
        if estimate is not None:
            self._estimates[estimate["capture_id"]] = estimate
        record: CaptureRecord | None = getattr(report, "ora_record", None)
        if record is None:
            return
        self._records.add(record)
        if record["status"] == "budget":
            self._unjudged.append(record["capture_id"])
        if self.journal_error is not None:
            return
        try:
            self._output.append(ledger_row(record, self.plan().rubric))
        except OraError as error:
            # Raised from a hook it would be an INTERNALERROR; instead the run stops starting captures
            # (their results could not be kept) and says why at the end, with exit code 4.
            self.journal_error = str(error)
            stop = "ora: the ledger journal could not be written (see the ora summary)"
            if self.session is not None:
                self.session.shouldstop = stop
            stop_controller(self.config, stop)
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
            if self.active and not self.is_worker and not self._finished:
                if self.options.fail_calibration is not None or self.options.fail_regression:
                    # These gates read the statistics and the baseline comparison, which the report computes: write it
                    # now, before junitxml writes its file, so the gate can still be a testcase there.
                    self.finish(int(session.exitstatus))
                self.report_gates()
            return (yield)
        finally:
            if not self._finished and self.active and not self.is_worker:
                self.finish(int(session.exitstatus))  # another plugin's hook raised before ours ran
            self.signals.restore()
            if self.signals.held is not None:
                import signal

                name = signal.Signals(self.signals.held).name
                sys.stderr.write(f"ora: {name} arrived while the report was written; it was finished first\n")
                session.exitstatus = pytest.ExitCode.INTERRUPTED

    def finish(self, exitstatus: int) -> None:
        """Write the report from what was collected, even after an interruption (controller only); once."""
        if self._finished:
            return
        self._finished = True
        if not self._claimed or self._output is None:
            return
        try:
            if self.options.dry_run:
                self._output.write_estimate(self.plan(), list(self._estimates.values()))
            else:
                self._warm_up.wait()
                self.facts = self._facts(exitstatus)
                self._output.write_report(self.plan(), self._records, self.facts)
        except OraError as error:
            self.report_error = str(error)  # said in the terminal summary; the run exits with a usage error
        finally:
            self._output.release()

    def note_items(self, items: list[pytest.Item]) -> None:
        """The captures this process will judge, in run order, so they can be judged ahead."""
        for item in items:
            callspec = getattr(item, "callspec", None)
            planned = callspec.params.get("ora_capture") if callspec is not None else None
            if planned is not None and planned.status == "judge":
                self._position[planned.capture.capture_id] = len(self._order)
                self._order.append(planned)
        self.note_selection([item.nodeid for item in items])

    def note_selection(self, nodeids: list[str]) -> None:
        """Count the captures this run selected (after -k / -m), from collected node ids."""
        known = {planned.capture.capture_id: planned for planned in self.plan().captures}
        self._selected = sum(1 for nodeid in nodeids if _param(nodeid) in known)
        if not self.is_worker and self._claimed and self.options.record != "none" and not self.options.dry_run:
            self._warm_up.start(charts=charts_available())  # a live run: its session end computes afresh
        if self.options.batch and not self.is_worker and self.batch_summary is None and self._claimed:
            selected = [known[_param(nodeid)] for nodeid in nodeids if _param(nodeid) in known]
            self._run_batches(selected)

    def _run_batches(self, selected: list[PlannedCapture]) -> None:
        """--ora-batch: before any item runs, the first asks through the providers' batch APIs."""
        import httpx

        plan = self.plan()
        if mechanical(get_kind(plan.rubric.kind)) is not None:
            return  # this rubric kind calls no judge
        judging = Judging(plan.panel, plan.rubric, policy=self._policy(), environ=dict(os.environ),
                          prompt_cache=self.options.prompt_cache)
        library = CassetteLibrary(self.options.cassettes, self.options.record, secrets=judging.secrets())
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")

        def say(line: str) -> None:
            if reporter is not None:
                reporter.write_line(line)

        budget = None if self.options.budget_usd is None else Decimal(str(self.options.budget_usd))
        with httpx.Client(timeout=_timeout(self.options.timeout), trust_env=False) as client:
            try:
                self.batch_summary = run_batches(
                    plan.bundle.root, judging, library, selected, self.prices(), self._spend_log(), say, client,
                    budget=budget, batch_max=self.options.batch_max,
                )
            except BatchStopped as stopped:
                # Resumable: the batch ids stay under --ora-cassettes and the next run polls them again.
                pytest.exit(str(stopped), returncode=pytest.ExitCode.INTERRUPTED)

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
            spent = self._spend_log().total()
            deviations.append(f"live judge spend this run: ${spent:.4f} of a ${self.options.budget_usd} budget (price table {PRICES_AS_OF} defaults{', overridden' if self.options.prices else ''})")
        if self.batch_summary is not None:
            deviations.append(self.batch_summary.sentence())
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
            prices = self.prices()
        except pytest.UsageError:
            prices = {}
        batched = self.batch_summary.usd if self.batch_summary is not None else None
        return spend_lines(judge_spend(self._records, prices), batched)

    def _gate(self) -> list[GateResult]:
        """Every set CI gate's verdict on this run's summary (harness.gates)."""
        plan = self.plan()
        summary = [(row.model_dump()["configuration"], values) for row, values in summarize(self._records, plan.lanes, plan.rubric)]
        return evaluate(GateContext(self.options, plan.rubric, summary, self._calibration(), self._baseline_comparison()))

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
        if not self._claimed or self.options.dry_run or self.is_worker:
            return
        try:
            self.gate_results = self._gate()
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

    def header(self) -> list[str]:
        plan = self.plan()
        judges = ", ".join(f"{j.label} = {j.role} {j.spec.model} ({j.spec.provider})" for j in plan.panel.judges)
        rubric = plan.rubric
        lines = [
            f"ora: bundle {plan.bundle.manifest.bundle}: {plan.scored_entry_count} entries, "
            f"{plan.scored_set_captures} captures; record mode {self.options.record}",
            f"ora: rubric {rubric.version}: {formula(rubric)}",
            f"ora: panel {plan.panel.label}" + (f": {judges}" if judges else ""),
            f"ora: rubric digest {rubric.digest} ({rubric.source}){'; blind packets' if rubric.blind else ''}",
        ]
        if rubric.rules():
            lines.append(f"ora: rules: {rubric.rules()}")
        if rubric.recorded_under:
            lines.append(f"ora: rescoring offline: replies recorded under {rubric.recorded_under}, same judge requests")
        local = local_judge_notice(plan)
        if local is not None:
            lines.append(f"ora: {local}")
        return lines

    def summary_lines(self, width: int = 200) -> list[str]:
        """The terminal's ora summary; nothing when the run wrote nothing (--collect-only, a stopped start)."""
        if not self._claimed:
            return []
        plan = self.plan()
        if self.options.dry_run:
            return [*estimate_table(list(self._estimates.values())).splitlines(), "",
                    f"ora: estimate written to {self.options.out} (the last report there is untouched)"]
        rows = summarize(self._records, plan.lanes, plan.rubric)
        table = [public_row(row, values, plan.rubric) for row, values in rows]
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
        lines += get_kind(plan.rubric.kind).terminal(self._records, plan.rubric)
        stopped = [] if self.journal_error is None else [f"ora: STOPPED: {self.journal_error}"]
        progress = [self._progress.line(final=True), ""] if self._progress is not None else []
        return [*progress, *lines, "", *secret_lines(self._records), *stopped, written]

    # any process that runs items ----------------------------------------------------------

    def run_capture(self, planned: PlannedCapture) -> CaptureRecord:
        """Judge one capture in this process, and start judging the next ones if allowed."""
        kind = mechanical(get_kind(self.plan().rubric.kind))
        if kind is not None:  # graded here: no judge, no network, no cassette
            return kind.score_capture(self.plan(), planned, self.config.rootpath)
        if self.is_worker:
            upcoming = worker_upcoming(self.config)
        else:
            position = self._position.get(planned.capture.capture_id)
            upcoming = self._order[position + 1 :] if position is not None else []
        return self._capture_runner().run(planned, upcoming)

    def estimate(self, planned: PlannedCapture) -> dict[str, Any]:
        """A dry run of one capture: packet built, tokens and cost estimated, no judge called."""
        if mechanical(get_kind(self.plan().rubric.kind)) is not None:  # nothing would be sent: nothing to estimate
            return {"capture_id": planned.capture.capture_id, "configuration": planned.capture.configuration, "judges": []}
        return self._capture_runner().estimate(planned, self.prices())

    def annotate(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport, key: pytest.StashKey[Any]
    ) -> None:
        """Put what a capture's test produced on its final report, as plain builtins for the controller."""
        callspec = getattr(item, "callspec", None)
        planned: PlannedCapture | None = callspec.params.get("ora_capture") if callspec is not None else None
        if planned is None or not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        produced: dict[str, Any] = item.stash.get(key, {})
        if produced:
            del item.stash[key]  # the item lives until the session ends; its record travels on the report
        if report.skipped and isinstance(report.longrepr, tuple):
            # Point the skip at the capture's test, not at the helper that raised it.
            path, line, _ = item.reportinfo()
            report.longrepr = (str(path), (line or 0) + 1, report.longrepr[2])
        if "estimate" in produced:
            report.ora_estimate = produced["estimate"]  # type: ignore[attr-defined]
            return
        error = call.excinfo.value if call.excinfo is not None else None
        if isinstance(error, NotJudged) and isinstance(report.longrepr, tuple):
            report.longrepr = (*report.longrepr[:2], error.msg)  # the reason, not the exception's class path
        record = produced.get("record") or self.record_for(planned, call.excinfo)
        report.ora_record = record  # type: ignore[attr-defined]
        report.ora_failure = bool(record["failure"])  # type: ignore[attr-defined]
        report.ora_overall = overall_text(record, self.plan().rubric)  # type: ignore[attr-defined]
        # junitxml reads properties from the teardown report, which copies the item's.
        item.user_properties.extend(score_properties(record, self.plan().rubric))
        if call.excinfo is not None and isinstance(call.excinfo.value, PacketDrift):
            report.longrepr = short_drift(planned.capture.capture_id, str(call.excinfo.value))  # the fix: once, in the summary
        elif call.excinfo is not None and isinstance(call.excinfo.value, OraError):
            report.longrepr = f"{planned.capture.capture_id}: {call.excinfo.value}"

    def record_for(self, planned: PlannedCapture, excinfo: pytest.ExceptionInfo[BaseException] | None) -> CaptureRecord:
        """The record of an item that did not produce one itself: skipped or failed."""
        if planned.status != "judge":
            return base_record(planned, planned.status, planned.reason)
        if excinfo is not None and isinstance(excinfo.value, NotJudged):
            return base_record(planned, excinfo.value.status, excinfo.value.reason)
        reason = describe(excinfo.value) if excinfo is not None else "the test ended without a record"
        return base_record(planned, "error", reason)

    def _policy(self) -> RetryPolicy:
        """The bounded retry of a judge call (--ora-retries, --ora-timeout); batch polling uses it too."""
        return RetryPolicy(max_attempts=self.options.retries + 1, timeout=_timeout(self.options.timeout))

    def _capture_runner(self) -> CaptureRunner:
        if self._runner is None:
            plan = self.plan()
            judging = Judging(plan.panel, plan.rubric, policy=self._policy(), reasks=self.options.reasks,
                              environ=dict(os.environ), prompt_cache=self.options.prompt_cache)
            library = CassetteLibrary(self.options.cassettes, self.options.record, secrets=judging.secrets())
            budget = None
            if self.options.budget_usd is not None:
                budget = Budget(self.options.budget_usd, self.prices(), self._spend_log())
            workers = worker_count(self.config)
            ahead = lookahead(self.options.concurrency, self.options.record, workers, budget is not None)
            limiter = self.limits.limiter(self.options.rpm, self.options.tpm) if is_live(self.options.record) else None
            out = self.options.out / DRY_RUN_DIR if self.options.dry_run else self.options.out
            in_flight = self._in_flight_log() if is_live(self.options.record) and not self.options.dry_run else None
            self._runner = CaptureRunner(
                plan.bundle.root, judging, library, OutputDir(out), budget, ahead, limiter, in_flight
            )
        return self._runner

    def _spend_log(self) -> SpendLog:
        worker = worker_id(self.config)
        return SpendLog(self.options.out / SPEND_DIR, worker)

    def _in_flight_log(self) -> InFlightLog:
        worker = worker_id(self.config)
        return InFlightLog(self.options.out / PROGRESS_DIR, worker)

    def close(self) -> None:
        if not self.is_worker:
            self.limits.close()
        if self._runner is not None:
            failed = self._runner.close()
            self._runner = None
            for line in failed:
                sys.stderr.write(f"ora: could not write {line} (the ledger holds the capture's scores)\n")


def _bound(plan: Plan, options: Options) -> Plan:
    """The plan with its rubric bound to the cassette directory (request format, rescoring) and its
    history checked against what this directory and the output directory's run.json recorded."""
    import dataclasses

    if not plan.panel.judges:
        return plan
    rubric = bind_rubric(plan.rubric, options.cassettes)
    check_history(rubric, _run_rubric(options.out), f"recorded in {options.out / 'run.json'}")
    return dataclasses.replace(plan, rubric=rubric)


def _run_rubric(out: Path) -> tuple[Any, ...]:
    """The rubric version and digest the last run in the output directory recorded (run.json), if readable."""
    import json

    from ..judges.recordings import Recorded

    try:
        data = json.loads((out / "run.json").read_text(encoding="utf-8"))
        return (Recorded(str(data["rubric"]), str(data["rubric_digest"]), ""),)
    except (OSError, ValueError, KeyError, TypeError):
        return ()


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


def _timeout(read: float) -> Any:
    import httpx

    return httpx.Timeout(connect=min(10.0, read), read=read, write=30.0, pool=10.0)


def _roles(bundle: Path) -> dict[str, Any]:
    """optimum.yaml's roles, for --ora-substitute; intake reports a broken file properly."""
    try:
        data, _ = read_yaml(bundle / "optimum.yaml")
        return {name: RoleSpec.model_validate(spec) for name, spec in data["roles"].items()}
    except Exception:
        return {}
