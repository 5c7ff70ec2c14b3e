"""A capture's prompt and answer are read again from their line after intake, checked against what intake read."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest
from support.bundle_factory import write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.core import fastload
from pytest_ora.core.errors import BundleChanged
from pytest_ora.core.fastload import DEFERRED_TEXTS, loaded
from pytest_ora.judges.packet import build_packet


def _lines(root: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (root / "captures.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_plan_holds_no_prompt_or_answer_yet_gives_each_as_written(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    written = {f"{o['entry_key']}/{o['configuration']}": o for o in _lines(root)}
    plan = intake(root)

    for planned in plan.captures:
        capture = planned.capture
        assert not any(name in capture.__dict__ for name in DEFERRED_TEXTS)
        line = written[capture.capture_id]
        assert (capture.prompt, capture.answer) == (line["prompt"], line["answer"])
        dumped = capture.model_dump()
        assert (dumped["prompt"], dumped["answer"]) == (line["prompt"], line["answer"])
        assert json.loads(capture.model_dump_json())["answer"] == line["answer"]
        full = loaded(capture)
        assert full.__dict__["answer"] == line["answer"] and full.model_dump() == dumped
        again = pickle.loads(pickle.dumps(capture))
        assert again.answer == line["answer"] and again == capture


def test_an_answer_edited_after_intake_is_an_error_naming_the_line(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    plan = intake(root)
    planned = plan.captures[0]
    path = root / "captures.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    index = planned.line - 1
    edited = json.loads(lines[index])
    answer = str(edited["answer"])
    edited["answer"] = answer[:-1] + ("x" if answer[-1] != "x" else "y")  # the same length: the digest tells
    lines[index] = json.dumps(edited) + "\n"
    path.write_text("".join(lines), encoding="utf-8")

    with pytest.raises(BundleChanged, match=rf"^captures\.jsonl line {planned.line} changed since intake checked it"):
        _ = planned.capture.answer
    with pytest.raises(BundleChanged, match=rf"captures\.jsonl line {planned.line} "):
        build_packet(planned.capture, root, plan.rubric)


def test_a_bundle_file_gone_or_swapped_for_a_link_out_is_an_error(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle")
    plan = intake(root)
    outside = tmp_path / "elsewhere.jsonl"
    (root / "captures.jsonl").rename(outside)
    with pytest.raises(BundleChanged, match="cannot be read again"):
        _ = plan.captures[1].capture.prompt
    (root / "captures.jsonl").symlink_to(outside)
    with pytest.raises(BundleChanged, match="cannot be read again"):
        _ = plan.captures[1].capture.prompt


def test_a_text_replaced_by_model_copy_stays_replaced(tmp_path: Path) -> None:
    plan = intake(write_bundle(tmp_path))
    capture = plan.captures[0].capture
    blank = capture.model_copy(update={"answer": ""})

    assert blank.answer == "" and loaded(blank).answer == "" and blank.model_dump()["answer"] == ""
    assert blank.prompt == capture.prompt and list(blank.model_dump()) == list(capture.model_dump())


def test_with_the_switch_off_every_capture_holds_its_texts_and_the_packets_are_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_bundle(tmp_path)
    deferred_plan = intake(root)
    monkeypatch.setattr(fastload, "DEFER_TEXTS", False)

    held_plan = intake(root)

    for deferred, held in zip(deferred_plan.captures, held_plan.captures, strict=True):
        assert all(name in held.capture.__dict__ for name in DEFERRED_TEXTS)
        assert not isinstance(held.capture, fastload.DeferredCapture)
        assert held.capture.model_dump() == deferred.capture.model_dump()
        assert build_packet(held.capture, root, held_plan.rubric) == build_packet(
            deferred.capture, root, deferred_plan.rubric
        )
