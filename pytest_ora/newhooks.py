"""Hook specifications pytest-ora adds; implement them in a conftest.py."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.hookspec(firstresult=True)
def pytest_ora_bundle(config: pytest.Config) -> Path | None:
    """The capture bundle to score when --ora-bundle and the ora_bundle ini key are unset.

    An eval suite's conftest.py returns its bundle here, so `pytest evals/` scores it while
    other test runs in the same project leave pytest-ora idle.
    """
