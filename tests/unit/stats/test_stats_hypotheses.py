"""The pilot's hypotheses and verdict on a small trio-like pilot, checked by hand."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from pytest_ora.core.models import BundleManifest, VerdictRule
from pytest_ora.core.rubric import Criterion, Rounding, Rubric
from pytest_ora.reports.statsfiles import hypotheses_file, hypotheses_markdown
from pytest_ora.stats.arrays import run_arrays
from pytest_ora.stats.hypotheses import null_pass_probability
from pytest_ora.stats.intervals import generator
from pytest_ora.stats.statistics import hypotheses_data

NAMES = ("completeness", "accuracy", "synthesis", "judgment", "actionability", "structure")
TRIO = Rubric(
    version="trio-test-1.0",
    title="Trio-like test rubric",
    criteria=tuple(Criterion(name, name.title(), Fraction(1, 6), "?") for name in NAMES),
    anchors=(),
    scale_min=Fraction(1),
    scale_max=Fraction(5),
    cap_criterion="completeness",
    failure_below=Fraction(3),
    rounding=Rounding(),
    history=(),
)
MANIFEST = BundleManifest.model_validate(
    {
        "bundle": "trio-pilot",
        "created": "2026-04-26",
        "configurations": ["a", "b", "c", "d"],
        "hypotheses": [
            {"id": "H2", "better": "b", "worse": "a", "margin": 0.30},
            {"id": "H3", "better": "d", "worse": "c", "margin": 0.30},
            {"id": "H4", "better": "d", "worse": "a", "margin": 0},
        ],
        "verdict": {"directional_at_least": 6, "no_critical": True},
    }
)
# Cell overalls (trio means) per task: A, B, C, D.
PILOT = {
    "task-1": {"a": 3.50, "b": 3.80, "c": 2.90, "d": 3.10},
    "task-2": {"a": 3.00, "b": 2.95, "c": 2.50, "d": 3.00},
    "task-3": {"a": 3.20, "b": 4.00, "c": 2.00, "d": 2.00},
}


def rows(pilot: dict[str, dict[str, float]], critical: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """Ledger rows the way N-judge panels write them: a `judges` list, votes as booleans."""
    out = []
    for task, cells in pilot.items():
        for cell, overall in cells.items():
            capture_id = f"mode:{task}/{cell}"
            judges = [
                {
                    "label": label,
                    "role": f"r{label}",
                    "model": "m",
                    "scores": {n: overall for n in NAMES},
                    "notes": {},
                    "impression": "",
                    "overall": overall,
                }
                for label in "ABC"
            ]
            out.append(
                {
                    "capture_id": capture_id,
                    "entry_key": f"mode:{task}",
                    "configuration": cell,
                    "status": "scored",
                    "judges": judges,
                    "overall": overall,
                    "failure": overall < 3,
                    "critical": capture_id in critical,
                }
            )
    return out


def test_the_hypothesis_table_and_a_failing_verdict_by_hand() -> None:
    # By hand, directional per task (H2: B-A > 0; H3: D-C > 0; H4: D-A >= 0, margin 0):
    #   task-1: H2 +0.30 yes (meets 0.30 exactly); H3 +0.20 yes (misses 0.30); H4 -0.40 no
    #   task-2: H2 -0.05 no;  H3 +0.50 yes (meets); H4  0.00 yes (margin 0: >= 0 counts, meets)
    #   task-3: H2 +0.80 yes (meets); H3 0.00 no (margin 0.30: must be > 0); H4 -1.20 no
    # directional 2 + 2 + 1 = 5 < 6 -> FAIL
    data = hypotheses_data(run_arrays(rows(PILOT), TRIO), MANIFEST, seed=0, resamples=2000)

    assert data is not None
    table = {h["id"]: h for h in data["hypotheses"]}
    assert [e["delta"] for e in table["H2"]["entries"]] == pytest.approx([0.30, -0.05, 0.80])
    assert [e["meets_margin"] for e in table["H2"]["entries"]] == [True, False, True]
    assert [e["directional"] for e in table["H3"]["entries"]] == [True, True, False]
    assert [e["meets_margin"] for e in table["H3"]["entries"]] == [False, True, False]
    assert [e["directional"] for e in table["H4"]["entries"]] == [False, True, False]
    assert {k: (h["directional"], h["meets_margin"]) for k, h in table.items()} == {
        "H2": (2, 2),
        "H3": (2, 1),
        "H4": (1, 1),
    }
    assert table["H2"]["mean_delta"] == pytest.approx(0.35)
    assert table["H3"]["mean_delta"] == pytest.approx(0.7 / 3)
    assert table["H4"]["mean_delta"] == pytest.approx(-1.6 / 3)
    assert (data["directional"], data["deltas"]) == (5, 9)
    verdict = data["verdict"]
    assert verdict["result"] == "FAIL"
    assert verdict["critical_captures"] == []
    assert verdict["reasons"][0] == "5 of 9 deltas directional, 6 required"


def test_a_passing_pilot_and_a_critical_failure_that_overrides_it() -> None:
    # task-3's D cell at 3.30 turns H3 (+1.30) and H4 (+0.10) directional: 7 of 9 -> PASS
    pilot = {**PILOT, "task-3": {**PILOT["task-3"], "d": 3.30}}
    passing = hypotheses_data(run_arrays(rows(pilot), TRIO), MANIFEST, seed=0, resamples=2000)
    assert passing is not None and passing["verdict"]["result"] == "PASS" and passing["directional"] == 7

    # The same deltas with one cell critical on a majority of judges -> FAIL, naming it
    critical = hypotheses_data(run_arrays(rows(pilot, ("mode:task-2/c",)), TRIO), MANIFEST, seed=0, resamples=2000)
    assert critical is not None and critical["verdict"]["result"] == "FAIL"
    assert critical["verdict"]["critical_captures"] == ["mode:task-2/c"]


def test_no_critical_without_a_critical_vote_cannot_pass() -> None:
    legacy = [
        {k: v for k, v in row.items() if k != "critical"}
        for row in rows({**PILOT, "task-3": {**PILOT["task-3"], "d": 3.3}})
    ]
    data = hypotheses_data(run_arrays(legacy, TRIO), MANIFEST, seed=0, resamples=2000)
    assert data is not None and data["verdict"]["result"] == "FAIL"
    assert "no critical vote" in data["verdict"]["reasons"][1]


def test_an_entry_missing_a_side_is_unpaired_not_counted() -> None:
    pilot = {**PILOT, "task-2": {k: v for k, v in PILOT["task-2"].items() if k != "b"}}
    data = hypotheses_data(run_arrays(rows(pilot), TRIO), MANIFEST, seed=0, resamples=2000)
    assert data is not None
    h2 = data["hypotheses"][0]
    assert (h2["n"], h2["unpaired_entries"]) == (2, ["mode:task-2"])


def test_the_markdown_table() -> None:
    data = hypotheses_data(run_arrays(rows(PILOT), TRIO), MANIFEST, seed=0, resamples=2000)
    assert data is not None
    text = hypotheses_markdown(hypotheses_file(data, TRIO.version))
    lines = text.splitlines()
    assert [part.strip() for part in lines[2].split("|")[1:-1]] == [
        "Id",
        "Claim",
        "Margin",
        "Entries",
        "Mean delta",
        "95% interval",
        "Interval",
        "Directional",
        "Meets margin",
    ]
    cells = [part.strip() for part in lines[4].split("|")[1:-1]]
    assert cells[:5] == ["H2", "b > a", "0.3", "3", "0.35"] and cells[6:] == ["t (small n)", "2/3", "2/3"]
    assert "Verdict: **FAIL** (5 of 9 deltas directional, 6 required; 0 captures with the critical vote)." in lines
    assert lines[-1].startswith("By chance: with the configurations' labels shuffled within each entry")


PER_HYPOTHESIS = MANIFEST.model_copy(update={"verdict": VerdictRule(per_hypothesis_at_least=2, no_critical=False)})


def test_the_per_hypothesis_rule_needs_every_hypothesis_in_enough_entries() -> None:
    # H2 and H3 in 3/3 but H4 in 0/3: 6 of 9 directional passes the count rule, not the pilot's reading.
    pilot = {task: {"a": 3.0, "b": 3.5, "c": 2.0, "d": 2.5} for task in ("task-1", "task-2", "task-3")}
    counted = MANIFEST.model_copy(update={"verdict": VerdictRule(directional_at_least=6, no_critical=False)})
    by_count = hypotheses_data(run_arrays(rows(pilot), TRIO), counted, seed=0, resamples=2000)
    by_each = hypotheses_data(run_arrays(rows(pilot), TRIO), PER_HYPOTHESIS, seed=0, resamples=2000)
    assert by_count is not None and by_each is not None
    assert by_count["verdict"]["result"] == "PASS" and by_each["verdict"]["result"] == "FAIL"
    assert by_each["verdict"]["rule"] == {"per_hypothesis_at_least": 2, "no_critical": False}
    assert "H4 0/3" in by_each["verdict"]["reasons"][0] and "(H4 short)" in by_each["verdict"]["reasons"][0]


def exact_null(pilot: dict[str, dict[str, float]], passes: Callable[[list[int]], bool]) -> float:
    """The null pass probability by enumerating every relabelling of every entry (24^3 for the pilot)."""
    specs = MANIFEST.hypotheses or []
    per_entry = []
    for cells in pilot.values():
        names = list(cells)
        per_entry.append([dict(zip(names, (cells[n] for n in order))) for order in itertools.permutations(names)])
    hits = total = 0
    for choice in itertools.product(*per_entry):
        counts = [
            sum((c[s.better] - c[s.worse] >= 0) if s.margin == 0 else (c[s.better] - c[s.worse] > 0) for c in choice)
            for s in specs
        ]
        hits += passes(counts)
        total += 1
    return hits / total


@pytest.mark.parametrize(
    ("rule", "passes"),
    [
        (VerdictRule(directional_at_least=6), lambda counts: sum(counts) >= 6),
        (VerdictRule(per_hypothesis_at_least=2), lambda counts: all(c >= 2 for c in counts)),
    ],
)
def test_the_null_pass_probability_matches_exact_enumeration(
    rule: VerdictRule, passes: Callable[[list[int]], bool]
) -> None:
    manifest = MANIFEST.model_copy(update={"verdict": rule})
    data = run_arrays(rows(PILOT), TRIO)
    estimate = null_pass_probability(data, manifest.hypotheses or [], rule, generator(0, "null-verdict"), 10_000)
    exact = exact_null(PILOT, passes)
    assert estimate is not None
    assert estimate == pytest.approx(exact, abs=3 * (exact * (1 - exact) / 10_000) ** 0.5 + 1e-9)
    again = hypotheses_data(data, manifest, seed=0, resamples=10_000)
    assert again is not None and again["verdict"]["null_pass_probability"] == estimate  # seeded: the same figure


def test_a_verdict_rule_names_exactly_one_count() -> None:
    with pytest.raises(ValueError, match="exactly one"):
        VerdictRule(directional_at_least=6, per_hypothesis_at_least=2)
    with pytest.raises(ValueError, match="exactly one"):
        VerdictRule()
