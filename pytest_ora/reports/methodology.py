"""The methodology note (seed 000 Phase 7): who judged, with what, what was left out and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from ..bundle.intake import Plan
from ..record import CaptureRecord

__all__ = ["RunFacts", "methodology_markdown", "safe_route"]


@dataclass(frozen=True)
class RunFacts:
    """What the session knows about the run beyond the plan and the records."""

    scoring_date: str
    record_mode: str
    selected: int
    """Captures in this run's selection (after -k / -m)."""
    deviations: tuple[str, ...] = field(default_factory=tuple)
    seed: int = 0
    """--ora-seed: the statistics' resampling seed."""
    disagreement: str = "30%"
    """--ora-disagreement as given."""


def safe_route(route: str) -> str:
    """A route without its query string or user info, which may carry credentials."""
    parts = urlsplit(route)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def methodology_markdown(plan: Plan, records: Sequence[CaptureRecord], facts: RunFacts) -> str:
    """methodology.md for a finished (or interrupted) run."""
    rubric = plan.rubric
    manifest = plan.bundle.manifest
    lines = [
        f"# Methodology: {manifest.bundle}",
        "",
        "Machine-written by pytest-ora from the capture bundle and the judges' replies; do not edit.",
        "",
        "## Judges",
        f"Panel: {plan.panel.label}. Selected automatically from the frozen Optimum snapshot "
        f"{plan.bundle.optimum.snapshot} (frozen at {plan.bundle.optimum.frozen_at}).",
        "",
    ]
    for judge in plan.panel.judges:
        origin = f"substituted for {judge.slot}" if judge.substituted else f"Optimum {judge.slot}"
        lines.append(
            f"- {judge.label}: {judge.spec.model} ({judge.spec.provider}, {safe_route(judge.spec.route)}), {origin}"
        )
    lines += [
        "",
        "Each judge received the same packet and rubric independently; no packet held another judge's output.",
        "",
        "## Scoring",
        f"- Scoring date: {facts.scoring_date}",
        f"- Rubric: {rubric.version} ({rubric.title})",
        f"- Formula: {rubric.formula()}",
        f"- Criterion scores are the mean of the {_count(len(plan.panel.judges))} judges; arithmetic is exact (rational).",
        f"- Judge calls: record mode `{facts.record_mode}`",
        f"- Rubric digest: {rubric.digest} ({rubric.source}); kind {rubric.kind}",
        *([f"- Rules: {rubric.rules()} (votes count each judge's own overall)"] if rubric.rules() else []),
        *(["- Blind: packets withheld the configuration and the model snapshot; replies did not echo them"]
          if rubric.blind else []),
        "",
        "## Counts",
        f"- Scored set: {plan.scored_entry_count} entries "
        + "(" + ", ".join(f"{len(keys)} {family}" for family, keys in plan.entries.items()) + "), "
        f"{plan.scored_set_captures} captures",
        f"- This run's selection: {facts.selected} captures; records written: {len(records)}",
    ]
    status = Counter(record["status"] for record in records)
    lines.append(
        "- Outcomes: " + ", ".join(f"{status.get(name, 0)} {name}" for name in ("scored", "excluded", "unscorable", "error"))
    )
    lines += _reasked(records)
    lines += _section("Exclusions", [r for r in records if r["status"] == "excluded"])
    lines += _section("Unscorable captures", [r for r in records if r["status"] == "unscorable"])
    lines += _section("Errors", [r for r in records if r["status"] == "error"])
    lines += ["", "## Lanes not captured"]
    if plan.lanes_missing:
        lines += [f"- {key}: not captured on {', '.join(lanes)}" for key, lanes in sorted(plan.lanes_missing.items())]
    else:
        lines.append("- none")
    if plan.collision_losers:
        lines += ["", "## Collisions", *(f"- {key}: excluded, scored in the winning family" for key in plan.collision_losers)]
    lines += ["", "## Deviations"]
    deviations = list(facts.deviations)
    for judge in plan.panel.substituted:
        deviations.append(f"{judge.label} substituted: {judge.spec.provider}:{judge.spec.model} for {judge.slot} (panel {plan.panel.label})")
    lines += [f"- {text}" for text in deviations] or ["- none"]
    lines += ["", "## Rubric history", *(f"- {entry}" for entry in rubric.history), ""]
    return "\n".join(lines)


def _count(number: int) -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    return words[number] if number < len(words) else str(number)


def _reasked(records: Sequence[CaptureRecord]) -> list[str]:
    asks: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    for record in records:
        for judge in record["judges"]:
            asks[judge["label"]] += judge["asks"] - 1
            tokens[f"{judge['label']} input"] += judge["usage"]["input_tokens"]
            tokens[f"{judge['label']} output"] += judge["usage"]["output_tokens"]
    lines = [f"- Re-asks after invalid replies: {sum(asks.values())}"]
    lines += [f"  - {label}: {count}" for label, count in sorted(asks.items())]
    if tokens:
        lines.append("- Tokens billed: " + ", ".join(f"{name} {count}" for name, count in sorted(tokens.items())))
    return lines


def _section(title: str, records: Sequence[CaptureRecord]) -> list[str]:
    lines = ["", f"## {title}"]
    if not records:
        return [*lines, "- none"]
    return [*lines, *(f"- {r['capture_id']}: {r['reason']}" for r in records)]
