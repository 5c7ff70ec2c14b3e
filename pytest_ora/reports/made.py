"""The answers candidates made in the run, put back on the plan's captures for what the report reads of them.

The bundle holds no answer for a candidate configuration; each judged record carries the answer its
candidate made (and its candidate fields), so the files rendered from the plan's captures (cells.jsonl,
texts.json, the pilot's run block) show the answer that was judged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from decimal import Decimal

from ..core.fastload import loaded
from ..core.plan import Plan
from ..core.record import CaptureRecord

__all__ = ["with_made_answers"]


def with_made_answers(plan: Plan, records: Sequence[CaptureRecord]) -> Plan:
    """The plan with each candidate capture's answer and candidate fields as made in the run; the plan itself when none."""
    made = {record["capture_id"]: record for record in records if "answer" in record and "candidate" in record}
    if not made:
        return plan
    captures = []
    for planned in plan.captures:
        record = made.get(planned.capture.capture_id)
        if record is None:
            captures.append(planned)
            continue
        fields = dict(record["candidate"])
        cost = fields.get("candidate_cost_usd")
        fields["candidate_cost_usd"] = None if cost is None else Decimal(str(cost))
        capture = loaded(planned.capture).model_copy(update={"answer": record["answer"], **fields})
        captures.append(dataclasses.replace(planned, capture=capture))
    return dataclasses.replace(plan, captures=tuple(captures))
