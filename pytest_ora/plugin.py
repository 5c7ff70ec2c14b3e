"""pytest-ora's wiring: options, markers, fixtures and hooks. The work lives in the other modules."""

from __future__ import annotations

from collections.abc import Generator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from .vocabulary import FAMILIES, RECORD_MODES

SESSION_NAME = "ora-session"
_CAPTURE = pytest.StashKey[dict[str, Any]]()
"""What an item's capture test produced: its record, or a dry run's estimate."""
_OPTIONS: tuple[tuple[str, str, Any], ...] = (
    # name, help, default (ini values are strings, checked where they are read)
    ("bundle", "capture bundle directory to score", None),
    ("out", "directory for the ledger, tables and methodology note", "ora-results"),
    ("cassettes", "directory of recorded judge calls", "cassettes"),
    ("record", f"judge call recording: {', '.join(RECORD_MODES)}", "none"),
    ("reasks", "re-asks after an invalid judge reply", "1"),
    ("retries", "retries of a transport fault per judge call", "6"),
    ("timeout", "seconds to wait for a judge's reply", "120"),
    ("panel-label", "name of a substituted judging panel", None),
    ("scoring-date", "scoring date for the methodology note (default today, UTC)", None),
    ("budget-usd", "stop starting captures once live judge spend reaches this many USD", None),
    ("concurrency", "captures judged at once in one process (judging ahead; without xdist)", "1"),
    ("prices", "YAML file of model-prefix: {input, output} USD per million tokens", None),
)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from . import newhooks

    pluginmanager.add_hookspecs(newhooks)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ora", "pytest-ora: score a capture bundle with two API judges")
    for name, help_text, default in _OPTIONS:
        dest = f"ora_{name.replace('-', '_')}"
        choices = RECORD_MODES if name == "record" else None
        group.addoption(f"--ora-{name}", dest=dest, default=None, choices=choices, help=help_text)
        parser.addini(dest, help_text, type="string", default=default)
    group.addoption(
        "--ora-dry-run", dest="ora_dry_run", action="store_true", default=False,
        help="build every packet and estimate tokens and cost without calling a judge",
    )
    group.addoption(
        "--ora-substitute", dest="ora_substitute", action="append", default=[], metavar="SLOT=ROLE",
        help="replace a judge: big-1|big-2=ROLE or =provider:model@route (needs --ora-panel-label)",
    )


def pytest_configure(config: pytest.Config) -> None:
    from .session import OraSession

    for family in FAMILIES:
        config.addinivalue_line("markers", f"{family}: pytest-ora captures of the {family} family")
    session = OraSession(config, _options(config))
    config.pluginmanager.register(session, SESSION_NAME)
    if session.active:
        for name in _configurations(session):
            config.addinivalue_line("markers", f"{name}: pytest-ora captures of configuration {name}")


def _session(config: pytest.Config) -> Any:
    return config.pluginmanager.get_plugin(SESSION_NAME)


def _options(config: pytest.Config) -> Any:
    from .session import Options, today

    def get(name: str) -> Any:
        dest = f"ora_{name.replace('-', '_')}"
        value = config.getoption(dest)
        if value is not None:
            return value, config.invocation_params.dir
        return config.getini(dest), config.rootpath

    def path(name: str) -> Path | None:
        value, base = get(name)
        return None if not value else (base / str(value)).resolve()

    def number(name: str, kind: type) -> Any:
        value, _ = get(name)
        try:
            result = kind(value)
        except ValueError:
            raise pytest.UsageError(f"--ora-{name} takes a number, got {value!r}") from None
        if result < 0:
            raise pytest.UsageError(f"--ora-{name} cannot be negative, got {value!r}")
        return result

    bundle = path("bundle")
    if bundle is None:
        hooked = config.hook.pytest_ora_bundle(config=config)
        bundle = Path(hooked).resolve() if hooked else None
    budget, _ = get("budget-usd")
    try:
        budget_usd = None if budget in (None, "") else Decimal(str(budget))
    except ArithmeticError:
        raise pytest.UsageError(f"--ora-budget-usd takes an amount in USD, got {budget!r}") from None
    if budget_usd is not None and (not budget_usd.is_finite() or budget_usd <= 0):
        raise pytest.UsageError(f"--ora-budget-usd must be a positive amount, got {budget!r}")
    record, _ = get("record")
    if record not in RECORD_MODES:
        raise pytest.UsageError(f"ora_record must be one of {', '.join(RECORD_MODES)}, got {record!r}")
    return Options(
        bundle=bundle,
        out=path("out") or Path("ora-results").resolve(),
        cassettes=path("cassettes") or Path("cassettes").resolve(),
        record=record,
        reasks=number("reasks", int),
        concurrency=max(1, number("concurrency", int)),
        retries=number("retries", int),
        timeout=number("timeout", float),
        substitutes=tuple(config.getoption("ora_substitute") or ()),
        panel_label=get("panel-label")[0] or None,
        scoring_date=get("scoring-date")[0] or today(),
        budget_usd=budget_usd,
        prices=path("prices"),
        dry_run=bool(config.getoption("ora_dry_run")),
    )


def _configurations(session: Any) -> list[str]:
    from .bundle import read_yaml

    try:
        data, _ = read_yaml(session.options.bundle / "bundle.yaml")
        return [str(name) for name in data.get("configurations", [])]
    except Exception:  # intake reports a broken manifest with its file, line and field
        return []


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    ora = _session(session.config)
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
        raise pytest.UsageError("ora_capture needs a capture bundle: pass --ora-bundle or set ora_bundle")
    params = [
        pytest.param(
            planned,
            id=planned.capture.capture_id,
            marks=(getattr(pytest.mark, planned.capture.family), getattr(pytest.mark, planned.capture.configuration)),
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


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    _session(item.config).annotate(item, call, report, _CAPTURE)
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, Any] | None:
    if report.when == "call" and report.passed and getattr(report, "ora_failure", False):
        return "lowscore", "L", ("LOWSCORE", {"yellow": True})
    return None


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    ora = _session(config)
    if ora.active and not ora.is_worker:
        terminalreporter.write_sep("=", "ora summary")
        for line in ora.summary_lines():
            terminalreporter.write_line(line)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    ora = _session(session.config)
    try:
        if ora.active and not ora.is_worker:
            ora.finish(exitstatus)
            if ora.report_error is not None:
                session.exitstatus = pytest.ExitCode.USAGE_ERROR
    finally:
        ora.close()


@pytest.fixture
def ora(request: pytest.FixtureRequest) -> Any:
    """Judge this item's capture and keep its record for the ledger."""
    from .capture import CaptureTest

    return CaptureTest(_session(request.config), request.node, _CAPTURE)
