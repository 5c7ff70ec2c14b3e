"""A page of Debian's headless Chromium that loads file:// URLs only (the browser tests' helper).

The `browser` and `offline` fixtures that hand these out are in tests/conftest.py.
"""

from __future__ import annotations

import os
import time
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


def reload_showing(page: Any, selector: str, expected: str, within: float = 10.0) -> None:
    """Reload `page` until `selector` reads `expected` again, failing after `within` seconds.

    A page keeps its progress in localStorage; Chromium hands a page's writes to the browser process
    asynchronously, so a reload issued the instant after the last write may start before they land.
    A person reloads seconds later: the check allows that, never an unbounded wait."""
    deadline = time.monotonic() + within
    while True:
        page.reload()
        shown = page.locator(selector).inner_text()
        if shown == expected or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert shown == expected, f"after reloading, {selector} reads {shown!r}, not {expected!r}"
