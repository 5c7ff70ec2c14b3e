"""run.json's methodology block as typed data: read back and written again byte for byte; a bad block named by field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.run_data import methodology_block

from pytest_ora.reports.methodology import methodology_text
from pytest_ora.reports.methodologydata import MethodologyFacts
from pytest_ora.reports.runfile import RunFile, RunFileError, read_run_file


def _run_json(tmp_path: Path, block: object) -> Path:
    run = {"bundle": "b", "rubric": "ora-1.0", "rubric_digest": "sha256:0", "methodology": block}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(run, indent=2) + "\n", encoding="utf-8")
    return path


def test_when_the_methodology_block_is_read_back_then_run_json_is_written_again_byte_for_byte(tmp_path: Path) -> None:
    # Given a block with facts that only some runs write (a version, prompt-cache use, judge samples, stated verdicts)
    block = methodology_block(
        pytest_ora_version="0.1.0",
        cached_tokens=[["Judge A read", 900], ["Judge A written", 0]],
        judge_samples={"samples": 3, "reducer": "median"},
        verdict_disagreements=[],
    )
    facts = MethodologyFacts.model_validate(block)
    written = RunFile(bundle="b", rubric="ora-1.0", rubric_digest="sha256:0", methodology=facts).dumps()

    # When run.json is read back and written again
    again = read_run_file(_run_json(tmp_path, json.loads(written)["methodology"])).dumps()

    # Then it is the same bytes, the facts in the order the writer gives them
    assert again == written
    keys = list(json.loads(written)["methodology"])
    assert keys[:3] == ["bundle", "pytest_ora_version", "panel"]
    assert keys.index("cached_tokens") == keys.index("tokens") + 1
    assert keys[-2:] == ["judge_samples", "verdict_disagreements"]


def test_when_a_fact_applies_only_to_some_runs_and_was_not_given_then_it_is_not_written() -> None:
    facts = MethodologyFacts.model_validate(methodology_block())

    dumped = facts.model_dump(exclude_unset=True)

    for key in ("pytest_ora_version", "candidate_spend", "spend_priced_only", "cached_tokens", "names_itself"):
        assert key not in dumped
    assert dumped["snapshot"] is None and dumped["stopped_by"] is None  # always written: null when none


def test_when_the_block_is_read_back_then_the_note_renders_from_it_alone(tmp_path: Path) -> None:
    facts = read_run_file(_run_json(tmp_path, methodology_block(names_itself=1))).methodology
    assert facts is not None

    note = methodology_text(facts)

    assert note.startswith("# Methodology: b\n")
    assert "- Judge A: claude-opus-4-7 (anthropic, http://127.0.0.1:8765/v1/messages), Optimum big-1" in note
    assert "- Re-asks after invalid replies: 1\n  - Judge A: 0\n  - Judge B: 1" in note
    assert "- mode:a/small: invalid capture (fallback): returned to capture audit" in note
    assert "1 judged capture names its own configuration or model" in note


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"judges": [{"label": "Judge A"}]}, r"field methodology\.judges\.0\.model: Field required"),
        ({"selected": "four"}, r"field methodology\.selected: Input should be a valid integer"),
        ({"outcomes": [["scored"]]}, r"field methodology\.outcomes\.0\.1: Field required"),
        ({"judge": []}, r"field methodology\.judge: Extra inputs are not permitted"),
    ],
)
def test_when_the_block_is_edited_out_of_shape_then_the_error_names_run_json_and_the_field(
    tmp_path: Path, change: dict[str, object], message: str
) -> None:
    path = _run_json(tmp_path, methodology_block(**change))

    with pytest.raises(RunFileError, match=rf"run\.json: not a run's data: {message}"):
        read_run_file(path)


def test_when_a_fact_the_note_needs_is_missing_then_the_error_names_it(tmp_path: Path) -> None:
    block = methodology_block()
    del block["scoring_date"]

    with pytest.raises(RunFileError, match=r"field methodology\.scoring_date: Field required"):
        read_run_file(_run_json(tmp_path, block))
