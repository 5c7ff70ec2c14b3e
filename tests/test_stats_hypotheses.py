"""Seed 003's hypotheses and pilot verdict on a small trio-like pilot, checked by hand."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from pytest_ora.method.rubric import Criterion, Rounding, Rubric
from pytest_ora.models import BundleManifest
from pytest_ora.reports.statistics import hypotheses_markdown
from pytest_ora.stats.arrays import run_arrays
from pytest_ora.stats.statistics import hypotheses_data

NAMES = ("completeness", "accuracy", "synthesis", "judgment", "actionability", "structure")
TRIO = Rubric(
    version="trio-test-1.0", title="Trio-like test rubric",
    criteria=tuple(Criterion(name, name.title(), Fraction(1, 6), "?") for name in NAMES), anchors=(),
    scale_min=Fraction(1), scale_max=Fraction(5), cap_criterion="completeness", failure_below=Fraction(3),
    rounding=Rounding(), history=(),
)
MANIFEST = BundleManifest.model_validate({
    "bundle": "trio-pilot", "created": "2026-04-26", "configurations": ["a", "b", "c", "d"],
    "hypotheses": [
        {"id": "H2", "better": "b", "worse": "a", "margin": 0.30},
        {"id": "H3", "better": "d", "worse": "c", "margin": 0.30},
        {"id": "H4", "better": "d", "worse": "a", "margin": 0},
    ],
    "verdict": {"directional_at_least": 6, "no_critical": True},
})
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
                {"label": label, "role": f"r{label}", "model": "m", "scores": {n: overall for n in NAMES},
                 "notes": {}, "impression": "", "overall": overall}
                for label in "ABC"
            ]
            out.append({
                "capture_id": capture_id, "entry_key": f"mode:{task}", "configuration": cell, "status": "scored",
                "judges": judges, "overall": overall, "failure": overall < 3, "critical": capture_id in critical,
            })
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
    assert {k: (h["directional"], h["meets_margin"]) for k, h in table.items()} == {"H2": (2, 2), "H3": (2, 1), "H4": (1, 1)}
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
    legacy = [{k: v for k, v in row.items() if k != "critical"} for row in rows({**PILOT, "task-3": {**PILOT["task-3"], "d": 3.3}})]
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
    text = hypotheses_markdown(data)
    lines = text.splitlines()
    assert [part.strip() for part in lines[2].split("|")[1:-1]] == [
        "Id", "Claim", "Margin", "Entries", "Mean delta", "95% interval", "Interval", "Directional", "Meets margin",
    ]
    cells = [part.strip() for part in lines[4].split("|")[1:-1]]
    assert cells[:5] == ["H2", "b > a", "0.3", "3", "0.35"] and cells[6:] == ["2/3", "2/3"]
    assert lines[-1] == "Verdict: **FAIL** (5 of 9 deltas directional, 6 required; 0 captures with the critical vote)."
