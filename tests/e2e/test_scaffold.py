"""python -m pytest_ora init: the suite it writes, and imports that list every bad row and write nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_ora.__main__ import main
from pytest_ora.bundle.intake import intake
from pytest_ora.harness.scaffold import InitError, import_rows, init_suite, parse_judge


def test_init_without_from_writes_a_suite_that_passes_intake(tmp_path: Path) -> None:
    written = init_suite(tmp_path / "suite", today="2026-12-01")

    names = {path.relative_to(tmp_path / "suite").as_posix() for path in written}
    assert {
        "bundle/bundle.yaml",
        "bundle/optimum.yaml",
        "bundle/captures.jsonl",
        "bundle/rubric.yaml",
        "pytest.ini",
        "reference.ini",
        "test_eval.py",
        "README.md",
    } <= names
    plan = intake(tmp_path / "suite" / "bundle")
    assert plan.rubric.version == "my-eval-1.0"
    assert [j.role for j in plan.panel.judges] == ["judge-a", "judge-b"]
    assert len(plan.captures) == 4
    readme = (tmp_path / "suite" / "README.md").read_text(encoding="utf-8")
    for step in ("--ora-dry-run", "reference.ini", "--ora-record once", "--ora-fail-under"):
        assert step in readme


def test_init_with_a_builtin_rubric_and_judges(tmp_path: Path) -> None:
    init_suite(
        tmp_path / "s",
        rubric="trio-likert-1.0",
        judges=(
            "a=anthropic:claude-opus-4-7",
            "b=openai:gpt-5.4",
            "c=openai-compatible:qwen3@http://10.0.0.5/v1/chat/completions",
        ),
    )
    plan = intake(tmp_path / "s" / "bundle")
    assert plan.rubric.version == "trio-likert-1.0"
    assert plan.panel.judges[2].spec.route == "http://10.0.0.5/v1/chat/completions"
    assert not (tmp_path / "s" / "bundle" / "rubric.yaml").exists()


def test_panel_size_must_match_the_judges(tmp_path: Path) -> None:
    with pytest.raises(InitError, match="needs 3 judges"):
        init_suite(tmp_path / "s", rubric="trio-likert-1.0")
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("rubric", ["scorecard.1", "profile-adherence-v1", "patch"])
def test_a_rubric_that_grades_without_judges_is_refused(tmp_path: Path, rubric: str) -> None:
    """init makes judged suites: every kind that calls no judge is refused, built-in or a file."""
    if rubric == "patch":
        rubric = str(Path(__file__).parents[2] / "evals" / "examples" / "patch" / "bundle" / "patch-match-1.0.yaml")
    with pytest.raises(InitError, match="grades captures' evidence without judges; init makes judged suites"):
        init_suite(tmp_path / "s", rubric=rubric)
    assert not (tmp_path / "s").exists()


def test_bad_rows_are_listed_with_file_line_and_column_and_nothing_is_written(tmp_path: Path) -> None:
    source = tmp_path / "rows.csv"
    source.write_text(
        "id,configuration,prompt,answer,cost_usd\n"
        "q1,base,Why?,Because.,0.1\n"
        "q2,base,,Because.,0.1\n"  # line 3: empty prompt
        "q3,base,Why?,Because.,cheap\n"  # line 4: cost not a number
        "q1,base,Why?,Again.,0.1\n"  # line 5: duplicate of line 2
        ",base,Why?,No id.,0.1\n",  # line 6: no id
        encoding="utf-8",
    )
    with pytest.raises(InitError) as caught:
        init_suite(tmp_path / "s", source=source)
    text = str(caught.value)
    assert f"{source}:3: column prompt: is empty" in text
    assert f"{source}:4: column cost_usd: must be a number >= 0, got 'cheap'" in text
    assert f"{source}:5: column id: the capture eval:q1/base is already on line 2" in text
    assert f"{source}:6: column id: missing" in text
    assert not (tmp_path / "s").exists()


def test_jsonl_import_keeps_other_fields_under_metadata_and_slugs_ids(tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    rows = [
        {"id": "Q 1", "configuration": "GPT 4o", "prompt": "p", "answer": "", "tags": ["x"], "reference": "r"},
        {"entry_key": "qa:two", "configuration": "base", "prompt": "p", "answer": "a", "wall_clock_minutes": 2},
    ]
    source.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    imported = import_rows(source)
    assert imported[0].capture == {
        "entry_key": "eval:q-1",
        "configuration": "GPT-4o",
        "prompt": "p",
        "answer": "",
        "reference": "r",
        "metadata": {"tags": ["x"], "id": "Q 1", "configuration": "GPT 4o"},
    }
    assert imported[1].capture["entry_key"] == "qa:two"
    assert imported[1].capture["wall_clock_minutes"] == 2.0


def test_a_malformed_jsonl_line_is_named(tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text('{"id": "a", "configuration": "b", "prompt": "p", "answer": "a"}\n{oops\n', encoding="utf-8")
    with pytest.raises(InitError, match=r"rows.jsonl:2: not a JSON object"):
        import_rows(source)


def test_init_refuses_an_existing_suite_and_a_bad_judge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "s")]) == 0
    assert main(["init", str(tmp_path / "s")]) == 4
    assert "already holds bundle" in capsys.readouterr().err
    with pytest.raises(InitError, match="unknown provider 'acme'"):
        parse_judge("j=acme:model")
    with pytest.raises(InitError, match="needs its endpoint"):
        parse_judge("j=openai-compatible:model")


def test_a_missing_import_file_does_not_exist(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["init", str(tmp_path / "s"), "--from", str(tmp_path / "nope.csv")]) == 4
    assert "nope.csv: does not exist" in capsys.readouterr().err


def test_names_are_kept_as_given_and_a_name_that_must_change_is_said_and_written_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "answers.csv"
    source.write_text(
        "id,dataset,configuration,prompt,answer\n"
        "q1,helpful_base,gpt4_1106_preview,Why?,Because.\n"
        "q1,helpful_base,Qwen1.5-7B-Chat,Why?,So.\n"
        "q2,koala,claude 3/opus,How?,Thus.\n",
        encoding="utf-8",
    )
    assert main(["init", str(tmp_path / "s"), "--from", str(source)]) == 0
    out = capsys.readouterr().out
    assert "families: from column dataset (entry keys are <dataset>:<id>)" in out
    assert "name changed to fit the bundle's format: dataset: 'helpful_base' -> helpful-base" in out
    assert "name changed to fit the bundle's format: configuration: 'claude 3/opus' -> claude-3-opus" in out
    assert "gpt4_1106_preview" not in out and "Qwen1.5" not in out  # kept, so not said
    manifest = (tmp_path / "s" / "bundle" / "bundle.yaml").read_text(encoding="utf-8")
    assert "#   configuration: 'claude 3/opus' -> claude-3-opus" in manifest
    plan = intake(tmp_path / "s" / "bundle")
    assert plan.bundle.manifest.configurations == ["gpt4_1106_preview", "Qwen1.5-7B-Chat", "claude-3-opus"]
    assert sorted({c.capture.entry_key for c in plan.captures}) == ["helpful-base:q1", "koala:q2"]
    assert plan.captures[0].capture.metadata == {"dataset": "helpful_base"}
    assert plan.captures[2].capture.metadata == {"dataset": "koala", "configuration": "claude 3/opus"}


@pytest.mark.parametrize(
    ("expression", "selected"),
    [
        ("helpful_base", ["helpful-base:q1/gpt4_1106_preview", "helpful-base:q1/Qwen1.5-7B-Chat"]),
        ("gpt4_1106_preview", ["helpful-base:q1/gpt4_1106_preview"]),
        ("claude and opus", ["koala:q2/claude-3-opus"]),
        ("koala and not helpful_base", ["koala:q2/claude-3-opus"]),
        ("nosuchmodel", []),
    ],
)
def test_when_k_names_a_dataset_or_configuration_as_given_then_its_captures_are_selected(
    pytester: pytest.Pytester,
    expression: str,
    selected: list[str],
) -> None:
    # Given a suite imported from rows whose dataset and one configuration had to change at import
    source = pytester.path / "answers.csv"
    source.write_text(
        "id,dataset,configuration,prompt,answer\n"
        "q1,helpful_base,gpt4_1106_preview,Why?,Because.\n"
        "q1,helpful_base,Qwen1.5-7B-Chat,Why?,So.\n"
        "q2,koala,claude 3/opus,How?,Thus.\n",
        encoding="utf-8",
    )
    assert main(["init", str(pytester.path / "suite"), "--from", str(source)]) == 0
    # When -k names them as the rows gave them
    result = pytester.runpytest_subprocess(
        str(pytester.path / "suite"), "-p", "no:cacheprovider", "--collect-only", "-q", "-k", expression
    )
    # Then the captures they name are selected, and no other
    ids = [line.split("[", 1)[1].rstrip("]") for line in result.outlines if line.startswith("test_eval.py::")]
    assert ids == selected, result.stdout.str()


def test_a_family_column_wins_over_dataset_and_an_id_family_over_both(tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    rows = [
        {"id": "a", "family": "Maths", "dataset": "gsm", "configuration": "m", "prompt": "p", "answer": "x"},
        {"id": "qa:b", "family": "maths", "configuration": "m", "prompt": "p", "answer": "x"},
        {"id": "c", "family": "!!", "configuration": "m", "prompt": "p", "answer": "x"},
    ]
    source.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    with pytest.raises(InitError, match=r"rows.jsonl:3: column family: '!!' has no letters or digits"):
        import_rows(source)
    source.write_text("\n".join(json.dumps(row) for row in rows[:2]) + "\n", encoding="utf-8")
    first, second = import_rows(source)
    assert (first.capture["entry_key"], first.renamed, first.family_from) == (
        "maths:a",
        (("family", "Maths", "maths"),),
        "family",
    )
    assert (second.capture["entry_key"], second.renamed, second.family_from) == ("qa:b", (), None)


def test_configurations_that_differ_only_in_case_are_refused(tmp_path: Path) -> None:
    source = tmp_path / "rows.csv"
    source.write_text("id,configuration,prompt,answer\nq,GPT-4o,p,a\nq,gpt-4o,p,b\n", encoding="utf-8")
    with pytest.raises(InitError, match="'GPT-4o' and 'gpt-4o' differ only in case"):
        init_suite(tmp_path / "s", source=source)
    assert not (tmp_path / "s").exists()


def test_a_short_or_long_csv_row_names_the_columns_it_lacks_or_exceeds(tmp_path: Path) -> None:
    source = tmp_path / "rows.csv"
    source.write_text(
        "id,configuration,prompt,answer,reference\nq1,base,Why?\nq2,base,Why?,Because,r,extra\n", encoding="utf-8"
    )
    with pytest.raises(InitError) as caught:
        import_rows(source)
    text = str(caught.value)
    assert f"{source}:2: has 3 columns, the header has 5: missing answer, reference" in text
    assert f"{source}:3: has 6 columns, the header has 5: 1 more than reference" in text
