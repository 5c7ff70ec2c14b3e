"""What a rubric kind supplies. Every kind: its name, formula and summary columns (Kind). A judged kind
(JudgedKind): its reply schema, instructions and validation, its record fields and the panel combination.
A mechanical kind (MechanicalKind): one capture's record and its report files. Anything else a kind may
do is an optional capability (kinds/capabilities.py). One package per kind, registered by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ...core.errors import show_value
from ...core.models import Capture
from ...core.plan import Plan, PlannedCapture
from ...core.record import CaptureRecord
from ...core.rubric import Rubric
from ..scoring import Scores


class CheckedReply(Protocol):
    """A judge's reply once its kind has checked it: the kind's closed, frozen reply model (JudgeReply for scores)."""

    @property
    def judge_model(self) -> str:
        """The model id the judge says it is (recorded beside the one the provider reports)."""
        ...


ReplyT = TypeVar("ReplyT", bound=CheckedReply)
"""A kind's reply model."""

PacketT = TypeVar("PacketT", bound=BaseModel)
PacketBuilder = Callable[[Capture, Path, Rubric], tuple[PacketT, bytes | None]]
"""How the judges build one packet (judges/packet.py: build_packet): passed in, so the method never imports them."""

__all__ = [
    "CheckedReply",
    "JudgedKind",
    "Kind",
    "MechanicalKind",
    "PacketBuilder",
    "PacketT",
    "PanelScores",
    "ReplyObject",
    "ReplyProblem",
    "ReplyT",
    "Strict",
    "check_echo",
    "first_error",
    "parse_reply",
]


@dataclass(frozen=True)
class ReplyProblem:
    """Why a reply was refused: the field, the value seen, the reason."""

    field: str
    value: str
    reason: str

    def sentence(self) -> str:
        return f"field '{self.field}' {self.reason} (got {self.value})"


class Kind(Protocol):
    """What every rubric kind (`kind:`) supplies, judged or not."""

    name: str

    def formula(self, rubric: Rubric) -> str:
        """The formula as printed in the header, summary.md and the methodology note."""
        ...

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        """The per-capture values averaged into `mean_<name>` summary columns, in table order."""
        ...


@runtime_checkable
class PanelScores(Protocol):
    """A kind whose scored records carry scores the panel combination recomputes exactly (every judged
    kind, and python). A kind without it grades instead: its records carry `grades` and `failure`."""

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        """The panel's combination for a scored capture, from its record (judges' replies and material)."""
        ...

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        """The per-capture values of the summary columns (and of the ledger_extra fields, when it has them)."""
        ...


class JudgedKind(Kind, PanelScores, Protocol[ReplyT]):
    """A kind whose captures the judges score: what to ask, how to check a reply, how to combine the panel.

    Optional capabilities (kinds/capabilities.py) change the rest: several packets per item (ItemShape),
    material beside the answer (Material), its own report files (OwnReports), and so on."""

    def instructions(self, rubric: Rubric) -> str:
        """The reply paragraph of the judge prompt: what to put in each field of the reply."""
        ...

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        """JSON Schema of a judge's reply object for this rubric (blind rubrics omit configuration)."""
        ...

    def check(
        self,
        payload: object,
        rubric: Rubric,
        entry_key: str,
        configuration: str | None,
        material: Mapping[str, Any] | None = None,
    ) -> ReplyT | ReplyProblem:
        """The validated reply (the kind's model), or the first ReplyProblem; never repaired."""
        ...

    def record_fields(self, reply: ReplyT, rubric: Rubric) -> dict[str, Any]:
        """A validated reply as plain builtins: scores, notes, impression, and `answers` when the kind has more."""
        ...


@runtime_checkable
class MechanicalKind(Kind, Protocol):
    """A kind graded in this process (scorecard, python, advisory): no judge call, no network, no cassette."""

    files: tuple[str, ...]
    """Report files this kind may add to --ora-out (a new run archives the last run's with the others)."""

    def score_capture(self, plan: Plan, planned: PlannedCapture, suite: Any) -> CaptureRecord:
        """The record of one capture; `suite` is the eval suite's directory (a Path)."""
        ...

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        """Files this kind adds to --ora-out, by name."""
        ...

    def scored_by(self, rubric: Rubric) -> str:
        """What scored the captures instead of judges, for the methodology note."""
        ...


class Strict(BaseModel):
    """A closed, frozen part of a reply."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class ReplyObject(BaseModel):
    """A kind's reply model: closed, frozen, and only ever a JSON object."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _object(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("the reply must be a JSON object")
        return value


_Reply = TypeVar("_Reply", bound=BaseModel)


def first_error(error: ValidationError, payload: Any) -> ReplyProblem:
    """The first validation error of a reply as a ReplyProblem naming its field."""
    first = error.errors(include_url=False)[0]
    location = ".".join(str(part) for part in first["loc"]) or "(reply)"
    if first["type"] == "missing":
        return ReplyProblem(location, "nothing", "is missing")
    if first["type"] == "extra_forbidden":
        return ReplyProblem(location, show_value(first.get("input")), "is not a field of the reply schema")
    if not isinstance(payload, dict):
        return ReplyProblem("(reply)", show_value(payload), "is not a JSON object")
    message = str(first["msg"]).removeprefix("Value error, ").lower()
    return ReplyProblem(location, show_value(first.get("input")), message)


def parse_reply(model: type[_Reply], payload: Any, rubric: Rubric) -> _Reply | ReplyProblem:
    """The payload as the kind's reply model; a blind rubric's reply may not carry a configuration."""
    if rubric.blind and isinstance(payload, dict) and "configuration" in payload:
        return ReplyProblem("configuration", show_value(payload["configuration"]), "is not a field of a blind reply")
    try:
        return model.model_validate(payload)
    except ValidationError as error:
        return first_error(error, payload)


def check_echo(
    entry_key: str, configuration: str, rubric: Rubric, packet_key: str, packet_configuration: str | None
) -> ReplyProblem | None:
    """The reply's echoed entry_key (and configuration, unless blind) must be the packet's."""
    if entry_key != packet_key:
        return ReplyProblem("entry_key", show_value(entry_key), f"does not match the packet's {packet_key!r}")
    if not rubric.blind and packet_configuration is not None and configuration != packet_configuration:
        return ReplyProblem(
            "configuration", show_value(configuration), f"does not match the packet's {packet_configuration!r}"
        )
    return None
