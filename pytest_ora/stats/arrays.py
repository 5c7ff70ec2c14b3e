"""The adapter: ledger rows -> the arrays the statistics take (captures x judges x criteria).

Rows are ledger rows as plain mappings (LedgerRow.model_dump() or a line of ledger.jsonl). A row
with a `judges` list (N-judge panels) is read from it; an older two-judge row from judge_a/judge_b.
Criteria names and the scale come from the run's rubric, never from the rows.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ..method.scoring import combine

__all__ = ["RunArrays", "Scale", "decimal_fraction", "run_arrays", "scale_of", "statistics_fields"]

FloatArray = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Scale:
    """The judges' scale: bounds and the declared step (None when the rubric declares none)."""

    minimum: Fraction
    maximum: Fraction
    step: Fraction | None = None

    @property
    def range(self) -> Fraction:
        return self.maximum - self.minimum

    @property
    def unit(self) -> Fraction:
        """One scale step: the declared step, else one point (ora-1.0's anchors are whole points)."""
        return self.step if self.step is not None else Fraction(1)


@dataclass(frozen=True)
class RunArrays:
    """The scored captures of a run, in stable bundle order, as arrays."""

    capture_ids: tuple[str, ...]
    entry_keys: tuple[str, ...]
    configurations: tuple[str, ...]
    """Each capture's configuration."""
    criteria: tuple[str, ...]
    judges: tuple[str, ...]
    """Judge labels, panel order."""
    scores: FloatArray
    """captures x judges x criteria; NaN where a judge gave no score."""
    judge_overall: FloatArray
    """captures x judges: each judge's own overall (the rubric's formula over that judge's scores)."""
    overall: FloatArray
    """captures: the panel's overall."""
    failure: BoolArray
    critical: BoolArray | None
    """captures: the `critical` vote; None when the rows carry no such vote (the rubric defines none)."""
    scale: Scale
    judge_models: tuple[str | None, ...] = ()
    """Each judge's model as the ledger names it, panel order (None where a row does not say)."""
    samples: FloatArray | None = None
    """With judge samples: captures x judges x K x (criteria + overall), each sample's scores and its own
    overall (the last column); NaN where a sample is missing. None when the rows carry no samples."""

    def of(self, configuration: str) -> npt.NDArray[np.intp]:
        """Indices of one configuration's captures."""
        return self._indices.get(configuration, np.empty(0, dtype=np.intp))

    @functools.cached_property
    def _indices(self) -> dict[str, npt.NDArray[np.intp]]:
        names = np.asarray(self.configurations)
        return {name: np.flatnonzero(names == name) for name in dict.fromkeys(self.configurations)}


def scale_of(rubric: Any) -> Scale:
    """The rubric's scale; the step only where the rubric declares one."""
    step = getattr(rubric, "scale_step", None)  # rubric files declare a step; ora-1.0 has none
    return Scale(Fraction(rubric.scale_min), Fraction(rubric.scale_max), None if step is None else Fraction(step))


@functools.lru_cache(maxsize=65_536)  # scores repeat (half points): a 10x run converts each value once
def decimal_fraction(value: float | int | str) -> Fraction:
    """A ledger number as the decimal it was written as (7.3 -> 73/10), so differences compare exactly."""
    return Fraction(repr(value) if isinstance(value, float) else str(value))


def _panel(row: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    judges = row.get("judges")
    if judges:
        return [(str(judge.get("label") or chr(ord("A") + i)), judge) for i, judge in enumerate(judges)]
    return [(label, row[key]) for label, key in (("A", "judge_a"), ("B", "judge_b")) if row.get(key)]


def _own_overall(judge: Mapping[str, Any], criteria: Sequence[str], rubric: Any) -> float:
    if judge.get("overall") is not None:
        return float(judge["overall"])
    scores = judge["scores"]
    return float(combine([{name: str(scores[name]) for name in criteria}], rubric).overall)


_ROW_FIELDS = ("capture_id", "entry_key", "configuration", "status", "overall", "failure", "critical")
_JUDGE_FIELDS = ("label", "model", "scores", "overall", "samples")


def statistics_fields(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """What run_arrays reads of a scored ledger row (no notes or impressions); None for a row it skips."""
    if row.get("status") != "scored" or row.get("overall") is None:
        return None
    kept = {key: row[key] for key in _ROW_FIELDS if key in row}
    for key in ("judges", "judge_a", "judge_b"):
        value = row.get(key)
        if isinstance(value, list):
            kept[key] = [{k: judge[k] for k in _JUDGE_FIELDS if k in judge} for judge in value]
        elif value:
            kept[key] = {k: value[k] for k in _JUDGE_FIELDS if k in value}
    return kept


def _samples(
    panels: Sequence[list[tuple[str, Mapping[str, Any]]]],
    judges: int,
    criteria: tuple[str, ...],
    rubric: Any,
) -> FloatArray | None:
    """captures x judges x K x (criteria + overall) of the judges' samples, or None when no row has them."""
    most = max((len(judge.get("samples") or ()) for panel in panels for _, judge in panel), default=0)
    if most == 0:
        return None
    values = np.full((len(panels), judges, most, len(criteria) + 1), np.nan)
    for i, panel in enumerate(panels):
        for j, (_, judge) in enumerate(panel[:judges]):
            for k, sample in enumerate(judge.get("samples") or ()):
                if all(sample.get(name) is not None for name in criteria):
                    values[i, j, k, :-1] = [float(sample[name]) for name in criteria]
                    values[i, j, k, -1] = _own_overall({"scores": sample}, criteria, rubric)
    return values


def _unit(row: Mapping[str, Any]) -> str:
    """The row's entry, and with repeated answers its repeat (`entry#k`): the k-th answers of two configurations pair."""
    repeat = str(row["capture_id"]).rpartition("/")[2].partition("#")[2]
    return str(row["entry_key"]) + (f"#{repeat}" if repeat else "")


def run_arrays(rows: Iterable[Mapping[str, Any]], rubric: Any) -> RunArrays:
    """The scored rows' arrays; rows keep their order (the ledger's stable bundle order)."""
    criteria: tuple[str, ...] = tuple(rubric.names)
    scored = [row for row in rows if row.get("status") == "scored" and row.get("overall") is not None]
    panels = [_panel(row) for row in scored]
    labels: tuple[str, ...] = tuple(label for label, _ in panels[0]) if panels else ()
    scores = np.full((len(scored), len(labels), len(criteria)), np.nan)
    own = np.full((len(scored), len(labels)), np.nan)
    for i, panel in enumerate(panels):
        for j, (_, judge) in enumerate(panel[: len(labels)]):
            given = judge.get("scores") or {}
            scores[i, j] = [float(given[name]) if given.get(name) is not None else np.nan for name in criteria]
            own[i, j] = _own_overall(judge, criteria, rubric)
    votes = [row.get("critical") for row in scored]
    return RunArrays(
        samples=_samples(panels, len(labels), criteria, rubric),
        capture_ids=tuple(str(row["capture_id"]) for row in scored),
        entry_keys=tuple(_unit(row) for row in scored),
        configurations=tuple(str(row["configuration"]) for row in scored),
        criteria=criteria,
        judges=labels,
        scores=scores,
        judge_overall=own,
        overall=np.array([float(row["overall"]) for row in scored], dtype=np.float64),
        failure=np.array([bool(row.get("failure")) for row in scored], dtype=np.bool_),
        critical=np.array(votes, dtype=np.bool_) if all(isinstance(v, bool) for v in votes) else None,
        scale=scale_of(rubric),
        judge_models=tuple(judge.get("model") for _, judge in panels[0]) if panels else (),
    )
