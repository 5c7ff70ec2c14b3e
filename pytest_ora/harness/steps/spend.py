"""The spend step: a capture is not started past the run's budget, and its live calls (judges' and candidate's) are priced."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

import pytest

from ...core.record import CaptureRecord
from ...judges.budget import Price, SpendLog, usage_cost

__all__ = ["Budget", "BudgetReached", "NotJudged", "charge", "charge_candidate", "charge_judges", "check_budget"]


class NotJudged(pytest.skip.Exception):  # type: ignore[name-defined,misc]
    """A capture the runner decided not to send: skipped, with a ledger status and a reason of its own."""

    status = "unscorable"
    shown = "unscorable: "

    def __init__(self, capture_id: str, reason: str) -> None:
        super().__init__(f"{capture_id}: {self.shown}{reason}", allow_module_level=False)
        self.reason = reason


class BudgetReached(NotJudged):
    """The run's judge spend reached --ora-budget-usd: this capture is not started."""

    status = "budget"
    shown = ""  # the reason says "not judged" itself


@dataclass(frozen=True)
class Budget:
    """A cap on live spend, judges' and candidates' together, shared by every process of the run."""

    limit: Decimal
    prices: dict[str, Price]
    log: SpendLog
    candidates: bool = False
    """The bundle has candidates: their live answers count against the cap too."""


def check_budget(budget: Budget | None, capture_id: str) -> None:
    """BudgetReached when the run's spend so far reached the cap."""
    if budget is None:
        return
    spent = budget.log.total()
    if spent >= budget.limit:
        what = "spend (judges and candidates)" if budget.candidates else "judge spend"
        raise BudgetReached(capture_id, f"not judged: {what} ${spent:.2f} reached --ora-budget-usd {budget.limit}")


def charge_candidate(budget: Budget | None, usd: Decimal | None) -> None:
    """Add a candidate's live answer, as priced or reported, to the run's spend."""
    if budget is not None and usd is not None:
        budget.log.add(usd)


def charge(budget: Budget | None, record: CaptureRecord) -> None:
    """Add the record's live judge calls, priced, to the run's spend."""
    charge_judges(budget, record["judges"], record["live_calls"])


def charge_judges(budget: Budget | None, judges: Sequence[Mapping[str, Any]], live_calls: int) -> None:
    """Add these judges' usage, priced, to the run's spend when any of their calls went to the network."""
    if live_calls and budget is not None:
        budget.log.add(usage_cost(judges, budget.prices))
