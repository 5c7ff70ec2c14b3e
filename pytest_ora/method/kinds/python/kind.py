"""`kind: python`: a deterministic scorer written by the user scores each capture; no judge.

`scorer: module:function` names a module file inside the eval suite's directory (never a path
the bundle names elsewhere). It is called with the capture and returns {criterion: number} on the
rubric's scale, checked as strictly as a judge's reply; the rubric's combination, votes, verdicts
and tables then apply as to a panel of one.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

from ....core.errors import OraError, show_value
from ....core.plan import Plan, PlannedCapture
from ....core.record import CaptureRecord, JudgeRecord, Usage, base_record
from ....core.rubric import Rubric
from ...scoring import Scores, combine
from ..base import MechanicalKind, PanelScores, ReplyProblem
from ..capabilities import RubricOptions
from ..scores.kind import KIND as SCORES

__all__ = ["KIND", "PythonKind", "Scorer", "ScorerError", "check_scores", "load_scorer", "scorer_of"]


class ScorerError(OraError):
    """A scorer that cannot be loaded, raised, or returned an invalid result."""


BUILT_IN = "pytest_ora."
"""Scorers of the built-in python rubrics (swebench-1.0, ground-truth-1.0) live in the package itself."""


def load_scorer(reference: str, suite: Path) -> Callable[..., Any]:
    """The function `module:function` from a module file under the suite directory, or a built-in scorer of the package."""
    module_name, _, function = reference.partition(":")
    if module_name.startswith(BUILT_IN):
        return _built_in(reference, module_name, function)
    relative = Path(*module_name.split("."))
    for candidate in (suite / relative.with_suffix(".py"), suite / relative / "__init__.py"):
        if candidate.is_file():
            break
    else:
        raise ScorerError(f"scorer {reference}: no module {module_name} in the eval suite's directory {suite}")
    unique = f"pytest_ora_scorer_{abs(hash(str(candidate.resolve())))}"
    module = sys.modules.get(unique)
    if module is None:
        spec = importlib.util.spec_from_file_location(unique, candidate)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        try:
            spec.loader.exec_module(module)
        except Exception as error:
            del sys.modules[unique]
            raise ScorerError(
                f"scorer {reference}: importing {candidate.name} failed: {type(error).__name__}: {error}"
            ) from None
    found = getattr(module, function, None)
    if not callable(found):
        raise ScorerError(f"scorer {reference}: {candidate.name} defines no function {function}")
    return found  # type: ignore[no-any-return]


def _built_in(reference: str, module_name: str, function: str) -> Callable[..., Any]:
    """A scorer shipped in the package (never a file the bundle names)."""
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ScorerError(f"scorer {reference}: pytest-ora has no module {module_name}") from None
    found = getattr(module, function, None)
    if not callable(found):
        raise ScorerError(f"scorer {reference}: {module_name} defines no function {function}")
    return found  # type: ignore[no-any-return]


def check_scores(result: Any, rubric: Rubric) -> dict[str, str] | ReplyProblem:
    """The scorer's {criterion: number} as decimal strings, or the first problem; never repaired."""
    if not isinstance(result, Mapping):
        return ReplyProblem("(result)", show_value(result), "is not a mapping of criterion to number")
    for name in rubric.names:
        if name not in result:
            return ReplyProblem(name, "nothing", "is missing")
    for name in result:
        if name not in rubric.names:
            return ReplyProblem(str(name), show_value(result[name]), f"is not a criterion of rubric {rubric.version}")
    scores: dict[str, str] = {}
    for name in rubric.names:
        value = result[name]
        if isinstance(value, bool) or not isinstance(value, (int, float, Decimal, Fraction)):
            return ReplyProblem(name, show_value(value), "is not a number")
        try:
            exact = Fraction(repr(value)) if isinstance(value, float) else Fraction(value)
        except (ValueError, OverflowError):
            return ReplyProblem(name, show_value(value), "is not a finite number")
        if not rubric.scale_min <= exact <= rubric.scale_max:
            return ReplyProblem(name, show_value(value), f"is outside the scale {rubric.scale_min}-{rubric.scale_max}")
        if rubric.scale_step is not None and (exact / rubric.scale_step).denominator != 1:
            return ReplyProblem(name, show_value(value), f"is not a multiple of the scale step {rubric.scale_step}")
        scores[name] = repr(value) if isinstance(value, float) else str(value)
    return scores


@dataclass(frozen=True)
class Scorer:
    """A python rubric's own section (Rubric.options): the scorer, `module:function`."""

    reference: str


def scorer_of(rubric: Rubric) -> str:
    """The scorer a kind python rubric names, `module:function` in the eval suite's directory."""
    options = rubric.options
    assert isinstance(options, Scorer), f"rubric {rubric.version} is not of kind python"
    return options.reference


class PythonKind(MechanicalKind, PanelScores, RubricOptions):
    """Scores from the user's deterministic scorer, combined like one judge's (the scores kind's arithmetic)."""

    name = "python"
    files: tuple[str, ...] = ()

    def options(self, section: Mapping[str, Any]) -> Scorer:
        return Scorer(section["scorer"])

    def formula(self, rubric: Rubric) -> str:
        return SCORES.formula(rubric)

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return SCORES.summary_columns(rubric)

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        return SCORES.panel(record, rubric)

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return SCORES.ledger_fields(scores, rubric)

    def scored_by(self, rubric: Rubric) -> str:
        return f"None: rubric kind python; the scorer {scorer_of(rubric)} from the eval suite's directory scored every capture."

    def score_capture(self, plan: Plan, planned: PlannedCapture, suite: Any) -> CaptureRecord:
        rubric = plan.rubric
        reference = scorer_of(rubric)
        scorer = load_scorer(reference, Path(suite))
        try:
            result = scorer(planned.capture)
        except Exception as error:
            raise ScorerError(f"scorer {reference} raised {type(error).__name__}: {error}") from None
        checked = check_scores(result, rubric)
        if isinstance(checked, ReplyProblem):
            raise ScorerError(f"scorer {reference} returned an invalid result: {checked.sentence()}")
        record = base_record(planned, "scored")
        record["judges"] = [
            JudgeRecord(
                label="Scorer",
                slot="scorer",
                role="python",
                provider="python",
                model=reference,
                resolved_model=None,
                judge_model=reference,
                scores=checked,
                notes=dict.fromkeys(rubric.names, ""),
                impression="",
                asks=1,
                attempts=0,
                usage=Usage(input_tokens=0, output_tokens=0, cached_input_tokens=0, reasoning_tokens=0),
            )
        ]
        record["failure"] = combine([checked], rubric).failure
        return record

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        return {}


KIND = PythonKind()
