"""Scorecards (the scorecard method): each way of grading, N/A and UNKNOWN, the rubric file, the rendered result."""

from __future__ import annotations

import copy
import json
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.core.rubric import RubricError
from pytest_ora.method.kinds import formula
from pytest_ora.method.kinds.scorecard.axes import card_of
from pytest_ora.method.kinds.scorecard.grade import Cell, Evidence, grade_axis
from pytest_ora.method.kinds.scorecard.render import scorecard_markdown
from pytest_ora.method.rubric import get_rubric
from pytest_ora.method.rubric_file import parse_rubric

CARD = get_rubric("scorecard.1")
AXES = {axis.name: axis for axis in card_of(CARD).axes}
KNOWN = frozenset(path for axis in card_of(CARD).axes for path in axis.paths())
EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "scorecard"


def evidence(**changes: Any) -> dict[str, Any]:
    """A complete, well-formed evidence object; changes are dotted paths (None deletes)."""
    data: dict[str, Any] = {
        "closure": {"finish_exit_code": 1, "blockers_before": 3, "blockers_after": 1},
        "rail": {"entered": True, "entry_tool_call": 4, "reports_filled": True, "verified": True},
        "shape": {"violations": ["controller calls repository"]},
        "telemetry": {"total_tokens": 52000, "tool_calls": 40, "elapsed_ms": 300000},
        "regression": {
            "wrong_session_utterances": 0,
            "runaway_retries": 0,
            "role_boundary_max_files": 1,
            "continuation_duplicates": 0,
        },
    }
    for path, value in changes.items():
        *parents, last = path.split("__")
        target = data
        for part in parents:
            target = target[part]
        if value is None:
            del target[last]
        else:
            target[last] = value
    return data


def grade(
    axis: str,
    values: dict[str, Any] | None,
    *,
    baseline: dict[str, Any] | str | None = "paired",
    configuration: str = "on",
    **extra: Any,
) -> Cell:
    own = Evidence(values, configuration, configuration == "off", known=KNOWN, **extra)
    paired = None
    if baseline == "paired":
        paired = Evidence(evidence(telemetry__total_tokens=40000), "off", True, known=KNOWN)
    elif isinstance(baseline, dict):
        paired = Evidence(baseline, "off", True, known=KNOWN)
    return grade_axis(AXES[axis], own, paired)


@pytest.mark.parametrize(
    ("changes", "cell"),
    [
        ({"closure__finish_exit_code": 0, "closure__blockers_after": 0}, "PASS (0 blockers)"),
        ({}, "PARTIAL (1 blocker)"),  # after < before: compared with another field
        ({"closure__blockers_after": 3}, "FAIL (3 blockers)"),
        ({"closure__blockers_after": 4}, "FAIL (4 blockers)"),
    ],
)
def test_ordered_rules_first_match_wins(changes: dict[str, Any], cell: str) -> None:
    assert grade("completion", evidence(**changes)).text() == cell


@pytest.mark.parametrize(
    ("changes", "cell"),
    [
        ({"rail__entry_tool_call": 10}, "PASS (10 calls before rail entry)"),
        ({"rail__entry_tool_call": 11}, "PARTIAL (11 calls before rail entry)"),
        ({"rail__verified": False}, "PARTIAL (4 calls before rail entry)"),
        ({"rail__entered": False, "rail__entry_tool_call": None}, "FAIL"),
        ({"rail__entered": "yes"}, "UNKNOWN (malformed rail.entered: a string, expected a boolean)"),
        ({"rail__entry_tool_call": True}, "UNKNOWN (malformed rail.entry_tool_call: a boolean, expected a number)"),
    ],
)
def test_booleans_and_numbers_are_compared_only_with_their_own_kind(changes: dict[str, Any], cell: str) -> None:
    assert grade("rail", evidence(**changes)).text() == cell


@pytest.mark.parametrize(
    ("violations", "cell"),
    [
        ([], "PASS (0 violations)"),
        (["a", "b"], "PARTIAL (2 violations)"),
        (["a", "b", "c"], "FAIL (3 violations)"),
        (2, "PARTIAL (2 violations)"),
        (-1, "UNKNOWN (malformed shape.violations: not a whole count)"),
        (Decimal("1.5"), "UNKNOWN (malformed shape.violations: not a whole count)"),
    ],
)
def test_counts_against_bands_keep_the_raw_items(violations: Any, cell: str) -> None:
    result = grade("code_shape", evidence(shape__violations=violations))
    assert result.text() == cell
    if isinstance(violations, list):
        assert result.raw == violations


@pytest.mark.parametrize(
    ("tokens", "cell"),
    [
        (52000, "PASS (1.3x tokens)"),
        (52001, "PARTIAL (1.3x tokens)"),
        (80000, "PARTIAL (2.0x tokens)"),
        (80001, "FAIL (2.0x tokens)"),
        (68000, "PARTIAL (1.7x tokens)"),
        (30000, "PASS (0.75x tokens)"),
    ],
)
def test_paired_ratio_bands_are_exact(tokens: int, cell: str) -> None:
    result = grade("cost", evidence(telemetry__total_tokens=tokens))
    assert result.text() == cell
    assert result.raw["value"]["baseline"] == 40000 and result.raw["telemetry.tool_calls"] == 40


def test_ratio_needs_both_sides_of_the_pair() -> None:
    assert grade("cost", evidence(telemetry=None)).text() == "N/A (telemetry unavailable)"
    assert grade("cost", evidence(telemetry__total_tokens=None)).text() == "N/A (telemetry unavailable)"
    assert grade("cost", evidence(), baseline=evidence(telemetry=None)).text() == "N/A (telemetry unavailable)"
    assert grade("cost", evidence(), baseline=None).text() == "N/A (no paired baseline capture)"
    zero = evidence(telemetry__total_tokens=0)
    assert grade("cost", evidence(), baseline=zero).grade == "UNKNOWN"
    assert grade("cost", evidence(), configuration="off").text() == "N/A (baseline, 52000 tokens)"


def test_a_section_that_is_not_an_object_is_malformed() -> None:
    assert (
        grade("cost", evidence(telemetry="n/a")).text() == "UNKNOWN (malformed telemetry: a string, expected an object)"
    )
    assert grade("cost", evidence(telemetry=None)).grade == "N/A"


def test_null_is_missing_and_missing_evidence_is_not_applicable() -> None:
    assert grade("completion", evidence(closure__finish_exit_code=None)).text() == "N/A (closure metrics unavailable)"
    values = evidence()
    values["closure"]["finish_exit_code"] = None
    assert grade("completion", values).grade == "N/A"
    assert all(grade(name, None).text().startswith("N/A") for name in AXES)


def test_checklist_passes_only_when_every_condition_holds() -> None:
    assert grade("regression", evidence()).text() == "PASS (all 4 hold)"
    failed = grade("regression", evidence(regression__runaway_retries=2))
    assert failed.grade == "FAIL" and "3 of 4 hold" in failed.detail and "runaway retries" in failed.detail
    # "ON condition only": the baseline's runaway retries are not checked
    assert (
        grade("regression", evidence(regression__runaway_retries=2), configuration="off").text() == "PASS (all 3 hold)"
    )


def test_unsupported_duplicate_and_secret_bearing_input_is_unknown_never_pass_or_fail() -> None:
    extra = evidence()
    extra["telemetry"]["cache_hits"] = 3
    assert grade("cost", extra).text() == "UNKNOWN (unsupported field telemetry.cache_hits)"
    assert grade("completion", extra).grade == "PARTIAL"  # other sections are unaffected
    assert (
        grade("code_shape", evidence(), duplicates=("shape.violations",)).text()
        == "UNKNOWN (duplicate shape.violations)"
    )
    assert all(
        grade(name, evidence(), secret="answer").text() == "UNKNOWN (secret-bearing input in answer)" for name in AXES
    )
    assert grade("cost", evidence(), baseline=evidence()).grade == "PASS"


RUBRIC = {
    "rubric": "card-1",
    "title": "t",
    "kind": "scorecard",
    "baseline": "off",
    "axes": [
        {
            "name": "a",
            "title": "A",
            "rules": [{"grade": "PASS", "when": [{"field": "x.y", "eq": 0}]}, {"grade": "FAIL"}],
        }
    ],
}


def _text(data: dict[str, Any]) -> str:
    from pytest_ora.method.rubric_file import digest_of

    data = copy.deepcopy(data)
    data["history"] = [{"version": data["rubric"], "date": "2026-07-03", "change": "c", "digest": digest_of(data)}]
    return json.dumps(data)


def test_a_scorecard_rubric_file_parses() -> None:
    rubric = parse_rubric(_text(RUBRIC), "t.yaml", "t.yaml")
    assert rubric.kind == "scorecard" and card_of(rubric).axes[0].how == "rules" and card_of(rubric).baseline == "off"
    assert "graded mechanically" in formula(rubric)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["axes"][0]["rules"].pop(), "the last rule grades everything else"),
        (lambda d: d["axes"][0].update(count={"field": "x.z"}), "exactly one of rules, count"),
        (
            lambda d: d["axes"][0].update(
                rules=None,
                count={"field": "x"},
                bands=[{"grade": "FAIL", "max": 2}, {"grade": "PASS", "max": 1}, {"grade": "FAIL"}],
            ),
            "lowest max first",
        ),
        (lambda d: d["axes"][0]["rules"][0]["when"][0].update(lt=True), "exactly one comparison"),
        (lambda d: d["axes"][0]["rules"][0]["when"][0].update(eq="zero"), "must be a number, a boolean"),
        (
            lambda d: d.update(criteria=[{"name": "c", "title": "C", "weight": 1, "question": "q"}]),
            "no scale, criteria or failure",
        ),
        (lambda d: d["axes"].append(dict(d["axes"][0])), "axes repeat a"),
        (lambda d: d["axes"][0].update(rules=[{"grade": "GOOD"}]), "axes.0.rules.0.grade"),
    ],
)
def test_a_bad_scorecard_rubric_stops_naming_the_field(edit: Any, message: str) -> None:
    data = copy.deepcopy(RUBRIC)
    edit(data)
    with pytest.raises(RubricError, match=r"t.yaml") as error:
        parse_rubric(_text(data), "t.yaml", "t.yaml")
    assert message in str(error.value)


def _example(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(
        EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("ora-results", "__pycache__")
    )
    return pytester


def test_the_example_grades_offline_identically_at_n0_and_n2(pytester: pytest.Pytester) -> None:
    project = _example(pytester)
    serial = project.runpytest("--ora-out", "serial", "-p", "no:cacheprovider")
    assert serial.parseoutcomes() == {"passed": 5, "lowscore": 4, "skipped": 1}
    parallel = project.runpytest_subprocess("-n", "2", "--ora-out", "parallel", "-p", "no:cacheprovider")
    assert parallel.ret == 0
    for name in (
        "scorecard.json",
        "SCORECARD-RESULT.md",
        "ledger.jsonl",
        "summary.json",
        "summary.md",
        "methodology.md",
    ):
        assert (project.path / "serial" / name).read_bytes() == (project.path / "parallel" / name).read_bytes(), name
    assert not (project.path / "cassettes").exists() and not (project.path / "serial" / "packets").exists()
    data = json.loads((project.path / "serial" / "scorecard.json").read_text(encoding="utf-8"))
    assert data["scorecardVersion"] == "scorecard.1" and data["rubric_digest"] == CARD.digest
    # SCORECARD-RESULT.md is rendered from scorecard.json alone
    assert scorecard_markdown(data) == (project.path / "serial" / "SCORECARD-RESULT.md").read_text(encoding="utf-8")
    cells = {
        (p["entry_key"], axis): {c: v["cell"] for c, v in by.items()}
        for p in data["pairs"]
        for axis, by in p["axes"].items()
    }
    assert cells[("task:search-index", "cost")]["on"] == "N/A (telemetry unavailable)"
    assert cells[("task:audit-log", "completion")]["on"].startswith("UNKNOWN (malformed closure.blockers_after")
    assert cells[("task:rate-limiter", "cost")]["on"] == "UNKNOWN (secret-bearing input in answer)"
    assert cells[("task:invoice-export", "cost")] == {
        "off": "N/A (baseline, 40000 tokens)",
        "on": "PARTIAL (1.7x tokens)",
    }
    assert data["aggregate"]["on"]["cost"] == {"PASS": 1, "PARTIAL": 1, "FAIL": 0, "N/A": 1, "UNKNOWN": 2, "graded": 4}
    for path in (project.path / "serial").rglob("*"):
        assert b"sk-proj-EXAMPLE" not in path.read_bytes() if path.is_file() else True
