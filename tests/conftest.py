"""Shared by every test module: what in-process pytester runs need loaded beforehand."""

from __future__ import annotations

import contextlib

# httpx imports httpcore lazily. pytester's in-process runs drop modules first imported during a
# run, and a second copy of httpcore would break httpx's exception mapping for later tests.
import httpcore  # noqa: F401
import pytest

# numpy (under scipy and statsmodels) cannot be imported twice in one process: load the statistics
# before pytester's first in-process run would import them and then drop them.
import pytest_ora.stats.statistics  # noqa: F401

# An in-process pytester run restores sys.modules when it ends, and numpy refuses to be imported
# twice in one process: load the chart stack here, once, so every in-process run finds it loaded.
with contextlib.suppress(ImportError):
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.figure  # noqa: F401


@pytest.fixture(autouse=True)
def _no_report_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test computes its statistics and charts (a test that changes how is not served an old result);
    tests of the cache itself point PYTEST_ORA_CACHE at a directory of their own."""
    monkeypatch.setenv("PYTEST_ORA_CACHE", "off")
