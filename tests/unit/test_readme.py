"""README.md stays a short front page whose links all lead somewhere."""

from __future__ import annotations

import re
from pathlib import Path

from support.docblocks import blocks

ROOT = Path(__file__).parents[2]
README = ROOT / "README.md"
MAX_LINES = 150


def test_the_readme_stays_at_most_150_lines() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines: move detail into a page under docs/"


def test_every_relative_link_of_the_readme_names_a_file_of_the_repository() -> None:
    text = README.read_text(encoding="utf-8")
    targets = [target for target in re.findall(r"\]\(([^)\s]+)\)", text) if "://" not in target]
    assert targets, "README.md links to no page"
    missing = [target for target in targets if not (ROOT / target.partition("#")[0]).is_file()]
    assert missing == [], f"README.md links to files that do not exist: {missing}"


def test_the_readme_starts_with_the_two_commands_a_newcomer_types() -> None:
    setup = 'python3 -m venv .venv && . .venv/bin/activate && pip install -e ".[dev]"'
    first = blocks(README.read_text(encoding="utf-8"), "README.md")[0]
    commands = first.code.splitlines()
    assert commands[:2] == [f"{setup} && pytest evals/ -n auto", f"{setup} && pytest -n auto"]
