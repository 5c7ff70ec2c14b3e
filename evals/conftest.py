"""The sample eval suite scores the bundle beside it unless --ora-bundle names another."""

from __future__ import annotations

from pathlib import Path

import pytest

# The examples are eval suites of their own (one bundle per pytest run): run them by their path.
collect_ignore = ["examples"]


# optionalhook: with pytest-ora disabled (-p no:ora) the hook is simply not called, not an error.
@pytest.hookimpl(optionalhook=True)
def pytest_ora_bundle(config: pytest.Config) -> Path:
    return Path(__file__).parent / "bundle"
