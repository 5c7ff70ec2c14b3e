"""report.html in a real browser: Debian's headless Chromium driven by Playwright, offline, from disk.

Skips only when Chromium (or Playwright) is not installed on this machine; with CI set, a missing
browser fails instead, so CI can never pass without running these tests.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bundle_factory import write_bundle
from e2e import EVAL_TEST, low_and_excluded, outcomes, record

from pytest_ora.reports.charts import CHART_TITLES
from pytest_ora.testing.browser import chromium_path, launch, offline_context
from pytest_ora.testing.server import ReferenceJudge


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"{reason}; CI must run the browser tests (.ci/run installs Debian's chromium)")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if chromium_path() is None:
        _unavailable("Chromium is not installed (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[dev]')")
    with sync_playwright() as playwright:
        # Debian's own browser build; `playwright install` (a download) is never needed.
        launched = launch(playwright)
        yield launched
        launched.close()


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


@pytest.fixture
def offline(browser: Any) -> Iterator[OfflinePage]:
    page = OfflinePage(browser)
    yield page
    page.context.close()


def rendered_charts(page: Any) -> dict[str, dict[str, float]]:
    """Each chart's SVG box and how many shapes it drew."""
    result: dict[str, dict[str, float]] = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('figure.chart')].map(f => {
            const svg = f.querySelector('svg'); const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
            return [f.dataset.chart, {width: box.width, height: box.height,
                    shapes: svg ? svg.querySelectorAll('path, rect, text, use').length : 0}];
        }))"""
    )
    return result


@pytest.fixture
def judged(pytester: pytest.Pytester) -> pytest.Pytester:
    """The test_plugin project, judged once live: its report.html is a real run's."""
    with ReferenceJudge(keys={"anthropic": "sk-ant-FAKE-KEY-never-written-4242", "openai": "sk-FAKE-KEY-never-written-8484"}) as judge:
        routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
        write_bundle(pytester.path / "bundle", routes=routes, edit=low_and_excluded)
        pytester.makepyfile(test_ora=EVAL_TEST)
        pytester.makeini("[pytest]\nora_bundle = bundle\n")
        assert outcomes(record(pytester))["passed"] == 6
    return pytester


def test_the_report_opens_offline_renders_every_chart_filters_and_opens_a_capture(
    judged: pytest.Pytester, offline: OfflinePage
) -> None:
    # When a run's report.html is opened from disk with the network blocked
    page = offline.open(judged.path / "ora-results" / "report.html")

    # Then nothing was fetched, nothing logged an error, and every chart drew a visible SVG
    assert offline.blocked == []
    assert offline.errors == []
    charts = rendered_charts(page)
    # (the run wrote stats.json: its paired differences are drawn too)
    assert set(charts) == {"overall", "heatmap", "failures", "agreement", "families", "paired"}
    for name, box in charts.items():
        assert box["width"] > 100 and box["height"] > 50 and box["shapes"] > 10, name

    # And the capture table lists every capture; a filter narrows it
    rows = page.locator("#capture-rows tr")
    assert rows.count() == 12
    assert page.locator("#count").inner_text() == "12 of 12 captures"
    page.select_option("#f-configuration", "big-1")
    assert rows.count() == 6
    assert set(page.locator("#capture-rows tr td:nth-child(3)").all_inner_texts()) == {"big-1"}
    page.select_option("#f-status", "failure")
    assert page.locator("#capture-rows tr td:first-child").all_inner_texts() == ["mode:causal-dag/big-1"]
    page.select_option("#f-status", "excluded")
    page.select_option("#f-family", "lens")
    assert sorted(page.locator("#capture-rows tr td:first-child").all_inner_texts()) == [
        "lens:fishbone-diagram/big-1", "lens:historian/big-1",
    ]

    # And a capture opens its judges' scores, notes and impression
    page.select_option("#f-status", "")
    page.select_option("#f-family", "mode")
    page.locator("#capture-rows tr").first.click()
    detail = page.locator("#detail")
    assert detail.is_visible()
    text = detail.inner_text()
    assert "Judge A: claude-opus-4-7" in text and "Judge B: gpt-5.4" in text
    assert "fidelity" in text and "Reference judge view of" in text
    assert offline.errors == []


def test_statistics_and_compare_draw_their_charts_when_present(tmp_path: Path, offline: OfflinePage) -> None:
    from test_report_page import full_page_data

    from pytest_ora.reports.html import render_html

    # When the page data carries statistics and compare results
    path = tmp_path / "report.html"
    path.write_text(render_html(full_page_data()), encoding="utf-8")
    page = offline.open(path)

    # Then every chart the page knows is drawn, and the verdict and tables are shown
    assert offline.errors == [] and offline.blocked == []
    charts = rendered_charts(page)
    assert set(charts) == set(CHART_TITLES)
    for name, box in charts.items():
        assert box["width"] > 100 and box["height"] > 50 and box["shapes"] > 5, name
    statistics = page.locator("#statistics").inner_text()
    assert "Paired comparisons" in statistics and "Hypotheses: PASS" in statistics and "Compare" in statistics
