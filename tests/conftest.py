"""Shared by every test module: what in-process pytester runs need loaded beforehand."""

from __future__ import annotations

import contextlib

# An in-process pytester run restores sys.modules when it ends, and numpy refuses to be imported
# twice in one process: load the chart stack here, once, so every in-process run finds it loaded.
with contextlib.suppress(ImportError):
    import matplotlib.backends.backend_svg  # noqa: F401
    import matplotlib.figure  # noqa: F401
