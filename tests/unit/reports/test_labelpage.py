"""label.html's sample and page: seeded, stratified by configuration, blind, nothing from the bundle runs."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest
from support.bundle_factory import write_bundle

from pytest_ora.__main__ import main
from pytest_ora.bundle.intake import intake
from pytest_ora.reports.labelpage import _judgeable, label_page, stratified_sample

ROOT = Path(__file__).parents[3]
HOSTILE = '</script><script>alert(1)</script><img src=x onerror="alert(2)"> & \u2028 </textarea>'


@pytest.fixture(scope="module")
def sample_pool() -> tuple[list[object], list[str]]:
    plan = intake(ROOT / "evals" / "bundle")
    return _judgeable(plan), list(plan.bundle.manifest.configurations)


def test_the_sample_is_stratified_by_configuration_and_seeded(sample_pool: tuple[list[object], list[str]]) -> None:
    pool, lanes = sample_pool
    chosen = stratified_sample(pool, lanes, 60, 7)
    counts = Counter(p.capture.configuration for p in chosen)
    assert sum(counts.values()) == 60 and set(counts) == set(lanes)
    assert max(counts.values()) - min(counts.values()) <= 1  # the six lanes hold about the same number of captures
    assert len({p.capture.capture_id for p in chosen}) == 60
    again = stratified_sample(pool, lanes, 60, 7)
    assert [p.capture.capture_id for p in again] == [p.capture.capture_id for p in chosen]
    other = stratified_sample(pool, lanes, 60, 8)
    assert {p.capture.capture_id for p in other} != {p.capture.capture_id for p in chosen}
    # Shuffled: the configurations are interleaved, not in blocks
    firsts = [p.capture.configuration for p in chosen[:12]]
    assert len(set(firsts)) >= 4


def test_small_samples_still_reach_every_configuration_and_big_ones_take_all(
    sample_pool: tuple[list[object], list[str]],
) -> None:
    pool, lanes = sample_pool
    assert {p.capture.configuration for p in stratified_sample(pool, lanes, 6, 0)} == set(lanes)
    assert len(stratified_sample(pool, lanes, 3, 0)) == 3
    assert len(stratified_sample(pool, lanes, 10_000, 0)) == len(pool)
    # Unequal strata get proportional shares (largest remainders)
    uneven = [p for p in pool if p.capture.configuration in ("optimum", "big-1")][:300]
    uneven = [p for p in uneven if p.capture.configuration == "optimum"][:30] + [
        p for p in uneven if p.capture.configuration == "big-1"
    ][:10]
    counts = Counter(p.capture.configuration for p in stratified_sample(uneven, ["optimum", "big-1"], 8, 0))
    assert counts == {"optimum": 6, "big-1": 2}


def page_data(html: str) -> dict[str, object]:
    found = re.search(r'<script type="application/json" id="label-data">(.*?)</script>', html, re.S)
    assert found is not None
    data: dict[str, object] = json.loads(found.group(1))
    return data


def test_the_page_is_blind_self_contained_and_escapes_everything(tmp_path: Path) -> None:
    def hostile(items: list[dict[str, object]]) -> list[dict[str, object]]:
        items[0]["answer"] = HOSTILE
        items[0]["prompt"] = "Use it on <b>this</b> case"
        return items

    write_bundle(tmp_path / "bundle", edit=hostile)
    html, count = label_page(tmp_path / "bundle", 100, 0)
    data = page_data(html)
    captures = data["captures"]
    assert count == len(captures) == 8
    # Blind: no configuration or judge score travels in the page's items
    assert all("configuration" not in c and "judges" not in c for c in captures)
    assert data["blind"] is True
    # Nothing from the bundle can close the data element or run: the only scripts are the page's own two
    assert "alert(1)</script>" not in html and "<img src=x" not in html and "<b>this</b>" not in html
    assert html.count("<script") == 2
    assert any(c["answer"] == HOSTILE for c in captures)
    # The policy lets only the page's own script run (by its hash) and loads nothing from anywhere
    script = re.findall(r"<script>(.*?)</script>", html, re.S)[-1]
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in html
    assert "default-src 'none'" in html and "http://" not in html.replace("http://www.w3.org", "")
    # The rubric is on the page: criteria, questions, anchors and the scale
    rubric = data["rubric"]
    assert [c["name"] for c in rubric["criteria"]] == [
        "fidelity",
        "soundness",
        "completeness",
        "relevance",
        "calibration",
    ]
    assert rubric["scale"]["values"] == [float(v) for v in range(11)]
    assert rubric["anchors"][0] == ["9-10", "exemplary execution of the actual technique"]


def test_unblinded_pages_show_configurations_and_the_cli_reports_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_bundle(tmp_path / "bundle")
    html, _ = label_page(tmp_path / "bundle", 3, 0, blind=False)
    assert all("configuration" in c for c in page_data(html)["captures"])

    assert main(["label", str(tmp_path / "bundle"), "--sample", "3", "--seed", "2"]) == 0
    assert (tmp_path / "bundle" / "label.html").is_file()
    assert "label: 3 captures on" in capsys.readouterr().out
    assert main(["label", str(tmp_path / "nowhere")]) == 4
    assert "no bundle.yaml here" in capsys.readouterr().err
    assert main(["label", str(tmp_path / "bundle"), "--sample", "0"]) == 4
    assert main(["label", str(tmp_path / "bundle"), "--rubric", "judge-checklist-2.0"]) == 4
    assert "kind checklist" in capsys.readouterr().err
    # A suite laid out by `init` (DIR/bundle/) works from its own directory too
    assert main(["label", str(tmp_path)]) == 0 and (tmp_path / "label.html").is_file()


def test_an_unblinded_page_with_results_carries_each_judges_scores(tmp_path: Path) -> None:
    write_bundle(tmp_path / "bundle")
    results = tmp_path / "out"
    results.mkdir()
    row = {
        "capture_id": "mode:argument-audit/optimum",
        "status": "scored",
        "judges": [{"label": "A", "scores": {"fidelity": 8, "soundness": 7}, "overall": 7.2}],
    }
    (results / "ledger.jsonl").write_text(json.dumps(row) + "\n")
    html, _ = label_page(tmp_path / "bundle", 100, 0, blind=False, results=results)
    captures = {c["id"]: c for c in page_data(html)["captures"]}
    assert captures["mode:argument-audit/optimum"]["judges"] == [
        {
            "label": "A",
            "scores": {"fidelity": 8, "soundness": 7, "completeness": None, "relevance": None, "calibration": None},
            "overall": 7.2,
        }
    ]
    assert captures["mode:argument-audit/big-1"]["judges"] == []
    # A blind page never reads them, even when given
    blind, _ = label_page(tmp_path / "bundle", 100, 0, results=results)
    assert "7.2" not in blind.split('id="label-data">')[1]
    (results / "ledger.jsonl").write_text("{broken\n")
    with pytest.raises(ValueError, match="cannot read the ledger"):
        label_page(tmp_path / "bundle", 100, 0, blind=False, results=results)
