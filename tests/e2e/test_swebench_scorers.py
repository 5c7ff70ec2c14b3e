"""The deterministic `swebench` and `ground-truth` scorers on scenarios of an invented package and invented edge cases."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from pytest_ora.core.models import Capture
from pytest_ora.method.kinds.base import ReplyProblem
from pytest_ora.method.kinds.python.kind import check_scores, load_scorer
from pytest_ora.method.rubric import get_rubric
from pytest_ora.method.swebench.detail import detail_path
from pytest_ora.method.swebench.patch import parse_patch, response_code, syntax_ok
from pytest_ora.method.swebench.scenario import ScenarioError, find_scenario, read_response, read_scenarios
from pytest_ora.method.swebench.scorers import ground_truth, swebench

SHIPPED = Path(__file__).parents[2] / "evals" / "swebench"
SCENARIOS = read_scenarios(SHIPPED / "scenarios.jsonl")


def _scores(instance: str, run: str) -> tuple[dict[str, float], dict[str, float]]:
    scenario, response = SCENARIOS[instance], read_response(SHIPPED / run)
    one, two = swebench(scenario, response), ground_truth(scenario, response)
    return (
        {name: round(float(one.component(name)), 2) for name in one.weights} | {"total": round(float(one.total), 2)},
        {name: round(float(two.component(name)), 2) for name in two.weights} | {"total": round(float(two.total), 2)},
    )


def test_the_shipped_scenarios_are_invented_fixes_in_swe_bench_fields() -> None:
    assert list(SCENARIOS) == ["ora-demo__tinyqueue-12", "ora-demo__tinyqueue-swapped-peek", "ora-demo__tinyqueue-31"]
    queue = SCENARIOS["ora-demo__tinyqueue-12"]
    assert queue.repo == "ora-demo/tinyqueue" and queue.base_commit == "4c1e9a7b2d0f3e6a8b5c9d1e7f2a4b6c8d0e1f3a"
    assert parse_patch(queue.patch).files == ["src/tinyqueue/queue.py"] and parse_patch(queue.patch).locations == [
        "TinyQueue"
    ]
    assert parse_patch(SCENARIOS["ora-demo__tinyqueue-31"].patch).locations == ["put"]
    assert queue.FAIL_TO_PASS == ["tests/test_queue.py::test_get_from_empty_queue_raises_queue_empty"]


def test_when_the_response_proposes_the_gold_fix_with_a_test_then_both_scorers_give_100() -> None:
    swe, truth = _scores("ora-demo__tinyqueue-12", "run_tinyqueue-12.json")
    assert swe == {"root_cause": 30, "fix_quality": 40, "completeness": 20, "persona": 10, "total": 100}
    assert truth == {
        "file_identification": 20,
        "location_identification": 20,
        "fix_logic_match": 40,
        "completeness": 20,
        "total": 100,
    }


def test_the_swapped_peek_fix_matches_the_gold_lines_without_tests_or_persona() -> None:
    swe, truth = _scores("ora-demo__tinyqueue-swapped-peek", "run_tinyqueue-swapped-peek.json")
    assert swe == {"root_cause": 30, "fix_quality": 40, "completeness": 5, "persona": 0, "total": 75}
    assert truth == {
        "file_identification": 20,
        "location_identification": 20,
        "fix_logic_match": 40,
        "completeness": 15,
        "total": 95,
    }


def test_a_fix_that_moves_the_append_but_keeps_the_off_by_one_earns_partial_fix_logic() -> None:
    swe, truth = _scores("ora-demo__tinyqueue-31", "run_tinyqueue-31.json")
    # one of the two gold lines proposed exactly (the append after the check), the `>=` bound missed
    assert swe == {"root_cause": 30, "fix_quality": 33.12, "completeness": 0, "persona": 5, "total": 68.12}
    assert truth == {
        "file_identification": 20,
        "location_identification": 20,
        "fix_logic_match": 26.23,
        "completeness": 15,
        "total": 81.23,
    }


def test_when_the_response_names_the_wrong_file_then_no_location_and_no_fix_points() -> None:
    swe, truth = _scores("ora-demo__tinyqueue-12", "run_invented-wrong-file.json")
    assert truth["file_identification"] == 0 and truth["location_identification"] == 0 and truth["fix_logic_match"] == 0
    assert swe["fix_quality"] == 0


def test_when_the_proposed_python_does_not_parse_then_syntax_earns_nothing() -> None:
    scenario, response = SCENARIOS["ora-demo__tinyqueue-12"], read_response(SHIPPED / "run_invented-broken-syntax.json")
    checks = swebench(scenario, response).checks["fix_quality"]
    assert checks["syntax_correct"].points == 0 and "does not parse" in checks["syntax_correct"].seen


def test_a_diff_hunk_is_a_fragment_whose_bracket_balance_must_hold() -> None:
    good = (
        "```diff\n--- a/m.py\n+++ b/m.py\n@@ -1,2 +1,2 @@ def f():\n     call(\n-        a, b\n+        a, b, c\n```\n"
    )
    bad = good.replace("+        a, b, c", "+        a, b, c)) + [")
    assert syntax_ok(response_code(good)) is True
    assert syntax_ok(response_code(bad)) is False
    assert syntax_ok(response_code("```yaml\nkey: value\n```")) is None


def test_scores_are_exact_and_the_same_on_every_run() -> None:
    scenario, response = SCENARIOS["ora-demo__tinyqueue-31"], read_response(SHIPPED / "run_tinyqueue-31.json")
    first, second = ground_truth(scenario, response), ground_truth(scenario, response)
    assert isinstance(first.total, Fraction) and first.detail() == second.detail()


def test_the_dataset_s_json_text_lists_are_read(tmp_path: Path) -> None:
    row = {
        **SCENARIOS["ora-demo__tinyqueue-12"].model_dump(),
        "FAIL_TO_PASS": '["tests/t.py::test_a"]',
        "hints_text": "",
    }
    (tmp_path / "s.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert find_scenario(tmp_path / "s.jsonl", "ora-demo__tinyqueue-12").FAIL_TO_PASS == ["tests/t.py::test_a"]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("not json", "s.jsonl:2: not a JSON object"),
        (
            '{"instance_id": "x", "repo": "r", "base_commit": "c", "problem_statement": "p"}',
            "s.jsonl:2: field 'patch' is missing",
        ),
    ],
)
def test_a_bad_scenario_line_is_named_by_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    good = json.dumps(SCENARIOS["ora-demo__tinyqueue-12"].model_dump())
    (tmp_path / "s.jsonl").write_text(good + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=message):
        read_scenarios(tmp_path / "s.jsonl")


def test_an_unknown_scenario_lists_the_ones_there_are() -> None:
    with pytest.raises(
        ScenarioError, match="no scenario 'django-1'; it holds ora-demo__tinyqueue-12, ora-demo__tinyqueue-31"
    ):
        find_scenario(SHIPPED / "scenarios.jsonl", "django-1")


def test_a_response_file_needs_result_or_response_text(tmp_path: Path) -> None:
    (tmp_path / "run_1.json").write_text('{"text": "x"}', encoding="utf-8")
    with pytest.raises(ScenarioError, match="field 'result' \\(or 'response_text'\\) is missing"):
        read_response(tmp_path / "run_1.json")


def test_the_detailed_json_goes_beside_the_response_with_run_replaced(tmp_path: Path) -> None:
    assert detail_path(tmp_path / "run_1.json", "swebench_judge_") == tmp_path / "swebench_judge_1.json"
    assert detail_path(tmp_path / "run_x" / "run_2.json", "gt_judge_") == tmp_path / "run_x" / "gt_judge_2.json"
    assert detail_path(tmp_path / "answer.json", "gt_judge_") == tmp_path / "gt_judge_answer.json"


@pytest.mark.parametrize(("rubric", "total"), [("swebench-1.0", 100), ("ground-truth-1.0", 100)])
def test_the_built_in_python_rubrics_score_a_capture_holding_the_instance(rubric: str, total: int) -> None:
    found = get_rubric(rubric)
    scenario = SCENARIOS["ora-demo__tinyqueue-12"]
    capture = Capture(
        entry_key="swe:tinyqueue-12",
        configuration="agent",
        prompt=scenario.problem_statement,
        answer=read_response(SHIPPED / "run_tinyqueue-12.json"),
        metadata=scenario.model_dump(),
    )
    result = check_scores(load_scorer(found.options.reference, Path("/nowhere"))(capture), found)  # type: ignore[attr-defined]
    assert not isinstance(result, ReplyProblem)
    assert sum(c.weight * Fraction(result[c.name]) for c in found.criteria) == total


def test_an_invented_scenario_without_a_named_location_falls_back_to_the_file() -> None:
    patch = (
        "diff --git a/setup.cfg b/setup.cfg\n--- a/setup.cfg\n+++ b/setup.cfg\n@@ "
        "-1,2 +1,2 @@\n [metadata]\n-name = tinyqeue\n+name = tinyqueue\n"
    )
    scenario = SCENARIOS["ora-demo__tinyqueue-12"].model_copy(update={"instance_id": "invented__typo", "patch": patch})
    response = (
        "The package name in setup.cfg is misspelt because of a typo.\n\n```diff\n--- a/setup.cfg\n+++ b/setup.cfg\n"
        "@@ -1,2 +1,2 @@\n [metadata]\n-name = tinyqeue\n+name = tinyqueue\n```\n"
    )
    truth = ground_truth(scenario, response)
    assert truth.component("location_identification") == 20 and truth.component("fix_logic_match") == 40
    swe = swebench(scenario, response)
    assert swe.checks["fix_quality"]["syntax_correct"].points == 5  # no Python to check: half, said so
    assert swe.checks["fix_quality"]["syntax_correct"].seen == "no Python to check"


def test_a_bundle_scored_with_the_built_in_swebench_rubric(pytester: pytest.Pytester) -> None:
    runs = {
        "ora-demo__tinyqueue-12": "run_tinyqueue-12.json",
        "ora-demo__tinyqueue-swapped-peek": "run_tinyqueue-swapped-peek.json",
        "ora-demo__tinyqueue-31": "run_tinyqueue-31.json",
    }
    lines = [
        json.dumps(
            {
                "entry_key": "swe:" + name.replace("_", "-").lower(),
                "configuration": "agent",
                "prompt": scenario.problem_statement,
                "answer": read_response(SHIPPED / runs[name]),
                "metadata": scenario.model_dump(),
            }
        )
        for name, scenario in SCENARIOS.items()
    ]
    bundle = pytester.path / "bundle"
    bundle.mkdir()
    (bundle / "captures.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (bundle / "bundle.yaml").write_text(
        "bundle: swebench-tinyqueue\ncreated: 2026-12-06\nconfigurations: [agent]\nrubric: swebench-1.0\n",
        encoding="utf-8",
    )
    (bundle / "optimum.yaml").write_text(
        'snapshot: none\nfrozen_at: "2026-12-06T00:00:00Z"\nroles: {}\n', encoding="utf-8"
    )
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    pytester.makepyfile(
        test_swe="def test_swe(ora_capture, ora):\n    ora.skip_unless_scorable(ora_capture)\n"
        "    ora.record(ora.grade(ora_capture))\n"
    )
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=3)
    rows = [json.loads(line) for line in (pytester.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    assert sorted(row["overall"] for row in rows) == [pytest.approx(68.117, abs=0.001), 75, 100]
    assert {row["rubric"] for row in rows} == {"swebench-1.0"}
