"""Debian's Chromium, driven by Playwright, for looking at report.html offline.

Used by the browser tests, the report benchmark and the screenshot script. The browser is the
system's (`apt-get install chromium`), passed to Playwright as its executable: nothing is
downloaded. Every request other than file:// is aborted and remembered.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

__all__ = ["CHROMIUM_ENV", "chromium_path", "launch", "offline_context"]

CHROMIUM_ENV = "ORA_CHROMIUM"
"""An explicit Chromium executable; else `chromium` or `chromium-browser` on PATH."""


def chromium_path() -> str | None:
    """The Chromium executable to use, or None when none is installed."""
    configured = os.environ.get(CHROMIUM_ENV)
    if configured:
        return configured
    return shutil.which("chromium") or shutil.which("chromium-browser")


def launch(playwright: Any, *args: str) -> Any:
    """Headless Chromium from the system; --no-sandbox because CI runs it as root."""
    executable = chromium_path()
    if executable is None:
        raise RuntimeError("Chromium is not installed: apt-get install chromium")
    return playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", *args])


def offline_context(browser: Any, blocked: list[str], width: int = 1400, height: int = 1000) -> Any:
    """A browser context that may load file:// URLs only; other URLs are aborted and added to `blocked`."""
    context = browser.new_context(viewport={"width": width, "height": height})

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if url.startswith("file://"):
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort()

    context.route("**/*", route)
    return context
