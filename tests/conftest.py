"""Shared by every test module: what in-process pytester runs need loaded beforehand, and the fixtures."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

# httpx imports httpcore lazily. pytester's in-process runs drop modules first imported during a
# run, and a second copy of httpcore would break httpx's exception mapping for later tests.
import httpcore  # noqa: F401
import pytest
from support.browser_page import OfflinePage, unavailable
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, KEY_A, KEY_B, low_and_excluded, outcomes, record
from support.example_runs import shared_replay

# The cloud credential chains keep what they found in module state that tests replace: load them
# here, so an in-process run and the test that patches them share one copy of each module.
import pytest_ora.judges.providers.aws
import pytest_ora.judges.providers.gcp

# numpy (under scipy and statsmodels) cannot be imported twice in one process: load the statistics
# before pytester's first in-process run would import them and then drop them.
import pytest_ora.stats.statistics  # noqa: F401
from pytest_ora.testing.server import ReferenceJudge

# An in-process pytester run restores sys.modules when it ends, and numpy refuses to be imported
# twice in one process: load the chart stack here, once, so every in-process run finds it loaded.
with contextlib.suppress(ImportError):
    import matplotlib.backends.backend_svg
    import matplotlib.figure  # noqa: F401


# --ora-step-summary is on by default where GitHub Actions names a step summary file: the suite's own runs
# never append to the job's summary (the tests that exercise it set the variable themselves).
os.environ.pop("GITHUB_STEP_SUMMARY", None)


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """How the `judge` fixture starts its server; a module overrides this fixture to change it."""
    return {"keys": {"anthropic": KEY_A, "openai": KEY_B}}


@pytest.fixture
def judge(reference_judge_options: dict[str, Any]) -> Iterator[ReferenceJudge]:
    """The loopback reference judge for one test, accepting only the module's fake keys."""
    with ReferenceJudge(**reference_judge_options) as server:
        yield server


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge) -> pytest.Pytester:
    """A project holding the eval suite and a bundle whose judges are the loopback server."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes, edit=low_and_excluded)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return pytester


@pytest.fixture
def judged(project: pytest.Pytester) -> pytest.Pytester:
    """`project`, judged once live: its report.html is a real run's (the browser tests open it)."""
    assert outcomes(record(project))["passed"] == 6
    return project


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium through Playwright, one per module; skipped (failed under CI) when missing."""
    from pytest_ora.testing.browser import chromium_path, launch

    if chromium_path() is None:
        unavailable("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as playwright:
        # Debian's own browser build; `playwright install` (a download) is never needed.
        launched = launch(playwright)
        yield launched
        launched.close()


@pytest.fixture
def offline(browser: Any) -> Iterator[OfflinePage]:
    """A fresh offline page of that browser (tests/support/browser_page.py), closed afterwards."""
    page = OfflinePage(browser)
    yield page
    page.context.close()


@pytest.fixture(scope="session")
def replayed(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """The shipped example `name` replayed from its cassettes (tests/support/example_runs.py), serially or under
    `workers` xdist workers, once per test session (the xdist workers share it): its output directory, to
    read (copy it before editing it); the run's terminal output is `stdout.txt` in its parent."""
    found: dict[tuple[str, int], Path] = {}

    def get(name: str, workers: int = 0) -> Path:
        if (name, workers) not in found:
            found[name, workers] = shared_replay(name, tmp_path_factory, workers)
        return found[name, workers]

    return get


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """This suite's tests differ a hundredfold in length (a unit test, a subprocess run with signals): with -n
    and no --dist, xdist's worksteal rebalances the last minutes that `load` leaves to one worker. Only this
    suite (this conftest) is affected, never `pytest evals/`, and an explicit --dist is kept."""
    if config.option.numprocesses and config.option.dist == "no":
        config.option.dist = "worksteal"


@pytest.fixture(scope="session")
def _report_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One session-end cache per test process (reports/resultcache.py), new with every run of the suite."""
    return tmp_path_factory.mktemp("report-cache")


@pytest.fixture(autouse=True)
def _session_report_cache(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The end-to-end runs of one test process share one session-end cache, new with the suite's run.

    Its key is the digest of every input, of this package's sources and of the libraries' versions, so
    a hit returns the bytes a fresh computation writes (tests/unit/reports/test_report_cache.py holds it to that);
    most runs here judge the same small bundles with the same reference judge, and drawing their
    charts again was most of each run. A test that replaces the computation in-process (so the key
    would not see the change) is marked `fresh_report` and computes afresh; the cache's own tests
    point PYTEST_ORA_CACHE at a directory of their own."""
    if request.node.get_closest_marker("fresh_report") is not None:
        monkeypatch.setenv("PYTEST_ORA_CACHE", "off")
    else:
        monkeypatch.setenv("PYTEST_ORA_CACHE", str(request.getfixturevalue("_report_cache")))


_E2E = Path(__file__).parent / "e2e"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Everything under tests/e2e/ is marked e2e: `pytest tests/unit` or `-m "not e2e"` is the quick loop."""
    mark = pytest.mark.e2e
    for item in items:
        if _E2E in item.path.parents:
            item.add_marker(mark)
