"""The shipped examples, replayed from their cassettes for tests that read their outputs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).parent.parent / "evals" / "examples"


def replay_example(name: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Copy the example `name` and replay it in a process of its own; return its output directory.

    A process of its own, because the examples' test files (test_compare.py, ...) share their names
    with this suite's modules, and an in-process run would find those already imported."""
    project = tmp_path_factory.mktemp(name)
    shutil.copytree(EXAMPLES / name, project, dirs_exist_ok=True, ignore=shutil.ignore_patterns("ora-results", "__pycache__"))
    out = project / "out"
    environment = {**os.environ, "PYTEST_ORA_CACHE": "off"}
    environment.pop("PYTEST_XDIST_WORKER", None)
    environment.pop("PYTEST_XDIST_TESTRUNUID", None)
    environment.pop("PYTEST_ADDOPTS", None)
    result = subprocess.run(
        [sys.executable, "-m", "pytest", str(project), "-q", "-p", "no:cacheprovider", "--rootdir", str(project),
         "-c", str(project / "pytest.ini"), "--ora-out", str(out)],
        cwd=project, env=environment, capture_output=True, text=True, check=False,
    )
    assert result.returncode in (0, 1), result.stdout + result.stderr
    return out
