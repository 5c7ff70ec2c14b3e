"""In-process measurements: bundle intake, and the session-end report for synthetic records."""

from __future__ import annotations

import hashlib
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def timed(function: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """Median seconds of `repeat` calls, and the last call's result."""
    times = []
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def time_intake(bundle: Path, repeat: int) -> tuple[float, Any]:
    """Median seconds of pytest_ora.bundle.intake.intake(bundle), after one untimed warm-up call."""
    from pytest_ora.bundle.intake import intake

    intake(bundle)  # imports, pydantic validators and the page cache warm, as in any second run
    return timed(lambda: intake(bundle), repeat)


def _score(capture_id: str, judge: str, criterion: str) -> str:
    digest = hashlib.sha256(f"{capture_id}|{judge}|{criterion}".encode()).digest()
    return str(digest[0] % 21 / 2)  # 0.0 .. 10.0 in halves, as decimal strings like a real reply


def synthetic_records(plan: Any) -> list[Any]:
    """One record per planned capture: judged ones scored by two judges, the rest with their status."""
    from pytest_ora.core.record import JudgeRecord, base_record

    rubric = plan.rubric
    records = []
    for planned in plan.captures:
        if planned.status != "judge":
            records.append(base_record(planned, planned.status, planned.reason))
            continue
        record = base_record(planned, "scored")
        judges = []
        for judge in plan.panel.judges:
            judges.append(
                JudgeRecord(
                    label=judge.label,
                    slot=judge.slot,
                    role=judge.role,
                    provider=judge.spec.provider,
                    model=judge.spec.model,
                    resolved_model=judge.spec.model,
                    judge_model=judge.spec.model,
                    scores={name: _score(planned.capture.capture_id, judge.slot, name) for name in rubric.names},
                    notes={name: f"Synthetic note on {name} for the benchmark." for name in rubric.names},
                    impression="Synthetic impression written by benchmarks/inprocess.py.",
                    asks=1,
                    attempts=1,
                    usage={"input_tokens": 1950, "output_tokens": 200, "cached_input_tokens": 0, "reasoning_tokens": 0},
                )
            )
        record["judges"] = judges
        records.append(record)
    return records


def time_report(bundle: Path, out: Path, repeat: int) -> tuple[float, int, int]:
    """Median seconds of OutputDir.write_report for the bundle's plan with synthetic records.

    Returns (seconds, records, scored records). Each call writes into a fresh directory.
    """
    from pytest_ora.bundle.intake import intake
    from pytest_ora.reports.methodology import RunFacts
    from pytest_ora.reports.output import OutputDir

    plan = intake(bundle)
    records = synthetic_records(plan)
    facts = RunFacts(scoring_date="2026-06-20", record_mode="none", selected=len(records))
    runs = iter(range(repeat + 1))

    def write() -> None:
        OutputDir(out / f"report-{next(runs)}").write_report(plan, records, facts)

    write()  # warm-up: imports and first-use costs
    seconds, _ = timed(write, repeat)
    scored = sum(1 for record in records if record["status"] == "scored")
    return seconds, len(records), scored
