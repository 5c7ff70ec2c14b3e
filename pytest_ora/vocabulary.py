"""The contract's fixed names that several modules and the options share; cheap to import."""

from __future__ import annotations

__all__ = ["FAMILIES", "RECORD_MODES", "is_live"]

FAMILIES: tuple[str, ...] = ("mode", "visual", "lens")
"""Entry families, in table order."""

RECORD_MODES = ("none", "once", "new_episodes", "all")
"""none replays only (the default); once records missing cassettes; new_episodes adds new calls; all re-records."""


def is_live(mode: str) -> bool:
    """Whether a record mode may send requests to the judges."""
    return mode != "none"
