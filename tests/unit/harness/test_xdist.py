"""The pytest-xdist internals harness/xdist.py reads exist in the installed xdist, a supported version."""

from __future__ import annotations

import inspect
from importlib.metadata import version

import pytest
from xdist.dsession import DSession
from xdist.remote import WorkerInteractor

from pytest_ora.harness.xdist import SUPPORTED, is_worker, stop_controller, worker_count, worker_id, worker_value


def _version() -> tuple[int, int]:
    major, minor, *_ = version("pytest-xdist").split(".")
    return int(major), int(minor)


def test_the_installed_xdist_is_a_supported_version() -> None:
    low, high = SUPPORTED
    assert low <= _version() < high, f"pytest-xdist {version('pytest-xdist')}: check harness/xdist.py, then SUPPORTED"


def test_the_worker_queue_and_the_controller_flag_are_where_the_module_reads_them() -> None:
    # harness/xdist.py reads WorkerInteractor.session/.torun/.nextitem_index and sets DSession.shouldstop
    worker = inspect.getsource(WorkerInteractor)
    for name in ("self.session", "self.torun", "self.nextitem_index"):
        assert name in worker, name
    assert "self.shouldstop" in inspect.getsource(DSession)


def test_without_xdist_the_process_is_the_controller(pytestconfig: pytest.Config) -> None:
    if is_worker(pytestconfig):
        pytest.skip("this test reads the controller's view; it runs as a worker under -n")
    assert (worker_id(pytestconfig), worker_count(pytestconfig), worker_value(pytestconfig, "x")) == ("main", 1, None)
    stop_controller(pytestconfig, "no controller to stop")  # no dsession plugin: nothing happens


def test_a_worker_reads_what_the_controller_handed_it(pytestconfig: pytest.Config) -> None:
    if not is_worker(pytestconfig):
        pytest.skip("runs under -n, as a worker")
    assert worker_id(pytestconfig).startswith("gw")
    assert worker_count(pytestconfig) >= 1


def test_loadscope_scheduling_splits_scopes_where_the_entry_scheduler_overrides_it() -> None:
    # harness/xdist.py's scope_scheduler overrides LoadScopeScheduling._split_scope
    from xdist.scheduler import LoadScopeScheduling

    assert "self._split_scope(" in inspect.getsource(LoadScopeScheduling)
