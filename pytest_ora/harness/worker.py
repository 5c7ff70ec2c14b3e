"""The worker: runs the capture items, judges or grades each, and puts its record on its report.

Like pytest-xdist's WorkerInteractor it lives in the process that runs items (an xdist worker,
or the only process of a run without -n); the records travel to the controller as plain
builtins on the reports, never through shared state.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import Any

import pytest

from ..core.errors import OraError, PacketDrift
from ..core.plan import PlannedCapture
from ..core.record import CaptureRecord, base_record, record_text
from ..core.vocabulary import is_live
from ..judges.cassettes import CassetteLibrary
from ..judges.panel import Judging, describe
from ..method.kinds import mechanical_kind
from ..reports.aggregation import ledger_row
from ..reports.filewriter import DRY_RUN_DIR, CaptureFiles
from .candidates.role import RoleCall, candidate_secrets
from .drift import short_drift
from .outcomes import drop_record, overall_text, score_properties
from .pace import calls_in_flight, captures_ahead, lookahead, worker_upcoming
from .run import OraRun
from .runner import CaptureRunner
from .steps.answer import Generated, RoleCandidates, answering
from .steps.spend import Budget, NotJudged
from .xdist import worker_count

__all__ = ["OraWorker"]


class OraWorker:
    """One process's item-running state: its captures in run order and the judging runner."""

    def __init__(self, run: OraRun) -> None:
        self.run = run
        self.config = run.config
        self.options = run.options
        self._runner: CaptureRunner | None = None
        self._order: list[PlannedCapture] = []
        self._position: dict[str, int] = {}

    def note_items(self, items: list[pytest.Item]) -> None:
        """The captures this process will judge, in run order, so they can be judged ahead."""
        for item in items:
            callspec = getattr(item, "callspec", None)
            planned = callspec.params.get("ora_capture") if callspec is not None else None
            if planned is not None and planned.status == "judge":
                self._position[planned.capture.capture_id] = len(self._order)
                self._order.append(planned)

    def run_capture(self, planned: PlannedCapture) -> CaptureRecord:
        """Judge one capture in this process, and start judging the next ones if allowed."""
        plan = self.run.plan()
        kind = mechanical_kind(plan.rubric.kind)
        if kind is not None:  # graded here: no judge, no network, no cassette
            return kind.score_capture(plan, planned, self.config.rootpath)
        runner = self._capture_runner()
        upcoming: Sequence[PlannedCapture] = ()
        if runner.lookahead > 1:  # judging ahead: which captures come next (a replay judges one at a time)
            if self.run.is_worker:
                upcoming = worker_upcoming(self.config)
            else:
                position = self._position.get(planned.capture.capture_id)
                upcoming = self._order[position + 1 :] if position is not None else []
        return runner.run(planned, upcoming)

    def estimate(self, planned: PlannedCapture) -> dict[str, Any]:
        """A dry run of one capture: packet built, tokens and cost estimated, no judge called."""
        if mechanical_kind(self.run.plan().rubric.kind) is not None:  # nothing would be sent: nothing to estimate
            return {
                "capture_id": planned.capture.capture_id,
                "configuration": planned.capture.configuration,
                "judges": [],
            }
        return self._capture_runner().estimate(planned, self.run.prices())

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> Any:
        """Once a report has been handed on (to the controller, or xdist's channel), it drops its record.

        Every process's terminal reporter keeps every report to the end, a worker's too.
        """
        try:
            return (yield)
        finally:
            drop_record(report)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtestloop(self, session: pytest.Session) -> Any:
        """Once this process's items have run, its judging stops and its per-capture files are on disk.

        The session end renders reports from those files (checklist.md reads judges/ and packets/); in
        a run without -n it runs in this process, right after this loop, while the writer thread
        could still be writing.
        """
        try:
            return (yield)
        finally:
            self.close()

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
        rubric = self.run.plan().rubric
        # As its JSON text: xdist's serializer walks a nested dict in Python code on both sides, a
        # string it copies; the controller keeps the record as this same text (core/record.py).
        report.ora_record = record_text(record)  # type: ignore[attr-defined]
        # Its ledger line too: the scores are combined here already (overall_text), and the controller,
        # which receives every record, then only journals it.
        report.ora_ledger = ledger_row(record, rubric).model_dump_json() + "\n"  # type: ignore[attr-defined]
        report.ora_failure = bool(record["failure"])  # type: ignore[attr-defined]
        report.ora_overall = overall_text(record, rubric)  # type: ignore[attr-defined]
        # junitxml reads properties from the teardown report, which copies the item's.
        item.user_properties.extend(score_properties(record, rubric))
        if call.excinfo is not None and isinstance(call.excinfo.value, PacketDrift):
            report.longrepr = short_drift(
                planned.capture.capture_id, str(call.excinfo.value)
            )  # the fix: once, in the summary
        elif call.excinfo is not None and isinstance(call.excinfo.value, OraError):
            report.longrepr = f"{planned.capture.capture_id}: {call.excinfo.value}"

    def record_for(self, planned: PlannedCapture, excinfo: pytest.ExceptionInfo[BaseException] | None) -> CaptureRecord:
        """The record of an item that did not produce one itself: skipped or failed."""
        if planned.status != "judge":
            return base_record(planned, planned.status, planned.reason)
        if excinfo is not None and isinstance(excinfo.value, Generated):
            return excinfo.value.record  # the answer made, for the controller's captures.jsonl
        if excinfo is not None and isinstance(excinfo.value, NotJudged):
            record = base_record(planned, excinfo.value.status, excinfo.value.reason)
            if getattr(excinfo.value, "live", False):  # a candidate called this run made no answer
                record["candidate_live"] = True
            return record
        reason = describe(excinfo.value) if excinfo is not None else "the test ended without a record"
        return base_record(planned, "error", reason)

    def _capture_runner(self) -> CaptureRunner:
        if self._runner is None:
            run, options = self.run, self.options
            plan = run.plan()
            judging = Judging(
                plan.panel,
                plan.rubric,
                policy=run.policy(),
                reasks=options.reasks,
                environ=dict(os.environ),
                prompt_cache=options.prompt_cache,
                live=is_live(options.record),
            )
            candidates = plan.bundle.manifest.candidates
            secrets = judging.secrets() + candidate_secrets(
                candidates, plan.bundle.optimum.roles, judging.environ, live=judging.live
            )
            library = CassetteLibrary(options.cassettes, options.record, secrets=secrets)
            budget = None
            if options.budget_usd is not None:
                budget = Budget(
                    options.budget_usd, run.prices(), run.spend_log(), candidates=bool(plan.bundle.manifest.candidates)
                )
            workers = worker_count(self.config)
            captures = lookahead(options.concurrency, options.record, workers, budget is not None)
            calls = calls_in_flight(captures, len(plan.panel.judges) * plan.panel.samples, bool(candidates))
            ahead = captures_ahead(captures, calls, bool(candidates))
            limiter = run.limits.limiter(options.rpm, options.tpm) if is_live(options.record) else None
            out = options.out / DRY_RUN_DIR if options.dry_run else options.out
            in_flight = run.in_flight_log() if is_live(options.record) and not options.dry_run else None
            self._runner = CaptureRunner(
                plan.bundle.root,
                judging,
                library,
                CaptureFiles(out),
                budget,
                ahead,
                limiter,
                in_flight,
                answering(
                    candidates,
                    self.config.rootpath,
                    options.cassettes,
                    options.record,
                    secrets,
                    RoleCandidates(
                        plan.bundle.optimum.roles,
                        RoleCall(
                            judging.policy,
                            judging.environ,
                            run.prices(),
                            secrets,
                            judging.live,
                            options.prompt_cache,
                        ),
                    ),
                    places=captures,  # the candidates' share: as many answering at once as captures in flight
                ),
                generate_only=options.generate_only,
                calls=calls,
            )
        return self._runner

    def close(self) -> None:
        """Stop judging ahead and wait for the per-capture files; say which could not be written. Once."""
        if self._runner is not None:
            failed = self._runner.close()
            self._runner = None
            for line in failed:
                sys.stderr.write(f"ora: could not write {line} (the ledger holds the capture's scores)\n")
