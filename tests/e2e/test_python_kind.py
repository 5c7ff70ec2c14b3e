"""`kind: python`: the user's deterministic scorer, loaded from the suite's directory, checked like a judge reply."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.core.rubric import RubricError
from pytest_ora.method.kinds.base import ReplyProblem
from pytest_ora.method.kinds.python.kind import ScorerError, check_scores, load_scorer
from pytest_ora.method.rubric import load_rubric

EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "patch"
RUBRIC = load_rubric(EXAMPLE / "bundle" / "patch-match-1.0.yaml")


@pytest.mark.parametrize(
    ("result", "field", "reason"),
    [
        ([1, 2, 3], "(result)", "is not a mapping"),
        ({"files": 1, "functions": 2}, "lines", "is missing"),
        ({"files": 1, "functions": 2, "lines": 3, "style": 4}, "style", "is not a criterion"),
        ({"files": True, "functions": 2, "lines": 3}, "files", "is not a number"),
        ({"files": "7", "functions": 2, "lines": 3}, "files", "is not a number"),
        ({"files": 11, "functions": 2, "lines": 3}, "files", "is outside the scale"),
        ({"files": -0.5, "functions": 2, "lines": 3}, "files", "is outside the scale"),
        ({"files": float("nan"), "functions": 2, "lines": 3}, "files", "is not a finite number"),
    ],
)
def test_an_invalid_result_is_refused_never_repaired(result: Any, field: str, reason: str) -> None:
    problem = check_scores(result, RUBRIC)
    assert isinstance(problem, ReplyProblem) and problem.field == field and reason in problem.reason


def test_a_valid_result_keeps_exact_decimals() -> None:
    assert check_scores({"files": 10, "functions": 3.3, "lines": 0.0}, RUBRIC) == {
        "files": "10",
        "functions": "3.3",
        "lines": "0.0",
    }


def test_the_scorer_comes_from_the_suite_directory_only(tmp_path: Path) -> None:
    (tmp_path / "good.py").write_text("def score(capture):\n    return {}\n", encoding="utf-8")
    (tmp_path / "broken.py").write_text("import nowhere_to_be_found\n", encoding="utf-8")
    assert load_scorer("good:score", tmp_path)(None) == {}
    with pytest.raises(ScorerError, match="no module elsewhere in the eval suite's directory"):
        load_scorer("elsewhere:score", tmp_path)
    with pytest.raises(ScorerError, match="defines no function missing"):
        load_scorer("good:missing", tmp_path)
    with pytest.raises(ScorerError, match=r"importing broken.py failed: ModuleNotFoundError"):
        load_scorer("broken:score", tmp_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind: python\n", "kind python needs one"),
        ("kind: scores\nscorer: a:b\n", "scorer (module:function) goes with kind python"),
        ("kind: python\nscorer: ../up:score\n", "scorer"),
    ],
)
def test_a_python_rubric_names_its_scorer(tmp_path: Path, text: str, message: str) -> None:
    body = (EXAMPLE / "bundle" / "patch-match-1.0.yaml").read_text(encoding="utf-8")
    body = body.replace("kind: python\nscorer: patch_scorer:score\n", text)
    (tmp_path / "r.yaml").write_text(body, encoding="utf-8")
    with pytest.raises(RubricError, match=r"r.yaml") as error:
        load_rubric(tmp_path / "r.yaml")
    assert message in str(error.value)


def test_the_example_scorer_compares_files_functions_and_lines() -> None:
    scorer = load_scorer("patch_scorer:score", EXAMPLE)
    module = __import__(scorer.__module__)
    files, functions, lines = module.parse(
        "--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@ def f(a):\n-    return a\n+    return a + 1\n"
    )
    assert files == {"x.py"} and functions == {"x.py:f"} and lines == {"x.py:-return a", "x.py:+return a + 1"}


def _project(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(
        EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("ora-results", "__pycache__")
    )
    return pytester


def test_the_example_scores_every_capture_without_a_judge(pytester: pytest.Pytester) -> None:
    project = _project(pytester)
    result = project.runpytest("-p", "no:cacheprovider")
    assert result.parseoutcomes() == {"passed": 4, "lowscore": 2}
    rows = {
        row["capture_id"]: row
        for row in map(json.loads, (project.path / "ora-results" / "ledger.jsonl").read_text().splitlines())
    }
    exact = rows["bug:off-by-one/agent-a"]
    assert (exact["files"], exact["functions"], exact["lines"], exact["overall"], exact["verdict"]) == (
        10.0,
        10.0,
        10.0,
        10.0,
        "MATCH",
    )
    wrong_file = rows["bug:null-user/agent-b"]
    assert wrong_file["overall"] == 0.0 and wrong_file["failure"] is True
    assert rows["bug:off-by-one/agent-b"]["judges"][0]["model"] == "patch_scorer:score"
    assert not (project.path / "cassettes").exists() and not (project.path / "ora-results" / "packets").exists()
    # The rubric file in the bundle is named relative to the bundle: no output depends on where the suite lives
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert "(bundle:patch-match-1.0.yaml); kind python" in methodology
    for name in ("methodology.md", "run.json", "report.html", "summary.md", "ledger.jsonl"):
        assert str(project.path) not in (project.path / "ora-results" / name).read_text(), name


def test_an_invalid_scorer_result_fails_the_capture_naming_the_field(pytester: pytest.Pytester) -> None:
    project = _project(pytester)
    scorer = project.path / "patch_scorer.py"
    scorer.write_text(
        scorer.read_text(encoding="utf-8")
        + "\n\n_real = score\n\ndef score(capture):\n    return {**_real(capture), 'lines': 12}\n",
        encoding="utf-8",
    )
    result = project.runpytest("-p", "no:cacheprovider")
    assert result.parseoutcomes()["failed"] == 6
    result.stdout.fnmatch_lines(
        ["*scorer patch_scorer:score returned an invalid result: field 'lines' is outside the scale 0-10 (got 12)*"]
    )
