"""run.json names pytest-ora's version, the suite's git commit and the run's start and end (UTC)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import pytest
from support.example_runs import SCORING_EPOCH

from pytest_ora.harness.provenance import run_moment, suite_commit, tool_version


def test_without_source_date_epoch_the_moment_is_now_in_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)

    moment = dt.datetime.fromisoformat(run_moment().replace("Z", "+00:00"))

    assert moment.tzinfo is not None and before <= moment <= dt.datetime.now(dt.timezone.utc)


def test_with_source_date_epoch_the_moment_is_the_epochs_so_replays_are_byte_identical(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796000000")

    assert run_moment() == "2026-11-30T00:53:20Z"


def test_a_directory_outside_git_has_no_commit(tmp_path: Path) -> None:
    assert suite_commit(tmp_path) is None


def test_a_git_work_tree_gives_its_head_commit(tmp_path: Path) -> None:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    (tmp_path / "test_suite.py").write_text("", encoding="utf-8")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "suite")

    assert suite_commit(tmp_path) == git("rev-parse", "HEAD")


def test_a_replayed_run_json_names_version_no_commit_and_the_epochs_start_and_end(
    replayed: Callable[[str], Path],
) -> None:
    run = json.loads((replayed("solo") / "run.json").read_text(encoding="utf-8"))

    moment = dt.datetime.fromtimestamp(int(SCORING_EPOCH), dt.timezone.utc).isoformat().replace("+00:00", "Z")
    assert run["pytest_ora_version"] == tool_version() == metadata.version("pytest-ora")
    assert run["started_utc"] == run["ended_utc"] == moment
    assert run["suite_commit"] is None  # the example replays from a copy outside any git work tree


def test_a_replayed_methodology_md_names_the_version_that_wrote_it(replayed: Callable[[str], Path]) -> None:
    methodology = (replayed("solo") / "methodology.md").read_text(encoding="utf-8")

    assert f"- Written by pytest-ora {metadata.version('pytest-ora')}\n" in methodology
