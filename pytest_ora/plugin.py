"""pytest-ora's wiring: options, markers, fixtures and hooks. The work lives in the other modules.

A run registers its shared state (harness/run.py) and the roles its process plays: the
controller (harness/controller.py) where the terminal is, the worker (harness/worker.py) where
items run; a run without -n plays both.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

import pytest

from .core.vocabulary import FAMILIES

if TYPE_CHECKING:  # the harness is imported when pytest configures, not when it loads the plugin
    from .harness.capture import CaptureTest
    from .harness.controller import OraController
    from .harness.judgment.fixture import OraJudge
    from .harness.run import OraRun
    from .harness.worker import OraWorker

SESSION_NAME = "ora-session"
CONTROLLER_NAME = "ora-controller"
WORKER_NAME = "ora-worker"
_CAPTURE = pytest.StashKey[dict[str, Any]]()
"""What an item's capture test produced: its record, or a dry run's estimate."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import newhooks

    pluginmanager.add_hookspecs(newhooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    from .harness.options import add_options

    add_options(parser)


def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]) -> None:
    from .harness.options import check_spelling

    check_spelling(args, parser)


def pytest_configure(config: pytest.Config) -> None:
    from .harness.options import read_options
    from .harness.run import OraRun
    from .harness.xdist import distributes, is_worker

    for family in FAMILIES:
        config.addinivalue_line("markers", f"{family}: pytest-ora captures of the {family} family")
    run = OraRun(config, read_options(config))
    config.pluginmanager.register(run, SESSION_NAME)
    if not is_worker(config):  # an xdist worker never imports the controller's report modules
        from .harness.controller import OraController

        controller = OraController(run)
        config.pluginmanager.register(controller, CONTROLLER_NAME)
        if run.active and not _shows_only(config):
            controller.configure()  # a usage error here exits 4 before collection
    if not distributes(config):  # an xdist controller runs no item: it never loads the judges' HTTP machinery
        from .harness.worker import OraWorker

        config.pluginmanager.register(OraWorker(run), WORKER_NAME)
    if run.active:
        for name in _configurations(run):
            config.addinivalue_line("markers", f"{name}: pytest-ora captures of configuration {name}")


def _shows_only(config: pytest.Config) -> bool:
    """--help or --markers: pytest configures to show them and runs no session."""
    return bool(config.getoption("help", False) or config.getoption("markers", False))


def _run(config: pytest.Config) -> OraRun:
    run: OraRun | None = config.pluginmanager.get_plugin(SESSION_NAME)
    assert run is not None, "registered in pytest_configure"
    return run


def _controller(config: pytest.Config) -> OraController | None:
    """The controller, in the process that owns the terminal; None on an xdist worker."""
    controller: OraController | None = config.pluginmanager.get_plugin(CONTROLLER_NAME)
    return controller


def _worker(config: pytest.Config) -> OraWorker | None:
    """The worker, in a process that runs items; None on an xdist controller."""
    worker: OraWorker | None = config.pluginmanager.get_plugin(WORKER_NAME)
    return worker


def _configurations(run: OraRun) -> list[str]:
    from .bundle.read import read_yaml

    assert run.options.bundle is not None
    try:
        data, _ = read_yaml(run.options.bundle / "bundle.yaml")
        return [str(name) for name in data.get("configurations", [])]
    except Exception:  # intake reports a broken manifest with its file, line and field
        return []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    controller = _controller(session.config)
    if controller is not None:
        controller.session = session
        if controller.run.active:
            controller.start()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    run = _run(config)
    return run.header() if run.active else None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "ora_capture" not in metafunc.fixturenames:
        return
    run = _run(metafunc.config)
    if not run.active:
        # pytest shows a CollectError as its message alone (a UsageError here prints a traceback);
        # the run then exits as a usage error.
        from .harness.run import NO_BUNDLE

        run.usage_errors.append(NO_BUNDLE)
        raise pytest.Collector.CollectError(
            f"{metafunc.definition.nodeid} {NO_BUNDLE}: pass --ora-bundle=PATH, "
            "set ora_bundle in the ini file, or implement pytest_ora_bundle in a conftest.py"
        )
    families = sorted({planned.capture.family for planned in run.plan().captures} - set(FAMILIES))
    for family in families:  # other rubrics' free family slugs are markers too
        metafunc.config.addinivalue_line("markers", f"{family}: pytest-ora captures of the {family} family")
    marks: dict[str, pytest.MarkDecorator] = {}  # one mark object per name, not two per item (100x: 240,000)

    def mark(name: str) -> pytest.MarkDecorator:
        if name not in marks:
            marks[name] = getattr(pytest.mark, name)
        return marks[name]

    params = [
        pytest.param(
            planned,
            id=planned.capture.capture_id,
            # a compare item (configuration A+B) carries both configurations' markers
            marks=(mark(planned.capture.family), *(mark(name) for name in planned.configurations)),
        )
        for planned in run.plan().captures
    ]
    metafunc.parametrize("ora_capture", params)


def pytest_itemcollected(item: pytest.Item) -> None:
    # `-k helpful_base` selects the captures of a dataset imported as family helpful-base: names as given match too
    callspec = getattr(item, "callspec", None)
    planned = callspec.params.get("ora_capture") if callspec is not None else None
    if planned is not None:
        from .harness.selection import given_names

        item.extra_keyword_matches.update(given_names(planned.capture.metadata))


def pytest_collection_finish(session: pytest.Session) -> None:
    if not _run(session.config).active:
        return
    worker = _worker(session.config)
    if worker is not None:
        worker.note_items(session.items)
    controller = _controller(session.config)
    if controller is not None:
        _selected(controller, [item.nodeid for item in session.items])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    controller = _controller(node.config)
    if controller is not None and controller.run.active:
        _selected(controller, ids)


def _selected(controller: OraController, nodeids: list[str]) -> None:
    """The items are collected: count the selection, then take the judging strategy's step before them."""
    controller.note_selection(nodeids)
    controller.judge_before_items(nodeids)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    from .harness.schedule import make_scheduler

    run = _run(config)
    return make_scheduler(config, log, run.options) if run.active else None


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    run = _run(node.config)
    if run.active:
        run.configure_node(node)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    worker = _worker(item.config)
    if worker is not None:
        worker.annotate(item, call, report, _CAPTURE)
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, Any] | None:
    from .harness.outcomes import verbose_word

    return verbose_word(report)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    from .harness.outcomes import lowscore_lines, shows_lowscores

    controller = _controller(config)
    if controller is None or not controller.run.active:
        return
    lines = controller.reporter.summary_lines(config.get_terminal_writer().fullwidth)
    if not lines:
        return  # --collect-only, or a run stopped before it started: nothing was written
    terminalreporter.write_sep("=", "ora summary")
    for line in lines:
        terminalreporter.write_line(line)
    low = terminalreporter.stats.get("lowscore", [])
    if low and shows_lowscores(config):
        terminalreporter.write_sep("=", "ora low scores (-rL)")
        for line in lowscore_lines(low, controller.reporter.failure_rule()):
            terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    run = _run(session.config)
    controller = _controller(session.config)
    worker = _worker(session.config)
    if run.usage_errors:
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
    try:
        if run.active and controller is not None:
            controller.finish(exitstatus)
            if controller.report_error is not None or controller.journal_error is not None:
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
            elif controller.gate_failures and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
    finally:
        if controller is not None:
            controller.close()
        if worker is not None:
            worker.close()


@pytest.fixture
def ora(request: pytest.FixtureRequest) -> CaptureTest:
    """Judge this item's capture and keep its record for the ledger."""
    from .harness.capture import CaptureTest

    worker = _worker(request.config)
    assert worker is not None, "capture items run only where a worker is registered"
    return CaptureTest(worker, request.node, _CAPTURE)


@pytest.fixture
def ora_judge(request: pytest.FixtureRequest) -> OraJudge:
    """Judge one response in a mode of the judge skill inside any test; its exchanges are recorded in the test's own cassette."""
    from .harness.judgment.fixture import for_test

    return for_test(request, _run(request.config))
