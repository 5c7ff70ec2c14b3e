"""`python -m pytest_ora verify DIR`: every report re-rendered from the data files alone; a hand edit is named."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_ora.__main__ import main
from pytest_ora.reports.page import compare_sections
from pytest_ora.reports.verify import RENDERERS


@pytest.fixture(scope="module")
def outputs(replayed: Callable[[str], Path]) -> dict[str, Path]:
    """The solo example (a judged rubric, replayed) and the scorecard example, each run once."""
    return {name: replayed(name) for name in ("solo", "scorecard")}


def _copy(source: Path, tmp_path: Path) -> Path:
    target = tmp_path / "out"
    shutil.copytree(source, target)
    return target


@pytest.mark.parametrize("name", ["solo", "scorecard"])
def test_an_untouched_directory_verifies(
    name: str, outputs: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(outputs[name])]) == 0
    out = capsys.readouterr().out
    assert "verify: ok: summary.md (from summary.json, run.json)" in out
    assert "verify: ok: ledger.csv (from ledger.jsonl, run.json)" in out
    assert "verify: ok: methodology.md (from run.json)" in out
    assert "verify: ok: report.html (from ledger.jsonl, summary.json, run.json)" in out
    assert "not checked" not in out
    assert ("verify: ok: SCORECARD-RESULT.md (from scorecard.json)" in out) == (name == "scorecard")


def test_a_one_digit_hand_edit_in_summary_md_is_named(
    outputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _copy(outputs["solo"], tmp_path)
    summary = directory / "summary.md"
    lines = summary.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("| plain"))
    lines[number] = re.sub(
        r"(\d)\.(\d)", lambda m: f"{m.group(1)}.{(int(m.group(2)) + 1) % 10}", lines[number], count=1
    )
    summary.write_text("".join(lines), encoding="utf-8")
    assert main(["verify", str(directory)]) == 1
    out = capsys.readouterr().out
    assert f"verify: FAILED: {directory / 'summary.md'}: edited by hand: line {number + 1} differs" in out
    assert "verify: ok: summary.csv" in out


@pytest.mark.parametrize(
    ("report", "old", "new"),
    [
        ("SCORECARD-RESULT.md", "UNKNOWN (malformed", "PASS (malformed"),
        ("ledger.csv", "scored", "scoreD"),
        ("summary.csv", "scorecard.1", "scorecard.2"),
        ("methodology.md", "1 excluded", "0 excluded"),
        ("report.html", '"off"', '"of"'),
    ],
)
def test_any_edited_report_is_named(
    outputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], report: str, old: str, new: str
) -> None:
    directory = _copy(outputs["scorecard"], tmp_path)
    path = directory / report
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    assert main(["verify", str(directory)]) == 1
    assert f"{report}: edited by hand" in capsys.readouterr().out


def test_edited_data_or_no_report_is_a_usage_error(
    outputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _copy(outputs["solo"], tmp_path)
    run = directory / "run.json"
    run.write_text(run.read_text(encoding="utf-8").replace("weight: 2.5", "weight: 3.5", 1), encoding="utf-8")
    assert main(["verify", str(directory)]) == 4
    assert "run.json" in capsys.readouterr().err
    assert main(["verify", str(tmp_path / "nowhere")]) == 4
    (tmp_path / "empty").mkdir()
    assert main(["verify", str(tmp_path / "empty")]) == 4


def test_the_registry_names_report_and_data() -> None:
    reports = {renderer.report: renderer.inputs for renderer in RENDERERS}
    assert reports["summary.md"] == ("summary.json", "run.json")
    assert reports["SCORECARD-RESULT.md"] == ("scorecard.json",)
    assert reports["report.html"] == ("ledger.jsonl", "summary.json", "run.json")
    assert reports["compare.json"] == reports["compare.md"] == ("compare.jsonl", "run.json")


def test_the_session_end_and_verify_share_one_registry() -> None:
    # Given the registry, the report files each kind says it may add are rendered by it or are its data
    from pytest_ora.method.kinds import kind_files

    rendered = {renderer.report for renderer in RENDERERS}
    data = {name for renderer in RENDERERS for name in renderer.inputs}
    uncovered = {name: [name] for name in kind_files() if name not in rendered | data}
    assert {name: files for name, files in uncovered.items() if files} == {}
    # and the kinds' reports are rendered only for their own kind's runs
    kinds = {renderer.report: renderer.kind for renderer in RENDERERS}
    assert (
        kinds["compare.md"] == "compare" and kinds["SCORECARD-RESULT.md"] == "scorecard" and kinds["summary.md"] is None
    )


def test_the_ledger_csv_renderer_gives_a_piece_per_row_and_its_rendering_joins_them(outputs: dict[str, Path]) -> None:
    """The session end writes ledger.csv a line at a time (a 100x ledger is never one string); verify's
    rendering is the same pieces joined, and both are the file the run wrote."""
    directory = outputs["solo"]
    renderer = next(renderer for renderer in RENDERERS if renderer.report == "ledger.csv")
    pieces = list(renderer.stream(directory))
    rows = [line for line in (directory / "ledger.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(pieces) == 1 + len(rows)  # the heading, then one line per ledger row
    assert "".join(pieces) == renderer.render(directory) == (directory / "ledger.csv").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["trio", "checklist"])
def test_a_hand_edit_of_disagreements_csv_is_named(
    name: str, replayed: Callable[[str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _copy(replayed(name), tmp_path)
    assert main(["verify", str(directory)]) == 0  # as written by the run: it matches the ledger
    path = directory / "disagreements.csv"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > 1, f"the {name} example lists no disagreement"
    lines[1] = re.sub(r",(\d+)(\.\d+)?,", lambda m: f",{int(m.group(1)) + 1}{m.group(2) or ''},", lines[1], count=1)
    path.write_text("".join(lines), encoding="utf-8")
    capsys.readouterr()
    assert main(["verify", str(directory)]) == 1
    assert (
        "verify: FAILED: "
        + str(
            directory / "disagreements.csv: does not match the other data: edited by hand: "
            "line 2 differs from what the ledger's scores give"
        )
    ) in capsys.readouterr().out


@pytest.mark.parametrize(
    ("data", "old", "new", "message"),
    [
        (
            "run.json",
            '"selected": 12',
            '"selected": "all"',
            "field methodology.selected: Input should be a valid integer",
        ),
        ("run.json", '"record_mode": "none",', "", "field methodology.record_mode: Field required"),
        ("hypotheses.json", '"n": 3', '"n": "3"', "not a run's hypotheses: field hypotheses.0.n: Input should be"),
        ("hypotheses.json", '"result": "FAIL"', '"result": 0', "field verdict.result: Input should be a valid string"),
    ],
)
def test_when_the_methodology_facts_or_hypotheses_are_edited_out_of_shape_then_verify_names_the_file_and_field(
    replayed: Callable[[str], Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: str,
    old: str,
    new: str,
    message: str,
) -> None:
    # Given the trio example's outputs (methodology facts, hypotheses) with one field of a data file edited
    directory = _copy(replayed("trio"), tmp_path)
    path = directory / data
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")

    # When verify re-renders the reports
    code = main(["verify", str(directory)])

    # Then it is a usage error naming the file and the field, without a traceback
    err = capsys.readouterr().err
    assert code == 4
    assert f"{path}: " in err and message in err
    assert "Traceback" not in err


def test_when_texts_json_is_edited_out_of_shape_then_the_page_says_why_it_is_not_shown(
    replayed: Callable[[str], Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the trio example's outputs with a string index of texts.json past its string table
    directory = _copy(replayed("trio"), tmp_path)
    path = directory / "texts.json"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith('["'))
    lines[number] = re.sub(r",(\d+),", ",99999,", lines[number], count=1)
    path.write_text("".join(lines), encoding="utf-8")

    # When verify re-renders the reports
    code = main(["verify", str(directory)])

    # Then the page re-renders without the captures' texts and says which field: it differs from the one written
    out = capsys.readouterr().out
    assert code == 1
    assert "verify: FAILED" in out and "report.html: edited by hand" in out
    assert compare_sections(directory)["compare_notes"] == [
        "texts.json is not shown: not the captures' texts: field rows.0.1: string index 99999 is not in strings "
        f"(0 to {len(json.loads(path.read_text(encoding='utf-8'))['strings']) - 1}) or -1"
    ]
