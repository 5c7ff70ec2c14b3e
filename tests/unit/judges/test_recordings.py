"""The cassette directory's record: one bundle, the rubric versions recorded, the request format."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest

from pytest_ora.judges.packet import PROMPT_VERSION, judge_prompt, judge_view
from pytest_ora.judges.recordings import (
    BUNDLE_FILE,
    RUBRICS_FILE,
    RecordingsError,
    bind_rubric,
    check_bundle,
    note_recording,
    read_recorded,
)
from pytest_ora.method.rubric import get_rubric


def reweighted(version: str = "judge-solo-1.1") -> object:
    rubric = get_rubric("judge-solo-1.0")
    criteria = tuple(dataclasses.replace(c, weight=Fraction(1)) for c in rubric.criteria)
    return dataclasses.replace(rubric, version=version, digest="sha256:" + "1" * 64, criteria=criteria)


def test_a_new_directory_gets_the_format_that_shows_no_weights_and_no_version(tmp_path: Path) -> None:
    bound = bind_rubric(get_rubric("judge-solo-1.0"), tmp_path / "cassettes")
    assert bound.prompt_format == "prompt-2"
    assert bound.recorded_under is None


def test_a_directory_with_cassettes_but_no_record_keeps_the_old_format(tmp_path: Path) -> None:
    cassette = tmp_path / "review" / "x" / "a.json"
    cassette.parent.mkdir(parents=True)
    cassette.write_text("{}", encoding="utf-8")
    assert bind_rubric(get_rubric("judge-solo-1.0"), tmp_path).prompt_format == PROMPT_VERSION


def test_weights_are_not_part_of_the_prompt_2_view_but_are_of_prompt_1() -> None:
    old, new = get_rubric("judge-solo-1.0"), reweighted()
    assert judge_view(dataclasses.replace(old, prompt_format="prompt-2")) == judge_view(
        dataclasses.replace(new, prompt_format="prompt-2")
    )
    assert judge_view(old) != judge_view(new)


def test_a_version_with_the_same_view_is_rescored_under_the_recorded_one(tmp_path: Path) -> None:
    old = bind_rubric(get_rubric("judge-solo-1.0"), tmp_path)
    note_recording(old, tmp_path)
    new = bind_rubric(reweighted(), tmp_path)
    assert new.recorded_under == f"judge-solo-1.0 ({old.digest})"
    assert new.shown_version is None


def test_prompt_1_rescoring_names_the_recorded_version_so_requests_stay_identical(tmp_path: Path) -> None:
    (tmp_path / RUBRICS_FILE).write_text(json.dumps({"prompt": PROMPT_VERSION, "rubrics": []}), encoding="utf-8")
    old = bind_rubric(get_rubric("judge-solo-1.0"), tmp_path)
    note_recording(old, tmp_path)
    capped = dataclasses.replace(
        get_rubric("judge-solo-1.0"), version="judge-solo-1.1", digest="sha256:" + "2" * 64, failure_below=Fraction(9)
    )
    new = bind_rubric(capped, tmp_path)
    assert new.shown_version == "judge-solo-1.0"
    from pytest_ora.judges.packet import Packet

    packet = Packet(
        capture_id="a:b/c",
        entry_key="a:b",
        family="a",
        technique="b",
        specification_source="s",
        specification=None,
        target=None,
        prompt="p",
        configuration="c",
        answer="x",
        artifact=None,
        model_snapshot={},
        acceptance_notes="",
        rubric_version="judge-solo-1.0",
    )
    assert judge_prompt(packet, None, old).system == judge_prompt(packet, None, new).system


def test_a_version_recorded_with_another_digest_is_refused(tmp_path: Path) -> None:
    rubric = bind_rubric(get_rubric("judge-solo-1.0"), tmp_path)
    note_recording(rubric, tmp_path)
    forged = dataclasses.replace(get_rubric("judge-solo-1.0"), digest="sha256:" + "f" * 64)
    with pytest.raises(
        RecordingsError,
        match=f"rubric judge-solo-1.0 was recorded with {rubric.digest}; this file is "
        "sha256:f+: give the change a new version",
    ):
        bind_rubric(forged, tmp_path)


def test_the_record_is_append_only(tmp_path: Path) -> None:
    note_recording(bind_rubric(get_rubric("judge-solo-1.0"), tmp_path), tmp_path)
    note_recording(bind_rubric(reweighted(), tmp_path), tmp_path)
    note_recording(bind_rubric(get_rubric("judge-solo-1.0"), tmp_path), tmp_path)
    fmt, entries = read_recorded(tmp_path)
    assert fmt == "prompt-2"
    assert [e.version for e in entries] == ["judge-solo-1.0", "judge-solo-1.1"]


def test_a_directory_takes_one_bundle(tmp_path: Path) -> None:
    check_bundle(tmp_path, "mine", recording=True)
    assert (tmp_path / BUNDLE_FILE).read_text(encoding="utf-8") == "mine\n"
    check_bundle(tmp_path, "theirs", recording=False)  # replay: nothing recorded, nothing refused
    with pytest.raises(RecordingsError, match=r"belongs to bundle 'mine'.*record bundle 'theirs'.*--ora-cassettes DIR"):
        check_bundle(tmp_path, "theirs", recording=True)


def test_an_unreadable_record_is_named(tmp_path: Path) -> None:
    (tmp_path / RUBRICS_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(RecordingsError, match=r"\.ora-rubrics: cannot be read"):
        read_recorded(tmp_path)
