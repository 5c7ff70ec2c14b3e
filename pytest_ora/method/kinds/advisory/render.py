"""advisory.json (machine-written) and ADVISORY-RESULT.md, rendered from advisory.json alone."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ....core.plan import Plan, PlannedCapture
from ....core.vocabulary import SECRET_REASON
from ...markdowntable import tabulated
from .observation import CASES, SCHEMA, THRESHOLD, Observation

__all__ = ["ADVISORY_JSON", "ADVISORY_RESULT", "advisory_data", "advisory_markdown"]

ADVISORY_JSON = "advisory.json"
ADVISORY_RESULT = "ADVISORY-RESULT.md"
NOTICE = "Advisory only: never a product, merge, CI or release gate."


def advisory_data(
    plan: Plan, observation_of: Callable[[Plan, PlannedCapture], Observation], selected: Iterable[str]
) -> dict[str, Any]:
    """Every selected capture's result (scored, or secret-bearing and so UNKNOWN), in plan order."""
    chosen = set(selected)
    results = []
    for planned in plan.captures:
        capture = planned.capture
        if capture.capture_id not in chosen:
            continue
        graded = planned.status == "judge" or (planned.reason or "").startswith(SECRET_REASON)
        observation = (
            observation_of(plan, planned)
            if graded
            else Observation("UNKNOWN", "missing", f"missing: the capture is {planned.status}")
        )
        results.append(
            {
                "capture_id": capture.capture_id,
                "entry_key": capture.entry_key,
                "configuration": capture.configuration,
                **observation.data(),
            }
        )
    counts = {grade: sum(1 for r in results if r["result"] == grade) for grade in ("PASS", "FAIL", "UNKNOWN")}
    return {
        "schema": SCHEMA,
        "threshold": THRESHOLD,
        "rubric": plan.rubric.version,
        "rubric_digest": plan.rubric.digest,
        "bundle": plan.bundle.manifest.bundle,
        "advisory_only": True,
        "gate": False,
        "notice": NOTICE,
        "counts": counts,
        "results": results,
    }


def _metric_cell(metrics: Mapping[str, Mapping[str, Any]]) -> str:
    if not metrics:
        return ""
    names = (
        "repeated_corrections",
        "architecture_guesses",
        "relevant_rule_precision",
        "capsule_bytes",
        "conflict_overwrites",
        "rollback",
    )
    return "; ".join(f"{name}: " + " -> ".join(str(metrics[case][name]) for case in CASES) for name in names)


def advisory_markdown(data: Mapping[str, Any]) -> str:
    """The rendered result; the same advisory.json always gives the same bytes."""
    rows = [
        [
            r["capture_id"],
            r["result"] if not r["reason"] else f"{r['result']} ({r['reason']})".replace("|", "\\|"),
            _metric_cell(r["metrics"]),
        ]
        for r in data["results"]
    ]
    counts = data["counts"]
    return "\n".join(
        [
            f"# Advisory observation result: {data['bundle']}",
            "",
            f"**{data['notice']}**",
            "",
            f"Records of schema {data['schema']}, evaluated mechanically against the fixed {data['threshold']} threshold "
            f"(rubric {data['rubric']}, digest {data['rubric_digest']}). PASS or FAIL only for a complete result bound "
            "exactly to the configured commits, package and model; anything else is UNKNOWN with its cause. Rendered by "
            "pytest-ora from advisory.json; never hand-edited (`python -m pytest_ora verify` checks).",
            "",
            f"PASS {counts['PASS']}, FAIL {counts['FAIL']}, UNKNOWN {counts['UNKNOWN']}.",
            "",
            tabulated(
                rows,
                headers=["Capture", "Result (advisory only)", f"Metrics ({' -> '.join(CASES)})"],
                tablefmt="github",
                disable_numparse=True,
            ),
            "",
        ]
    )
