"""The pilot example: the trio pilot end to end, every answer made inside the run by a candidate (two roles on
the reference judge, a Python harness, a command), judged by the trio, replayed offline from its cassettes."""

from __future__ import annotations

import filecmp
import json
from collections.abc import Callable
from pathlib import Path

from support.e2e import REPORT
from support.example_runs import replay_example, terminal_output

CELLS = ("cell-a", "cell-b", "cell-c", "cell-d")


def test_the_pilot_example_replays_its_candidates_and_judges_identically_at_n0_and_n2(
    replayed: Callable[..., Path],
) -> None:
    # Given the pilot example's recorded candidate answers and judge calls, and no reference judge running
    serial, workers = replayed("pilot"), replayed("pilot", 2)

    # When it is replayed serially and under two xdist workers, nothing is called and every report file is the same
    terminal_output(workers).fnmatch_lines(
        [
            "ora: candidates answered 12 judged captures*",
            "ora: candidate calls 12 (0 live, 12 replayed), judge calls 36 (0 live, 36 replayed)",
            "*6 passed, 6 lowscore*",
        ]
    )
    for name in (*REPORT, "cells.jsonl", "pilot-summary.json", "hypotheses.json"):
        assert (serial / name).read_bytes() == (workers / name).read_bytes(), name

    # Then each of the 12 captures carries its candidate's fields, the four ways told apart by their models
    rows = [json.loads(line) for line in (serial / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 12 and all(row["status"] == "scored" and row["generated_at"] for row in rows)
    models = {row["configuration"]: row["candidate_model"] for row in rows}
    assert models == {
        "cell-a": "claude-opus-4-7-20260101",
        "cell-b": "claude-opus-4-7 + memory-harness",
        "cell-c": "qwen3.6-35b-a3b-2026-01-01",
        "cell-d": "qwen + memory-harness",
    }
    assert all(
        row["candidate_tokens_in"] and row["candidate_tokens_out"] and row["candidate_latency_ms"] >= 0 for row in rows
    )
    cells = [json.loads(line) for line in (serial / "cells.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(cells) == 12 and all(cell["candidate_response"] and cell["candidate_tokens_in"] for cell in cells)
    summary = json.loads((serial / "pilot-summary.json").read_text(encoding="utf-8"))
    assert (summary["total_candidate_calls"], summary["total_judge_calls"]) == (12, 36)


def _command_fails(project: Path) -> None:
    """The command candidate made unavailable: any call of it exits 1."""
    agent = project / "run-agent"
    agent.write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    agent.chmod(0o755)


def test_the_pilot_replays_without_calling_its_command_candidate_the_same_at_n0_and_n2(
    tmp_path: Path,
    replayed: Callable[..., Path],
) -> None:
    # Given the example with its command candidate replaced by one that exits 1, and no reference judge running
    # When it is replayed serially and under two workers
    serial = replay_example("pilot", tmp_path / "serial", edit=_command_fails)
    workers = replay_example("pilot", tmp_path / "workers", 2, edit=_command_fails)

    # Then the recorded answers serve: every output file is byte-identical between the two, and the ledger is the
    # unchanged example's
    compared = filecmp.dircmp(serial, workers)
    assert not (compared.left_only or compared.right_only or compared.diff_files), (
        compared.left_only,
        compared.right_only,
        compared.diff_files,
    )
    files = sorted(path.relative_to(serial) for path in serial.rglob("*") if path.is_file())
    _, mismatch, errors = filecmp.cmpfiles(serial, workers, [str(path) for path in files], shallow=False)
    assert len(files) > 50 and not mismatch and not errors, mismatch
    assert (serial / "ledger.jsonl").read_bytes() == (replayed("pilot") / "ledger.jsonl").read_bytes()
