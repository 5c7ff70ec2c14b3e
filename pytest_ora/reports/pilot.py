"""The trio pilot's records: cells.jsonl (one record per cell and task) and pilot-summary.json, in the pilot's schema.

cells.jsonl is machine-written from the run's records; pilot-summary.json is rendered from it and run.json's
`pilot` block alone, so `verify` re-renders it. Candidate fields are the capture's own (answers made inside
the run carry them), else null: never guessed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ..core.fastload import loaded
from ..core.models import Capture, Pilot
from ..core.plan import Plan
from ..core.record import CaptureRecord
from ..judges.budget import DEFAULT_PRICES, cost, price_for
from ..method.kinds import combined
from ..method.scoring import judge_overall
from .runfile import PilotBlock, PilotHypothesis

__all__ = ["CELLS", "PILOT_SUMMARY", "cells_jsonl", "judge_key", "pilot_run", "pilot_summary"]

CELLS = "cells.jsonl"
PILOT_SUMMARY = "pilot-summary.json"
CANDIDATE_FIELDS = ("candidate_latency_ms", "candidate_tokens_in", "candidate_tokens_out", "candidate_cost_usd")


def judge_key(role: str) -> str:
    """The record's key for a judge role: `judge-opus` -> `judge_opus`."""
    name = role.removeprefix("judge-").removeprefix("judge_")
    return "judge_" + name.replace("-", "_")


def _number(value: Any) -> float | int | None:
    """A capture's number as JSON writes it (an exact decimal read back as the nearest float), or None."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return float(value)


def _mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values)


def _cell_record(
    plan: Plan,
    pilot: Pilot,
    task: str,
    cell_id: str,
    by_id: Mapping[str, CaptureRecord],
    captures: Mapping[str, Capture],
    head_sha: str | None,
) -> dict[str, Any]:
    rubric = plan.rubric
    cell = pilot.cells[cell_id]
    ids = [f"{entry}/{cell.configuration}" for entry in pilot.tasks[task]]
    records = [by_id[i] for i in ids if i in by_id and by_id[i]["status"] == "scored"]
    one = captures.get(ids[0]) if len(ids) == 1 else None
    record: dict[str, Any] = {
        "task_id": task,
        "cell_id": cell_id,
        "model": cell.model,
        "configuration": cell.setting,
        "candidate_response": one.answer if one is not None and records else None,
    }
    for name in CANDIDATE_FIELDS:
        record[name] = _number(getattr(one, name, None)) if one is not None else None
    judges: dict[str, list[dict[str, Any]]] = {}
    for scored in records:
        for judge in scored["judges"]:
            judges.setdefault(judge_key(judge["role"]), []).append(dict(judge))
    for key, replies in judges.items():
        means = {name: _mean([Fraction(r["scores"][name]) for r in replies]) for name in rubric.names}
        only = replies[0] if len(replies) == 1 else {}
        record[key] = {
            **{name: float(means[name]) for name in rubric.names},
            "rationale": only.get("rationale"),
            "overall_verdict": only.get("overall_verdict"),
            "mean": float(_mean([judge_overall(r["scores"], rubric) for r in replies])),
        }
    panels = [combined(scored, rubric) for scored in records]
    record["trio_mean"] = float(_mean([p.overall for p in panels])) if panels else None
    record["trio_strict_pass"] = all(p.votes.get("strict_pass", False) for p in panels) if panels else None
    record["trio_critical_fail"] = any(p.votes.get("critical", False) for p in panels) if panels else None
    record["manifest_anchor"] = pilot.manifest_anchor
    record["head_sha"] = head_sha
    return record


def cells_jsonl(plan: Plan, records: Sequence[CaptureRecord], head_sha: str | None) -> str:
    """cells.jsonl: one record per task and cell, tasks and cells in bundle.yaml's order."""
    pilot = plan.bundle.manifest.pilot
    assert pilot is not None
    by_id = {record["capture_id"]: record for record in records}
    wanted = {
        f"{entry}/{cell.configuration}"
        for entries in pilot.tasks.values()
        for entry in entries
        for cell in pilot.cells.values()
    }
    captures = {p.capture.capture_id: loaded(p.capture) for p in plan.captures if p.capture.capture_id in wanted}
    lines = [
        json.dumps(_cell_record(plan, pilot, task, cell_id, by_id, captures, head_sha), ensure_ascii=False)
        for task in pilot.tasks
        for cell_id in pilot.cells
    ]
    return "\n".join(lines) + "\n"


def _judge_cost(records: Sequence[CaptureRecord]) -> Fraction | None:
    """Every judge call's tokens (recorded or live) at the default price table; None when a model has no price."""
    total = Fraction(0)
    for record in records:
        for judge in record["judges"]:
            price = price_for(judge["model"], DEFAULT_PRICES)
            if price is None:
                return None
            usage = judge["usage"]
            total += Fraction(
                cost(
                    price,
                    usage["input_tokens"],
                    usage["output_tokens"],
                    usage["cached_input_tokens"],
                    usage.get("cache_write_input_tokens", 0),
                )
            )
    return total


def pilot_run(plan: Plan, records: Sequence[CaptureRecord], run: Mapping[str, str | None]) -> PilotBlock:
    """run.json's `pilot` block: what pilot-summary.json is rendered from beside cells.jsonl."""
    manifest = plan.bundle.manifest
    pilot = manifest.pilot
    assert pilot is not None
    configurations = {cell.configuration for cell in pilot.cells.values()}
    captures = [
        p.capture
        for p in plan.captures
        if p.capture.configuration in configurations
        and any(p.capture.entry_key in entries for entries in pilot.tasks.values())
    ]
    candidate_costs = [getattr(c, "candidate_cost_usd", None) for c in captures]
    candidate_cost = sum((Fraction(str(c)) for c in candidate_costs if c is not None), Fraction(0))
    judges = _judge_cost(records)
    return PilotBlock(
        id=pilot.id,
        cells={cell_id: cell.configuration for cell_id, cell in pilot.cells.items()},
        hypotheses=[
            PilotHypothesis(id=h.id, label=h.label, better=h.better, worse=h.worse, margin=str(h.margin))
            for h in manifest.hypotheses or ()
        ],
        verdict=None if manifest.verdict is None else manifest.verdict.model_dump(),
        execution_window_utc=f"{run.get('started_utc')} to {run.get('ended_utc')}",
        total_cost_usd=None if judges is None else float(candidate_cost + judges),
        total_judge_calls=sum(judge["asks"] for record in records for judge in record["judges"]),
        total_candidate_calls=sum(1 for c in captures if getattr(c, "candidate_model", None) is not None),
    )


def _exact(value: float) -> Fraction:
    return Fraction(repr(value))


def pilot_summary(cells: Sequence[Mapping[str, Any]], pilot: PilotBlock) -> str:
    """pilot-summary.json from cells.jsonl and run.json's pilot block."""
    cell_of = {configuration: cell_id for cell_id, configuration in pilot.cells.items()}
    means: dict[str, dict[str, float | None]] = {}
    for record in cells:
        means.setdefault(record["task_id"], {})[record["cell_id"]] = record["trio_mean"]
    per_task: dict[str, dict[str, Any]] = {}
    passes = {h.id: 0 for h in pilot.hypotheses}
    for task, cell_means in means.items():
        row: dict[str, Any] = {f"cell_{cell_id}_trio_mean": mean for cell_id, mean in cell_means.items()}
        directional: dict[str, bool | None] = {}
        for h in pilot.hypotheses:
            name = h.id.lower()
            better, worse = cell_means.get(cell_of.get(h.better, "")), cell_means.get(cell_of.get(h.worse, ""))
            delta = None if better is None or worse is None else _exact(better) - _exact(worse)
            row[f"{name}_delta_{h.label}" if h.label else f"{name}_delta"] = None if delta is None else float(delta)
            margin = Fraction(h.margin)
            directional[name] = None if delta is None else bool(delta >= 0 if margin == 0 else delta > 0)
            passes[h.id] += bool(directional[name])
        row.update({f"{name}_directional_pass": value for name, value in directional.items()})
        per_task[task] = row
    critical = sum(1 for record in cells if record["trio_critical_fail"])
    aggregate: dict[str, Any] = {f"{h_id.lower()}_pass_count": count for h_id, count in passes.items()}
    aggregate["critical_failures"] = critical
    aggregate["pilot_verdict"] = _verdict(pilot.verdict, passes, critical)
    summary = {
        "pilot_id": pilot.id,
        "execution_window_utc": pilot.execution_window_utc,
        "total_cost_usd": pilot.total_cost_usd,
        "total_judge_calls": pilot.total_judge_calls,
        "total_candidate_calls": pilot.total_candidate_calls,
        "results_per_task": per_task,
        "aggregate": aggregate,
    }
    return json.dumps(summary, indent=2, ensure_ascii=False) + "\n"


def _verdict(rule: Mapping[str, Any] | None, passes: Mapping[str, int], critical: int) -> str | None:
    """PASS or FAIL under bundle.yaml's verdict rule over the per-task directional counts; None without a rule."""
    if rule is None:
        return None
    if rule.get("per_hypothesis_at_least") is not None:
        passed = all(count >= int(rule["per_hypothesis_at_least"]) for count in passes.values())
    else:
        passed = sum(passes.values()) >= int(rule["directional_at_least"])
    if rule.get("no_critical"):
        passed = passed and critical == 0
    return "PASS" if passed else "FAIL"
