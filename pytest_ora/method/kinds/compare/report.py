"""compare.jsonl, compare.json and compare.md (kind compare, SPEC 9): per configuration pair wins,
ties, losses, the win rate (a tie counts half) with its 95% Wilson interval, and each judge's
position consistency."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from tabulate import tabulate

from ....core.numbers import round_half_away
from ....core.plan import Pair
from ....core.record import CaptureRecord
from ....core.rubric import Rubric
from .. import combined, formula

__all__ = ["compare_files", "compare_table", "wilson"]


def wilson(successes: Fraction, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (statsmodels; successes may count ties as halves)."""
    from statsmodels.stats.proportion import proportion_confint

    low, high = proportion_confint(float(successes), n, alpha=0.05, method="wilson")
    return float(low), float(high)


def _rows(records: Sequence[CaptureRecord], rubric: Rubric) -> list[dict[str, Any]]:
    rows = []
    for record in records:
        if record["status"] != "scored":
            continue
        scores = combined(record, rubric)
        pair = Pair.of(record["configuration"])
        first, second = pair.first, pair.second
        judges = []
        for judge, summary in zip(record["judges"], scores.details["compare_judges"]):
            orders = [
                {"order": o["order"], "shown_winner": o["shown_winner"], "winner": {"first": first, "second": second}.get(o["winner"], "tie"),
                 first: o["scores"]["first"], second: o["scores"]["second"]}
                for o in judge["answers"]["orders"]
            ]
            judges.append({"label": summary["label"], "model": judge["model"], "orders": orders,
                           "consistent": summary["consistent"], "winner": summary["winner"]})
        rows.append({"capture_id": record["capture_id"], "entry_key": record["entry_key"], "first": first,
                     "second": second, "judges": judges, "result": scores.details["winner"],
                     "first_score": float(scores.means["first_score"]), "second_score": float(scores.means["second_score"])})
    return rows


def _pairs(rows: Sequence[dict[str, Any]], rubric: Rubric) -> list[dict[str, Any]]:
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        grouped.setdefault((row["first"], row["second"]), []).append(row)
    pairs = []
    for (first, second), items in grouped.items():
        wins = sum(row["result"] == first for row in items)
        losses = sum(row["result"] == second for row in items)
        ties = len(items) - wins - losses
        rate = (wins + Fraction(ties, 2)) / len(items)
        low, high = wilson(wins + Fraction(ties, 2), len(items))
        labels = [judge["label"] for judge in items[0]["judges"]]
        consistency = {
            label: Fraction(sum(j["consistent"] for row in items for j in row["judges"] if j["label"] == label), len(items))
            for label in labels
        }
        pairs.append({
            "first": first, "second": second, "items": len(items), "wins": wins, "ties": ties, "losses": losses,
            "win_rate": float(rate), "win_rate_exact": str(rate), "wilson_95": [low, high],
            "position_consistency": {label: float(share) for label, share in consistency.items()},
            "rubric": rubric.version, "rubric_digest": rubric.digest,
        })
    return pairs


def compare_table(records: Sequence[CaptureRecord], rubric: Rubric, fmt: str = "github") -> str:
    """Per pair: items, wins, ties, losses, win rate, Wilson interval, position consistency."""
    return _table(_pairs(_rows(records, rubric), rubric), fmt)


def _table(pairs: Sequence[dict[str, Any]], fmt: str) -> str:
    table = []
    for pair in pairs:
        consistency = ", ".join(f"{label} {round_half_away(Fraction(share) * 100, 0)}%"
                                for label, share in pair["position_consistency"].items())
        low, high = pair["wilson_95"]
        table.append([f"{pair['first']} vs {pair['second']}", pair["items"], pair["wins"], pair["ties"], pair["losses"],
                      f"{round_half_away(Fraction(pair['win_rate_exact']) * 100, 0)}%",
                      f"{round_half_away(Fraction(low) * 100, 0)}%-"
                      f"{round_half_away(Fraction(high) * 100, 0)}%",
                      consistency])
    headers = ["Pair (first vs second)", "Items", "Wins", "Ties", "Losses", "Win rate", "95% Wilson", "Position consistency"]
    return tabulate(table, headers=headers, tablefmt=fmt, disable_numparse=True)


def compare_files(records: Sequence[CaptureRecord], rubric: Rubric) -> dict[str, str]:
    """The three compare files, machine-written from the records."""
    rows = _rows(records, rubric)
    pairs = _pairs(rows, rubric)
    markdown = (
        "# Head-to-head comparison\n\n"
        f"Rubric {rubric.version}, digest {rubric.digest}. {formula(rubric)}. Wins, ties and losses are the "
        "first configuration's; position consistency is the share of items whose two orders a judge decided "
        "alike. Machine-written: do not edit.\n\n"
        + _table(pairs, "github") + "\n"
    )
    return {
        "compare.jsonl": "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows),
        "compare.json": json.dumps(pairs, indent=2, ensure_ascii=False) + "\n",
        "compare.md": markdown,
    }
