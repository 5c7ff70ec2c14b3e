"""A pytest plugin the benchmark loads with `-p ora_bench_probe`: phase times and peak RSS.

It writes one JSON object to the file named by $ORA_BENCH_PROBE from the controller (the single
process without xdist), at pytest_unconfigure, i.e. after pytest-ora has written its report;
each xdist worker writes its own peak RSS and CPU to that name plus `.<worker id>`. It hooks a few
session-level points and two per-item ones that only store a time.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from typing import Any

import pytest

_times: dict[str, float | None] = {
    "configure": None,
    "collected": None,
    "first_start": None,
    "last_end": None,
    "finish_start": None,
}
_counts = {"items_done": 0}


def _controller(config: pytest.Config) -> bool:
    return not hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    _times["configure"] = time.time()


def pytest_collection_finish(session: pytest.Session) -> None:
    _times["collected"] = time.time()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    if _times["collected"] is None:
        _times["collected"] = time.time()


def pytest_runtest_logstart(nodeid: str, location: Any) -> None:
    if _times["first_start"] is None:
        _times["first_start"] = time.time()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        _times["last_end"] = time.time()
        _counts["items_done"] += 1


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    _times["finish_start"] = time.time()


def pytest_unconfigure(config: pytest.Config) -> None:
    target = os.environ.get("ORA_BENCH_PROBE")
    if not target:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB on Linux
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    # CPU seconds of this process, and of the children it has waited for (a worker's: its file-writing
    # helper; the controller's: the xdist workers, once they have exited, and the helper without -n).
    cpu = {"cpu_self": usage.ru_utime + usage.ru_stime, "cpu_children": children.ru_utime + children.ru_stime}
    if not _controller(config):
        worker = config.workerinput["workerid"]  # type: ignore[attr-defined]
        with open(f"{target}.{worker}", "w", encoding="utf-8") as stream:
            json.dump({"maxrss_bytes": usage.ru_maxrss * scale, **cpu}, stream)
        return
    data = {
        **{f"t_{name}": value for name, value in _times.items()},
        "t_unconfigure": time.time(),
        "items_done": _counts["items_done"],
        "maxrss_bytes": usage.ru_maxrss * scale,
        # the largest process this one started and waited for: an xdist worker, or the child that
        # makes a large run's statistics and page
        "children_maxrss_bytes": children.ru_maxrss * scale,
        **cpu,
    }
    with open(target, "w", encoding="utf-8") as stream:
        json.dump(data, stream)
