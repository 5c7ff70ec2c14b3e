"""The `ora_judge` fixture: a judgment inside any test, its exchanges in the test's own cassette, replayed offline."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from ...core.vocabulary import is_live
from ...judges.budget import SpendLog
from ...judges.ratelimit import SharedLimiter
from ...reports.filewriter import SPEND_DIR
from ..run import OraRun
from ..steps.spend import Budget
from ..xdist import worker_id
from .api import judge_in_run
from .result import JudgmentResult

__all__ = ["FOLDER", "OraJudge", "for_test"]

FOLDER = "ora_judge"
"""Under the --ora-cassettes directory: one folder per test module, one cassette per judgment of a test."""
_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-\[\]]+")


class OraJudge:
    """`ora_judge(mode, data, judges=[...])`: pytest_ora.judge with this test's cassette and --ora-record mode.

    The n-th judgment of a test is recorded in `<cassettes>/ora_judge/<module>/<test>[-n].json`. A
    replay (--ora-record none, the default) needs no key; give `judges` so the panel is the recorded one.
    A live judgment counts against the run's --ora-budget-usd and is paced by its shared rate limiter.
    """

    def __init__(
        self, stem: Path, record: str, budget: Budget | None = None, limiter: SharedLimiter | None = None
    ) -> None:
        self.stem = stem
        self.record = record
        self.budget = budget
        self.limiter = limiter
        self.calls = 0

    def cassette(self, number: int) -> Path:
        """Where the test's n-th judgment is recorded."""
        suffix = "" if number == 1 else f"-{number}"
        return self.stem.with_name(f"{self.stem.name}{suffix}.json")

    def __call__(
        self,
        mode: str,
        data: Mapping[str, Any],
        judges: Sequence[str] = (),
        scenarios: str | os.PathLike[str] | None = None,
    ) -> JudgmentResult:
        self.calls += 1
        record = "all" if self.record == "all" else "once" if self.record in ("once", "new_episodes") else "none"
        return judge_in_run(
            mode,
            data,
            judges=judges,
            cassette=self.cassette(self.calls),
            record=record,
            scenarios=scenarios,
            budget=self.budget,
            limiter=self.limiter,
        )


def for_test(request: pytest.FixtureRequest, run: OraRun) -> OraJudge:
    """The fixture's value for the requesting test, under the run's judge budget and shared rate limiter."""
    options = run.options
    module, _, name = request.node.nodeid.partition("::")
    folder = options.cassettes / FOLDER / Path(module).with_suffix("")
    live = is_live(options.record)
    budget = None if options.budget_usd is None else Budget(options.budget_usd, run.prices(), _spend_log(run))
    limiter = run.limits.limiter(options.rpm, options.tpm) if live else None
    return OraJudge(folder / _UNSAFE.sub("-", name.replace("::", ".")), options.record, budget, limiter)


def _spend_log(run: OraRun) -> SpendLog:
    """The run's spend: beside its captures' in a bundle run; else in the run's own shared directory, gone after it."""
    if run.active:
        return run.spend_log()
    return SpendLog(run.limits.directory() / SPEND_DIR, worker_id(run.config))
