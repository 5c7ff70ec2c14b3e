"""texts.json as typed data: written from its model, read back into it, the same bytes again; a bad file named."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.reports.texts import TextsFileError, parse_texts_file, read_texts, texts_json


def texts(**changes: Any) -> dict[str, Any]:
    """Two captures of one entry (one prompt), the second answering in turns."""
    data: dict[str, Any] = {
        "schema": "ora-texts-1",
        "rubric": "ora-1.0",
        "columns": ["capture_id", "prompt", "context", "answer", "second_answer"],
        "strings": ["Plan the launch.", "Ship on Monday.", "user: why?\nassistant: because", "why?", "because"],
        "rows": [["mode:a/big", 0, -1, 1, -1], ["mode:a/small", 0, -1, 2, -1]],
        "transcripts": {"mode:a/small": [["user", 3], ["assistant", 4]]},
    }
    data.update(changes)
    return data


def test_when_texts_json_is_read_back_then_it_is_written_again_byte_for_byte(tmp_path: Path) -> None:
    written = texts_json(parse_texts_file(json.dumps(texts())))
    (tmp_path / "texts.json").write_text(written, encoding="utf-8")

    shown, note = read_texts(tmp_path)

    assert note is None and shown is not None
    assert texts_json(shown) == written
    assert json.loads(written) == texts()
    assert len(written.splitlines()) == 1 + 5 + 1 + 2 + 1 + 1 + 1  # one string, one row, one transcript a line
    assert shown.shown()["transcripts"] == {"mode:a/small": [("user", 3), ("assistant", 4)]}


def test_when_no_answer_is_a_transcript_then_the_file_and_the_page_have_no_transcripts(tmp_path: Path) -> None:
    data = texts()
    del data["transcripts"]

    written = texts_json(parse_texts_file(json.dumps(data)))

    assert "transcripts" not in json.loads(written)
    assert "transcripts" not in parse_texts_file(written).shown()


def test_when_the_run_wrote_no_texts_json_then_there_is_nothing_to_show_and_nothing_wrong(tmp_path: Path) -> None:
    assert read_texts(tmp_path) == (None, None)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"schema": None}, r"field schema: Input should be a valid string"),
        ({"rows": [["mode:a/big", 0, -1, "1", -1]]}, r"field rows\.0\.3: Input should be a valid integer"),
        ({"rows": [["mode:a/big", 0, -1, 1]]}, r"field rows\.0\.4: Field required"),
        ({"rows": [["mode:a/big", 0, -2, 1, -1]]}, r"field rows\.0\.2: string index -2 is not in strings \(0 to 4\)"),
        ({"transcripts": {"mode:a/small": [["user", 5]]}}, r"field transcripts\.mode:a/small\.0\.1: string index 5"),
        ({"strings": ["x", 2]}, r"field strings\.1: Input should be a valid string"),
    ],
)
def test_when_texts_json_is_edited_out_of_shape_then_the_note_names_the_field(
    tmp_path: Path, changes: dict[str, Any], message: str
) -> None:
    (tmp_path / "texts.json").write_text(json.dumps(texts(**changes)), encoding="utf-8")

    shown, note = read_texts(tmp_path)

    assert shown is None
    assert note is not None and re.match(rf"texts\.json is not shown: not the captures' texts: {message}", note)
    with pytest.raises(TextsFileError, match=message):
        parse_texts_file(json.dumps(texts(**changes)))
