"""Repository root: pytest-ora's own tests drive pytest end to end through pytester."""

# httpx imports httpcore lazily. pytester's in-process runs drop modules first imported during a
# run, and a second copy of httpcore would break httpx's exception mapping for later tests.
import httpcore  # noqa: F401

# numpy (under scipy and statsmodels) cannot be imported twice in one process: load the statistics
# before pytester's first in-process run would import them and then drop them.
import pytest_ora.stats.statistics  # noqa: F401

pytest_plugins = ["pytester"]
