"""`init --from` with pairwise rows: the bundle, the generic pairwise rubric, the compare pair and the
labels file; the shipped example pairs judged by the reference judge with their gold labels fed back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from pytest_ora.__main__ import main

SAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "pairwise" / "pairs.jsonl"
WINNER = {1: "first", 2: "second", "tie": "tie"}


def test_init_from_pairwise_rows_writes_the_compare_suite_with_its_labels(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path / "suite"), "--from", str(SAMPLE)]) == 0
    bundle = tmp_path / "suite" / "bundle"
    manifest = yaml.safe_load((bundle / "bundle.yaml").read_text())
    assert manifest["rubric"] == "pairwise-1.0" and manifest["compare"] == [["answer-1", "answer-2"]]
    assert manifest["configurations"] == ["answer-1", "answer-2"] and manifest["labels"] == "labels.jsonl"
    captures = [json.loads(line) for line in (bundle / "captures.jsonl").read_text().splitlines()]
    rows = [json.loads(line) for line in SAMPLE.read_text().splitlines()]
    assert len(captures) == 2 * len(rows)
    assert [c["answer"] for c in captures[:2]] == [rows[0]["answer_1"], rows[0]["answer_2"]]  # as written
    labels = [json.loads(line) for line in (bundle / "labels.jsonl").read_text().splitlines()]
    assert labels[0] == {
        "capture_id": "eval:pair-01/answer-1+answer-2",
        "rater": "gold",
        "winner": WINNER[rows[0]["winner"]],
    }
    assert [label["winner"] for label in labels] == [WINNER[row["winner"]] for row in rows]
    readme = (tmp_path / "suite" / "README.md").read_text()
    assert "--ora-fail-under" not in readme.replace("--ora-fail-under does not apply", "")
    assert "--ora-fail-calibration 0.4" in readme


def test_pairwise_rows_name_their_configurations_and_a_bad_winner_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = tmp_path / "pairs.jsonl"
    rows.write_text(
        json.dumps(
            {
                "id": "q1",
                "prompt": "p",
                "answer_1": "a",
                "answer_2": "b",
                "configuration_1": "gpt",
                "configuration_2": "claude",
                "winner": "claude",
            }
        )
        + "\n"
        + json.dumps(
            {
                "id": "q2",
                "prompt": "p",
                "answer_1": "a",
                "answer_2": "b",
                "configuration_1": "gpt",
                "configuration_2": "claude",
                "winner": "3",
            }
        )
        + "\n",
        encoding="utf-8",
    )
    assert main(["init", str(tmp_path / "bad"), "--from", str(rows)]) == 4
    assert f"{rows}:2: column winner" in capsys.readouterr().err
    assert not (tmp_path / "bad").exists() or not any((tmp_path / "bad").iterdir())
    rows.write_text(rows.read_text().splitlines()[0] + "\n", encoding="utf-8")
    assert main(["init", str(tmp_path / "good"), "--from", str(rows)]) == 0
    manifest = yaml.safe_load((tmp_path / "good" / "bundle" / "bundle.yaml").read_text())
    assert manifest["compare"] == [["gpt", "claude"]]
    label = json.loads((tmp_path / "good" / "bundle" / "labels.jsonl").read_text())
    assert label == {"capture_id": "eval:q1/gpt+claude", "rater": "gold", "winner": "second"}


def test_the_example_pairs_imported_judged_and_measured_against_their_gold_labels(
    tmp_path: Path,
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from sklearn.metrics import accuracy_score, cohen_kappa_score

    from pytest_ora.testing.server import ReferenceJudge

    # Given the 24 example pairs (a few gold ties among them) imported with init --from
    suite = pytester.path / "suite"
    assert main(["init", str(suite), "--from", str(SAMPLE)]) == 0
    with ReferenceJudge() as judge:
        optimum = suite / "bundle" / "optimum.yaml"
        text = optimum.read_text().replace("https://api.anthropic.com/v1/messages", judge.route("anthropic"))
        optimum.write_text(text.replace("https://api.openai.com/v1/chat/completions", judge.route("openai")))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "reference-judge-test-key")
        monkeypatch.setenv("OPENAI_API_KEY", "reference-judge-test-key")
        # When the reference judge judges every pair in both orders, the gold labels read from bundle.yaml
        result = pytester.runpytest_subprocess(
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(suite),
            "-c",
            str(suite / "pytest.ini"),
            str(suite),
            "--ora-record",
            "all",
            "-n",
            "0",
        )
    result.assert_outcomes(passed=24)
    out = suite / "ora-results"
    stats = json.loads((out / "stats.json").read_text())["calibration"]
    ledger = {row["capture_id"]: row for row in map(json.loads, (out / "ledger.jsonl").read_text().splitlines())}
    gold = {
        f"eval:{row['id']}/answer-1+answer-2": WINNER[row["winner"]]
        for row in map(json.loads, SAMPLE.read_text().splitlines())
    }
    side = {"answer-1": "first", "answer-2": "second", "tie": "tie"}

    # Then each judge's accuracy and kappa, with and without ties, equal scikit-learn's on the same vectors
    assert stats["captures"] == 24 and stats["raters"] == ["gold"]
    figures = {}
    for row in stats["judges"]:
        verdicts = [
            side[ledger[c]["winner"]]
            if row["judge"] == "panel"
            else side[next(j["winner"] for j in ledger[c]["compare_judges"] if j["label"] == row["judge"])]
            for c in gold
        ]
        humans = list(gold.values())
        untied = [(h, v) for h, v in zip(humans, verdicts) if v != "tie" and h != "tie"]
        assert row["accuracy_with_ties"] == pytest.approx(accuracy_score(humans, verdicts))
        assert row["kappa_with_ties"] == pytest.approx(cohen_kappa_score(humans, verdicts))
        assert row["n_without_ties"] == len(untied)
        assert row["accuracy_without_ties"] == pytest.approx(accuracy_score(*zip(*untied)))
        assert row["kappa_without_ties"] == pytest.approx(cohen_kappa_score(*zip(*untied)))
        figures[row["judge"]] = (
            row["accuracy_with_ties"],
            row["accuracy_without_ties"],
            row["kappa_with_ties"],
            (row.get("position_disagreement") or {}).get("share"),
        )
    print("Example pairs figures (accuracy with ties, without ties, kappa, position disagreement):", figures)


@pytest.mark.parametrize(
    ("configurations", "pairs"),
    [
        (["old", "new"], [["old", "new"]]),
        (["a", "b", "c"], [["a", "b"], ["a", "c"], ["b", "c"]]),
    ],
)
def test_when_answer_rows_are_imported_with_a_compare_rubric_then_compare_pairs_and_no_fail_under_are_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    configurations: list[str],
    pairs: list[list[str]],
) -> None:
    # Given answer rows (one answer a row) of some configurations, imported with the generic pairwise rubric
    source = tmp_path / "rows.csv"
    source.write_text(
        "id,configuration,prompt,answer\n"
        + "".join(f"q{i},{name},Question {i}?,Answer {i} of {name}.\n" for i in range(3) for name in configurations),
        encoding="utf-8",
    )
    assert main(["init", str(tmp_path / "suite"), "--from", str(source), "--rubric", "pairwise-1.0"]) == 0
    # Then bundle.yaml compares every pair, the init says so, and the README gates on no overall
    manifest = yaml.safe_load((tmp_path / "suite" / "bundle" / "bundle.yaml").read_text())
    assert manifest["rubric"] == "pairwise-1.0" and manifest["compare"] == pairs
    assert f"compare: {len(pairs)} pair" in capsys.readouterr().out
    readme = (tmp_path / "suite" / "README.md").read_text()
    assert "--ora-fail-under 6" not in readme and "--ora-fail-under does not apply" in readme


def test_when_one_configuration_is_imported_with_a_compare_rubric_then_nothing_is_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = tmp_path / "rows.csv"
    source.write_text("id,configuration,prompt,answer\nq1,solo,Why?,Because.\n", encoding="utf-8")
    assert main(["init", str(tmp_path / "suite"), "--from", str(source), "--rubric", "pairwise-1.0"]) == 4
    assert "a compare rubric compares two configurations" in capsys.readouterr().err
    assert not (tmp_path / "suite").exists()
