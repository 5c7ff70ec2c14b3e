"""This example eval suite grades the bundle beside it unless --ora-bundle names another."""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_ora_bundle(config: pytest.Config) -> Path:
    return Path(__file__).parent / "bundle"
