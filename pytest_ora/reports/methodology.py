"""The methodology note (the Ora judging method): who judged, with what, what was left out and why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.credentials import safe_route
from ..core.plan import Plan
from ..core.record import CaptureRecord
from ..core.rubric import Rubric
from ..core.vocabulary import SECRET_REASON
from ..method.kinds import formula, mechanical_kind
from .methodologydata import MethodologyFacts

__all__ = ["RunFacts", "methodology_data", "methodology_markdown", "methodology_text", "secret_lines"]


@dataclass(frozen=True)
class RunFacts:
    """What the session knows about the run beyond the plan and the records."""

    scoring_date: str
    record_mode: str
    selected: int
    """Captures in this run's selection (after -k / -m)."""
    deviations: tuple[str, ...] = field(default_factory=tuple)
    selection: str = ""
    """A partial run's banner ('selection: 1 of 1,185 captures, -k ...'); empty for a full run."""
    spend: tuple[str, ...] = field(default_factory=tuple)
    """Live judge spend this run, one line per judge and a total; empty when every call replayed."""
    candidate_spend: tuple[str, ...] = field(default_factory=tuple)
    """Live candidate spend this run, apart from the judges': one line per candidate configuration, a total, and
    both together; empty when no candidate was called live."""
    seed: int = 0
    """--ora-seed: the statistics' resampling seed."""
    disagreement: str = "30%"
    """--ora-disagreement as given."""
    labels: Any = None
    """The run's human labels (a bundle.labels.LabelSet), checked at intake; None without labels."""
    complete: bool = True
    """Every selected capture was judged (False: Ctrl-C, SIGTERM, -x, --maxfail, the budget, a crash)."""
    stopped_by: str | None = None
    """What stopped an incomplete run: interrupt (Ctrl-C / SIGTERM), maxfail (-x / --maxfail), budget, crash."""
    judged: int = 0
    """Captures of the selection that were judged (or graded, or skipped with their reason)."""
    recorded_under: str | None = None
    """'version (digest)' when the replies were recorded under another rubric version and rescored offline."""
    notices: tuple[str, ...] = ()
    """What the top of summary.md and report.html say first (reports.notes.notices): incomplete run, local judge."""
    cluster: str | None = None
    """--ora-cluster (None: bundle.yaml's `cluster:`, if any)."""
    reference: str | None = None
    """--ora-reference."""
    pairs: tuple[tuple[str, str], ...] = ()
    """--ora-pairs."""
    design: dict[str, Any] = field(default_factory=dict)
    """Filled at the report: entry -> cluster label ("clusters") and configuration -> models ("snapshots")."""
    run: dict[str, str | None] = field(default_factory=dict)
    """run.json's own facts: pytest_ora_version, suite_commit, started_utc, ended_utc (SOURCE_DATE_EPOCH's when set)."""


def _all_local(plan: Plan) -> bool:
    from .judgesites import all_local

    return all_local(plan)


def methodology_markdown(plan: Plan, records: Sequence[CaptureRecord], facts: RunFacts) -> str:
    """methodology.md for a finished (or interrupted) run."""
    return methodology_text(methodology_data(plan, records, facts))


def methodology_data(plan: Plan, records: Sequence[CaptureRecord], facts: RunFacts) -> MethodologyFacts:
    """Everything the methodology note says (kept in run.json so `verify` can re-render it)."""
    rubric = plan.rubric
    status = Counter(record["status"] for record in records)
    asks: Counter[str] = Counter()
    tokens: Counter[str] = Counter()
    cached: Counter[str] = Counter()
    for record in records:
        for judge in record["judges"]:
            asks[judge["label"]] += judge["asks"] - 1
            tokens[f"{judge['label']} input"] += judge["usage"]["input_tokens"]
            tokens[f"{judge['label']} output"] += judge["usage"]["output_tokens"]
            cached[f"{judge['label']} read"] += judge["usage"].get("cached_input_tokens", 0)
            cached[f"{judge['label']} written"] += judge["usage"].get("cache_write_input_tokens", 0)
    deviations = list(facts.deviations)
    for slot in plan.panel.substituted:
        deviations.append(
            f"{slot.label} substituted: {slot.spec.provider}:{slot.spec.model} for {slot.slot} (panel {plan.panel.label})"
        )
    version = facts.run.get("pytest_ora_version")
    # A fact that applies only to some runs is given only then: other runs' run.json stays as it was.
    return MethodologyFacts.model_validate(
        {
            "bundle": plan.bundle.manifest.bundle,
            # The version that wrote the files, as run.json names it (unknown: not said).
            **({"pytest_ora_version": version} if version else {}),
            "panel": plan.panel.label,
            "snapshot": plan.bundle.optimum.snapshot,
            "frozen_at": None if plan.bundle.optimum.frozen_at is None else str(plan.bundle.optimum.frozen_at),
            "no_judge": None if plan.panel.judges else _no_judge(rubric),
            "judges": [
                {
                    "label": j.label,
                    "model": j.spec.model,
                    "provider": j.spec.provider,
                    "route": safe_route(j.spec.route),
                    "origin": f"substituted for {j.slot}" if j.substituted else f"Optimum {j.slot}",
                }
                for j in plan.panel.judges
            ],
            "scoring_date": facts.scoring_date,
            "record_mode": facts.record_mode,
            "rubric": {
                "version": rubric.version,
                "title": rubric.title,
                "formula": formula(rubric),
                "digest": rubric.digest,
                "source": _shown_source(rubric.source, plan.bundle.root),
                "kind": rubric.kind,
                "rules": rubric.rules(),
                "blind": rubric.blind,
                "history": list(rubric.history),
            },
            "scored_entry_count": plan.scored_entry_count,
            "entries": [[family, len(keys)] for family, keys in plan.entries.items()],
            "scored_set_captures": plan.scored_set_captures,
            "selected": facts.selected,
            "records": len(records),
            "outcomes": [[name, status.get(name, 0)] for name in ("scored", "excluded", "unscorable", "error")],
            "budget": status.get("budget", 0),
            "spend": list(facts.spend),
            # Only when a candidate answered live: other runs' run.json as before.
            **({"candidate_spend": list(facts.candidate_spend)} if facts.candidate_spend else {}),
            # judges on this machine: the spend is a price, not money paid (said only then: other runs' run.json as before)
            **({"spend_priced_only": True} if _all_local(plan) else {}),
            "reasks": sorted(asks.items()),
            "tokens": sorted(tokens.items()),
            # Only where a provider reported prompt-cache use: runs without it keep their run.json as before.
            **({"cached_tokens": sorted(cached.items())} if any(cached.values()) else {}),
            "exclusions": _listed(r for r in records if r["status"] == "excluded"),
            "secret_bearing": len(_secret_bearing(records)),
            **({"names_itself": sum(1 for r in records if r.get("names_itself"))} if rubric.blind else {}),
            **({"withheld": sum(r.get("withheld", 0) for r in records)} if rubric.blind_strict else {}),
            "unscorable": _listed(r for r in records if r["status"] == "unscorable"),
            "errors": _listed(r for r in records if r["status"] == "error"),
            "lanes_missing": [[key, list(lanes)] for key, lanes in sorted(plan.lanes_missing.items())],
            "collision_losers": list(plan.collision_losers),
            "deviations": deviations,
            "complete": facts.complete,
            "stopped_by": facts.stopped_by,
            "notices": list(facts.notices),
            **({"recorded_under": rubric.recorded_under} if rubric.recorded_under else {}),
            # Only with judge samples: runs with one judgment per judge keep their run.json as before.
            **(
                {"judge_samples": {"samples": plan.panel.samples, "reducer": plan.panel.reducer}}
                if plan.panel.samples > 1
                else {}
            ),
            **({"verdict_disagreements": verdict_disagreements(records)} if rubric.judge_verdict else {}),
        }
    )


def verdict_disagreements(records: Iterable[CaptureRecord]) -> list[str]:
    """Each judge whose stated overall_verdict is not the band its own scores give, one line per judge and capture."""
    lines = []
    for record in records:
        for judge in record["judges"]:
            stated, computed = judge.get("overall_verdict"), judge.get("computed_verdict")
            if stated is not None and stated != computed:
                lines.append(
                    f"{record['capture_id']}: {judge['label']} ({judge['model']}) stated {stated}; "
                    f"its scores give {computed}"
                )
    return lines


def _listed(records: Iterable[CaptureRecord]) -> list[list[str | None]]:
    return [[r["capture_id"], r["reason"]] for r in records]


def methodology_text(data: MethodologyFacts) -> str:
    """methodology.md from methodology_data alone."""
    rubric = data.rubric
    judged = bool(data.judges)
    origin = (
        f"Selected automatically from the frozen Optimum snapshot {data.snapshot} (frozen at {data.frozen_at})."
        if data.snapshot is not None
        else "Taken from the roles of the bundle's optimum.yaml."
    )
    lines = [
        f"# Methodology: {data.bundle}",
        "",
        "Machine-written by pytest-ora from the capture bundle and the judges' replies; do not edit.",
        "",
        "## Judges",
        f"Panel: {data.panel}. {origin}",
        "",
    ]
    if data.no_judge is not None:
        lines[-2:] = [data.no_judge, ""]
    for judge in data.judges:
        lines.append(f"- {judge.label}: {judge.model} ({judge.provider}, {judge.route}), {judge.origin}")
    sampled = data.judge_samples
    if sampled:
        lines += [
            "",
            f"Judge samples: each judge judged each capture {sampled.samples} times, each sample a call and a "
            "recorded exchange of its own (every sample after the first ends its prompt with one line naming the "
            "sample, so no cache can return another sample's reply); a judge's score per criterion is the "
            f"{sampled.reducer} of its samples"
            + (" (to six decimal places)" if sampled.reducer == "mean" else "")
            + ", and the ledger keeps each sample's scores.",
        ]
    lines += [
        "",
        "Each judge received the same packet and rubric independently; no packet held another judge's output."
        if judged
        else "Graded in the pytest processes themselves: no judge call, no network, no cassette.",
        "",
        "## Scoring",
        f"- Scoring date: {data.scoring_date}",
        *([f"- Written by pytest-ora {data.pytest_ora_version}"] if data.pytest_ora_version else []),
        f"- Rubric: {rubric.version} ({rubric.title})",
        f"- Formula: {rubric.formula}",
        f"- Criterion scores are the mean of the {_count(len(data.judges))} judges; arithmetic is exact (rational)."
        if judged
        else "- No judge was called: no packet left the machine, no network, no cassette.",
        f"- Judge calls: record mode `{data.record_mode}`",
        *(
            [
                f"- Judge replies: rescored from recordings made under {data.recorded_under}: the judges saw the same "
                f"requests, so no judge was called again; every number here is {rubric.version}'s arithmetic"
            ]
            if data.recorded_under
            else []
        ),
        f"- Rubric digest: {rubric.digest} ({rubric.source}); kind {rubric.kind}",
        *([f"- Rules: {rubric.rules} (votes count each judge's own overall)"] if rubric.rules else []),
        *(
            ["- Blind: packets withheld the configuration and the model snapshot; replies did not echo them"]
            if rubric.blind
            else []
        ),
        *(
            [
                f"- Blind texts: judged as written; {data.names_itself} judged "
                + (
                    "capture names its own configuration or model in its text "
                    if data.names_itself == 1
                    else "captures name their own configuration or model in their text "
                )
                + "(ledger field names_itself)"
            ]
            if data.names_itself is not None and data.withheld is None
            else []
        ),
        *(
            [
                f"- Blind texts (strict): {data.withheld} configuration or model "
                f"name{'s' if data.withheld != 1 else ''} replaced by [withheld] in the captures' texts "
                "(ledger field withheld)"
            ]
            if data.withheld is not None
            else []
        ),
        "",
        "## Counts",
        f"- Scored set: {data.scored_entry_count} entries "
        + "("
        + ", ".join(f"{count} {family}" for family, count in data.entries)
        + "), "
        f"{data.scored_set_captures} captures",
        f"- This run's selection: {data.selected} captures; records written: {data.records}",
        "- Outcomes: "
        + ", ".join(f"{count} {name}" for name, count in data.outcomes)
        + (f", {data.budget} not started (budget reached)" if data.budget else ""),
        f"- Re-asks after invalid replies: {sum(count for _, count in data.reasks)}",
        *(f"  - {label}: {count}" for label, count in data.reasks),
    ]
    if data.tokens:
        lines.append("- Tokens billed: " + ", ".join(f"{name} {count}" for name, count in data.tokens))
        cached = dict(data.cached_tokens or ())
        if cached:
            judges = sorted({name.rsplit(" ", 1)[0] for name in cached})
            lines.append(
                "- Prompt cache (input tokens, inside the input counts above; read at the cache rate, written at "
                "the write rate): "
                + "; ".join(
                    f"{j} read {cached.get(j + ' read', 0)}, written {cached.get(j + ' written', 0)}" for j in judges
                )
            )
    lines += _section("Exclusions", data.exclusions)
    if data.secret_bearing:
        lines += [
            "",
            "## Secret-bearing input",
            f"- {data.secret_bearing} captures held text shaped like a credential; they were excluded before any "
            "packet was built and never sent to a judge (the reason names the field, never the value)",
        ]
    lines += _section("Unscorable captures", data.unscorable)
    lines += _section("Errors", data.errors)
    if data.spend:
        from .judgesites import LOCAL_SPEND_HEADING, SPEND_HEADING

        heading = LOCAL_SPEND_HEADING if data.spend_priced_only else SPEND_HEADING
        lines += ["", f"## {heading}", *(f"- {line}" for line in data.spend)]
    if data.candidate_spend:
        from .judgesites import CANDIDATE_SPEND_HEADING

        lines += ["", f"## {CANDIDATE_SPEND_HEADING}", *(f"- {line}" for line in data.candidate_spend)]
    lines += ["", "## Lanes not captured"]
    lines += [f"- {key}: not captured on {', '.join(lanes)}" for key, lanes in data.lanes_missing] or ["- none"]
    if data.collision_losers:
        lines += [
            "",
            "## Collisions",
            *(f"- {key}: excluded, scored in the winning family" for key in data.collision_losers),
        ]
    if data.verdict_disagreements is not None:
        lines += ["", "## Stated verdicts that disagree with the judge's own scores"]
        lines += [f"- {text}" for text in data.verdict_disagreements] or ["- none"]
    lines += ["", "## Deviations"]
    lines += [f"- {text}" for text in data.deviations] or ["- none"]
    lines += ["", "## Rubric history", *(f"- {entry}" for entry in rubric.history), ""]
    return "\n".join(lines)


def _secret_bearing(records: Iterable[CaptureRecord]) -> list[CaptureRecord]:
    return [r for r in records if r["status"] == "excluded" and (r["reason"] or "").startswith(SECRET_REASON)]


def secret_lines(records: Iterable[CaptureRecord]) -> list[str]:
    """The terminal's word on captures excluded as secret-bearing input (none: no lines)."""
    secret = _secret_bearing(records)
    if not secret:
        return []
    ids = ", ".join(r["capture_id"] for r in secret)
    return [f"ora: {len(secret)} captures excluded as {SECRET_REASON}, never sent to a judge: {ids}", ""]


def _no_judge(rubric: Rubric) -> str:
    kind = mechanical_kind(rubric.kind)
    assert kind is not None, f"rubric kind {rubric.kind} calls judges"
    return kind.scored_by(rubric)


def _count(number: int) -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
    return words[number] if number < len(words) else str(number)


def _section(title: str, listed: Sequence[Sequence[str | None]]) -> list[str]:
    lines = ["", f"## {title}"]
    if not listed:
        return [*lines, "- none"]
    return [*lines, *(f"- {capture_id}: {reason}" for capture_id, reason in listed)]


def _shown_source(source: str, bundle_root: Path) -> str:
    """Where the rubric came from, as the outputs name it: builtin:<id>, or a file inside the bundle relative
    to the bundle (outputs do not depend on where the suite is checked out); a file elsewhere as given."""
    if source.startswith("builtin:"):
        return source
    path = Path(source)
    try:
        return f"bundle:{path.resolve().relative_to(bundle_root.resolve()).as_posix()}"
    except (OSError, ValueError):
        return source
