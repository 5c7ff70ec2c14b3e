"""run.json as typed data: what `verify`, a later run's baseline and the report read back about a run.

Written from these models and read back into them. A key the run did not write (the run's own facts when
they are unknown, a pilot block without a pilot) stays unwritten: the file is dumped with only the fields
that were set, in the models' field order, so a file read and written again is the same bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from ..core.errors import OraError
from .datafile import first_problem
from .methodologydata import MethodologyFacts

__all__ = [
    "PilotBlock",
    "PilotHypothesis",
    "RunFile",
    "RunFileError",
    "SummaryNotes",
    "parse_run_file",
    "read_run_file",
]


class RunFileError(OraError):
    """run.json cannot be read as a run's data: its path, the field and what is wrong."""


class _Data(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SummaryNotes(_Data):
    """What summary.md says around its table."""

    preface: list[str]
    """Selection, judges, scored share: the lines before the table."""
    appendix: list[str]
    """Per-family breakdown and the run's notes: the lines after it."""


class PilotHypothesis(_Data):
    """One directional hypothesis of the pilot, as the bundle gave it."""

    id: str
    label: str | None
    better: str
    worse: str
    margin: str
    """Exact, as a decimal string."""


class PilotBlock(_Data):
    """What pilot-summary.json is rendered from beside cells.jsonl."""

    id: str
    cells: dict[str, str]
    """Cell id -> configuration."""
    hypotheses: list[PilotHypothesis]
    verdict: dict[str, int | bool | None] | None
    """The bundle's verdict rule (core.models.VerdictRule), as written."""
    execution_window_utc: str
    total_cost_usd: float | None
    total_judge_calls: int
    total_candidate_calls: int


class RunFile(BaseModel):
    """run.json. Keys it does not know are passed over (a run.json of another pytest-ora version still reads)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    pytest_ora_version: str | None = None
    suite_commit: str | None = None
    """The git commit the suite's directory was checked out at; None outside a git work tree."""
    started_utc: str | None = None
    ended_utc: str | None = None
    pilot: PilotBlock | None = None
    bundle: str
    rubric: str
    """The rubric's version."""
    rubric_digest: str
    rubric_text: str | None = None
    """The rubric file's text: verify re-reads the rubric from it (its digest checked); a baseline needs only the digest."""
    methodology: MethodologyFacts | None = None
    """Everything methodology.md says (reports/methodologydata.py)."""
    summary_notes: SummaryNotes = SummaryNotes(preface=[], appendix=[])

    def dumps(self) -> str:
        """The file's text."""
        return json.dumps(self.model_dump(exclude_unset=True), indent=2, ensure_ascii=False) + "\n"


def read_run_file(path: Path) -> RunFile:
    """run.json read back; RunFileError naming the file and the first bad field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise RunFileError(f"{path}: cannot read the machine-written data ({error})") from None
    try:
        return parse_run_file(data)
    except RunFileError as error:
        raise RunFileError(f"{path}: {error}") from None


def parse_run_file(data: object) -> RunFile:
    """run.json's data as the model; RunFileError naming the first bad field."""
    try:
        return RunFile.model_validate(data)
    except ValidationError as error:
        raise RunFileError(f"not a run's data: {first_problem(error)}") from None
