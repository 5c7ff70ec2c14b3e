"""The scorecard archive: scorecard.json, SCORECARD-RESULT.md and RESULT.md linking both, with a person's section."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_ora.__main__ import main


@pytest.fixture(scope="module")
def archive(replayed: Callable[[str], Path]) -> Path:
    return replayed("scorecard")


def _copy(source: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(source, tmp_path / "out"))


def test_the_archive_holds_three_files_and_result_md_links_both_with_an_empty_interpretation(archive: Path) -> None:
    result = (archive / "RESULT.md").read_text(encoding="utf-8")

    assert (archive / "scorecard.json").is_file() and (archive / "SCORECARD-RESULT.md").is_file()
    assert "[scorecard.json](scorecard.json)" in result
    assert "[SCORECARD-RESULT.md](SCORECARD-RESULT.md)" in result
    assert result.endswith("## Interpretation\n")  # the section is a person's: pytest-ora writes nothing in it


def test_verify_checks_result_md_links_and_not_a_persons_interpretation(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _copy(archive, tmp_path)
    with (out / "RESULT.md").open("a", encoding="utf-8") as file:
        file.write("\nThe ON condition halves blockers; cost stays within 1.7x.\n")

    assert main(["verify", str(out)]) == 0
    assert "verify: ok: RESULT.md (from scorecard.json)" in capsys.readouterr().out


def test_verify_names_a_result_md_whose_linked_file_is_gone(
    archive: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _copy(archive, tmp_path)
    text = (out / "RESULT.md").read_text(encoding="utf-8")
    (out / "RESULT.md").write_text(text.replace("](SCORECARD-RESULT.md)", "](SCORECARD-RESULTS.md)"), encoding="utf-8")

    assert main(["verify", str(out)]) != 0
    assert "RESULT.md: links SCORECARD-RESULTS.md, which is not a file beside it" in capsys.readouterr().out


def test_the_aggregate_shows_each_grades_raw_values_in_the_same_cell(archive: Path) -> None:
    result = (archive / "SCORECARD-RESULT.md").read_text(encoding="utf-8")
    aggregate = result.partition("## Aggregate")[2].partition("## Not graded")[0]

    cost = next(line for line in aggregate.splitlines() if line.startswith("| D. Cost"))
    assert "1 PASS (1.1x tokens), 1 PARTIAL (1.7x tokens)" in cost
    assert "2 PARTIAL (3 blockers; 2 blockers)" in aggregate


def test_each_code_shape_violation_is_listed_beside_its_grade(archive: Path) -> None:
    result = (archive / "SCORECARD-RESULT.md").read_text(encoding="utf-8")

    assert "FAIL (3 violations): Gradle-only violated; service owns no storage; request DTO missing" in result
    assert "PARTIAL (1 violation): request DTO missing" in result
