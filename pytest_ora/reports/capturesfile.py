"""captures.jsonl under --ora-out: the run's captures with the answers its candidates made, a finished bundle's file.

Every candidate field is kept (candidate_model, latency, tokens, cost, generated_at) and a transcript is
written back as its list of turns, so a bundle holding this file (and no `candidates:`) is judged on the
very answers this run judged. A candidate that made no answer is written as an invalid capture (acceptance
failed, reason `candidate-failed`, the failure in its notes): never judged, as in this run. Captures with no
answer at all (not run, drift, budget) are left out, and so is any capture holding a credential's shape (nothing
under --ora-out holds one) or of a kind that never writes a capture's texts to an output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from ..bundle.secrets import secret_in
from ..core.candidates import CANDIDATE_FAILED
from ..core.fastload import loaded
from ..core.models import Capture
from ..core.plan import Plan
from ..core.record import CaptureRecord, answered_plan
from ..core.vocabulary import SECRET_REASON
from ..method.kinds import forwards_texts

__all__ = ["CANDIDATE_FAILED_REASON", "CAPTURES_NAME", "captures_jsonl"]

CAPTURES_NAME = "captures.jsonl"
CANDIDATE_FAILED_REASON = "candidate-failed"
"""The acceptance reason of a capture whose candidate made no answer."""


def captures_jsonl(plan: Plan, records: Sequence[CaptureRecord]) -> str:
    """The lines of the run's captures in plan order, answers included."""
    if not forwards_texts(plan.rubric.kind):
        return ""
    by_id = {record["capture_id"]: record for record in records}
    candidates = plan.bundle.manifest.candidates or {}
    lines = []
    for planned in answered_plan(plan, records).captures:
        record = by_id.get(planned.capture.capture_id)
        if record is None or planned.pair is not None or (record["reason"] or "").startswith(SECRET_REASON):
            continue  # not in this run's selection; a compared pair's item is two captures; a key in the input
        capture = loaded(planned.capture)
        if capture.configuration in candidates and "answer" not in record:
            if not (record["reason"] or "").startswith(CANDIDATE_FAILED):
                continue  # no answer was made: nothing to write
            capture = capture.model_copy(
                update={
                    "acceptance": capture.acceptance.model_copy(
                        update={"passed": False, "reason": CANDIDATE_FAILED_REASON, "notes": record["reason"] or ""}
                    )
                }
            )
        line = _line(capture)
        if secret_in(line) is None:
            lines.append(line)
    return "".join(lines)


def _line(capture: Capture) -> str:
    data = capture.model_dump(mode="python", exclude_none=True, exclude={"transcript"})
    if capture.transcript is not None:
        data["answer"] = [turn.model_dump() for turn in capture.transcript]
    return _json(data) + "\n"


def _json(value: Any) -> str:
    """JSON text whose numbers are written exactly as they are (a Decimal never goes through a binary float)."""
    if isinstance(value, Decimal):
        return format(value, "f")
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{json.dumps(str(key), ensure_ascii=False)}: {_json(item)}" for key, item in value.items())
            + "}"
        )
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_json(item) for item in value) + "]"
    return json.dumps(value, ensure_ascii=False)
