"""What the report says about the run: its deviations from a full, complete run, and what stopped it."""

from __future__ import annotations

import dataclasses
import signal
from pathlib import Path

import pytest

from ..judges.budget import PRICES_AS_OF
from ..reports.methodology import RunFacts
from ..reports.notes import notices
from .provenance import run_moment, suite_commit, tool_version
from .reporter import RunReporter
from .runstate import RunState

__all__ = ["run_facts"]


def run_facts(run: RunState, reporter: RunReporter, exitstatus: int) -> RunFacts:
    """The run's facts at its end, from the controller's records and the session's exit status."""
    options = run.options
    records = run.records
    unjudged = run.unjudged
    selection = reporter.selection()
    deviations = []
    selected = run.selected
    total = len(run.plan().captures)
    if selected is not None and selected < total:
        deviations.append(f"partial run ({selection.banner()}); earlier reports are under runs/")
    if selected is not None and len(records) < selected and exitstatus != pytest.ExitCode.INTERRUPTED:
        missing = selected - len(records)
        deviations.append(
            f"{missing} selected captures have no record (a worker crashed or stopped); re-run to complete"
        )
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        deviations.append(f"run interrupted: {len(records)} captures recorded; re-run to complete")
    if unjudged:
        deviations.append(
            f"budget reached: judge spend hit --ora-budget-usd {options.budget_usd}; "
            f"{len(unjudged)} captures were not started (re-run with a larger budget: recorded calls replay free)"
        )
    if options.budget_usd is not None:
        spent = run.run.spend_log().total()
        overridden = ", overridden" if options.prices else ""
        deviations.append(
            f"live judge spend this run: ${spent:.4f} of a ${options.budget_usd} budget "
            f"(price table {PRICES_AS_OF} defaults{overridden})"
        )
    if run.judging.summary is not None:
        deviations.append(run.judging.summary.sentence())
    errors = sum(1 for r in records if r["status"] == "error")
    if errors:
        deviations.append(f"{errors} captures could not be judged (see Errors); they are not in the means")
    stopped_by = _stopped_by(run, exitstatus)
    facts = RunFacts(
        complete=stopped_by is None,
        stopped_by=stopped_by,
        judged=len(records) - len(unjudged),
        scoring_date=options.scoring_date,
        record_mode=options.record,
        selected=selected if selected is not None else len(records),
        deviations=tuple(deviations),
        selection=selection.banner(),
        spend=tuple(reporter.spend()),
        candidate_spend=tuple(reporter.candidate_spend()),
        seed=options.seed,
        disagreement=options.disagreement,
        labels=run.labels,
        cluster=options.cluster,
        reference=options.reference,
        pairs=options.pairs,
        run={
            "pytest_ora_version": tool_version(),
            "suite_commit": suite_commit(Path(run.config.rootpath)),
            "started_utc": run.started,
            "ended_utc": run_moment(),
        },
    )
    return dataclasses.replace(facts, notices=tuple(notices(run.plan(), facts)))


def _stopped_by(run: RunState, exitstatus: int) -> str | None:
    """What stopped the run before its selection was judged; None when it was not stopped."""
    records = run.records
    selected = run.selected if run.selected is not None else len(records)
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        received = run.signals.received
        return "SIGTERM" if received == signal.SIGTERM else "interrupt (Ctrl-C)"
    if run.unjudged:
        return "budget (--ora-budget-usd)"
    if run.journal_error is not None:
        return "ledger journal error"
    if len(records) < selected:
        maxfail = int(getattr(run.config.option, "maxfail", 0) or 0)
        reporter = run.config.pluginmanager.get_plugin("terminalreporter")
        failures = len(reporter.stats.get("failed", [])) + len(reporter.stats.get("error", [])) if reporter else 0
        return "maxfail (-x / --maxfail)" if maxfail and failures >= maxfail else "a worker crashed or stopped"
    return None
