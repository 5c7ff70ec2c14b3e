"""The run's state, registered once on the plugin manager: options, the plan, the records, the report.

Under xdist the controller runs intake, checks the judges and writes the report; workers plan
their items and judge them. Without xdist one process does both.
"""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .cassettes import CassetteLibrary, cassette_path
from .vocabulary import is_live
from .errors import IntakeError, OraError
from .intake import Plan, PlannedCapture, intake, parse_substitution
from .judging import Judging, describe
from .methodology import RunFacts
from .output import OutputDir
from .record import CaptureRecord, base_record
from .report import ledger_row, public_row, summarize, summary_table
from .runner import CaptureRunner
from .transport import RetryPolicy

__all__ = ["OraSession", "Options"]


@dataclass(frozen=True)
class Options:
    """The --ora- options after defaults and ini values are applied."""

    bundle: Path | None
    out: Path
    cassettes: Path
    record: str
    reasks: int
    retries: int
    timeout: float
    substitutes: tuple[str, ...]
    panel_label: str | None
    scoring_date: str


class OraSession:
    """One pytest session's pytest-ora state."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.is_worker = hasattr(config, "workerinput")
        self._plan: Plan | None = None
        self._runner: CaptureRunner | None = None
        self._output: OutputDir | None = None
        self._records: dict[str, CaptureRecord] = {}
        self._claimed = False
        self._selected: int | None = None

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
                self._plan = intake(self.options.bundle, substitutions, self.options.panel_label)
            except (IntakeError, ValueError) as error:
                raise pytest.UsageError(str(error)) from None
        return self._plan

    # controller ------------------------------------------------------------------------------

    def start(self) -> None:
        """Intake, judge checks and the output directory, before any item runs (controller only)."""
        plan = self.plan()
        if self.options.substitutes and not self.options.panel_label:
            raise pytest.UsageError("--ora-substitute changes the judging panel: name it with --ora-panel-label")
        if is_live(self.options.record) and self._needs_network(plan):
            from .reachability import check_reachable, missing_keys

            missing = missing_keys(plan.panel, os.environ)
            if missing:
                raise pytest.UsageError("live judging needs API keys: " + "; ".join(missing))
            try:
                check_reachable(plan.panel, os.environ, timeout=self.options.timeout)
            except OraError as error:
                raise pytest.UsageError(str(error)) from None
        self._output = OutputDir(self.options.out)
        try:
            self._output.claim()
        except OraError as error:
            raise pytest.UsageError(str(error)) from None
        self._claimed = True

    def _needs_network(self, plan: Plan) -> bool:
        if self.options.record in ("all", "new_episodes"):
            return True
        judged = (p.capture.capture_id for p in plan.captures if p.status == "judge")
        return any(not cassette_path(self.options.cassettes, cid).is_file() for cid in judged)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Keep a finished item's record and journal its ledger row (the controller sees every report)."""
        record: CaptureRecord | None = getattr(report, "ora_record", None)
        if record is None or self._output is None or self.is_worker:
            return
        self._records[record["capture_id"]] = record
        self._output.append(ledger_row(record, self.plan().rubric))

    def finish(self, exitstatus: int) -> None:
        """Write the report from what was collected, even after an interruption (controller only)."""
        if not self._claimed or self._output is None:
            return
        try:
            self._output.write_report(self.plan(), list(self._records.values()), self._facts(exitstatus))
        finally:
            self._output.release()

    def note_selection(self, nodeids: list[str]) -> None:
        """Count the captures this run selected (after -k / -m), from collected node ids."""
        known = {planned.capture.capture_id for planned in self.plan().captures}
        self._selected = sum(1 for nodeid in nodeids if _param(nodeid) in known)

    def _facts(self, exitstatus: int) -> RunFacts:
        deviations = []
        selected = self._selected
        total = len(self.plan().captures)
        if selected is not None and selected < total:
            deviations.append(f"subset: {selected} of {total} captures selected (-k / -m)")
        if exitstatus == pytest.ExitCode.INTERRUPTED:
            deviations.append(f"run interrupted: {len(self._records)} captures recorded; re-run to complete")
        errors = sum(1 for r in self._records.values() if r["status"] == "error")
        if errors:
            deviations.append(f"{errors} captures could not be judged (see Errors); they are not in the means")
        return RunFacts(
            scoring_date=self.options.scoring_date,
            record_mode=self.options.record,
            selected=selected if selected is not None else len(self._records),
            deviations=tuple(deviations),
        )

    def header(self) -> list[str]:
        plan = self.plan()
        judges = ", ".join(f"{j.label} = {j.role} {j.spec.model} ({j.spec.provider})" for j in plan.panel.judges)
        return [
            f"ora: bundle {plan.bundle.manifest.bundle}: {plan.scored_entry_count} entries, "
            f"{plan.scored_set_captures} captures; record mode {self.options.record}",
            f"ora: rubric {plan.rubric.version}: {plan.rubric.formula()}",
            f"ora: panel {plan.panel.label}: {judges}",
        ]

    def summary_lines(self) -> list[str]:
        plan = self.plan()
        rows = summarize(self._records.values(), plan.bundle.manifest.configurations, plan.rubric)
        table = [public_row(row, values, plan.rubric) for row, values in rows]
        return [*summary_table(table, fmt="simple").splitlines(), "", f"ora: report written to {self.options.out}"]

    # any process that runs items ----------------------------------------------------------

    def run_capture(self, planned: PlannedCapture) -> CaptureRecord:
        """Judge one capture in this process."""
        return self._capture_runner().run(planned)

    def record_for(self, planned: PlannedCapture, excinfo: pytest.ExceptionInfo[BaseException] | None) -> CaptureRecord:
        """The record of an item that did not produce one itself: skipped or failed."""
        if planned.status != "judge":
            return base_record(planned, planned.status, planned.reason)
        reason = describe(excinfo.value) if excinfo is not None else "the test ended without a record"
        return base_record(planned, "error", reason)

    def _capture_runner(self) -> CaptureRunner:
        if self._runner is None:
            plan = self.plan()
            policy = RetryPolicy(
                max_attempts=self.options.retries + 1,
                timeout=_timeout(self.options.timeout),
            )
            judging = Judging(plan.panel, plan.rubric, policy=policy, reasks=self.options.reasks, environ=dict(os.environ))
            library = CassetteLibrary(self.options.cassettes, self.options.record, secrets=judging.secrets())
            self._runner = CaptureRunner(plan.bundle.root, judging, library, OutputDir(self.options.out))
        return self._runner

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


def _param(nodeid: str) -> str:
    head, _, rest = nodeid.partition("[")
    return rest[:-1] if rest.endswith("]") else ""


def _timeout(read: float) -> Any:
    import httpx

    return httpx.Timeout(connect=min(10.0, read), read=read, write=30.0, pool=10.0)


def _roles(bundle: Path) -> dict[str, Any]:
    """optimum.yaml's roles, for --ora-substitute; intake reports a broken file properly."""
    from .bundle import read_yaml
    from .models import RoleSpec

    try:
        data, _ = read_yaml(bundle / "optimum.yaml")
        return {name: RoleSpec.model_validate(spec) for name, spec in data["roles"].items()}
    except Exception:
        return {}


def today() -> str:
    """The scoring date: SOURCE_DATE_EPOCH when set (reproducible builds), else today in UTC."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch else dt.datetime.now(dt.timezone.utc)
    return moment.date().isoformat()
