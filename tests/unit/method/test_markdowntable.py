"""Markdown tables show names as given: a `|` or a line break in a cell does not break its row."""

from __future__ import annotations

import re

from pytest_ora.method.markdowntable import tabulated


def _cells(line: str) -> list[str]:
    """A Markdown table row's cells, split at the bars that are not escaped."""
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]


def test_a_bar_or_a_line_break_in_a_name_stays_inside_its_cell_in_markdown() -> None:
    text = tabulated(
        [["gpt|4o", "7.5"], ["two\nlines", "6.0"], ["back\\slash", "5.0"]],
        ["Configuration", "Overall"],
        "github",
        disable_numparse=True,
    )
    rows = text.splitlines()
    assert len(rows) == 5  # heading, rule, three rows: none split over two lines
    assert [_cells(row) for row in rows[2:]] == [
        ["gpt\\|4o", "7.5"],
        ["two lines", "6.0"],
        ["back\\\\slash", "5.0"],
    ]


def test_the_terminal_formats_show_cells_as_they_are() -> None:
    assert "gpt|4o" in tabulated([["gpt|4o", "7.5"]], ["Configuration", "Overall"], "simple")
