"""The package as a library: its version from the installed metadata, its license file."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest_ora

ROOT = Path(__file__).resolve().parents[2]


def test_when_installed_then_version_is_the_distributions() -> None:
    assert pytest_ora.__version__ == metadata.version("pytest-ora")
    assert "__version__" in pytest_ora.__all__


def test_when_the_metadata_is_read_then_it_names_the_mit_license_and_its_file() -> None:
    meta = metadata.metadata("pytest-ora")
    assert meta["License-Expression"] == "MIT"
    assert "Copyright (c) 2026 pytest-ora contributors" in (ROOT / "LICENSE").read_text(encoding="utf-8")


def test_when_extras_are_listed_then_each_purpose_has_one() -> None:
    extras = set(metadata.metadata("pytest-ora").get_all("Provides-Extra") or ())
    assert {"report", "bedrock", "vertex", "docs", "conformance", "test", "lint", "dev"} <= extras
