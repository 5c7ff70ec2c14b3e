"""The pairwise labelling page in a real browser (Debian's Chromium through Playwright, offline): two
people choose the better answer of compare pairs shown side by side, blind and in a shuffled recorded
order; their downloads feed --ora-labels and the run's calibration against their preferences."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.browser_page import OfflinePage, kept_and_restored
from test_pairwise import PAIRS, gold, judged_live, write_project

from pytest_ora.__main__ import main
from pytest_ora.reports.pairpage import shown_order

SCREENSHOTS = os.environ.get("ORA_SCREENSHOT_DIR")
"""A directory to keep the pages' screenshots in (for a reviewer); none taken when unset."""


def _screenshot(page: Any, name: str) -> None:
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / name), full_page=True)


def _choose(page: Any, capture_id: str, wanted: str, seed: int) -> str:
    """The key that picks `wanted` (model-a, model-b or tie) given the order the page shows the pair in."""
    if wanted == "tie":
        return "t"
    first_shown_first = shown_order(seed, capture_id) == "first-second"
    return "1" if (wanted in ("model-a", "first")) == first_shown_first else "2"


def _download(page: Any, target: Path) -> list[dict[str, Any]]:
    with page.expect_download() as info:
        page.click("#download")
    info.value.save_as(target)
    return [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]


def test_two_people_label_pairs_side_by_side_and_the_run_measures_the_judges_against_them(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    browser: Any,
    tmp_path: Path,
) -> None:
    # Given a compare bundle of pairs this test writes, and its labelling page
    write_project(
        pytester.path,
        {"anthropic": "http://127.0.0.1:9/v1/messages", "openai": "http://127.0.0.1:9/v1/chat/completions"},
    )
    assert main(["label", str(pytester.path / "bundle"), "--seed", "5"]) == 0
    html = pytester.path / "bundle" / "label.html"
    data = json.loads(html.read_text(encoding="utf-8").split('id="label-data">')[1].split("</script>")[0])
    order = [pair["id"] for pair in data["pairs"]]
    assert sorted(order) == sorted(f"{entry}/model-a+model-b" for entry, *_ in PAIRS)
    assert {pair["shown"] for pair in data["pairs"]} == {"first-second", "second-first"}  # shuffled, recorded

    ann, bob = OfflinePage(browser), OfflinePage(browser)
    try:
        # When ann labels every pair by keyboard, choosing the test's gold answer as the page shows it
        page = ann.open(html)
        text = page.locator("body").inner_text()
        assert "model-a" not in text and "model-b" not in text  # blind
        assert page.locator("#progress").inner_text() == f"0 of {len(PAIRS)} labelled"
        assert page.locator(".side section").count() == 2  # side by side
        page.fill("#rater", "ann")
        page.locator("h1").click()
        gold_of = {f"{entry}/model-a+model-b": gold(i) for i, (entry, *_) in enumerate(PAIRS)}
        for capture_id in order:
            page.keyboard.press(_choose(page, capture_id, gold_of[capture_id], 5))
        assert page.locator("#progress").inner_text() == f"{len(PAIRS)} of {len(PAIRS)} labelled"
        kept_and_restored(
            page, "#progress", f"{len(PAIRS)} of {len(PAIRS)} labelled"
        )  # kept in the browser, restored on opening
        _screenshot(page, "pair-labelling-page.png")
        ann_rows = _download(page, tmp_path / "ann.jsonl")
        # And bob labels the first four pairs shown with the mouse, always choosing Answer 1
        other = bob.open(html)
        other.fill("#rater", "bob")
        for _ in range(4):
            other.locator(".verdict button", has_text="Answer 1 is better").click()
            other.click("#next")
        bob_rows = _download(other, tmp_path / "bob.jsonl")
        assert ann.errors == [] and bob.errors == [] and ann.blocked == [] and bob.blocked == []
    finally:
        ann.context.close()
        bob.context.close()

    # Then the downloads hold the winner mapped back from the order shown to the pair's configurations
    side = {"model-a": "first", "model-b": "second", "tie": "tie", "second": "second"}
    assert {row["capture_id"]: row["winner"] for row in ann_rows} == {k: side[v] for k, v in gold_of.items()}
    assert [row["capture_id"] for row in bob_rows] == order[:4]
    assert all(row["winner"] == ("first" if row["shown"] == "first-second" else "second") for row in bob_rows)

    # And fed back to a live run, the calibration counts both raters and their agreement
    labels = pytester.path / "labels.jsonl"
    labels.write_text((tmp_path / "ann.jsonl").read_text() + (tmp_path / "bob.jsonl").read_text(), encoding="utf-8")
    result = judged_live(pytester, monkeypatch, "--ora-labels", str(labels))
    result.assert_outcomes(passed=len(PAIRS))
    stats = json.loads((pytester.path / "ora-results" / "stats.json").read_text())["calibration"]
    assert stats["raters"] == ["ann", "bob"] and stats["captures"] == len(PAIRS)
    assert stats["human_vs_human"][0]["n"] == 4
    viewer = OfflinePage(browser)
    try:
        report = viewer.open(pytester.path / "ora-results" / "report.html")
        assert "Calibration against human preferences" in report.locator("section#calibration").inner_text()
        cells = report.locator("#matrix-rows td[data-index]").all_inner_texts()
        assert len(cells) == len(PAIRS) and all(" wins · A " in c or c.startswith("tie · A ") for c in cells)
        assert "Spread" not in report.locator("#matrix-head").inner_text()
        assert report.locator("#capture-table thead").inner_text().split("\t")[4] == "Winner"
        assert report.locator("#capture-rows tr td:nth-child(5)").first.inner_text() in ("model-a", "model-b", "tie")
        assert viewer.errors == [] and viewer.blocked == []
        _screenshot(report, "compare-report.png")
    finally:
        viewer.context.close()
