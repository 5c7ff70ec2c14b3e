"""What summary.md says above and below its table: the selection, the judges, where scores came from."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from ..core.credentials import safe_route
from ..core.plan import JudgeSlot, Plan
from ..core.record import CaptureRecord
from .breakdown import family_table
from .methodology import RunFacts

__all__ = ["LOOPBACK_HOSTS", "is_loopback", "summary_appendix", "summary_preface"]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def is_loopback(judge: JudgeSlot) -> bool:
    """Whether the judge's route is this machine, not a provider's API."""
    return httpx.URL(judge.spec.route).host in LOOPBACK_HOSTS


def summary_preface(plan: Plan, facts: RunFacts) -> list[str]:
    """The selection banner of a partial run, the judges, and a plain note when they were local."""
    lines = [f"**Partial run ({facts.selection}).** Captures outside the selection are not in this table."] if facts.selection else []
    judges = "; ".join(f"{j.label} = {j.role} {j.spec.model} ({j.spec.provider})" for j in plan.panel.judges)
    lines.append(f"Judges (panel {plan.panel.label}): {judges}.")
    local = [judge for judge in plan.panel.judges if is_loopback(judge)]
    if local:
        where = ", ".join(f"{j.label} at {safe_route(j.spec.route)}" for j in local)
        lines.append(
            f"Scores from a local judge: {where}, on this machine, not a provider's API. pytest-ora's "
            "sample bundle routes its judges to the reference judge (pytest_ora.testing.server), a "
            "deterministic test double; scores recorded from it are the reference judge's, not a model's."
        )
    return lines


def summary_appendix(plan: Plan, records: Sequence[CaptureRecord], facts: RunFacts) -> list[str]:
    """The per-family breakdown (for rubrics with scores) and, for a live run, what the judges cost."""
    blocks = [
        "## Per family\n\nMean overall of scored captures within each family (captures in brackets).\n\n"
        + family_table(records, plan.lanes, plan.rubric)
    ] if plan.rubric.criteria else []
    if facts.spend:
        blocks.append("## Judge spend (live calls this run, tokens x price)\n\n" + "\n".join(f"- {line}" for line in facts.spend))
    return blocks
