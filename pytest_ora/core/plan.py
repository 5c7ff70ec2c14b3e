"""The plan intake gives every room: the captures in order with their status, the panel, the rubric."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .bundle import Bundle
from .models import Capture, RoleSpec
from .rubric import Rubric

__all__ = [
    "DEFAULT_PANEL",
    "JUDGE_SLOTS",
    "JudgeSlot",
    "Pair",
    "Panel",
    "Plan",
    "PlannedCapture",
    "Status",
    "Substitution",
]

JUDGE_SLOTS: tuple[tuple[str, str], ...] = (("Judge A", "big-1"), ("Judge B", "big-2"))
"""The Ora judging method: Judge A is Optimum Big 1, Judge B is Optimum Big 2 (the default panel)."""
DEFAULT_PANEL: tuple[str, ...] = tuple(role for _, role in JUDGE_SLOTS)

Status = Literal["judge", "excluded", "unscorable"]


@dataclass(frozen=True)
class Substitution:
    """An operator's explicit replacement of a judge slot (a different judging panel)."""

    slot: str
    role: str | None
    spec: RoleSpec


@dataclass(frozen=True)
class JudgeSlot:
    """One judge of the panel: its label, slot, the role it came from and how to reach it."""

    label: str
    slot: str
    role: str
    spec: RoleSpec
    substituted: bool = False


@dataclass(frozen=True)
class Panel:
    """The judges of a run; the label differs from the default only with a substitution."""

    judges: tuple[JudgeSlot, ...]
    label: str
    samples: int = 1
    """Judgments per judge and capture (--ora-judge-samples, bundle.yaml judge_samples)."""
    reducer: str = "mean"
    """How a judge's samples become its score per criterion: mean or median (bundle.yaml reducer)."""

    @property
    def substituted(self) -> tuple[JudgeSlot, ...]:
        return tuple(judge for judge in self.judges if judge.substituted)


@dataclass(frozen=True)
class Pair:
    """A compare item's identity: the two configurations it sets against each other."""

    first: str
    second: str

    @property
    def lane(self) -> str:
        """The item's configuration in the ledger and its summary row: `first+second`."""
        return f"{self.first}+{self.second}"

    @classmethod
    def of(cls, lane: str) -> Pair:
        """The pair a compare record's configuration `A+B` names."""
        first, _, second = lane.partition("+")
        return cls(first, second)


@dataclass(frozen=True, slots=True)
class PlannedCapture:
    """A capture and what intake decided for it."""

    capture: Capture
    line: int
    status: Status
    reason: str | None = None
    partner: Capture | None = None
    """The second contestant of a compare item (kind compare); `capture` is the first, its configuration `A+B`."""
    pair: Pair | None = None
    """A compare item's two configurations (kind compare); None for an item of one capture."""

    @property
    def configurations(self) -> tuple[str, ...]:
        """The bundle configurations this item judges: its own, or a compare item's two."""
        return (self.pair.first, self.pair.second) if self.pair is not None else (self.capture.configuration,)


@dataclass(frozen=True)
class Plan:
    """The bundle after intake: the captures in stable order, the panel and the rubric."""

    bundle: Bundle
    rubric: Rubric
    panel: Panel
    captures: tuple[PlannedCapture, ...]
    entries: dict[str, tuple[str, ...]]
    """Family -> the entry keys of the scored set, families in table order."""
    collision_losers: tuple[str, ...]
    lanes_missing: dict[str, tuple[str, ...]]
    lanes: tuple[str, ...] = ()
    """The summary's rows, in table order: the configurations (kind compare: the pairs A+B)."""
    """Entry key -> the configurations it was not captured on."""

    @property
    def scored_entry_count(self) -> int:
        return sum(len(keys) for keys in self.entries.values())

    @property
    def scored_set_captures(self) -> int:
        return sum(1 for planned in self.captures if planned.capture.entry_key not in self.collision_losers)
