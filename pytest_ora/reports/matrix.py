"""The matrix's per-capture extras: what a cell shows beyond the overall, for the kinds that have more.

The matrix itself (one row per entry, one column per configuration) is laid out by the page's
script from the capture rows it already carries; this adds, per capture row index, what some kinds
record instead of (or beside) a number: a scorecard's grades (its overall is empty), a compare
item's contestants, their scores, the winner and each judge's verdict (whether its two orders agreed).
"""

from __future__ import annotations

from typing import Any

__all__ = ["Extras"]

GRADE_ORDER = ("PASS", "PARTIAL", "FAIL", "UNKNOWN", "N/A")
"""The grade words of scorecard cells, best first; a cell counts them."""


class Extras:
    """Collects, one ledger row at a time, the extras of the rows that have any (keyed by row index)."""

    def __init__(self) -> None:
        self.rows: dict[str, dict[str, Any]] = {}
        self._count = 0

    def add(self, row: Any) -> None:
        index, self._count = self._count, self._count + 1
        extra: dict[str, Any] = {}
        grades = getattr(row, "grades", None)
        if isinstance(grades, dict) and grades:
            extra["grades"] = [[axis, str(grade)] for axis, grade in grades.items()]
        first, second = getattr(row, "first", None), getattr(row, "second", None)
        if first and second:
            extra["compare"] = {
                "first": first,
                "second": second,
                "winner": getattr(row, "winner", None),
                "first_score": getattr(row, "first_score", None),
                "second_score": getattr(row, "second_score", None),
                "judges": [
                    [f"Judge {j.get('label')}", j.get("winner"), bool(j.get("consistent"))]
                    for j in getattr(row, "compare_judges", None) or []
                ],
            }
        if extra:
            self.rows[str(index)] = extra

    def data(self) -> dict[str, dict[str, Any]]:
        return self.rows
