"""Judges as judges: a planted self-preference (one point on the judge's own model's answers) is flagged; none otherwise."""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from pytest_ora.stats.arrays import RunArrays, Scale
from pytest_ora.stats.judges import judges_section

CONFIGURATIONS = ("own-a", "own-b", "neither")
SNAPSHOTS = {"own-a": ["model-a"], "own-b": ["model-b", "helper"], "neither": ["other"]}


def arrays(plant: float, entries: int = 60, seed: int = 3) -> RunArrays:
    """Three judges; judge A adds `plant` points to the configuration that runs its own model."""
    rng = np.random.default_rng(seed)
    keys, configurations, own = [], [], []
    for e in range(entries):
        quality = rng.uniform(2, 9)
        for name in CONFIGURATIONS:
            keys.append(f"mode:t{e}")
            configurations.append(name)
            scores = np.clip(quality + rng.normal(0, 0.5, 3), 0, 10)
            if name == "own-a":
                scores[0] += plant
            own.append(scores)
    judge_overall = np.array(own)
    return RunArrays(
        capture_ids=tuple(f"{k}/{c}" for k, c in zip(keys, configurations)),
        entry_keys=tuple(keys),
        configurations=tuple(configurations),
        criteria=("overall",),
        judges=("A", "B", "C"),
        scores=judge_overall[:, :, None],
        judge_overall=judge_overall,
        overall=judge_overall.mean(axis=1),
        failure=np.zeros(len(keys), dtype=np.bool_),
        critical=None,
        scale=Scale(Fraction(0), Fraction(10)),
        judge_models=("model-a", "model-b", "model-c"),
    )


def section(data: RunArrays) -> list[dict[str, object]]:
    return judges_section(data, CONFIGURATIONS, [("own-a", "neither")], SNAPSHOTS, lambda entries: None, 0.95)


def test_a_planted_one_point_self_preference_is_flagged() -> None:
    judges = section(arrays(plant=1.0))
    a, b, c = judges
    assert [row["configuration"] for row in a["self_preference"]] == ["own-a"]
    found = a["self_preference"][0]
    assert found["flagged"] and found["difference"] == pytest.approx(1.0, abs=0.15)
    assert not b["self_preference"][0]["flagged"] and c["self_preference"] == []
    # Each judge's paired difference for the compared pair shows the lean too: A's is a point above B's.
    assert a["comparisons"][0]["mean"] - b["comparisons"][0]["mean"] == pytest.approx(1.0, abs=0.2)


def test_no_self_preference_without_a_plant() -> None:
    judges = section(arrays(plant=0.0))
    assert not any(row["flagged"] for judge in judges for row in judge["self_preference"])
    means = judges[0]["configurations"]
    assert [row["configuration"] for row in means] == list(CONFIGURATIONS)
    assert all(row["t_interval"][0] < row["mean"] < row["t_interval"][1] for row in means)


def test_a_judge_alone_has_nothing_to_compare_with() -> None:
    data = arrays(plant=1.0)
    alone = dataclasses.replace(
        data,
        judges=("A",),
        judge_overall=data.judge_overall[:, :1],
        scores=data.scores[:, :1],
        judge_models=("model-a",),
    )
    assert judges_section(alone, CONFIGURATIONS, [], SNAPSHOTS, lambda entries: None, 0.95)[0]["self_preference"] == []
