"""The per-family breakdown: each configuration's mean overall within each family of entries.

An overall ranking can hide a family where the order flips; this table shows it.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..core.numbers import round_half_away
from ..core.record import CaptureRecord
from ..core.rubric import Rubric
from ..core.vocabulary import FAMILIES
from ..method.kinds import combined
from ..method.markdowntable import tabulated

__all__ = ["family_table"]


def family_table(records: Sequence[CaptureRecord], configurations: Sequence[str], rubric: Rubric) -> str:
    """Markdown: configurations by family, each cell the mean overall over scored captures (n in brackets)."""
    overall: dict[tuple[str, str], list[Fraction]] = {}
    present = set()
    for record in records:
        if record["status"] == "scored":
            present.add(record["family"])
            value = combined(record, rubric).overall
            overall.setdefault((record["configuration"], record["family"]), []).append(value)
    families = [f for f in FAMILIES if f in present] + sorted(present - set(FAMILIES))
    rows = []
    for configuration in configurations:
        cells = [configuration]
        for family in families:
            values = overall.get((configuration, family), [])
            mean = sum(values, Fraction(0)) / len(values) if values else None
            cells.append(
                "" if mean is None else f"{round_half_away(mean, rubric.rounding.rating_places)} ({len(values)})"
            )
        rows.append(cells)
    headers = ["Configuration", *(family.title() for family in families)]
    return tabulated(
        rows, headers=headers, tablefmt="github", disable_numparse=True, colalign=("left",) + ("right",) * len(families)
    )
