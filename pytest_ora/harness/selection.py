"""A partial run: which captures of the bundle this run selected, and by what, in one line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

__all__ = ["GIVEN_NAME_KEYS", "Selection", "given_names", "selection_for"]


GIVEN_NAME_KEYS = ("family", "dataset", "id", "configuration")
"""Capture metadata that keeps a name as given where `init --from` had to change it (helpful_base -> helpful-base)."""


def given_names(metadata: Mapping[str, Any] | None) -> set[str]:
    """The names as given that `-k` matches beside the capture's id: the imported row's family, dataset, id or configuration."""
    if not metadata:
        return set()
    return {value for key in GIVEN_NAME_KEYS if isinstance(value := metadata.get(key), str) and value.strip()}


@dataclass(frozen=True)
class Selection:
    """How many of the bundle's captures this run selected, and the arguments that selected them."""

    selected: int
    total: int
    by: str

    @property
    def partial(self) -> bool:
        return self.selected < self.total

    def banner(self) -> str:
        """'selection: 1 of 1,185 captures, -k mode:argument-audit/optimum' (empty for a full run)."""
        if not self.partial:
            return ""
        return f"selection: {self.selected:,} of {self.total:,} captures, {self.by}"


def selection_for(config: pytest.Config, selected: int, total: int) -> Selection:
    """The run's selection, described by the pytest arguments that narrow a run."""
    option = config.option
    parts = []
    if getattr(option, "keyword", ""):
        parts.append(f"-k {option.keyword!r}")
    if getattr(option, "markexpr", ""):
        parts.append(f"-m {option.markexpr!r}")
    if getattr(option, "lf", False):
        parts.append("--lf")
    if getattr(option, "failedfirst", False):
        parts.append("--ff")
    if getattr(option, "stepwise", False):
        parts.append("--sw")
    for nodeid in getattr(option, "deselect", None) or ():
        parts.append(f"--deselect {nodeid}")
    named = [arg for arg in config.args if "::" in arg]
    if named:
        parts.append(f"{len(named)} node id{'s' if len(named) > 1 else ''} named")
    if getattr(option, "maxfail", 0):
        parts.append(f"--maxfail {option.maxfail}")
    return Selection(selected, total, ", ".join(parts) or "test arguments or an interrupted run")
