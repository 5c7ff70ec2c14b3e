"""Repository root: pytest-ora's own tests drive pytest end to end through pytester."""

pytest_plugins = ["pytester"]
