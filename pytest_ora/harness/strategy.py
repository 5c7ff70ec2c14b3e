"""Live and batch judging: the strategy --ora-batch picks, and the step it takes before any item runs.

Live judging asks every judge while the items run. Batch judging first sends the selected
captures' first asks through the providers' batch APIs and records the replies in the cassettes,
so the items then replay them (and ask live only what a batch could not answer).
"""

from __future__ import annotations

import os
from decimal import Decimal
from typing import TYPE_CHECKING, Protocol

import pytest

from ..core.plan import PlannedCapture
from ..method.kinds import mechanical_kind
from .run import OraRun, http_timeout

if TYPE_CHECKING:  # the batch machinery is imported by the run that uses it: most runs do not
    from ..judges.batch import BatchSummary

__all__ = ["BatchJudging", "JudgingStrategy", "LiveJudging", "judging_strategy"]


class JudgingStrategy(Protocol):
    """How the run's judges are asked: what happens before the first item runs."""

    summary: BatchSummary | None
    """What the step before the items did (a batch's counts and cost), if it did anything."""

    def before_items(self, selected: list[PlannedCapture]) -> None:
        """Called once by the controller with the selected captures, before any item runs."""


class LiveJudging:
    """Every ask is sent live while the items run; nothing happens before them."""

    def __init__(self) -> None:
        self.summary: BatchSummary | None = None

    def before_items(self, selected: list[PlannedCapture]) -> None:
        return None


class BatchJudging:
    """--ora-batch: before any item runs, the first asks go through the providers' batch APIs."""

    def __init__(self, run: OraRun) -> None:
        self._run = run
        self.summary: BatchSummary | None = None

    def before_items(self, selected: list[PlannedCapture]) -> None:
        import httpx

        from ..judges.batch import BatchStopped, run_batches
        from ..judges.cassettes import CassetteLibrary
        from ..judges.panel import Judging

        if self.summary is not None:
            return  # under xdist every worker's collection reports the selection: submit once
        run = self._run
        plan = run.plan()
        if mechanical_kind(plan.rubric.kind) is not None:
            return  # this rubric kind calls no judge
        judging = Judging(
            plan.panel,
            plan.rubric,
            policy=run.policy(),
            environ=dict(os.environ),
            prompt_cache=run.options.prompt_cache,
        )
        library = CassetteLibrary(run.options.cassettes, run.options.record, secrets=judging.secrets())
        reporter = run.config.pluginmanager.get_plugin("terminalreporter")

        def say(line: str) -> None:
            if reporter is not None:
                reporter.write_line(line)

        # A candidate's answer does not exist before its item runs: its captures are judged live once answered.
        candidates = plan.bundle.manifest.candidates or {}
        answered_later = [p for p in selected if p.capture.configuration in candidates and p.status == "judge"]
        if answered_later:
            say(
                f"ora: batch: {len(answered_later)} captures whose answers candidates make in the run are judged live, "
                "each once its answer exists (not batched)"
            )
            selected = [p for p in selected if p.capture.configuration not in candidates]
        budget = None if run.options.budget_usd is None else Decimal(str(run.options.budget_usd))
        with httpx.Client(timeout=http_timeout(run.options.timeout), trust_env=False) as client:
            try:
                self.summary = run_batches(
                    plan.bundle.root,
                    judging,
                    library,
                    selected,
                    run.prices(),
                    run.spend_log(),
                    say,
                    client,
                    budget=budget,
                    batch_max=run.options.batch_max,
                )
            except BatchStopped as stopped:
                # Resumable: the batch ids stay under --ora-cassettes and the next run polls them again.
                pytest.exit(str(stopped), returncode=pytest.ExitCode.INTERRUPTED)


def judging_strategy(run: OraRun) -> JudgingStrategy:
    """The strategy the options choose: batch with --ora-batch, live otherwise."""
    return BatchJudging(run) if run.options.batch else LiveJudging()
