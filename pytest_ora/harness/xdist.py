"""Everything pytest-ora reads or sets of pytest-xdist, in one place (tests/unit/harness/test_xdist.py pins the versions).

xdist's public surface is `config.workerinput` (a worker's start-up data) and the
`pytest_configure_node` hook; the worker's queue and the controller's stop flag are internals
(`WorkerInteractor.torun`, `.nextitem_index`, `DSession.shouldstop`), read here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

__all__ = [
    "SUPPORTED",
    "distributes",
    "hand_to_worker",
    "is_worker",
    "queued_items",
    "scope_scheduler",
    "stop_controller",
    "worker_count",
    "worker_id",
    "worker_value",
]

SUPPORTED = ((3, 5), (4, 0))
"""pytest-xdist versions whose internals this module reads: from 3.5 up to (not including) 4.0."""


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (the controller and a run without -n are not)."""
    return hasattr(config, "workerinput")


def distributes(config: pytest.Config) -> bool:
    """Whether this process is an xdist controller that hands every item to workers (it runs none)."""
    if is_worker(config) or config.option.collectonly:
        return False
    return getattr(config.option, "dist", "no") != "no" and bool(getattr(config.option, "tx", None))


def worker_value(config: pytest.Config, key: str) -> Any:
    """A value the controller handed this worker before it started (None in the controller)."""
    return getattr(config, "workerinput", {}).get(key)


def worker_id(config: pytest.Config) -> str:
    """gw0, gw1, ... on a worker; "main" in the controller or without xdist."""
    return str(worker_value(config, "workerid") or "main")


def worker_count(config: pytest.Config) -> int:
    """How many workers the run has (1 without xdist)."""
    return int(worker_value(config, "workercount") or 1)


def hand_to_worker(node: Any, values: dict[str, str]) -> None:
    """Put values in a worker's workerinput (from pytest_configure_node, before the worker starts)."""
    node.workerinput.update(values)


def queued_items(config: pytest.Config) -> tuple[Sequence[pytest.Item], list[int]] | None:
    """A worker's items and the indices it runs next, the current one first; None when not knowable."""
    interactor = next((p for p in config.pluginmanager.get_plugins() if type(p).__name__ == "WorkerInteractor"), None)
    try:
        items = interactor.session.items  # type: ignore[union-attr]
        with interactor.torun.lock() as queued:  # type: ignore[union-attr]
            indices = [interactor.nextitem_index, *queued]  # type: ignore[union-attr]
    except AttributeError:  # another xdist version: the caller judges one capture at a time
        return None
    return items, indices


def stop_controller(config: pytest.Config, reason: str) -> None:
    """Stop the xdist controller from scheduling more items (its loop reads its own flag, not the session's)."""
    dsession = config.pluginmanager.get_plugin("dsession")
    if dsession is not None:
        dsession.shouldstop = reason


def scope_scheduler(config: pytest.Config, log: Any, scope: Callable[[str], str]) -> Any:
    """xdist's loadscope scheduling with `scope(nodeid)` as the scope (it overrides `_split_scope`, an internal)."""
    from xdist.scheduler import LoadScopeScheduling

    class ScopeScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            return scope(nodeid)

    return ScopeScheduling(config, log)
