"""What summary.md says above and below its table: the selection, the judges, where scores came from."""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from ..core.credentials import safe_route
from ..core.plan import JudgeSlot, Plan
from ..core.record import CaptureRecord
from .breakdown import family_table
from .methodology import RunFacts

__all__ = [
    "LOOPBACK_HOSTS", "incomplete_notice", "is_loopback", "local_judge_notice", "notices", "summary_appendix",
    "summary_preface",
]

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "::1"})


def is_loopback(judge: JudgeSlot) -> bool:
    """Whether the judge's route is this machine (or a private network address), not a provider's API."""
    import ipaddress

    host = urlsplit(judge.spec.route).hostname or ""  # as RoleSpec checked the route: never empty there
    if host in LOOPBACK_HOSTS or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


def local_judge_notice(plan: Plan) -> str | None:
    """One sentence for every output when a judge's route is this machine or a private address."""
    local = [judge for judge in plan.panel.judges if is_loopback(judge)]
    if not local:
        return None
    where = ", ".join(f"{j.label} at {safe_route(j.spec.route)}" for j in local)
    return (
        f"Scores from a judge on this machine: {where} (a loopback or private address, not a provider's API). "
        "pytest-ora's reference judge is a deterministic test double: its scores are not a model's."
    )


def incomplete_notice(facts: RunFacts) -> str | None:
    """'Incomplete run: 5 of 24 selected captures judged; re-run to complete' when the run stopped early."""
    if facts.complete:
        return None
    return (
        f"Incomplete run: {facts.judged} of {facts.selected} selected captures judged; re-run to complete "
        f"(stopped by {facts.stopped_by})"
    )


def notices(plan: Plan, facts: RunFacts) -> list[str]:
    """What the top of summary.md and report.html must say before any number: incomplete, local judge."""
    return [text for text in (incomplete_notice(facts), local_judge_notice(plan)) if text is not None]


def summary_preface(plan: Plan, facts: RunFacts) -> list[str]:
    """The selection banner of a partial run, the judges, and a plain note when they were local."""
    lines = [f"**Partial run ({facts.selection}).** Captures outside the selection are not in this table."] if facts.selection else []
    incomplete = incomplete_notice(facts)
    if incomplete is not None:
        lines.insert(0, f"**{incomplete}.** The means below cover only the captures judged.")
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
    ] if plan.rubric.criteria and plan.rubric.kind != "compare" else []  # a pair's win shares are no overall
    if plan.rubric.kind == "compare":
        from ..method.kinds.compare.report import compare_table

        blocks.append("## Head to head\n\n" + compare_table(records, plan.rubric))
    if facts.spend:
        blocks.append("## Judge spend (live calls this run, tokens x price)\n\n" + "\n".join(f"- {line}" for line in facts.spend))
    return blocks
