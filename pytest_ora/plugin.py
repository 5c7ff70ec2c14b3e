"""pytest-ora's wiring: options, markers, fixtures and hooks. The work lives in the other modules."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import pytest

from .core.vocabulary import FAMILIES

SESSION_NAME = "ora-session"
_CAPTURE = pytest.StashKey[dict[str, Any]]()
"""What an item's capture test produced: its record, or a dry run's estimate."""


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import newhooks

    pluginmanager.add_hookspecs(newhooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    from .harness.options import add_options

    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    from .harness.options import read_options
    from .harness.session import OraSession

    for family in FAMILIES:
        config.addinivalue_line("markers", f"{family}: pytest-ora captures of the {family} family")
    session = OraSession(config, read_options(config))
    config.pluginmanager.register(session, SESSION_NAME)
    if session.active:
        for name in _configurations(session):
            config.addinivalue_line("markers", f"{name}: pytest-ora captures of configuration {name}")


def _session(config: pytest.Config) -> Any:
    return config.pluginmanager.get_plugin(SESSION_NAME)


def _configurations(session: Any) -> list[str]:
    from .bundle.read import read_yaml

    try:
        data, _ = read_yaml(session.options.bundle / "bundle.yaml")
        return [str(name) for name in data.get("configurations", [])]
    except Exception:  # intake reports a broken manifest with its file, line and field
        return []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    ora = _session(session.config)
    ora.session = session
    if ora.active and not ora.is_worker:
        ora.start()


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    ora = _session(config)
    return ora.header() if ora.active else None


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "ora_capture" not in metafunc.fixturenames:
        return
    ora = _session(metafunc.config)
    if not ora.active:
        # pytest shows a CollectError as its message alone (a UsageError here prints a traceback);
        # the run then exits as a usage error.
        from .harness.session import NO_BUNDLE

        ora.usage_errors.append(NO_BUNDLE)
        raise pytest.Collector.CollectError(
            f"{metafunc.definition.nodeid} {NO_BUNDLE}: pass --ora-bundle=PATH, "
            "set ora_bundle in the ini file, or implement pytest_ora_bundle in a conftest.py"
        )
    families = sorted({planned.capture.family for planned in ora.plan().captures} - set(FAMILIES))
    for family in families:  # other rubrics' free family slugs are markers too
        metafunc.config.addinivalue_line("markers", f"{family}: pytest-ora captures of the {family} family")
    params = [
        pytest.param(
            planned,
            id=planned.capture.capture_id,
            # a compare item (configuration A+B) carries both configurations' markers
            marks=(getattr(pytest.mark, planned.capture.family),
                   *(getattr(pytest.mark, name) for name in planned.configurations)),
        )
        for planned in ora.plan().captures
    ]
    metafunc.parametrize("ora_capture", params)


def pytest_collection_finish(session: pytest.Session) -> None:
    ora = _session(session.config)
    if ora.active:
        ora.note_items(session.items)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    ora = _session(node.config)
    if ora.active:
        ora.note_selection(ids)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    ora = _session(node.config)
    if ora.active:
        ora.limits.configure_node(node)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _session(item.config).annotate(item, call, report, _CAPTURE)
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, Any] | None:
    from .harness.outcomes import verbose_word

    return verbose_word(report)


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    from .harness.outcomes import lowscore_lines, shows_lowscores

    ora = _session(config)
    if not ora.active or ora.is_worker:
        return
    lines = ora.summary_lines(config.get_terminal_writer().fullwidth)
    if not lines:
        return  # --collect-only, or a run stopped before it started: nothing was written
    terminalreporter.write_sep("=", "ora summary")
    for line in lines:
        terminalreporter.write_line(line)
    low = terminalreporter.stats.get("lowscore", [])
    if low and shows_lowscores(config):
        terminalreporter.write_sep("=", "ora low scores (-rL)")
        for line in lowscore_lines(low, ora.failure_rule()):
            terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    ora = _session(session.config)
    if ora.usage_errors:
        session.exitstatus = pytest.ExitCode.USAGE_ERROR
    try:
        if ora.active and not ora.is_worker:
            ora.finish(exitstatus)
            if ora.report_error is not None or ora.journal_error is not None:
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
            elif ora.gate_failures and session.exitstatus == pytest.ExitCode.OK:
                session.exitstatus = pytest.ExitCode.TESTS_FAILED
    finally:
        ora.close()


@pytest.fixture
def ora(request: pytest.FixtureRequest) -> Any:
    """Judge this item's capture and keep its record for the ledger."""
    from .harness.capture import CaptureTest

    return CaptureTest(_session(request.config), request.node, _CAPTURE)
