"""compare.jsonl, compare.json and compare.md (kind compare): per configuration pair wins,
ties, losses, the win rate (a tie counts half) with its 95% Wilson interval, and each judge's
position consistency."""

from __future__ import annotations

import json
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ....core.numbers import round_half_away
from ....core.plan import Pair
from ....core.record import CaptureRecord
from ....core.rubric import Rubric
from ...markdowntable import tabulated
from .. import combined, formula

__all__ = [
    "agreement_text",
    "compare_files",
    "compare_json",
    "compare_markdown",
    "compare_table",
    "wilson",
    "winner_agreement",
]


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
                {
                    "order": o["order"],
                    "shown_winner": o["shown_winner"],
                    "winner": {"first": first, "second": second}.get(o["winner"], "tie"),
                    first: o["scores"]["first"],
                    second: o["scores"]["second"],
                }
                for o in judge["answers"]["orders"]
            ]
            judges.append(
                {
                    "label": summary["label"],
                    "model": judge["model"],
                    "orders": orders,
                    "consistent": summary["consistent"],
                    "winner": summary["winner"],
                }
            )
        rows.append(
            {
                "capture_id": record["capture_id"],
                "entry_key": record["entry_key"],
                "first": first,
                "second": second,
                "judges": judges,
                "result": scores.details["winner"],
                "first_score": float(scores.means["first_score"]),
                "second_score": float(scores.means["second_score"]),
            }
        )
    return rows


def winner_agreement(winners: Sequence[Sequence[str]], pair: tuple[str, str]) -> dict[str, Any] | None:
    """The judges' agreement on each item's winner (first, second, tie): the share of items all judges named alike,
    Cohen's kappa with two judges, Fleiss' kappa with two or more (statsmodels); None with one judge."""
    rows = [list(row) for row in winners if len(row) >= 2]
    if not rows or len({len(row) for row in rows}) != 1:
        return None
    import numpy as np
    from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

    classes = {pair[0]: 0, pair[1]: 1, "tie": 2}
    coded = np.array([[classes.get(w, 2) for w in row] for row in rows])
    same = float(np.mean([len(set(row)) == 1 for row in coded.tolist()]))
    counts, _ = aggregate_raters(coded, n_cat=3)
    # One category throughout: chance agreement is 1 and kappa is undefined, never reported as 1 or 0.
    defined = len(set(coded.ravel().tolist())) > 1
    fleiss = float(fleiss_kappa(counts, method="fleiss")) if defined else None
    cohen = None
    if coded.shape[1] == 2 and defined:
        table = np.zeros((3, 3))
        for a, b in coded.tolist():
            table[a, b] += 1
        cohen = float(cohens_kappa(table, return_results=False))
    return {
        "judges": int(coded.shape[1]),
        "items": len(rows),
        "all_agree": same,
        "cohen_kappa": cohen,
        "fleiss_kappa": fleiss,
    }


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
            label: Fraction(
                sum(j["consistent"] for row in items for j in row["judges"] if j["label"] == label), len(items)
            )
            for label in labels
        }
        pairs.append(
            {
                "first": first,
                "second": second,
                "items": len(items),
                "wins": wins,
                "ties": ties,
                "losses": losses,
                "win_rate": float(rate),
                "win_rate_exact": str(rate),
                "wilson_95": [low, high],
                "position_consistency": {label: float(share) for label, share in consistency.items()},
                "judge_agreement": winner_agreement(
                    [[j["winner"] for j in row["judges"]] for row in items], (first, second)
                ),
                "rubric": rubric.version,
                "rubric_digest": rubric.digest,
            }
        )
    return pairs


def compare_table(records: Sequence[CaptureRecord], rubric: Rubric, fmt: str = "github") -> str:
    """Per pair: items, wins, ties, losses, win rate, Wilson interval, position consistency."""
    return _table(_pairs(_rows(records, rubric), rubric), fmt)


def _table(pairs: Sequence[dict[str, Any]], fmt: str) -> str:
    table = []
    for pair in pairs:
        consistency = ", ".join(
            f"{label} {round_half_away(Fraction(share) * 100, 0)}%"
            for label, share in pair["position_consistency"].items()
        )
        low, high = pair["wilson_95"]
        table.append(
            [
                f"{pair['first']} vs {pair['second']}",
                pair["items"],
                pair["wins"],
                pair["ties"],
                pair["losses"],
                f"{round_half_away(Fraction(pair['win_rate_exact']) * 100, 0)}%",
                f"{round_half_away(Fraction(low) * 100, 0)}%-{round_half_away(Fraction(high) * 100, 0)}%",
                consistency,
                agreement_text(pair.get("judge_agreement")),
            ]
        )
    headers = [
        "Pair (first vs second)",
        "Items",
        "Wins",
        "Ties",
        "Losses",
        "Win rate",
        "95% Wilson",
        "Position consistency",
        "Judges agree on the winner",
    ]
    return tabulated(table, headers=headers, tablefmt=fmt, disable_numparse=True)


def agreement_text(agreement: Any) -> str:
    """The judges' agreement on the winner in words: the share all alike, and the kappa (undefined said so)."""
    if not agreement:
        return "one judge"
    kappa = agreement["cohen_kappa"] if agreement["judges"] == 2 else agreement["fleiss_kappa"]
    name = "Cohen's kappa" if agreement["judges"] == 2 else "Fleiss' kappa"
    shown = "undefined (one outcome only)" if kappa is None else f"{kappa:.2f}"
    return f"{round_half_away(Fraction(agreement['all_agree']) * 100, 0)}% of items, {name} {shown}"


def compare_files(records: Sequence[CaptureRecord], rubric: Rubric) -> dict[str, str]:
    """compare.jsonl, the data file: one row per scored item, machine-written from the records."""
    return {"compare.jsonl": "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in _rows(records, rubric))}


def compare_json(rows: Sequence[dict[str, Any]], rubric: Rubric) -> str:
    """compare.json, per pair, rendered from compare.jsonl's rows."""
    return json.dumps(_pairs(rows, rubric), indent=2, ensure_ascii=False) + "\n"


def compare_markdown(rows: Sequence[dict[str, Any]], rubric: Rubric) -> str:
    """compare.md, the per-pair table, rendered from compare.jsonl's rows."""
    return (
        "# Head-to-head comparison\n\n"
        f"Rubric {rubric.version}, digest {rubric.digest}. {formula(rubric)}. Wins, ties and losses are the "
        "first configuration's; position consistency is the share of items whose two orders a judge decided "
        "alike. Machine-written: do not edit.\n\n" + _table(_pairs(rows, rubric), "github") + "\n"
    )
