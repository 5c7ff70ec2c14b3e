"""Every shipped example replays offline from its cassettes to the same bytes serially and under xdist, and verifies."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.example_runs import EXAMPLES

from pytest_ora.__main__ import main


def _tree(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("name", sorted(path.name for path in EXAMPLES.iterdir() if (path / "pytest.ini").is_file()))
def test_an_example_replays_to_the_same_files_serially_and_under_two_workers_and_verifies(
    name: str, replayed: Callable[..., Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Given the example replayed from its cassettes serially and under two xdist workers (one scoring date)
    serial, workers = replayed(name), replayed(name, 2)

    # Then every file each run wrote (tables, statistics, report.html, kind files, packets) is byte-identical
    files = _tree(serial)
    assert {"ledger.jsonl", "summary.json", "stats.json", "methodology.md", "report.html", "run.json"} <= set(files)
    workers_files = _tree(workers)
    assert sorted(workers_files) == sorted(files)
    for relative, content in workers_files.items():
        assert content == files[relative], relative

    # And every report re-renders from its data: none differs from what the run wrote
    assert main(["verify", str(serial)]) == 0
    out = capsys.readouterr().out
    assert "FAILED" not in out and "not checked" not in out
