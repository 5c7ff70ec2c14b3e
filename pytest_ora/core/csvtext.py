"""Every CSV line the tool writes: cells a spreadsheet could read as a formula are neutralised (OWASP CSV injection).

A text cell starting with =, +, -, @, a tab or a carriage return is run as a formula by Excel,
LibreOffice and Google Sheets (`=HYPERLINK(...)` in a rubric id or a judge's model name). Such a
cell is written with a leading apostrophe, which a spreadsheet shows as text and does not display;
a number (-1.5, +2e3) is a number and stays as it is. Every CSV writer goes through csv_line.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable

__all__ = ["FORMULA_STARTS", "csv_line", "safe_cell"]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(value: object) -> object:
    """`value` as a CSV cell that no spreadsheet runs: a formula-like text gets a leading apostrophe."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_line(cells: Iterable[object]) -> str:
    """One CSV line (\\n-terminated), every cell through safe_cell."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([safe_cell(cell) for cell in cells])
    return out.getvalue()
