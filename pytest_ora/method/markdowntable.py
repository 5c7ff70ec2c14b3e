"""Tables as pytest-ora writes them (tabulate), with names and texts shown as given in Markdown tables.

tabulate writes a cell as it is: a `|` in a configuration's or an entry's name would end its cell in a
Markdown table (summary.md, methodology.md, the kinds' reports) and shift every column after it. In the
`github` format each text cell is escaped as GitHub-flavored Markdown reads a literal bar (`\\|`), and a
line break becomes a space (a table row is one line). The terminal's formats are left as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tabulate import tabulate

__all__ = ["tabulated"]


def tabulated(
    rows: Iterable[Sequence[Any]], headers: Sequence[Any] = (), tablefmt: str = "simple", **options: Any
) -> str:
    """tabulate's table; in the `github` (Markdown) format every text cell and heading escaped."""
    if tablefmt == "github":
        rows = [[_cell(value) for value in row] for row in rows]
        headers = [_cell(value) for value in headers]
    return str(tabulate(rows, headers=headers, tablefmt=tablefmt, **options))


def _cell(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
