"""The per-capture files: written by a helper process, whole, with the bytes and mode a plain write gives."""

from __future__ import annotations

import json
import os
import signal
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.core.fileio import file_mode
from pytest_ora.reports import filewriter
from pytest_ora.reports.filewriter import CaptureFileWriter

_PACKET: dict[str, Any] = {
    "capture_id": "mode:x/alpha",
    "answer": 'Ünïcode — kept as is, "quoted", a tab\there, a control \u0001',
    "scores": {"fidelity": "7.5", "empty": {}, "list": []},
    "numbers": [1, 2.5, 1e-07, 1e16, -0.0],
    "flag": True,
    "none": None,
}


def _expected(data: Any) -> bytes:
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def test_files_hold_what_json_dumps_with_indent_gives_and_the_umask_mode(tmp_path: Path) -> None:
    writer = CaptureFileWriter(file_mode())
    targets = [tmp_path / "packets" / "mode" / f"t{index}" / "alpha.json" for index in range(20)]
    for index, target in enumerate(targets):
        writer.write(target, {**_PACKET, "index": index})

    assert writer.drain() == []

    for index, target in enumerate(targets):
        assert target.read_bytes() == _expected({**_PACKET, "index": index})
        assert stat.S_IMODE(target.stat().st_mode) == file_mode()
    assert not [path for path in tmp_path.rglob("*") if path.name.endswith(".tmp")]


def test_a_file_that_cannot_be_written_is_named_and_the_others_are_written(tmp_path: Path) -> None:
    blocked = tmp_path / "judges"
    blocked.write_text("a file where the directory should be", encoding="utf-8")
    writer = CaptureFileWriter(file_mode())
    writer.write(blocked / "mode" / "x" / "alpha.a.json", {"scores": {}})
    writer.write(tmp_path / "packets" / "mode" / "x" / "alpha.json", _PACKET)
    writer.write(tmp_path / "packets" / "mode" / "x" / "beta.json", {"note": "lone \ud800 surrogate"})

    errors = writer.drain()

    assert len(errors) == 2
    assert errors[0].startswith(f"{blocked / 'mode' / 'x' / 'alpha.a.json'}: ")
    assert errors[1].startswith(f"{tmp_path / 'packets' / 'mode' / 'x' / 'beta.json'}: ") and "surrogate" in errors[1]
    assert (tmp_path / "packets" / "mode" / "x" / "alpha.json").read_bytes() == _expected(_PACKET)
    assert not (tmp_path / "packets" / "mode" / "x" / "beta.json").exists()


def test_without_a_helper_the_files_are_written_in_this_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(filewriter.sys, "executable", str(tmp_path / "no-such-python"))
    writer = CaptureFileWriter(file_mode())
    target = tmp_path / "packets" / "mode" / "x" / "alpha.json"

    writer.write(target, _PACKET)

    assert target.read_bytes() == _expected(_PACKET)  # already: written by the caller
    assert writer.drain() == []


def test_a_helper_that_dies_is_named_with_what_it_lost_and_the_next_files_are_written(tmp_path: Path) -> None:
    writer = CaptureFileWriter(file_mode())
    first = tmp_path / "packets" / "mode" / "x" / "alpha.json"
    writer.write(first, _PACKET)
    helper = writer._helper
    assert helper is not None
    os.kill(helper.pid, signal.SIGKILL)  # SIGINT and SIGTERM it ignores: it finishes what is in its pipe
    helper.wait()

    later = tmp_path / "packets" / "mode" / "x" / "beta.json"
    writer.write(later, _PACKET)  # the broken pipe is noticed here, or at the latest on drain
    errors = writer.drain()

    assert later.read_bytes() == _expected(_PACKET)
    assert any("the process writing them stopped (exit status -9)" in error for error in errors)
    lost = [error for error in errors if "per-capture file(s)" in error]
    assert len(lost) == 1 and (first.exists() or lost[0].startswith("1 ") or lost[0].startswith("2 "))


def test_an_interrupt_of_the_process_group_does_not_lose_what_the_helper_holds(tmp_path: Path) -> None:
    writer = CaptureFileWriter(file_mode())
    targets = [tmp_path / "judges" / "mode" / "x" / f"c{index}.a.json" for index in range(50)]
    writer.write(targets[0], _PACKET)
    helper = writer._helper
    assert helper is not None
    while not targets[0].exists():  # the helper has started serving (its signal handlers are set)
        time.sleep(0.01)
    for target in targets[1:]:
        writer.write(target, _PACKET)
    os.kill(helper.pid, signal.SIGINT)
    os.kill(helper.pid, signal.SIGTERM)

    assert writer.drain() == []
    assert all(target.read_bytes() == _expected(_PACKET) for target in targets)
