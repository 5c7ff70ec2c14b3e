"""What a rubric kind supplies: its reply schema and validation, a judge's own overall, the panel
combination, its ledger fields and summary columns. One module per kind, found by name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from ..rubric import Rubric
from ..scoring import Scores

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

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        """JSON Schema of a judge's reply object for this rubric (blind rubrics omit configuration)."""
        ...

    def check(self, payload: Any, rubric: Rubric, entry_key: str, configuration: str | None) -> Any:
        """The validated reply (a model), or the first ReplyProblem; never repaired."""
        ...

    def judge_overall(self, scores: Mapping[str, str], rubric: Rubric) -> Fraction:
        """One judge's own overall from its validated scores."""
        ...

    def combine(self, judges: Sequence[Mapping[str, str]], rubric: Rubric) -> Scores:
        """The panel's combination: means, overall, failure, votes, verdict."""
        ...

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        """The per-capture fields this kind adds between the judge columns and `weighted`."""
        ...

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        """The per-capture values averaged into `mean_<name>` summary columns, in table order."""
        ...
