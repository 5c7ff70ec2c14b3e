"""Which configurations are compared: named pairs, a reference, or the default rule.

Holm runs over the pairs compared, so comparing fewer pairs keeps the family small enough to
reject: all pairs up to ALL_PAIRS_UP_TO configurations, beyond that each against the first.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

__all__ = ["ALL_PAIRS_UP_TO", "choose_pairs"]

ALL_PAIRS_UP_TO = 8


def choose_pairs(
    configurations: Sequence[str],
    *,
    pairs: Sequence[tuple[str, str]] = (),
    reference: str | None = None,
    listed: Sequence[Sequence[str]] | None = None,
) -> tuple[list[tuple[str, str]], str]:
    """The pairs (first, second) and the rule that chose them, in words.

    `pairs` are --ora-pairs, `reference` --ora-reference, `listed` bundle.yaml's compare_pairs; the
    command line wins over the bundle. Names are checked at intake and option reading.
    """
    if pairs:
        return _unique(pairs), "the pairs named by --ora-pairs"
    if reference is not None:
        return [
            (name, reference) for name in configurations if name != reference
        ], f"each configuration against {reference} (--ora-reference)"
    if listed:
        return _unique([(pair[0], pair[1]) for pair in listed]), "the pairs named by compare_pairs in bundle.yaml"
    if len(configurations) <= ALL_PAIRS_UP_TO:
        return list(itertools.combinations(configurations, 2)), f"every pair (at most {ALL_PAIRS_UP_TO} configurations)"
    first = configurations[0]
    return [(first, name) for name in configurations[1:]], (
        f"{first} against each other configuration (more than {ALL_PAIRS_UP_TO} configurations; "
        "name pairs with --ora-pairs or compare_pairs, or a reference with --ora-reference)"
    )


def _unique(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: dict[frozenset[str], tuple[str, str]] = {}
    for first, second in pairs:
        seen.setdefault(frozenset((first, second)), (first, second))
    return list(seen.values())
