"""What a rubric kind supplies: its reply schema and validation, a judge's own overall, the panel
combination, its ledger fields, summary columns and report files. One module per kind, found by name."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from ...core.errors import Problem, show_value
from ...core.models import Capture
from ...core.plan import PlannedCapture
from ...core.record import CaptureRecord, JudgeRecord
from ...core.rubric import Rubric
from ..scoring import Scores

PacketT = TypeVar("PacketT", bound=BaseModel)
PacketBuilder = Callable[[Capture, Path, Rubric], tuple[PacketT, bytes | None]]
"""How the judges build one packet (judges/packet.py: build_packet): passed in, so the method never imports them."""

__all__ = ["Kind", "OneAnswer", "PacketBuilder", "PacketT", "ReplyObject", "ReplyProblem", "Strict", "check_echo", "first_error", "parse_reply"]


@dataclass(frozen=True)
class ReplyProblem:
    """Why a reply was refused: the field, the value seen, the reason."""

    field: str
    value: str
    reason: str

    def sentence(self) -> str:
        return f"field '{self.field}' {self.reason} (got {self.value})"


class Kind(Protocol):
    """A rubric kind (SPEC 8 `kind:`); the runner, packet and reports only talk to this."""

    name: str
    answer_in_packet: bool
    files: tuple[str, ...]
    """Report files this kind may add to --ora-out (a new run archives the last run's with the others)."""
    """Whether the packet's ANSWER section holds the capture's answer (compare shows two responses instead)."""

    def items(
        self, planned: list[PlannedCapture], pairs: Sequence[tuple[str, str]], configurations: Sequence[str],
        problems: list[Problem],
    ) -> list[PlannedCapture]:
        """The run's items from intake's planned captures (compare: one per entry and pair); problems stop intake."""
        ...

    def lanes(self, configurations: Sequence[str], pairs: Sequence[tuple[str, str]]) -> tuple[str, ...]:
        """The summary's rows in table order (compare: one per pair, `A+B`)."""
        ...

    def packets(
        self, planned: PlannedCapture, root: Path, rubric: Rubric, build: PacketBuilder[PacketT],
    ) -> list[tuple[str, PacketT, bytes | None]]:
        """The packets every judge answers for one item, each tagged ("" when there is one); `build` makes one."""
        ...

    def merge(self, replies: Sequence[Sequence[JudgeRecord]], rubric: Rubric) -> list[JudgeRecord]:
        """Each judge's records over the item's packets (packets order, then panel order) as one record per judge."""
        ...

    def check_rubric(self, rubric: Rubric) -> str | None:
        """Why a rubric file of this kind cannot be used (its params, its criteria), or None."""
        ...

    def formula(self, rubric: Rubric) -> str:
        """The formula as printed in the header, summary.md and the methodology note."""
        ...

    def material(self, capture: Capture) -> dict[str, Any] | None:
        """What the packet carries beside the answer for this kind (checklist: the listed items), or None."""
        ...

    def capture_problem(self, capture: Capture) -> tuple[str, str] | None:
        """(field, what is wrong) when a capture lacks what this kind judges; intake stops on it."""
        ...

    def material_sections(self, material: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The packet sections (NAME, text) that show the material to the judge."""
        ...

    def instructions(self, rubric: Rubric) -> str:
        """The reply paragraph of the judge prompt: what to put in each field of the reply."""
        ...

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        """JSON Schema of a judge's reply object for this rubric (blind rubrics omit configuration)."""
        ...

    def check(
        self, payload: Any, rubric: Rubric, entry_key: str, configuration: str | None,
        material: Mapping[str, Any] | None = None,
    ) -> Any:
        """The validated reply (a model), or the first ReplyProblem; never repaired."""
        ...

    def record_fields(self, reply: Any, rubric: Rubric) -> dict[str, Any]:
        """A validated reply as plain builtins: scores, notes, impression, and `answers` when the kind has more."""
        ...

    def judge_overall(self, scores: Mapping[str, str], rubric: Rubric) -> Fraction:
        """One judge's own overall from its validated scores."""
        ...

    def combine(self, judges: Sequence[Mapping[str, str]], rubric: Rubric) -> Scores:
        """The panel's combination of the judges' scores: means, overall, failure, votes, verdict."""
        ...

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        """The panel's combination for a scored capture, from its record (judges' replies and material)."""
        ...

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        """Ledger fields this kind adds after the fixed ones: name -> (type, default)."""
        ...

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        """The per-capture values of the summary columns and of ledger_extra."""
        ...

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        """The per-capture values averaged into `mean_<name>` summary columns, in table order."""
        ...

    def outputs(self, records: Sequence[CaptureRecord], rubric: Rubric) -> dict[str, str]:
        """Report files of this kind beside the ledger and the tables: name -> text."""
        ...

    def terminal(self, records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
        """Lines the terminal shows after the summary table (records in plan order)."""
        ...


class OneAnswer:
    """What most kinds share: one item per capture, one packet, one reply per judge."""

    answer_in_packet = True
    files: tuple[str, ...] = ()

    def items(
        self, planned: list[PlannedCapture], pairs: Sequence[tuple[str, str]], configurations: Sequence[str],
        problems: list[Problem],
    ) -> list[PlannedCapture]:
        if pairs:
            problems.append(Problem("bundle.yaml", "names configuration pairs, which only a rubric of kind compare judges",
                                    field="compare", fix="drop compare: / --ora-compare, or use a compare rubric"))
        return planned

    def lanes(self, configurations: Sequence[str], pairs: Sequence[tuple[str, str]]) -> tuple[str, ...]:
        return tuple(configurations)

    def packets(
        self, planned: PlannedCapture, root: Path, rubric: Rubric, build: PacketBuilder[PacketT],
    ) -> list[tuple[str, PacketT, bytes | None]]:
        packet, image = build(planned.capture, root, rubric)
        return [("", packet, image)]

    def merge(self, replies: Sequence[Sequence[JudgeRecord]], rubric: Rubric) -> list[JudgeRecord]:
        (only,) = replies
        return list(only)

    def terminal(self, records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
        return []

    def check_rubric(self, rubric: Rubric) -> str | None:
        return None

    def formula(self, rubric: Rubric) -> str:
        return rubric.scores_formula()

    def material(self, capture: Capture) -> dict[str, Any] | None:
        return None

    def capture_problem(self, capture: Capture) -> tuple[str, str] | None:
        return None

    def material_sections(self, material: Mapping[str, Any]) -> list[tuple[str, str]]:
        return []

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        return {}

    def outputs(self, records: Sequence[CaptureRecord], rubric: Rubric) -> dict[str, str]:
        return {}


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


def check_echo(entry_key: str, configuration: str, rubric: Rubric, packet_key: str, packet_configuration: str | None) -> ReplyProblem | None:
    """The reply's echoed entry_key (and configuration, unless blind) must be the packet's."""
    if entry_key != packet_key:
        return ReplyProblem("entry_key", show_value(entry_key), f"does not match the packet's {packet_key!r}")
    if not rubric.blind and packet_configuration is not None and configuration != packet_configuration:
        return ReplyProblem("configuration", show_value(configuration), f"does not match the packet's {packet_configuration!r}")
    return None
