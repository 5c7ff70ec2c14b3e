"""The shipped examples, replayed from their cassettes for tests that read their outputs."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parents[2] / "evals" / "examples"


# One scoring date for every replay of the session, so two replays compared byte for byte never
# straddle midnight (the reproducible-builds variable the plugin reads).
SCORING_EPOCH = os.environ.get("SOURCE_DATE_EPOCH", "1796000000")


def shared_replay(name: str, tmp_path_factory: pytest.TempPathFactory, workers: int = 0) -> Path:
    """The example `name` replayed once for the whole test session (serially, or under `workers` xdist
    workers), whichever xdist worker of this session asks first.

    pytest-xdist's recipe for a session fixture that runs once: the workers share their basetemp's
    parent; the first to take the example's lock replays it and marks it done, the others wait on the
    lock and read the same output directory (which no test edits: tests copy it first)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    directory = root / "examples" / (f"{name}-n{workers}" if workers else name)
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = directory / ".replayed"
        if not done.exists():
            replay_example(name, directory / "project", workers)
            done.write_text("done\n", encoding="utf-8")
    return directory / "project" / "out"


def replay_example(name: str, project: Path, workers: int = 0, edit: Callable[[Path], None] | None = None) -> Path:
    """Copy the example `name` into `project` and replay it in a process of its own (under `workers` xdist
    workers, if any); return its output directory, with the run's terminal output beside it in `stdout.txt`.

    A process of its own, because the examples' test files (test_compare.py, ...) share their names
    with this suite's modules, and an in-process run would find those already imported."""
    shutil.copytree(
        EXAMPLES / name, project, dirs_exist_ok=True, ignore=shutil.ignore_patterns("ora-results", "__pycache__")
    )
    if edit is not None:  # the copy changed before its replay (a candidate made unavailable, say)
        edit(project)
    out = project / "out"
    environment = {**os.environ, "PYTEST_ORA_CACHE": "off", "SOURCE_DATE_EPOCH": SCORING_EPOCH}
    environment.pop("PYTEST_XDIST_WORKER", None)
    environment.pop("PYTEST_XDIST_TESTRUNUID", None)
    environment.pop("PYTEST_ADDOPTS", None)
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(project),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(project),
            "-c",
            str(project / "pytest.ini"),
            "--ora-out",
            str(out),
            "-n",
            str(workers),
        ],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stdout + result.stderr
    (project / "stdout.txt").write_text(result.stdout, encoding="utf-8")
    return out


def terminal_output(out: Path) -> pytest.LineMatcher:
    """The terminal output of the replay that wrote `out` (its `stdout.txt`), to match lines against."""
    return pytest.LineMatcher((out.parent / "stdout.txt").read_text(encoding="utf-8").splitlines())
