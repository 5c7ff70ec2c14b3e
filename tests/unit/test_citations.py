"""The package's source cites no document outside the repository: things are named by their content."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.citations import citations

PACKAGE = Path(__file__).resolve().parents[2] / "pytest_ora"


@pytest.mark.parametrize(
    "text",
    ["see SPEC section 8", "(SPEC 18)", "seed 002's compare mode", "Seed 000: the default", "section 15", "Phase 1"],
)
def test_when_a_text_cites_a_document_then_it_is_found(text: str) -> None:
    assert citations(text) == [text]


@pytest.mark.parametrize(
    "text",
    [
        "the SPECIFICATION section",
        "--ora-seed 0",
        "the seed of the resampling",
        "seeded sample",
    ],
)
def test_when_a_text_names_things_by_content_then_nothing_is_found(text: str) -> None:
    assert citations(text) == []


def test_the_packages_source_cites_no_outside_document() -> None:
    found = {
        f"{path.relative_to(PACKAGE)}: {line}"
        for path in sorted(PACKAGE.rglob("*"))
        if path.is_file() and path.suffix in (".py", ".js", ".css", ".html", ".yaml", ".md", ".txt")
        for line in citations(path.read_text(encoding="utf-8"))
    }
    assert not found, sorted(found)
