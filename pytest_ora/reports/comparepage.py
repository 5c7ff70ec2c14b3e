"""report.html's Summary and Statistics for a compare run: what a head-to-head comparison means, nothing else.

A compare run's items have no overall score and no failure: the page shows per pair the wins, ties
and losses, the win rate with its Wilson interval, each judge's position consistency and the judges'
agreement on the winner, never a mean of win shares, a failure rate or a criteria heatmap.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from ..method.kinds.compare.report import agreement_text

__all__ = ["COMPARE_CHARTS", "compare_statistics", "compare_summary"]

COMPARE_CHARTS = ("compare",)
"""The charts a compare run shows: the head-to-head win rate with its interval."""


def _percent(value: Any) -> str:
    return "" if value is None else f"{float(value) * 100:.0f}%"


def _table(headings: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in headings)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


def compare_summary(data: Mapping[str, Any]) -> str:
    """Per pair: items, wins, ties, losses, win rate, 95% Wilson interval, position consistency, judges' agreement."""
    pairs = data.get("compare") or []
    if not pairs:
        unshown = [note for note in data.get("notes", ()) if str(note).startswith("compare.json")]
        if unshown:  # an unreadable or stale compare.json: said, not passed off as an empty run
            return "".join(f'<p class="note">{escape(note)}</p>' for note in unshown)
        return '<p class="note">No pair was judged in this run: nothing to compare.</p>'
    rows = []
    for pair in pairs:
        interval = pair.get("interval")
        consistency = ", ".join(
            f"Judge {label} {_percent(share)}" for label, share in (pair.get("position_consistency") or {}).items()
        )
        rows.append(
            [
                f"{pair['a']} vs {pair['b']}",
                str(pair.get("items", pair["wins"] + pair["ties"] + pair["losses"])),
                str(pair["wins"]),
                str(pair["ties"]),
                str(pair["losses"]),
                _percent(pair["win_rate"]),
                "" if not interval else f"{_percent(interval[0])} - {_percent(interval[1])}",
                consistency,
                agreement_text(pair.get("judge_agreement")),
            ]
        )
    headings = (
        "Pair (first vs second)",
        "Items",
        "Wins",
        "Ties",
        "Losses",
        "Win rate",
        "95% Wilson",
        "Position consistency",
        "Judges agree on the winner",
    )
    return _table(headings, rows) + (
        '<p class="note">Wins, ties and losses are the first configuration\'s; the win rate counts a tie as half. '
        "Each judge saw every pair twice, once in each order; its winner counts only when both orders agree, else a tie, "
        "and position consistency is the share of items whose two orders it decided alike. The pair's winner is the "
        "panel majority, else a tie. A compare run has no overall score and no failure rate.</p>"
    )


def compare_statistics(data: Mapping[str, Any]) -> str:
    """The Statistics section of a compare run: where its figures are, and no table of scores it does not have."""
    notes = "".join(f'<p class="note">{escape(note)}</p>' for note in data.get("notes", ()))
    return (
        "<p class=\"note\">A compare run's statistics are the Summary's: the win rate's Wilson interval, each "
        "judge's position consistency and the judges' agreement on the winner (Cohen's kappa with two judges, "
        "Fleiss' kappa with more), and, with preference labels, the Calibration section below.</p>" + notes
    )
