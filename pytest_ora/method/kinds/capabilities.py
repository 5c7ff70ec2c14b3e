"""What some kinds do beyond their protocol (base.py): one small protocol per capability.

A kind has a capability by implementing its methods; the registry (kinds/__init__.py) asks for it and
falls back to the default written here, so a kind never carries a method it does not use.

| capability    | default                                         | who has it                        |
|---------------|-------------------------------------------------|-----------------------------------|
| ItemShape     | one item per capture, one packet (ONE_ANSWER)   | compare                           |
| Material      | the answer alone in the packet                  | checklist, behavior, coherence, compare |
| OwnRubric     | no check beyond the rubric file's own           | checklist, behavior, coherence, compare |
| RubricOptions | no section of its own in the rubric file        | scorecard, python                 |
| OwnReports    | no report file of its own (judged kinds)        | checklist, compare                |
| Terminal      | no line after the summary table                 | checklist, compare, advisory      |
| LedgerExtra   | no ledger field beyond the summary columns      | behavior, checklist, coherence, compare, scorecard, advisory |
| BundleFile    | no bundle file of its own                       | advisory                          |
| Graded        | (mechanical kinds without PanelScores)          | scorecard, advisory               |
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ...core.errors import Problem
from ...core.models import Capture
from ...core.plan import PlannedCapture
from ...core.record import CaptureRecord, JudgeRecord
from ...core.rubric import Rubric
from .base import PacketBuilder, PacketT

__all__ = [
    "ONE_ANSWER",
    "BundleFile",
    "Graded",
    "ItemShape",
    "LedgerExtra",
    "Material",
    "OneAnswer",
    "OwnReports",
    "OwnRubric",
    "RubricOptions",
    "Terminal",
]


@runtime_checkable
class ItemShape(Protocol):
    """How captures become judged items and packets (compare: one item per entry and pair, two orders)."""

    def items(
        self,
        planned: list[PlannedCapture],
        pairs: Sequence[tuple[str, str]],
        configurations: Sequence[str],
        problems: list[Problem],
    ) -> list[PlannedCapture]:
        """The run's items from intake's planned captures; problems stop intake."""
        ...

    def lanes(self, configurations: Sequence[str], pairs: Sequence[tuple[str, str]]) -> tuple[str, ...]:
        """The summary's rows in table order (compare: one per pair, `A+B`)."""
        ...

    def packets(
        self,
        planned: PlannedCapture,
        root: Path,
        rubric: Rubric,
        build: PacketBuilder[PacketT],
    ) -> list[tuple[str, PacketT, bytes | None]]:
        """The packets every judge answers for one item, each tagged ("" when there is one); `build` makes one."""
        ...

    def merge(self, replies: Sequence[Sequence[JudgeRecord]], rubric: Rubric) -> list[JudgeRecord]:
        """Each judge's records over the item's packets (packets order, then panel order) as one record per judge."""
        ...


class OneAnswer:
    """The default ItemShape: one item per capture, one packet, one reply per judge."""

    def items(
        self,
        planned: list[PlannedCapture],
        pairs: Sequence[tuple[str, str]],
        configurations: Sequence[str],
        problems: list[Problem],
    ) -> list[PlannedCapture]:
        if pairs:
            problems.append(
                Problem(
                    "bundle.yaml",
                    "names configuration pairs, which only a rubric of kind compare judges",
                    field="compare",
                    fix="drop compare: / --ora-compare, or use a compare rubric",
                )
            )
        return planned

    def lanes(self, configurations: Sequence[str], pairs: Sequence[tuple[str, str]]) -> tuple[str, ...]:
        return tuple(configurations)

    def packets(
        self,
        planned: PlannedCapture,
        root: Path,
        rubric: Rubric,
        build: PacketBuilder[PacketT],
    ) -> list[tuple[str, PacketT, bytes | None]]:
        packet, image = build(planned.capture, root, rubric)
        return [("", packet, image)]

    def merge(self, replies: Sequence[Sequence[JudgeRecord]], rubric: Rubric) -> list[JudgeRecord]:
        (only,) = replies
        return list(only)


ONE_ANSWER: ItemShape = OneAnswer()


@runtime_checkable
class Material(Protocol):
    """What the packet shows beside (or instead of) the answer: a checklist, behaviours, a chain, two responses."""

    answer_in_packet: bool
    """Whether the packet's ANSWER section holds the capture's answer (compare and coherence: no)."""

    def material(self, capture: Capture) -> dict[str, Any] | None:
        """What the packet carries beside the answer (checklist: the listed items), or None."""
        ...

    def capture_problem(self, capture: Capture) -> tuple[str, str] | None:
        """(field, what is wrong) when a capture lacks what this kind judges; intake stops on it."""
        ...

    def material_sections(self, material: Mapping[str, Any]) -> list[tuple[str, str]]:
        """The packet sections (NAME, text) that show the material to the judge."""
        ...


@runtime_checkable
class OwnRubric(Protocol):
    """A check of the rubric beyond the file schema (its params, its criteria)."""

    def check_rubric(self, rubric: Rubric) -> str | None:
        """Why a rubric file of this kind cannot be used, or None."""
        ...


@runtime_checkable
class RubricOptions(Protocol):
    """The kind's own section of the rubric file (scorecard: axes and baseline; python: scorer), parsed by the
    kind into `Rubric.options`."""

    def options(self, section: Mapping[str, Any]) -> object:
        """The parsed section (a frozen, hashable object); ValueError says what is wrong, naming the field."""
        ...


@runtime_checkable
class OwnReports(Protocol):
    """A judged kind's own report files beside the ledger and the tables."""

    files: tuple[str, ...]
    """Report files this kind may add to --ora-out (a new run archives the last run's with the others)."""

    def outputs(self, records: Sequence[CaptureRecord], rubric: Rubric) -> dict[str, str]:
        """Report files of this kind: name -> text (files rendered from them are named in `files` too)."""
        ...


@runtime_checkable
class Terminal(Protocol):
    """Lines the terminal shows after the summary table."""

    def terminal(self, records: Sequence[CaptureRecord], rubric: Rubric) -> list[str]:
        """The lines (records in plan order)."""
        ...


@runtime_checkable
class LedgerExtra(Protocol):
    """Ledger fields this kind adds after the fixed ones."""

    def ledger_extra(self, rubric: Rubric) -> dict[str, Any]:
        """name -> (type, default)."""
        ...


@runtime_checkable
class BundleFile(Protocol):
    """A bundle file of the kind's own (advisory: binding.yaml), checked at intake."""

    def check_bundle(self, root: Path, problems: list[Problem]) -> None:
        """Append a Problem for each thing wrong with it."""
        ...


@runtime_checkable
class Graded(Protocol):
    """A mechanical kind whose scored records carry a cell per axis (`grades`) and `failure` instead of scores."""

    def grade_columns(self, rubric: Rubric) -> tuple[str, ...]:
        """The axes ledger.csv shows as `grade_<axis>` columns, in order."""
        ...
