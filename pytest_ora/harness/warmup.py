"""A live run's session end, imported while the judges work.

A live (recording) run writes a new ledger, so its session end computes the statistics and draws
the charts: importing numpy, scipy, statsmodels and matplotlib costs seconds of it on every run. The
controller waits on the judges for most of a live run, so it imports them then, on a thread of its
own, and the session end finds them loaded. A replay (`--ora-record none`) does not: its session end
is usually served by the cache (reports/resultcache.py), which imports none of them.

The session end waits for the warm-up before it writes anything, so a run imports no module its
session end would not have imported itself, and none is half-imported when the run ends. An import
that fails here is left to fail again, with its own message, where the session end needs it.
"""

from __future__ import annotations

import contextlib
import importlib
import threading

__all__ = ["WARMED", "WarmUp"]

WARMED = ("pytest_ora.stats.statistics", "pytest_ora.stats.arrays")
"""What the session end imports to compute the statistics (numpy, scipy, statsmodels, krippendorff)."""
_CHARTS = ("matplotlib.figure", "matplotlib.backends.backend_svg")
"""What it imports to draw the charts, when the plotting library is installed."""


class WarmUp:
    """Imports the session end's libraries on a daemon thread; `wait()` before the session end."""

    def __init__(self) -> None:
        self._thread: threading.Thread | None = None

    def start(self, charts: bool) -> None:
        if self._thread is not None:
            return
        names = WARMED + (_CHARTS if charts else ())
        self._thread = threading.Thread(target=_import, args=(names,), name="ora-warm-up", daemon=True)
        self._thread.start()

    def wait(self, timeout: float | None = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)


def _import(names: tuple[str, ...]) -> None:
    for name in names:
        with contextlib.suppress(Exception):  # the session end imports it again and reports the failure
            importlib.import_module(name)
