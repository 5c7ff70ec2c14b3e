"""The step summary's Markdown: names escaped, gates said, credentials redacted, appended after what is there."""

from __future__ import annotations

from pathlib import Path

from pytest_ora.reports.stepsummary import GateLine, append_step_summary, escape, step_summary_markdown


def test_when_a_name_holds_markdown_then_it_is_escaped_and_kept_on_one_line() -> None:
    assert escape("a|b `c` <d>\n*e*_f_") == "a\\|b \\`c\\` \\<d\\> \\*e\\*\\_f\\_"
    assert escape("big-1 7.5") == "big-1 7.5"


def test_when_a_table_cell_holds_a_pipe_then_the_row_keeps_its_columns() -> None:
    row = "| " + " | ".join(escape(cell) for cell in ["conf|ig", "7.5"]) + " |"
    assert row.replace("\\|", "").count("|") == 3


def test_when_the_run_wrote_no_report_then_the_summary_says_why_and_still_lists_the_gates(tmp_path: Path) -> None:
    text = step_summary_markdown(
        tmp_path,
        [GateLine("--ora-fail-under 7", False, ("b|ad mean overall 6.50 < 7",)), GateLine("--ora-x", True, ())],
        unwritten="the report could not be written (disk full)",
    )

    assert text.startswith("## pytest-ora\n\nNo report was written: the report could not be written (disk full).\n")
    assert "- --ora-fail-under 7: **FAILED**: b\\|ad mean overall 6.50 \\< 7\n" in text
    assert "- --ora-x: **held**\n" in text
    assert "Configuration" not in text


def test_when_no_gate_is_set_then_it_says_so(tmp_path: Path) -> None:
    assert "### Gates\n\nNo gate was set.\n" in step_summary_markdown(tmp_path, [], unwritten="stopped")


def test_when_a_text_holds_a_configured_key_or_a_credential_shape_then_it_is_redacted(tmp_path: Path) -> None:
    key = "configured_secret_value_123456"  # underscores: redacted before escaping, or the escaped key would show
    shaped = "ghp_" + "A1b2" * 9
    text = step_summary_markdown(
        tmp_path, [GateLine("--ora-fail-under 7", False, (f"{key} and {shaped}",))], secrets=[key], unwritten="x"
    )

    assert key not in text and escape(key) not in text and shaped not in text and "ghp" not in text
    assert "FAILED**: \\[redacted\\] and \\[redacted\\]\n" in text


def test_when_the_file_holds_text_then_the_summary_is_appended_after_a_blank_line(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    append_step_summary(path, "## first\n")
    append_step_summary(path, "## second\n")

    assert path.read_text(encoding="utf-8") == "## first\n\n## second\n"
