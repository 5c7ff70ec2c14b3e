"""A page of Debian's headless Chromium that loads file:// URLs only (the browser tests' helper).

The `browser` and `offline` fixtures that hand these out are in tests/conftest.py.
"""

from __future__ import annotations

import json
import os
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


def kept_and_restored(page: Any, selector: str, expected: str, then: Callable[[Any], None] | None = None) -> None:
    """The page keeps its progress in the browser, and a page opened on that storage shows `selector` reading `expected`.

    Two halves, each the page's own work: the page has written its state to localStorage under the key
    its data names, and a fresh page of the same file whose localStorage holds that state (set before the
    page's script runs) restores it. Carrying localStorage from one tab to the next is Chromium's part and
    is not what is checked: under CPU load, headless Chromium has shown every page opened after the writes
    (a new tab, or the same page reloaded, 10 s later) an empty localStorage while the writing page still
    read its values. `then` checks more on the restored page."""
    key = page.evaluate('() => JSON.parse(document.getElementById("label-data").textContent).storage_key')
    saved = page.evaluate("(key) => window.localStorage.getItem(key)", key)
    assert saved is not None, f"the page wrote nothing to localStorage under {key!r}"
    blocked: list[str] = []
    context = offline_context(page.context.browser, blocked)
    try:
        context.add_init_script(f"window.localStorage.setItem({json.dumps(key)}, {json.dumps(saved)});")
        restored = context.new_page()
        restored.goto(page.url)
        seen = restored.locator(selector).inner_text()
        assert seen == expected, f"a page opened on the saved progress reads {selector} {seen!r}, not {expected!r}"
        if then is not None:
            then(restored)
        assert blocked == []
    finally:
        context.close()
