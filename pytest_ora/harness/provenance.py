"""What run.json says about the run itself: pytest-ora's version, the suite's git commit, the run's start and end."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
from importlib import metadata
from pathlib import Path

__all__ = ["run_moment", "suite_commit", "tool_version"]


def run_moment() -> str:
    """Now in UTC (ISO 8601, seconds); SOURCE_DATE_EPOCH's moment when set, so a replay writes the same bytes."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch else dt.datetime.now(dt.timezone.utc)
    return moment.replace(microsecond=0).isoformat().replace("+00:00", "Z")


def tool_version() -> str | None:
    """The installed pytest-ora's version, or None when its metadata cannot be read."""
    try:
        return metadata.version("pytest-ora")
    except metadata.PackageNotFoundError:
        return None


def suite_commit(root: Path) -> str | None:
    """The git commit the suite's directory is checked out at, or None (not a git work tree, no git)."""
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--verify", "--quiet", "HEAD"],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0"},
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return (
        commit
        if done.returncode == 0 and len(commit) in (40, 64) and all(c in "0123456789abcdef" for c in commit)
        else None
    )
