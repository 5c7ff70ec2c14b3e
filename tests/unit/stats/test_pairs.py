"""Pairs to compare: all up to 8 configurations, each against the first beyond; a reference; named pairs."""

from __future__ import annotations

from pytest_ora.stats.pairs import choose_pairs


def test_the_default_rule() -> None:
    eight = [f"c{i}" for i in range(8)]
    nine = [f"c{i}" for i in range(9)]
    assert len(choose_pairs(eight)[0]) == 28
    pairs, rule = choose_pairs(nine)
    assert pairs == [("c0", f"c{i}") for i in range(1, 9)] and "c0 against each other" in rule
    assert len(choose_pairs([f"c{i}" for i in range(60)])[0]) == 59


def test_a_reference_and_named_pairs() -> None:
    names = ["a", "b", "c"]
    assert choose_pairs(names, reference="b")[0] == [("a", "b"), ("c", "b")]
    assert choose_pairs(names, pairs=[("c", "a"), ("a", "c")])[0] == [("c", "a")]
    assert choose_pairs(names, listed=[["a", "b"]])[0] == [("a", "b")]
    # The command line wins over bundle.yaml.
    assert choose_pairs(names, pairs=[("b", "c")], listed=[["a", "b"]])[0] == [("b", "c")]
