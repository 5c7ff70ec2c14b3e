"""report.html in a real browser: Debian's headless Chromium driven by Playwright, offline, from disk.

Skips only when Chromium (or Playwright) is not installed on this machine; with CI set, a missing
browser fails instead, so CI can never pass without running these tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from support.browser_page import OfflinePage
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, low_and_excluded, outcomes, record

from pytest_ora.reports.charts import CHART_TITLES
from pytest_ora.testing.server import ReferenceJudge


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
        "lens:fishbone-diagram/big-1",
        "lens:historian/big-1",
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


HOSTILE = '<img src=x onerror="window.__pwned=1"></pre></script><script>window.__pwned=2</script>'


def _hostile(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    items = low_and_excluded(items)
    for item in items:
        if item["entry_key"] == "mode:argument-audit" and item["configuration"] == "optimum":
            item["answer"] = item["answer"] + "\n" + "A closing remark on the audit.\n" * 30 + HOSTILE
            item["context"] = "materials: " + HOSTILE
    return items


@pytest.fixture
def hostile(pytester: pytest.Pytester) -> pytest.Pytester:
    """The test_plugin project with markup and script in one answer and its context, judged live."""
    with ReferenceJudge(
        keys={"anthropic": "sk-ant-FAKE-KEY-never-written-4242", "openai": "sk-FAKE-KEY-never-written-8484"}
    ) as judge:
        routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
        write_bundle(pytester.path / "bundle", routes=routes, edit=_hostile)
        pytester.makepyfile(test_ora=EVAL_TEST)
        pytester.makeini("[pytest]\nora_bundle = bundle\n")
        assert outcomes(record(pytester))["passed"] == 6
        # a second run compared with the first: the Since baseline section
        assert record(pytester, "--ora-out", "second", "--ora-baseline", "ora-results").ret == 0
    return pytester


def matrix(page: Any) -> list[list[str]]:
    """The matrix's body as text, row by row (entry, spread, one cell per configuration)."""
    rows: list[list[str]] = page.evaluate(
        "() => [...document.querySelectorAll('#matrix-rows tr')].map(tr => [...tr.children].map(c => c.textContent))"
    )
    return rows


def test_the_matrix_sorts_by_spread_and_a_cell_opens_its_capture_with_prompt_context_and_answer(
    hostile: pytest.Pytester, offline: OfflinePage
) -> None:
    # When the report opens offline
    page = offline.open(hostile.path / "ora-results" / "report.html")

    # Then the matrix has one row per entry, one column per configuration, in the summary's order
    headings = page.locator("#matrix-head th").all_inner_texts()
    assert [h.strip(" ▲▼") for h in headings] == ["Entry", "Spread", "optimum", "big-1"]
    rows = matrix(page)
    assert len(rows) == 6 and all(len(row) == 4 for row in rows)
    assert page.locator("#m-count").inner_text() == "6 of 6 entries · 2 configurations"
    # cells are coloured by the failure threshold: the empty answer (overall < 4) red, the others green
    low = page.locator("#matrix-rows td.cell-fail, #matrix-rows td.cell-fail-strong")
    assert low.count() == 1 and low.first.get_attribute("title") == "mode:causal-dag/big-1"
    assert page.locator("#matrix-rows td.cell-pass, #matrix-rows td.cell-pass-strong").count() == 6
    assert page.locator("#matrix-rows td.cell-skip").count() == 5  # excluded and unscorable captures

    # When the matrix is sorted by spread
    page.locator('#matrix-head th[data-key="spread"]').click()
    spreads = [row[1] for row in matrix(page)]
    numbers = [float(s) for s in spreads if s]
    # Then the widest spread comes first (empty spreads last), and the empty answer's entry leads
    assert numbers == sorted(numbers, reverse=True) and spreads[len(numbers) :] == [""] * (len(spreads) - len(numbers))
    assert matrix(page)[0][0] == "mode:causal-dag"
    page.locator('#matrix-head th[data-key="spread"]').click()  # again: ascending
    again = [float(s) for s in (row[1] for row in matrix(page)) if s]
    assert again == sorted(numbers)
    # a configuration's column sorts too
    page.locator('#matrix-head th[data-key="1"]').click()
    big1 = [row[3] for row in matrix(page)]
    values = [float(v) for v in big1 if v.replace(".", "").isdigit()]
    assert values == sorted(values, reverse=True)

    # When a cell is clicked
    page.locator('#matrix-rows td[title="mode:argument-audit/optimum"]').click()

    # Then its capture view shows the prompt, the context, the answer and both judges
    detail = page.locator("#detail")
    assert detail.is_visible()
    assert detail.locator("h3").inner_text() == "mode:argument-audit/optimum"
    assert detail.locator("pre.text-prompt").inner_text() == (
        "Use argument-audit on the warehouse budget decision of the regional logistics team."
    )
    assert detail.locator("pre.text-context").inner_text() == "materials: " + HOSTILE
    answer = detail.locator("pre.text-answer")
    assert answer.inner_text().endswith(HOSTILE)  # markup from the bundle is shown as text
    text = detail.inner_text()
    assert "Judge A: claude-opus-4-7" in text and "Judge B: gpt-5.4" in text and "Reference judge view of" in text
    # and nothing from the bundle ran or became an element
    assert page.evaluate("() => window.__pwned === undefined")
    assert page.locator("#detail img").count() == 0
    assert offline.errors == [] and offline.blocked == []


def test_a_long_answer_is_collapsed_until_asked(hostile: pytest.Pytester, offline: OfflinePage) -> None:
    page = offline.open(hostile.path / "ora-results" / "report.html")
    page.locator('#matrix-rows td[title="mode:argument-audit/optimum"]').click()
    answer = page.locator("#detail pre.text-answer")
    assert "collapsed" in (answer.get_attribute("class") or "")
    collapsed = answer.bounding_box()
    page.locator("#detail button.more").click()
    assert "collapsed" not in (answer.get_attribute("class") or "")
    opened = answer.bounding_box()
    assert collapsed is not None and opened is not None and opened["height"] > collapsed["height"] * 1.5
    assert page.locator("#detail button.more").inner_text() == "show less"
    assert offline.errors == []


def test_the_since_baseline_section_and_the_earlier_runs(hostile: pytest.Pytester, offline: OfflinePage) -> None:
    # When the second run's report opens (it was compared with the first)
    page = offline.open(hostile.path / "second" / "report.html")

    # Then Since baseline shows every configuration's paired difference and names what changed
    section = page.locator("#since-baseline")
    assert section.is_visible()
    rows = section.locator("table.since-configurations tbody tr").all_inner_texts()
    assert len(rows) == 2 and rows[0].split("\t")[0] == "optimum" and rows[1].split("\t")[0] == "big-1"
    assert all("0.00" in row for row in rows)
    assert "Nothing: the same rubric version and digest" in section.inner_text()
    assert "12 capture ids in both runs" in section.inner_text()
    assert page.locator('nav a[href="#since-baseline"]').count() == 1
    # And the first run's report has no such section, and no earlier run
    first = offline.open(hostile.path / "ora-results" / "report.html")
    assert first.locator("#since-baseline").count() == 0
    assert "No earlier runs" in first.locator("#earlier-runs").inner_text()
    assert offline.errors == [] and offline.blocked == []


@pytest.fixture(scope="module")
def kinds(replayed: Callable[[str], Path]) -> dict[str, Path]:
    """The compare, checklist and scorecard examples, each replayed once."""
    return {name: replayed(name) for name in ("compare", "checklist", "scorecard")}


def test_every_kind_renders_in_the_matrix_and_opens_its_capture(kinds: dict[str, Path], offline: OfflinePage) -> None:
    import json

    for name, out in kinds.items():
        ledger = [json.loads(line) for line in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
        page = offline.open(out / "report.html")
        # one cell per capture of the ledger, each opening it
        assert page.locator("#matrix-rows td[data-index]").count() == len(ledger), name
        cells = {
            cell.get_attribute("title"): cell.inner_text() for cell in page.locator("#matrix-rows td[data-index]").all()
        }
        first = ledger[0]
        if name == "compare":
            # a column per pair; the cell names the winner and each judge's verdict, never a score
            assert first["configuration"] == "team-1+team-2"
            winner = first["winner"] if first["winner"] in ("team-1", "team-2") else None
            assert cells[first["capture_id"]].startswith(f"{winner} wins · A " if winner else "tie · A ")
            assert f"{first['overall']:.2f}" not in cells[first["capture_id"]]
        elif name == "scorecard":
            # no overall: the grades counted
            assert first["overall"] is None
            assert any(word in cells[first["capture_id"]] for word in ("pass", "partial", "fail"))
        else:
            assert cells[first["capture_id"]] == f"{first['overall']:.2f}"
        page.locator(f'#matrix-rows td[title="{first["capture_id"]}"]').click()
        detail = page.locator("#detail")
        assert detail.is_visible() and detail.locator("pre.text-prompt").count() == 1, name
        if name == "compare":
            assert detail.locator("pre.text-answer").count() == 2
            assert "Answer of team-1" in detail.inner_text() and "Answer of team-2" in detail.inner_text()
        if name == "scorecard":
            grades = detail.locator("table.grades tr").all_inner_texts()
            assert len(grades) == 1 + len(first["grades"]) and any("PARTIAL (3 blockers)" in g for g in grades)
        if name == "checklist":
            assert detail.locator("pre.text-context").count() == 1  # the code under review
        assert offline.errors == [] and offline.blocked == [], name
