"""Repository root: pytest-ora's own tests drive pytest end to end through pytester.

This file is also loaded by `pytest evals/` (the sample) and by every xdist worker of it, so it
imports nothing heavy: what the tests need loaded first is in tests/conftest.py.
"""

pytest_plugins = ["pytester"]
