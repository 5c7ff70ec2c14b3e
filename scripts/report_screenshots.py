"""Screenshots of a run's report.html for the README, made with Debian's headless Chromium.

    pytest evals/ -n 2 --ora-out ora-results && python scripts/report_screenshots.py ora-results/report.html

Writes docs/report-overview.png (header, summary, charts), docs/report-captures.png (the
capture table filtered to one configuration, a capture's judges opened), docs/report-matrix.png
(the entry x configuration matrix sorted by spread) and docs/report-capture-view.png (a capture
opened from the matrix: prompt, answer, judges). Network blocked.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="a report.html")
    parser.add_argument("--out", type=Path, default=ROOT / "docs", help="directory for the PNGs")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from pytest_ora.testing.browser import launch, offline_context

    blocked: list[str] = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        context = offline_context(browser, blocked, width=1280, height=900)
        page = context.new_page()
        page.goto(args.report.resolve().as_uri(), wait_until="load")
        bottom = page.evaluate(
            "() => { const b = document.getElementById('charts').getBoundingClientRect(); return b.bottom + window.scrollY + 12; }"
        )
        page.screenshot(
            path=str(args.out / "report-overview.png"),
            full_page=True,
            clip={"x": 0, "y": 0, "width": 1280, "height": bottom},
        )
        page.select_option("#f-configuration", "small")
        page.select_option("#f-status", "failure")
        page.locator("#captures").scroll_into_view_if_needed()
        page.evaluate("() => window.scrollTo(0, document.getElementById('captures').offsetTop - 50)")
        page.locator("#capture-rows tr").nth(2).click()
        page.screenshot(path=str(args.out / "report-captures.png"))
        page.keyboard.press("Escape")
        page.locator('#matrix-head th[data-key="spread"]').click()
        page.evaluate("() => window.scrollTo(0, document.getElementById('matrix').offsetTop - 50)")
        page.screenshot(path=str(args.out / "report-matrix.png"))
        page.locator("#matrix-rows tr").first.locator("td[data-index]").first.click()
        page.screenshot(path=str(args.out / "report-capture-view.png"))
        browser.close()
    names = ("report-overview.png", "report-captures.png", "report-matrix.png", "report-capture-view.png")
    print("wrote " + ", ".join(str(args.out / name) for name in names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
