"""What a rubric kind supplies: its reply schema and validation, a judge's own overall, the panel
combination, its ledger fields, summary columns and report files. One module per kind, found by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from ..rubric import Rubric
from ..scoring import Scores

if TYPE_CHECKING:  # the record and the capture models import the judges, which import the kinds
    from ...models import Capture
    from ...record import CaptureRecord

__all__ = ["Kind", "ReplyProblem"]


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

    def material_section(self, material: Mapping[str, Any]) -> tuple[str, str]:
        """The packet section (NAME, text) that shows the material to the judge."""
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
