"""The pilot's pre-registered hypotheses between configurations and the pilot verdict.

Per entry and hypothesis: delta = overall(better) - overall(worse), compared with the margin in
exact decimal arithmetic on the ledger's values (a delta of exactly 0.30 meets a 0.30 margin).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from .arrays import RunArrays, decimal_fraction
from .intervals import RESAMPLES, generator, mean_interval

__all__ = [
    "EntryDelta",
    "HypothesisResult",
    "Verdict",
    "evaluate",
    "hypothesis_result",
    "null_pass_probability",
    "verdict",
]


@dataclass(frozen=True)
class EntryDelta:
    """One entry under one hypothesis."""

    entry_key: str
    better: float
    worse: float
    delta: Fraction
    directional: bool
    meets_margin: bool


@dataclass(frozen=True)
class HypothesisResult:
    """One hypothesis over every entry both configurations scored."""

    id: str
    better: str
    worse: str
    margin: Fraction
    entries: tuple[EntryDelta, ...]
    unpaired: tuple[str, ...]
    """Entries where one of the two configurations has no scored capture."""
    mean_delta: float | None
    interval: tuple[float, float] | None

    @property
    def directional(self) -> int:
        return sum(entry.directional for entry in self.entries)

    @property
    def meets_margin(self) -> int:
        return sum(entry.meets_margin for entry in self.entries)


@dataclass(frozen=True)
class Verdict:
    """PASS or FAIL, and why."""

    result: str
    directional: int
    required: int
    critical: tuple[str, ...] | None
    """Captures with the critical vote; None when not checked (no_critical false) or not checkable."""
    reasons: tuple[str, ...]


def hypothesis_result(
    spec: Any,
    overall: Mapping[str, Mapping[str, float]],
    entries: Sequence[str],
    rng: np.random.Generator,
    resamples: int = RESAMPLES,
) -> HypothesisResult:
    """Deltas of one hypothesis (`spec` has id, better, worse, margin); `overall` is configuration -> entry -> overall."""
    margin = Fraction(spec.margin)
    better, worse = overall.get(spec.better, {}), overall.get(spec.worse, {})
    rows, unpaired = [], []
    for entry in entries:
        if entry not in better or entry not in worse:
            if entry in better or entry in worse:
                unpaired.append(entry)
            continue
        delta = decimal_fraction(better[entry]) - decimal_fraction(worse[entry])
        directional = delta >= 0 if margin == 0 else delta > 0
        rows.append(EntryDelta(entry, better[entry], worse[entry], delta, directional, delta >= margin))
    deltas = np.array([float(row.delta) for row in rows], dtype=np.float64)
    return HypothesisResult(
        id=spec.id,
        better=spec.better,
        worse=spec.worse,
        margin=margin,
        entries=tuple(rows),
        unpaired=tuple(unpaired),
        mean_delta=float(np.mean(deltas)) if deltas.size else None,
        interval=mean_interval(deltas, rng, resamples),
    )


def _per_hypothesis(rule: Any) -> int | None:
    value = getattr(rule, "per_hypothesis_at_least", None)
    return None if value is None else int(value)


def verdict(results: Sequence[HypothesisResult], rule: Any, critical: Sequence[str] | None) -> Verdict:
    """The pilot verdict: enough directional deltas (over all, or in every hypothesis) and, with `no_critical`, no critical capture."""
    count = sum(result.directional for result in results)
    each = _per_hypothesis(rule)
    if each is None:
        required = int(rule.directional_at_least)
        reasons = [f"{count} of {sum(len(r.entries) for r in results)} deltas directional, {required} required"]
        passed = count >= required
    else:
        required = each
        short = [r.id for r in results if r.directional < each]
        reasons = [
            ", ".join(f"{r.id} {r.directional}/{len(r.entries)}" for r in results)
            + f" directional, {each} required in every hypothesis"
            + (f" ({', '.join(short)} short)" if short else "")
        ]
        passed = not short
    flagged: tuple[str, ...] | None = None
    if rule.no_critical:
        if critical is None:
            passed = False
            reasons.append("no_critical cannot be shown: the ledger carries no critical vote")
        else:
            flagged = tuple(critical)
            passed = passed and not flagged
            reasons.append(
                f"{len(flagged)} captures with the critical vote" + (f": {', '.join(flagged)}" if flagged else "")
            )
    return Verdict("PASS" if passed else "FAIL", count, required, flagged, tuple(reasons))


def _entry_means(data: RunArrays) -> dict[str, dict[str, float]]:
    """Configuration -> entry -> its overall; with repeated answers (units entry#k) the mean of the entry's K."""
    values: dict[str, dict[str, list[float]]] = {}
    for unit, configuration, value in zip(data.entry_keys, data.configurations, data.overall):
        values.setdefault(configuration, {}).setdefault(unit.partition("#")[0], []).append(float(value))
    return {
        configuration: {
            entry: sum(found) / len(found) if len(found) > 1 else found[0] for entry, found in entries.items()
        }
        for configuration, entries in values.items()
    }


def evaluate(
    data: RunArrays, hypotheses: Sequence[Any], rule: Any | None, seed: int, resamples: int = RESAMPLES
) -> tuple[list[HypothesisResult], Verdict | None]:
    """Every hypothesis of a run, and the verdict when the bundle defines one."""
    overall = _entry_means(data)
    entries = list(dict.fromkeys(entry.partition("#")[0] for entry in data.entry_keys))
    results = [
        hypothesis_result(spec, overall, entries, generator(seed, f"hypothesis:{spec.id}"), resamples)
        for spec in hypotheses
    ]
    if rule is None:
        return results, None
    critical = None
    if data.critical is not None:
        critical = [cid for cid, flag in zip(data.capture_ids, data.critical) if flag]
    return results, verdict(results, rule, critical)


def null_pass_probability(
    data: RunArrays,
    hypotheses: Sequence[Any],
    rule: Any,
    rng: np.random.Generator,
    permutations: int = RESAMPLES,
) -> float | None:
    """Share of random relabellings under which the rule's count condition passes (how often it passes by chance).

    Within each entry the scored configurations' overalls are shuffled among their labels (all
    configurations interchangeable: nothing differs), and each hypothesis's directional count is
    taken again. The critical-vote condition does not depend on the labels and is left out.
    """
    overall: dict[str, dict[str, float]] = {}
    for configuration, means in _entry_means(data).items():
        for entry, value in means.items():
            overall.setdefault(entry, {})[configuration] = value
    if not hypotheses or not overall:
        return None
    counts = np.zeros((permutations, len(hypotheses)), dtype=np.int64)
    for entry in dict.fromkeys(entry.partition("#")[0] for entry in data.entry_keys):
        present = overall[entry]
        names = list(present)
        values = np.array([present[name] for name in names])
        # Row r: the value label i carries under the r-th relabelling is values[order[r, i]].
        order = rng.permuted(np.tile(np.arange(len(names)), (permutations, 1)), axis=1)
        for h, spec in enumerate(hypotheses):
            if spec.better not in present or spec.worse not in present:
                continue
            delta = values[order[:, names.index(spec.better)]] - values[order[:, names.index(spec.worse)]]
            counts[:, h] += (delta >= 0) if Fraction(spec.margin) == 0 else (delta > 0)
    each = _per_hypothesis(rule)
    passed = (counts >= each).all(axis=1) if each is not None else counts.sum(axis=1) >= int(rule.directional_at_least)
    return float(np.mean(passed))
