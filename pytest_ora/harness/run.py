"""What every process of a run shares: the options, the plan read once, the prices, the rate limits.

The controller (harness/controller.py: collects records, writes the report) and the worker
(harness/worker.py: runs items, judges them) each hold this object; under xdist the controller
process has only a controller and each worker process only a worker, and a run without -n has both.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..bundle.intake import intake, parse_substitution
from ..bundle.read import read_yaml
from ..core.blind import blindness
from ..core.errors import IntakeError
from ..core.models import RoleSpec
from ..core.plan import Plan
from ..judges.budget import Price, SpendLog, load_prices
from ..judges.recordings import RecordingsError, bind_rubric, check_history
from ..judges.samples import sampled_panel
from ..method.kinds import formula
from ..reports.filewriter import PROGRESS_DIR, SPEND_DIR
from ..reports.notes import local_judge_notice
from .handoff import PlanHandoff, inputs_digest, received_plan
from .options import Options
from .pace import RunLimits
from .xdist import distributes, is_worker, worker_id

if TYPE_CHECKING:  # imported where used: an xdist controller sends no judge call and loads no HTTP client
    from ..judges.inflight import InFlightLog
    from ..judges.transport import RetryPolicy

__all__ = ["NO_BUNDLE", "OraRun", "http_timeout"]

NO_BUNDLE = "scores a capture bundle, but none is set"
"""Said when a test needs ora_capture and no bundle is set; such a run exits as a usage error."""


class OraRun:
    """One pytest session's pytest-ora options and plan, shared by its controller and its worker."""

    def __init__(self, config: pytest.Config, options: Options) -> None:
        self.config = config
        self.options = options
        self.is_worker = is_worker(config)
        self._plan: Plan | None = None
        self._handoff: PlanHandoff | None = None
        """The controller's intake, for its xdist workers (harness/handoff.py)."""
        self._prices: dict[str, Price] | None = None
        self.usage_errors: list[str] = []
        """Misuse found during collection (a test needs a bundle, none is set): the run exits 4."""
        self.limits = RunLimits(config)
        """The run's shared rate-limit directory (xdist workers get it through workerinput)."""

    @property
    def active(self) -> bool:
        return self.options.bundle is not None

    def plan(self) -> Plan:
        """The bundle after intake, read once per process; bad input becomes a usage error."""
        if self._plan is None:
            assert self.options.bundle is not None
            bundle, options = self.options.bundle, self.options
            arguments = (
                str(bundle),
                options.substitutes,
                options.panel_label,
                options.rubric,
                options.compare,
                options.key_envs,
            )
            rubric_file = _rubric_file(options.rubric)
            try:
                plan = received_plan(self.config, bundle, arguments, rubric_file) if self.is_worker else None
                if plan is None:
                    # Digested before intake reads: a bundle changed meanwhile is a mismatch in the workers.
                    inputs = inputs_digest(bundle, arguments, rubric_file) if distributes(self.config) else None
                    roles = _roles(bundle)
                    substitutions = tuple(parse_substitution(text, roles) for text in options.substitutes)
                    plan = intake(
                        bundle,
                        substitutions,
                        options.panel_label,
                        options.rubric,
                        options.compare,
                        key_envs=options.key_envs,
                    )
                    if inputs is not None:
                        self._handoff = PlanHandoff(plan, inputs)
                self._plan = _bound(plan, self.options)
            except (IntakeError, ValueError, RecordingsError) as error:
                raise pytest.UsageError(str(error)) from None
        return self._plan

    def configure_node(self, node: Any) -> None:
        """What an xdist worker is handed before it starts: the shared limits directory, the controller's intake."""
        self.limits.configure_node(node)
        if self._handoff is not None:
            self._handoff.configure_node(node, self.limits.directory())

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

    def policy(self) -> RetryPolicy:
        """The bounded retry of a judge call (--ora-retries, --ora-timeout); batch polling uses it too."""
        from ..judges.transport import RetryPolicy

        return RetryPolicy(max_attempts=self.options.retries + 1, timeout=http_timeout(self.options.timeout))

    def spend_log(self) -> SpendLog:
        """This process's journal of live judge spend, beside the others' in the output directory."""
        worker = worker_id(self.config)
        return SpendLog(self.options.out / SPEND_DIR, worker)

    def in_flight_log(self) -> InFlightLog:
        """This process's journal of judge calls in flight, read by the controller's live progress line."""
        from ..judges.inflight import InFlightLog

        worker = worker_id(self.config)
        return InFlightLog(self.options.out / PROGRESS_DIR, worker)

    def header(self) -> list[str]:
        plan = self.plan()
        judges = ", ".join(f"{j.label} = {j.role} {j.spec.model} ({j.spec.provider})" for j in plan.panel.judges)
        rubric = plan.rubric
        lines = [
            f"ora: bundle {plan.bundle.manifest.bundle}: {plan.scored_entry_count} entries, "
            f"{plan.scored_set_captures} captures; record mode {self.options.record}",
            f"ora: rubric {rubric.version}: {formula(rubric)}",
            f"ora: panel {plan.panel.label}" + (f": {judges}" if judges else ""),
            f"ora: rubric digest {rubric.digest} ({rubric.source})"
            + (f"; {blindness(rubric)}" if plan.panel.judges else ""),
        ]
        if rubric.rules():
            lines.append(f"ora: rules: {rubric.rules()}")
        if rubric.recorded_under:
            lines.append(f"ora: rescoring offline: replies recorded under {rubric.recorded_under}, same judge requests")
        local = local_judge_notice(plan)
        if local is not None:
            lines.append(f"ora: {local}")
        return lines


def http_timeout(read: float) -> Any:
    """The judge clients' timeouts: --ora-timeout for the read, bounded connect, write and pool waits."""
    import httpx

    return httpx.Timeout(connect=min(10.0, read), read=read, write=30.0, pool=10.0)


def _bound(plan: Plan, options: Options) -> Plan:
    """The plan with its repeated answers (--ora-repeat), its rubric bound to the cassette directory (request format,
    rescoring) and its history checked against what this directory and the output directory's run.json recorded."""
    import dataclasses

    from .candidates.repeat import repeated

    plan = repeated(plan, options.repeat)
    if not plan.panel.judges:
        return plan
    rubric = bind_rubric(plan.rubric, options.cassettes)
    check_history(rubric, _run_rubric(options.out), f"recorded in {options.out / 'run.json'}")
    panel = sampled_panel(plan.panel, plan.bundle.manifest, rubric, options.judge_samples)
    return dataclasses.replace(plan, rubric=rubric, panel=panel)


def _run_rubric(out: Path) -> tuple[Any, ...]:
    """The rubric version and digest the last run in the output directory recorded (run.json), if readable."""
    from ..judges.recordings import Recorded
    from ..reports.runfile import RunFileError, read_run_file

    try:
        data = read_run_file(out / "run.json")
    except RunFileError:
        return ()
    return (Recorded(data.rubric, data.rubric_digest, ""),)


def _rubric_file(option: tuple[str, Path] | None) -> Path | None:
    """The file --ora-rubric names, when it names one (a built-in's id names none)."""
    if option is None:
        return None
    reference, base = option
    candidate = Path(reference) if Path(reference).is_absolute() else base / reference
    return candidate if candidate.is_file() else None


def _roles(bundle: Path) -> dict[str, Any]:
    """optimum.yaml's roles, for --ora-substitute; intake reports a broken file properly."""
    try:
        data, _ = read_yaml(bundle / "optimum.yaml")
        return {name: RoleSpec.model_validate(spec) for name, spec in data["roles"].items()}
    except Exception:
        return {}
