"""The in-flight count's file: written at most every FLUSH_AFTER seconds, never stale for longer, at once at zero."""

from __future__ import annotations

import json
import time
from pathlib import Path

from pytest_ora.judges.inflight import FLUSH_AFTER, InFlightLog


def _written(path: Path) -> int:
    return int(json.loads(path.read_text(encoding="utf-8"))["in_flight"])


def test_changes_close_together_are_written_once_then_when_the_time_is_up(tmp_path: Path) -> None:
    now = [100.0]
    log = InFlightLog(tmp_path, "main", clock=lambda: now[0])
    log.change(+1)  # the first change is written
    assert _written(tmp_path / "main.json") == 1
    for _ in range(5):  # five more within the interval: not yet
        log.change(+1)
    assert _written(tmp_path / "main.json") == 1
    log.flush()  # what the timer does when the interval is up
    assert _written(tmp_path / "main.json") == 6


def test_a_pending_change_reaches_the_file_within_the_interval_on_its_own(tmp_path: Path) -> None:
    log = InFlightLog(tmp_path, "main")
    log.change(+1)
    log.change(+1)  # within the interval: left to the timer
    deadline = time.monotonic() + 10 * FLUSH_AFTER
    while _written(tmp_path / "main.json") != 2 and time.monotonic() < deadline:
        time.sleep(FLUSH_AFTER / 5)
    assert _written(tmp_path / "main.json") == 2


def test_nothing_left_in_flight_is_written_at_once(tmp_path: Path) -> None:
    now = [100.0]
    log = InFlightLog(tmp_path, "main", clock=lambda: now[0])
    log.change(+2)
    log.change(-1)
    log.change(-1)
    assert _written(tmp_path / "main.json") == 0
