"""Entry-grouped xdist scheduling: an entry's captures run on one worker, one after another."""

from __future__ import annotations

import re

import pytest
from support.live_project import EVAL_TEST

from pytest_ora.harness.schedule import entry_scope


def test_the_scope_of_a_capture_item_is_its_entry() -> None:
    assert (
        entry_scope("test_ora.py::test_capture[mode:argument-audit/optimum]")
        == "test_ora.py::test_capture[mode:argument-audit]"
    )
    assert (
        entry_scope("test_ora.py::test_capture[mode:argument-audit/a+b]")
        == "test_ora.py::test_capture[mode:argument-audit]"
    )
    assert entry_scope("test_x.py::test_other") == "test_x.py::test_other"
    assert entry_scope("test_x.py::test_p[3]") == "test_x.py::test_p[3]"


def _workers(result: pytest.RunResult) -> dict[str, set[str]]:
    """Per entry, the xdist workers its captures ran on."""
    found: dict[str, set[str]] = {}
    for line in result.stdout.lines:
        match = re.search(r"\[(gw\d+)\] .*\[(?P<capture>[^\]]+)\]", line)
        if match:
            found.setdefault(match.group("capture").rsplit("/", 1)[0], set()).add(match.group(1))
    return found


SCHEDULER_PROBE = """
def pytest_sessionfinish(session):
    dsession = session.config.pluginmanager.getplugin("dsession")
    if dsession is not None:  # the xdist controller
        (session.config.rootpath / "scheduler.txt").write_text(type(dsession.sched).__name__)
"""


def _project(pytester: pytest.Pytester) -> None:
    from support.bundle_factory import write_bundle

    write_bundle(pytester.path / "bundle", configurations=("optimum", "big-1", "big-2", "medium", "small", "local"))
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    pytester.makeconftest(SCHEDULER_PROBE)


def test_under_xdist_each_entrys_captures_run_on_one_worker_when_judges_may_be_called(
    pytester: pytest.Pytester,
) -> None:
    _project(pytester)
    live = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-n", "2", "-v", "--ora-dry-run", "--ora-record", "once"
    )
    assert (pytester.path / "scheduler.txt").read_text() == "ScopeScheduling"
    workers = _workers(live)
    assert len(workers) >= 3, live.stdout.str()[-2000:]
    assert all(len(used) == 1 for used in workers.values()), workers
    # -k still selects single captures
    one = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-n",
        "2",
        "-v",
        "--ora-dry-run",
        "--ora-record",
        "once",
        "-k",
        "argument-audit and optimum",
    )
    assert len([line for line in one.stdout.lines if "PASSED" in line or "SKIPPED" in line]) == 1


@pytest.mark.parametrize(
    "options", [(), ("--ora-record", "once", "--ora-prompt-cache", "off")], ids=["replay", "caching-off"]
)
def test_a_replay_or_a_run_without_prompt_caching_keeps_xdists_load_scheduling(
    pytester: pytest.Pytester, options: tuple[str, ...]
) -> None:
    """A replay (--ora-record none, the default) sends nothing, so no cache is warmed by grouping an entry."""
    _project(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "2", "--ora-dry-run", *options)
    assert result.ret == pytest.ExitCode.OK, result.stdout.str()[-2000:]
    assert (pytester.path / "scheduler.txt").read_text() == "LoadScheduling"
