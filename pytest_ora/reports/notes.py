"""What summary.md says above and below its table: the selection, the judges, where scores came from."""

from __future__ import annotations

from collections.abc import Sequence

from ..core.credentials import safe_route
from ..core.plan import Plan
from ..core.record import CaptureRecord
from .breakdown import family_table
from .judgesites import LOCAL_SPEND_HEADING, LOOPBACK_HOSTS, SPEND_HEADING, all_local, is_loopback, spend_heading
from .methodology import RunFacts

__all__ = [
    "LOCAL_SPEND_HEADING",
    "LOOPBACK_HOSTS",
    "SPEND_HEADING",
    "all_local",
    "incomplete_notice",
    "is_loopback",
    "local_judge_notice",
    "notices",
    "scored_share",
    "spend_heading",
    "summary_appendix",
    "summary_preface",
]


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
    lines = (
        [f"**Partial run ({facts.selection}).** Captures outside the selection are not in this table."]
        if facts.selection
        else []
    )
    incomplete = incomplete_notice(facts)
    if incomplete is not None:
        lines.insert(0, f"**{incomplete}.** The means below cover only the captures judged.")
    judges = "; ".join(f"{j.label} = {j.role} {j.spec.model} ({j.spec.provider})" for j in plan.panel.judges)
    lines.append(f"Judges (panel {plan.panel.label}): {judges}.")
    local = [judge for judge in plan.panel.judges if is_loopback(judge)]
    if local:
        where = ", ".join(f"{j.label} at {safe_route(j.spec.route)}" for j in local)
        lines.append(
            f"Scores from a local judge: {where}, on this machine, not a provider's API. When that is "
            "pytest-ora's reference judge (pytest_ora.testing.server), a deterministic test double, the "
            "scores recorded from it are the reference judge's, not a model's."
        )
    return lines


def scored_share(records: Sequence[CaptureRecord]) -> list[str]:
    """One plain line when some configuration's overall covers only part of its captures (the others failed)."""
    counts: dict[str, list[int]] = {}
    for record in records:
        if record["status"] in ("scored", "error"):
            count = counts.setdefault(record["configuration"], [0, 0])
            count[0] += record["status"] == "scored"
            count[1] += 1
    partial = [f"{lane} from {scored} of {total}" for lane, (scored, total) in counts.items() if scored < total]
    if not partial:
        return []
    return [
        f"**Overall from part of the captures: {'; '.join(partial)}.** The others failed (the Errors column; "
        "ledger status error, with the reason); each mean covers only the captures scored."
    ]


def summary_appendix(plan: Plan, records: Sequence[CaptureRecord], facts: RunFacts) -> list[str]:
    """The per-family breakdown (for rubrics with scores) and, for a live run, what the judges cost."""
    blocks = (
        [
            "## Per family\n\nMean overall of scored captures within each family (captures in brackets).\n\n"
            + family_table(records, plan.lanes, plan.rubric)
        ]
        if plan.rubric.criteria and plan.rubric.kind != "compare"
        else []
    )  # a pair's win shares are no overall
    if plan.rubric.kind == "compare":
        from ..method.kinds.compare.report import compare_table

        blocks.append("## Head to head\n\n" + compare_table(records, plan.rubric))
    if facts.spend:
        blocks.append(f"## {spend_heading(plan)}\n\n" + "\n".join(f"- {line}" for line in facts.spend))
    if facts.candidate_spend:
        from .judgesites import CANDIDATE_SPEND_HEADING

        blocks.append(f"## {CANDIDATE_SPEND_HEADING}\n\n" + "\n".join(f"- {line}" for line in facts.candidate_spend))
    return blocks
