"""pytest-ora: score LLM capture bundles with two API judges, the Ora Performance way.

The names below load on first use, so merely having the plugin installed costs pytest little.
The package asserts nothing a user relies on, so pytest need not rewrite it: PYTEST_DONT_REWRITE.
"""

from __future__ import annotations

import importlib
from importlib import metadata
from typing import TYPE_CHECKING, Any

__all__ = [
    "ORA_V1",
    "Capture",
    "CassetteError",
    "IntakeError",
    "InvalidReplyError",
    "JudgeError",
    "JudgeReply",
    "JudgmentFailed",
    "JudgmentResult",
    "LedgerRow",
    "MissingCassette",
    "OraError",
    "PacketDrift",
    "Plan",
    "PlannedCapture",
    "Rubric",
    "Scores",
    "SummaryRow",
    "TransportError",
    "UnreachableJudge",
    "__version__",
    "combine",
    "intake",
    "judge",
]

_HOMES = {
    "core.errors": (
        "CassetteError",
        "IntakeError",
        "InvalidReplyError",
        "JudgeError",
        "MissingCassette",
        "OraError",
        "PacketDrift",
        "TransportError",
        "UnreachableJudge",
    ),
    "bundle.intake": ("intake",),
    "core.plan": ("Plan", "PlannedCapture"),
    "core.models": ("Capture", "JudgeReply"),
    "reports.rows": ("LedgerRow", "SummaryRow"),
    "core.rubric": ("Rubric",),
    "method.rubric": ("ORA_V1",),
    "method.scoring": ("Scores", "combine"),
    "harness.judgment.api": ("judge", "JudgmentFailed", "JudgmentResult"),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}

if TYPE_CHECKING:  # the names for the type checker; at run time they load on first use (above)
    __version__: str
    from .bundle.intake import intake
    from .core.errors import (
        CassetteError,
        IntakeError,
        InvalidReplyError,
        JudgeError,
        MissingCassette,
        OraError,
        PacketDrift,
        TransportError,
        UnreachableJudge,
    )
    from .core.models import Capture, JudgeReply
    from .core.plan import Plan, PlannedCapture
    from .core.rubric import Rubric
    from .harness.judgment.api import JudgmentFailed, JudgmentResult, judge
    from .method.rubric import ORA_V1
    from .method.scoring import Scores, combine
    from .reports.rows import LedgerRow, SummaryRow


def _version() -> str:
    """The installed distribution's version (from the git tags at install time); '0+unknown' when not installed."""
    try:
        return metadata.version("pytest-ora")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        return _version()
    if name not in _HOME:
        raise AttributeError(f"module 'pytest_ora' has no attribute {name!r}")
    return getattr(importlib.import_module(f".{_HOME[name]}", __name__), name)
