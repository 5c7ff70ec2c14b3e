"""The report's writing at the session end: once, on a thread under xdist, and what the gates read back from it."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..reports.baselinedata import BaselineComparison
    from ..reports.statsdata import Calibration

__all__ = ["ReportWriting", "written_baseline_comparison", "written_calibration"]


class ReportWriting:
    """Writes the report once: now, or on a thread while xdist's session end waits for the workers to exit."""

    def __init__(self, write: Callable[[int], None]) -> None:
        self._write = write
        self.finished = False
        self._thread: threading.Thread | None = None
        """Under xdist, the report being written while xdist's session end waits for the workers to exit."""
        self._error: BaseException | None = None

    def meanwhile(self, exitstatus: int) -> None:
        """Under xdist: write the report on a thread while xdist's session end waits for the workers to exit.

        Every worker has ended its session by now (xdist's loop waits for each one's last event), so
        every record is here. What follows in this thread is mostly waiting: the workers' processes
        winding down, then the other plugins' session ends (the gates are already reported, for
        junitxml). finish(), called by the plugin's last session-end hook, waits for the thread,
        so the terminal summary and the exit status read a finished report.
        """
        self.finished = True

        def write() -> None:
            try:
                self._write(exitstatus)
            except BaseException as error:  # re-raised where finish() waits, in the main thread
                self._error = error

        self._thread = threading.Thread(target=write, name="ora-report", daemon=True)
        self._thread.start()

    def finish(self, exitstatus: int) -> None:
        """Write the report, even after an interruption; once (or wait for the thread writing it)."""
        if self._thread is not None:
            writing, self._thread = self._thread, None
            writing.join()
            error, self._error = self._error, None
            if error is not None:
                raise error
            return
        if self.finished:
            return
        self.finished = True
        self._write(exitstatus)


def written_baseline_comparison(out: Path) -> BaselineComparison | None:
    """baseline.json as the report wrote it, for --ora-fail-regression; None when unreadable."""
    from ..reports.baseline import BASELINE_JSON
    from ..reports.baselinedata import BaselineDataError, read_baseline_comparison

    try:
        return read_baseline_comparison(out / BASELINE_JSON)
    except BaselineDataError:
        return None


def written_calibration(out: Path) -> Calibration | None:
    """stats.json's `calibration` as the report wrote it, for --ora-fail-calibration; None when unreadable."""
    from ..reports.statsdata import StatsFileError, read_stats_file

    try:
        return read_stats_file(out / "stats.json").calibration
    except StatsFileError:
        return None
