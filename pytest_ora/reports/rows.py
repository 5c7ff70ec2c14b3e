"""The ledger and summary row models of a rubric: fixed fields first, in contract order.

The criterion fields take the rubric's names; the fields the rubric adds (digest, the `judges` list,
verdict, votes, their counts) follow the fixed ones, so an ora-1.0 row keeps its old prefix.
"""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

from ..core.models import JudgeColumn, PanelJudge, Status
from ..core.rubric import Rubric
from ..method.kinds import get_kind, ledger_extra
from ..method.rubric import ORA_V1

__all__ = ["CANDIDATE_FIELDS", "LedgerRow", "SummaryRow", "candidate_ledger_model", "ledger_model", "summary_model"]

_FROZEN = ConfigDict(frozen=True)


@functools.lru_cache(maxsize=32)
def ledger_model(rubric: Rubric) -> type[BaseModel]:
    """One capture in the per-capture ledger of this rubric."""
    fields: dict[str, Any] = {
        "capture_id": (str, ...),
        "entry_key": (str, ...),
        "family": (str, ...),
        "technique": (str, ...),
        "configuration": (str, ...),
        "status": (Status, ...),
        "reason": (str | None, None),
    }
    if rubric.panel_size == 2:
        fields.update(judge_a=(JudgeColumn | None, None), judge_b=(JudgeColumn | None, None))
    for name in get_kind(rubric.kind).summary_columns(rubric):
        fields[name] = (float | None, None)
    fields.update(
        weighted=(float | None, None),
        overall=(float | None, None),
        failure=(bool | None, None),
        rubric=(str, ...),
        rubric_digest=(str, ...),
        judges=(list[PanelJudge], []),
    )
    if rubric.verdicts:
        fields["verdict"] = (str | None, None)
    for vote in rubric.vote_names:
        fields[vote] = (bool | None, None)
    fields.update(ledger_extra(rubric))
    if rubric.blind:  # names the capture's own text carries: judged as written, unless strict withheld them
        fields["names_itself"] = (list[str] | None, None)
        if rubric.blind_strict:
            fields["withheld"] = (int | None, None)
    if rubric.recorded_under:
        fields["recorded_under"] = (str | None, None)  # rescored offline: the version the replies were recorded under
    model: type[BaseModel] = create_model("LedgerRow", __config__=_FROZEN, **fields)
    return model


CANDIDATE_FIELDS = (
    "candidate_model",
    "candidate_latency_ms",
    "candidate_tokens_in",
    "candidate_tokens_out",
    "candidate_cost_usd",
    "generated_at",
)
"""What a capture answered inside the run adds to its ledger row."""


@functools.lru_cache(maxsize=32)
def candidate_ledger_model(rubric: Rubric) -> type[BaseModel]:
    """A ledger row of this rubric for a capture whose answer its candidate made in the run."""
    model: type[BaseModel] = create_model(
        "CandidateLedgerRow",
        __base__=ledger_model(rubric),
        candidate_model=(str | None, None),
        candidate_latency_ms=(int | None, None),
        candidate_tokens_in=(int | None, None),
        candidate_tokens_out=(int | None, None),
        candidate_cost_usd=(str | None, None),
        generated_at=(str | None, None),
    )
    return model


@functools.lru_cache(maxsize=32)
def summary_model(rubric: Rubric) -> type[BaseModel]:
    """One configuration in the summary of this rubric, at full precision."""
    fields: dict[str, Any] = {
        "configuration": (str, ...),
        "judged": (int, ...),
        "unscorable": (int, ...),
        "excluded": (int, ...),
        "errors": (int, ...),
        "mean_overall": (float | None, ...),
    }
    for name in get_kind(rubric.kind).summary_columns(rubric):
        fields[f"mean_{name}"] = (float | None, ...)
    fields.update(
        failure_rate=(float | None, ...),
        cost_per_100_queries_usd=(float | None, ...),
        minutes_per_run=(float | None, ...),
        rubric=(str, ...),
        rubric_digest=(str, ...),
    )
    for band in rubric.verdicts:
        fields[f"verdict_{band.name}"] = (int, 0)
    for vote in rubric.vote_names:
        fields[vote] = (int, 0)
    fields["budget"] = (int, 0)  # captures not started once --ora-budget-usd was reached
    model: type[BaseModel] = create_model("SummaryRow", __config__=_FROZEN, **fields)
    return model


LedgerRow = ledger_model(ORA_V1)
"""The ora-1.0 ledger row."""
SummaryRow = summary_model(ORA_V1)
"""The ora-1.0 summary row."""
