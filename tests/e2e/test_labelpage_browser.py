"""label.html in a real browser (Debian's Chromium through Playwright, offline): a person labels three
captures with mouse and keyboard, the progress survives a reload, the download feeds --ora-labels,
and the run's report.html then shows the Calibration section."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.browser_page import OfflinePage, kept_and_restored
from support.e2e import outcomes

from pytest_ora.__main__ import main

CRITERIA = ("fidelity", "soundness", "completeness", "relevance", "calibration")


def test_a_person_labels_three_captures_downloads_and_the_run_shows_calibration(
    judged: pytest.Pytester,
    offline: OfflinePage,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Given the labelling page of the judged bundle (4 captures, 2 per configuration)
    assert main(["label", str(judged.path / "bundle"), "--sample", "4", "--seed", "3"]) == 0
    page = offline.open(judged.path / "bundle" / "label.html")
    assert page.locator("#progress").inner_text() == "0 of 4 labelled"
    # Blind: no configuration name and no judge score anywhere on screen
    text = page.locator("body").inner_text()
    assert "optimum" not in text.replace("ora-performance", "") and "big-1" not in text and "Judge A" not in text
    assert page.locator("#scoring fieldset").count() == 5
    assert "Did the answer actually execute" in page.locator("#scoring").inner_text()  # the question
    assert "exemplary execution" in page.locator("#scoring").inner_text()  # the anchors

    # When the rater types a name and scores capture 1 by keyboard (a digit scores and moves on)
    page.fill("#rater", "ana")
    page.locator("h1").click()
    for key in "87796":
        page.keyboard.press(key)
    assert page.locator("#progress").inner_text() == "1 of 4 labelled"
    page.keyboard.press("n")
    # capture 2 by mouse, with a note
    for name, value in zip(CRITERIA, ("3", "4", "2", "5", "3")):
        page.locator(f'#scoring fieldset[data-criterion="{name}"] label', has_text=value).first.click()
    page.fill("#notes", 'thin; <script>alert("x")</script> stays text')
    page.click("#next")
    # capture 3 by keyboard again, with j/k to go back and correct one criterion
    page.locator("h1").click()
    for key in "66666":
        page.keyboard.press(key)
    page.keyboard.press("k")  # the last digit left calibration current: k goes back to relevance
    page.keyboard.press("+")  # relevance 6 -> 7
    assert page.locator("#progress").inner_text() == "3 of 4 labelled"

    # Then the progress is kept in the browser: a page opened on it shows it
    def rater_and_list_kept(tab: Any) -> None:
        assert tab.locator("#rater").input_value() == "ana"
        assert tab.locator("nav#list button.done").count() == 3

    kept_and_restored(page, "#progress", "3 of 4 labelled", then=rater_and_list_kept)

    # And the download is labels.jsonl in the --ora-labels format
    with page.expect_download() as info:
        page.click("#download")
    labels = tmp_path / "labels.jsonl"
    info.value.save_as(labels)
    assert info.value.suggested_filename == "labels.jsonl"
    rows = [json.loads(line) for line in labels.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 3 and {row["rater"] for row in rows} == {"ana"}
    assert [row["scores"] for row in rows] == [
        dict(zip(CRITERIA, (8, 7, 7, 9, 6))),
        dict(zip(CRITERIA, (3, 4, 2, 5, 3))),
        dict(zip(CRITERIA, (6, 6, 6, 7, 6))),
    ]
    assert rows[1]["notes"] == 'thin; <script>alert("x")</script> stays text'
    assert "3 captures in labels.jsonl" in page.locator("#download-note").inner_text()
    assert offline.blocked == [] and offline.errors == []

    # When the file is fed back to the run (replaying), with the calibration gate asked for
    result = judged.runpytest(f"--ora-labels={labels}", "--ora-fail-calibration=0.5")
    # Then the gate fails: three labelled captures are too few to judge a judge
    assert (
        outcomes(result)["failed"] == 1 and result.ret == 1
    )  # no capture failed: the one failure is the gate's testcase
    result.stdout.fnmatch_lines(
        ["*FAIL --ora-fail-calibration 0.5: only 3 labelled captures were scored (at least 10*"]
    )
    summary = (judged.path / "ora-results" / "summary.md").read_text(encoding="utf-8")
    assert "## Calibration against human labels" in summary and "3 (small n)" in summary

    # And report.html shows the Calibration section with its judge-vs-human chart
    report = offline.open(judged.path / "ora-results" / "report.html")
    section = report.locator("section#calibration")
    assert section.is_visible()
    assert "3 labels by 1 rater on 3 captures" in section.inner_text()
    box = report.evaluate(
        "() => document.querySelector('figure[data-chart=calibration] svg').getBoundingClientRect().width"
    )
    assert box > 300
    shapes = report.locator("figure[data-chart=calibration] svg path, figure[data-chart=calibration] svg use").count()
    assert shapes > 20
    assert report.locator('nav a[href="#calibration"]').count() == 1
    assert offline.blocked == [] and offline.errors == []


def test_text_from_the_bundle_is_shown_as_text_and_never_runs(tmp_path: Path, offline: OfflinePage) -> None:
    from support.bundle_factory import write_bundle
    from test_labelpage import HOSTILE

    def hostile(items: list[dict[str, object]]) -> list[dict[str, object]]:
        for item in items:
            item["answer"] = HOSTILE
            item["prompt"] = 'Use it on <img src=x onerror="document.title=1"> this case'
        return items

    # Given a bundle whose answers and prompts carry markup and script
    write_bundle(tmp_path / "bundle", edit=hostile)
    assert main(["label", str(tmp_path / "bundle"), "--sample", "2"]) == 0
    dialogs: list[str] = []
    offline.page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page = offline.open(tmp_path / "bundle" / "label.html")

    # Then the markup is on screen as text, no element was made of it and nothing ran
    assert HOSTILE.split(" \u2028")[0] in page.locator("#capture").inner_text()
    assert page.locator("#capture img, #capture b, #capture script").count() == 0
    assert dialogs == [] and page.title().startswith("pytest-ora labelling")
    assert offline.blocked == [] and offline.errors == []
