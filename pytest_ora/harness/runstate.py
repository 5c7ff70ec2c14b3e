"""What the run's reporter and its facts read of the controller's state (the controller is one)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

import pytest

from ..core.plan import Plan
from ..core.record import RecordStore
from ..reports.aggregation import SummaryRow
from ..reports.methodology import RunFacts
from .gates import GateResult
from .options import Options
from .progress import LiveProgress
from .run import OraRun
from .signals import SignalGuard
from .strategy import JudgingStrategy

if TYPE_CHECKING:
    from ..bundle.labels import LabelSet
    from ..bundle.preferences import PreferenceSet

__all__ = ["RunState"]


class RunState(Protocol):
    """The controller's state as its reporter reads it."""

    run: OraRun
    config: pytest.Config
    options: Options
    records: RecordStore
    claimed: bool
    selected: int | None
    estimates: dict[str, dict[str, Any]]
    unjudged: list[str]
    report_error: str | None
    started: str
    kept_last: bool
    journal_error: str | None
    progress: LiveProgress | None
    signals: SignalGuard
    judging: JudgingStrategy
    labels: LabelSet | PreferenceSet | None
    gate_results: list[GateResult]
    facts: RunFacts | None

    def plan(self) -> Plan: ...

    def summary(self) -> list[SummaryRow]: ...
