"""Judges checked against people's preferences (kind compare): each judge and the panel vs the human majority.

Over the compare items both labelled and judged in this run: accuracy (agreement) with the human
majority counted as in MT-Bench's agreement, with ties (first / second / tie, three classes) and
without ties (only items where neither the judge nor the humans chose a tie); Cohen's kappa on the
same vectors (statsmodels); the share of items whose two orders the judge decided differently
(position disagreement); and, where two or more raters labelled an item, the raters' agreement with
each other. A judge's verdict on an item is its winner when both orders agree, else a tie, as the
compare report counts it. Also per family (the entry key's prefix).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

import numpy as np

__all__ = [
    "GATE_MINIMUM",
    "METHOD",
    "PANEL",
    "SMALL_N",
    "agreement_figures",
    "cohen_kappa",
    "human_majority",
    "preference_calibration",
    "preference_items",
]

PANEL = "panel"
SMALL_N = 30
"""Below this many labelled items every figure is marked unstable."""
GATE_MINIMUM = 10
"""--ora-fail-calibration fails with fewer labelled items than this, whatever the kappa."""
CLASSES = ("first", "second", "tie")
METHOD = (
    "each judge's verdict (its winner when both orders agree, else a tie) and the panel's (the judges' majority, "
    "else a tie) against the human majority (the choice more than half the raters made; a split vote is a tie), "
    "over compare items both labelled and judged: accuracy with ties = share of items where the verdict equals "
    "the human label over three classes (first, second, tie); accuracy without ties = the same over items where "
    "neither the verdict nor the human label is a tie (MT-Bench's agreement with and without ties); Cohen's kappa "
    "on the same vectors (statsmodels.stats.inter_rater.cohens_kappa, unweighted); position disagreement = share "
    "of the judge's items whose two orders named different winners; human-vs-human = the same accuracy and kappa "
    "between every two raters over the items both labelled."
)


def preference_items(rows: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """What the calibration reads of a compare ledger's scored rows: id, family, panel and judges' sides."""
    items = []
    for row in rows:
        if row.get("status") != "scored" or not row.get("compare_judges"):
            continue
        first, second = row["first"], row["second"]
        side = {first: "first", second: "second", "tie": "tie"}
        judges = {}
        for judge in row["compare_judges"]:
            orders = [side.get(order["winner"], "tie") for order in judge["orders"]]
            judges[str(judge["label"])] = {
                "winner": side.get(judge["winner"], "tie"),
                "position_disagreement": len(set(orders)) > 1,
            }
        items.append(
            {
                "capture_id": str(row["capture_id"]),
                "family": str(row["entry_key"]).partition(":")[0],
                "panel": side.get(row["winner"], "tie"),
                "judges": judges,
            }
        )
    return items


def human_majority(choices: Sequence[str]) -> str:
    """The choice more than half the raters made; a split vote is a tie."""
    for choice in CLASSES:
        if sum(c == choice for c in choices) * 2 > len(choices):
            return choice
    return "tie"


def cohen_kappa(one: Sequence[str], two: Sequence[str]) -> float | None:
    """Unweighted Cohen's kappa of two label vectors (statsmodels); None when undefined (one class only)."""
    from statsmodels.stats.inter_rater import cohens_kappa

    if not one:
        return None
    classes = sorted(set(one) | set(two))
    if len(classes) < 2:
        return None
    index = {name: i for i, name in enumerate(classes)}
    table = np.zeros((len(classes), len(classes)))
    for a, b in zip(one, two):
        table[index[a], index[b]] += 1
    expected = float((table.sum(axis=0) @ table.sum(axis=1)) / table.sum() ** 2)
    if expected >= 1.0:
        return None
    return float(cohens_kappa(table, return_results=False))


def agreement_figures(judge: Sequence[str], human: Sequence[str]) -> dict[str, Any]:
    """n, accuracy and kappa with ties (three classes), and without ties (items where neither side chose a tie)."""
    kept = [(a, b) for a, b in zip(judge, human) if a != "tie" and b != "tie"]
    untied_judge, untied_human = [a for a, _ in kept], [b for _, b in kept]
    n = len(judge)
    return {
        "n": n,
        "small_n": n < SMALL_N,
        "accuracy_with_ties": None if n == 0 else sum(a == b for a, b in zip(judge, human)) / n,
        "kappa_with_ties": cohen_kappa(judge, human),
        "n_without_ties": len(kept),
        "accuracy_without_ties": None if not kept else sum(a == b for a, b in kept) / len(kept),
        "kappa_without_ties": cohen_kappa(untied_judge, untied_human),
    }


def _judge_rows(
    items: Sequence[Mapping[str, Any]], human: Mapping[str, str], judges: Sequence[str]
) -> list[dict[str, Any]]:
    rows = []
    for label in [*judges, PANEL]:
        kept = [item for item in items if item["capture_id"] in human and (label == PANEL or label in item["judges"])]
        verdicts = [item["panel"] if label == PANEL else item["judges"][label]["winner"] for item in kept]
        row: dict[str, Any] = {
            "judge": label,
            **agreement_figures(verdicts, [human[item["capture_id"]] for item in kept]),
        }
        if label != PANEL:
            judged = [item for item in items if label in item["judges"]]
            flips = sum(item["judges"][label]["position_disagreement"] for item in judged)
            row["position_disagreement"] = {
                "items": len(judged),
                "count": flips,
                "share": None if not judged else flips / len(judged),
            }
        rows.append(row)
    return rows


def preference_calibration(items: Sequence[Mapping[str, Any]], labels: Any) -> dict[str, Any]:
    """stats.json's `calibration` for a compare run, from preference_items() and a bundle.preferences.PreferenceSet."""
    grouped = labels.by_capture()
    judged = {item["capture_id"] for item in items}
    human = {
        capture: human_majority([label.winner for label in given])
        for capture, given in grouped.items()
        if capture in judged
    }
    judges = list(dict.fromkeys(label for item in items for label in item["judges"]))
    families = sorted({item["family"] for item in items if item["capture_id"] in human})
    raters = labels.raters
    between = []
    for one, two in combinations(raters, 2):
        both = [
            (given, capture) for capture, given in grouped.items() if {one, two} <= {label.rater for label in given}
        ]
        a = [next(label.winner for label in given if label.rater == one) for given, _ in both]
        b = [next(label.winner for label in given if label.rater == two) for given, _ in both]
        if both:
            between.append({"raters": [one, two], **agreement_figures(a, b)})
    return {
        "kind": "preference",
        "method": METHOD,
        "source": labels.source,
        "labels": len(labels.labels),
        "raters": list(raters),
        "captures": len(human),
        "labelled_not_judged": sorted(set(grouped) - judged),
        "gate_minimum": GATE_MINIMUM,
        "small_n_below": SMALL_N,
        "human_majority": {choice: sum(v == choice for v in human.values()) for choice in CLASSES},
        "judges": _judge_rows(items, human, judges),
        "families": [
            {"family": family, "judges": _judge_rows([i for i in items if i["family"] == family], human, judges)}
            for family in families
        ],
        "human_vs_human": between,
    }
