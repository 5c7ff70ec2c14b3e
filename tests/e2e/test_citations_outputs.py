"""Every file a replayed example writes names things by their content, never a document outside the repository."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.citations import citations
from support.example_runs import EXAMPLES


@pytest.mark.parametrize("name", sorted(path.name for path in EXAMPLES.iterdir() if (path / "pytest.ini").is_file()))
def test_a_replayed_examples_outputs_and_terminal_cite_no_outside_document(
    name: str, replayed: Callable[[str], Path]
) -> None:
    out = replayed(name)
    files = [path for path in sorted(out.rglob("*")) if path.is_file()] + [out.parent / "stdout.txt"]
    found = {
        f"{path.relative_to(out.parent)}: {line}"
        for path in files
        for line in citations(path.read_text(encoding="utf-8", errors="replace"))
    }
    assert not found, sorted(found)
