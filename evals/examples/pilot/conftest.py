"""This example eval suite scores the bundle beside it unless --ora-bundle names another."""

from __future__ import annotations

from pathlib import Path

import pytest


# optionalhook: with pytest-ora disabled (-p no:ora) the hook is simply not called, not an error.
@pytest.hookimpl(optionalhook=True)
def pytest_ora_bundle(config: pytest.Config) -> Path:
    return Path(__file__).parent / "bundle"
