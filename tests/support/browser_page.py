"""A page of Debian's headless Chromium that loads file:// URLs only (the browser tests' helper).

The `browser` and `offline` fixtures that hand these out are in tests/conftest.py.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.testing.browser import offline_context


def unavailable(reason: str) -> None:
    """Skip a browser test when the browser is missing; with CI set, fail instead."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the browser tests (.ci/run installs Debian's chromium)")
    pytest.skip(reason)


class OfflinePage:
    """A page that may load file:// URLs only; every other request is aborted and remembered."""

    def __init__(self, browser: Any) -> None:
        self.blocked: list[str] = []
        self.errors: list[str] = []
        self.context = offline_context(browser, self.blocked)
        self.page = self.context.new_page()
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, path: Path) -> Any:
        self.page.goto(path.resolve().as_uri())
        return self.page


def kept_for_a_new_tab(
    page: Any, selector: str, expected: str, within: float = 10.0, then: Callable[[Any], None] | None = None
) -> None:
    """A new tab of `page`'s file shows `selector` reading `expected` (the progress the page keeps in the browser).

    Chromium hands a page's localStorage writes to the browser process asynchronously, so the new tab is
    opened again until it shows them, for at most `within` seconds. The new tab reads the browser's storage
    afresh, as the page reopened later does. (A reload of the same page is not what is checked: under CPU
    load, headless Chromium has shown a reloaded page no progress while a second tab of the same file
    showed it.) `then` checks more on the new tab once it shows the progress."""
    deadline = time.monotonic() + within
    other = page.context.new_page()
    try:
        while True:
            other.goto(page.url)
            seen = other.locator(selector).inner_text()
            if seen == expected or time.monotonic() > deadline:
                break
            time.sleep(0.25)
        assert seen == expected, f"a new tab of the page reads {selector} {seen!r}, not {expected!r}"
        if then is not None:
            then(other)
    finally:
        other.close()
