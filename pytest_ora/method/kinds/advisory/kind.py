"""The advisory kind: each capture's `evidence` is one `opencode-advisory-observation.1` record; no judge."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from ....core.errors import Problem
from ....core.plan import Plan, PlannedCapture
from ....core.record import CaptureRecord, base_record
from ....core.rubric import Rubric
from ....core.vocabulary import SECRET_REASON
from ..base import MechanicalKind
from ..capabilities import BundleFile, Graded, LedgerExtra, Terminal
from ..scorecard.card import duplicate_paths
from .observation import SCHEMA, THRESHOLD, Binding, Observation, observe, read_binding
from .render import ADVISORY_JSON, ADVISORY_RESULT, advisory_data

__all__ = ["BINDING_FILE", "KIND", "AdvisoryKind", "observation_of"]

BINDING_FILE = "binding.yaml"
"""In the bundle: the exact candidate and base commits, package identity and configured model records must match."""
MAX_BINDING_BYTES = 64 * 1024
"""binding.yaml is a handful of lines: anything larger is refused unread."""


def _binding(root: Path) -> Binding:
    """The bundle's binding.yaml (ValueError names what is wrong)."""
    path = root / BINDING_FILE
    if not path.is_file() or path.is_symlink():
        raise ValueError("is missing: an advisory bundle names the commits, package and model records are bound to")
    if path.stat().st_size > MAX_BINDING_BYTES:
        raise ValueError(f"is over {MAX_BINDING_BYTES} bytes: refusing to read it as a binding")
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise ValueError(f"cannot be read ({type(error).__name__})") from None
    return read_binding(data)


def observation_of(plan: Plan, planned: PlannedCapture) -> Observation:
    """The capture's result: UNKNOWN for a secret-bearing or otherwise unusable capture, else its record's."""
    capture = planned.capture
    if (planned.reason or "").startswith(SECRET_REASON):
        return Observation(
            "UNKNOWN",
            "secret-bearing",
            "secret-bearing: the capture holds credential-shaped text; nothing of it was evaluated",
        )
    if capture.prompt or capture.answer or capture.context or capture.visual_artifact:
        return Observation(
            "UNKNOWN",
            "malformed",
            "malformed: the capture carries a prompt, an output, context or an "
            "artifact path; the evaluator receives normalized record fields only",
        )
    if capture.evidence is None:
        return Observation("UNKNOWN", "missing", "missing: the capture holds no record")
    if duplicate_paths(plan.bundle.root, planned.line):
        return Observation("UNKNOWN", "malformed", "malformed: a key of the record is given twice (ambiguous JSON)")
    # `evidence: {records: [...]}` is how a host adapter hands over several: more than one is UNKNOWN (multiple).
    records = capture.evidence["records"] if set(capture.evidence) == {"records"} else capture.evidence
    return observe(records, _binding(plan.bundle.root))


class AdvisoryKind(MechanicalKind, BundleFile, Graded, LedgerExtra, Terminal):
    """PASS / FAIL / UNKNOWN per observation record, always advisory-only; advisory.json and ADVISORY-RESULT.md."""

    name = "advisory"
    files = (ADVISORY_JSON, ADVISORY_RESULT)
    forwards_texts = False
    """The evaluator never receives or forwards a prompt or an output: no output holds them, only that they were there."""

    def check_bundle(self, root: Path, problems: list[Problem]) -> None:
        """Intake's check of this kind's own bundle file: binding.yaml exists and is well formed."""
        try:
            _binding(root)
        except ValueError as error:
            problems.append(
                Problem(
                    BINDING_FILE,
                    str(error),
                    fix="write binding.yaml beside bundle.yaml (candidate_sha, "
                    "base_sha, package {name, version, tar_sha256, content_sha256}, model)",
                )
            )

    def formula(self, rubric: Rubric) -> str:
        return (
            f"each {SCHEMA} record evaluated mechanically against the fixed {THRESHOLD} threshold; "
            "advisory only, never a gate"
        )

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        return {"grades": (dict[str, str] | None, None)}  # {profile-adherence-v1: its result cell}

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return ()

    def grade_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return ()  # ledger.csv shows no grade column for the threshold: advisory.json holds the results

    def scored_by(self, rubric: Rubric) -> str:
        return f"None: rubric kind {rubric.kind} grades every capture mechanically from its evidence."

    def score_capture(self, plan: Plan, planned: PlannedCapture, suite: Any) -> CaptureRecord:
        observation = observation_of(plan, planned)
        record = base_record(planned, "scored")
        record["grades"] = {THRESHOLD: observation.cell()}
        record["failure"] = False  # advisory only: a FAIL is reported, never a failed test or a gate
        return record

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        data = advisory_data(plan, observation_of, {record["capture_id"] for record in records})
        # ADVISORY-RESULT.md is rendered from advisory.json by the report registry (reports/renderers.py).
        return {ADVISORY_JSON: json.dumps(data, indent=2, ensure_ascii=False) + "\n"}

    def terminal(self, records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
        cells = [record.get("grades", {}).get(THRESHOLD, "") for record in records]
        counts = {grade: sum(cell.startswith(grade) for cell in cells) for grade in ("PASS", "FAIL", "UNKNOWN")}
        return [
            "",
            f"ora: advisory only, never a gate: {counts['PASS']} PASS, {counts['FAIL']} FAIL, "
            f"{counts['UNKNOWN']} UNKNOWN among scored records (advisory.json, ADVISORY-RESULT.md)",
        ]


KIND = AdvisoryKind()
