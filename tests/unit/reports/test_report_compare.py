"""The report page's baseline and history parts: the captures' texts (texts.json), the earlier runs (runs.json), the Since baseline section."""

from __future__ import annotations

import json
from pathlib import Path

from support.run_data import methodology_block
from test_baseline import comparison, configuration_row, run_side
from test_report_page import full_page_data

from pytest_ora.bundle.intake import intake
from pytest_ora.reports.html import render_html
from pytest_ora.reports.page import compare_sections
from pytest_ora.reports.runs import EarlierRun, RunsFile, earlier_runs, runs_json
from pytest_ora.reports.since import earlier_runs_html, since_baseline_html
from pytest_ora.reports.texts import capture_texts, parse_texts_file, read_texts, texts_json

EXAMPLES = Path(__file__).parents[3] / "evals" / "examples"


def test_texts_are_stored_once_and_an_entrys_captures_share_its_prompt() -> None:
    plan = intake(EXAMPLES / "trio" / "bundle")
    ids = [p.capture.capture_id for p in plan.captures]
    data = capture_texts(plan, ids)
    rows = {row[0]: row for row in data.rows}
    assert list(rows) == ids  # the ledger's order
    by_entry: dict[str, set[int]] = {}
    for planned in plan.captures:
        row = rows[planned.capture.capture_id]
        assert data.strings[row[1]] == planned.capture.prompt
        assert data.strings[row[3]] == planned.capture.answer
        assert row[2] == -1 if planned.capture.context is None else data.strings[row[2]] == planned.capture.context
        by_entry.setdefault(planned.capture.entry_key, set()).add(row[1])
    assert all(len(prompts) == 1 for prompts in by_entry.values())
    assert len(data.strings) == len(set(data.strings))  # each distinct text once


def test_texts_json_reads_back_and_a_bad_file_is_not_shown(tmp_path: Path) -> None:
    data = {
        "schema": "ora-texts-1",
        "rubric": "r",
        "columns": ["capture_id", "prompt", "context", "answer", "second_answer"],
        "strings": ['a "quoted"\nline', "</script>"],
        "rows": [["m:a/x", 0, -1, 1, -1]],
    }
    (tmp_path / "texts.json").write_text(texts_json(parse_texts_file(json.dumps(data))), encoding="utf-8")
    assert json.loads((tmp_path / "texts.json").read_text(encoding="utf-8")) == data
    shown, note = read_texts(tmp_path)
    assert shown is not None and note is None
    assert shown.shown() == {"strings": data["strings"], "rows": [("m:a/x", 0, -1, 1, -1)]}
    data["rows"] = [["m:a/x", 0, -1, 7, -1]]  # an index past the table
    (tmp_path / "texts.json").write_text(json.dumps(data), encoding="utf-8")
    shown, note = read_texts(tmp_path)
    assert shown is None and note == (
        "texts.json is not shown: not the captures' texts: field rows.0.3: string index 7 is not in strings "
        "(0 to 1) or -1"
    )


def test_earlier_runs_are_listed_in_number_order_and_an_unreadable_one_says_so(tmp_path: Path) -> None:
    for number, mean in (("0002", 6.5), ("0010", 7.25)):
        run = tmp_path / "runs" / number
        run.mkdir(parents=True)
        (run / "summary.json").write_text(
            json.dumps(
                [
                    {"configuration": "optimum", "mean_overall": mean, "selection": None, "rubric": "ora-1.0"},
                    {"configuration": "big-1", "mean_overall": None, "selection": None, "rubric": "ora-1.0"},
                ]
            ),
            encoding="utf-8",
        )
        (run / "run.json").write_text(
            json.dumps(
                {
                    "bundle": "b",
                    "rubric": "ora-1.0",
                    "rubric_digest": "sha256:0",
                    "methodology": methodology_block(scoring_date="2026-06-2" + number[-1], records=12),
                }
            ),
            encoding="utf-8",
        )
    (tmp_path / "runs" / "0003").mkdir()
    (tmp_path / "runs" / "0003" / "summary.json").write_text("{oops", encoding="utf-8")
    runs = earlier_runs(tmp_path)
    assert [run.run for run in runs] == ["0002", "0003", "0010"]
    assert runs[0].model_dump(exclude_unset=True) == {
        "run": "0002",
        "scoring_date": "2026-06-22",
        "rubric": "ora-1.0",
        "selection": "all captures",
        "captures": 12,
        "configurations": [("optimum", 6.5), ("big-1", None)],
    }
    assert (runs[1].unreadable or "").startswith("JSONDecodeError")
    assert json.loads(runs_json(runs))["runs"][1] == {"run": "0003", "unreadable": runs[1].unreadable}
    html = earlier_runs_html(runs, ["optimum", "big-1"])
    assert html.index("runs/0010") < html.index("runs/0003") < html.index("runs/0002")  # newest first
    assert '<td class="num">7.25</td>' in html and "unreadable: JSONDecodeError" in html


def test_since_baseline_escapes_what_the_files_hold() -> None:
    html = since_baseline_html(
        comparison(
            baseline=run_side(path="<b>old</b>", rubric="r"),
            current=run_side(rubric="r"),
            shared=1,
            changed=[{"what": "judges", "baseline": ["A: x:<script>"], "current": ["A: x:y"]}],
            configurations=[configuration_row(configuration="<img src=x>", regressed=True, interval=[-2, -1])],
            changes=[{"capture_id": 'm:a/"><script>', "configuration": "a", "baseline": 5, "current": 1, "change": -4}],
        )
    )
    assert "<script>" not in html and "<img" not in html and "<b>" not in html
    assert "&lt;img src=x&gt;" in html and 'data-capture="m:a/&quot;&gt;&lt;script&gt;"' in html


def test_the_page_carries_the_compare_sections_and_keeps_texts_out_of_the_page_data() -> None:
    data = full_page_data()
    data["texts"] = {"strings": ["p", "a"], "rows": [("mode:a/optimum", 0, -1, 1, -1)]}
    data["runs"] = [
        EarlierRun(
            run="0001",
            scoring_date="2026-06-20",
            rubric="ora-1.0",
            selection="all captures",
            configurations=[("optimum", 8.0)],
        )
    ]
    html = render_html(data)
    assert '<section id="matrix">' in html and '<section id="earlier-runs">' in html and "runs/0001" in html
    assert 'id="since-baseline"' not in html  # no baseline this run
    head, _, texts = html.partition('<script type="application/json" id="ora-texts">')
    assert json.loads(texts.partition("</script>")[0]) == {
        "strings": ["p", "a"],
        "rows": [["mode:a/optimum", 0, -1, 1, -1]],
    }
    assert '"texts"' not in head


def test_when_an_earlier_run_holds_a_value_of_the_wrong_type_then_it_is_listed_unreadable_with_the_field(
    tmp_path: Path,
) -> None:
    run = tmp_path / "runs" / "0001"
    run.mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps([{"configuration": "optimum", "mean_overall": [7]}]), "utf-8")

    (listed,) = earlier_runs(tmp_path)

    assert listed.unreadable is not None and listed.unreadable.startswith("field configurations.0.1")
    assert listed.configurations is None  # never guessed


def test_when_an_earlier_run_s_methodology_is_out_of_shape_then_it_is_listed_unreadable_naming_the_field(
    tmp_path: Path,
) -> None:
    run = tmp_path / "runs" / "0001"
    run.mkdir(parents=True)
    (run / "summary.json").write_text(json.dumps([{"configuration": "optimum", "mean_overall": 7}]), "utf-8")
    block = methodology_block(records="twelve")
    (run / "run.json").write_text(
        json.dumps({"bundle": "b", "rubric": "r", "rubric_digest": "d", "methodology": block}), "utf-8"
    )

    (listed,) = earlier_runs(tmp_path)

    assert listed.unreadable == (
        "run.json: not a run's data: field methodology.records: Input should be a valid integer, unable to parse "
        "string as an integer"
    )
    assert listed.scoring_date is None and listed.captures is None  # never guessed


def test_when_runs_json_holds_a_run_without_its_name_then_the_page_says_which_field_and_lists_none(
    tmp_path: Path,
) -> None:
    (tmp_path / "runs.json").write_text(json.dumps({"schema": "ora-runs-1", "runs": [{"rubric": "r"}]}), "utf-8")

    sections = compare_sections(tmp_path)

    assert "runs" not in sections
    assert sections.get("compare_notes") == ["runs.json is not shown: runs.0.run: Field required"]


def test_when_runs_json_is_read_and_written_again_then_it_is_the_same_bytes(tmp_path: Path) -> None:
    runs = [
        EarlierRun(
            run="0001",
            scoring_date="2026-06-20",
            rubric="r",
            selection="all captures",
            captures=3,
            configurations=[("a", 7), ("b", None)],
        ),
        EarlierRun(run="0002", unreadable="JSONDecodeError: Expecting value"),
    ]
    text = runs_json(runs)

    assert RunsFile.model_validate_json(text).dumps() == text
    assert '"captures"' in text and text.count('"unreadable"') == 1 and "7.0" not in text  # an int stays an int
