"""The report page's data and HTML: built from ledger and summary rows alone, self-contained, stable."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from test_report import record
from test_small_samples import stats

from pytest_ora.core.record import CaptureRecord
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.reports import charts
from pytest_ora.reports.aggregation import ledger_row, public_row, summarize
from pytest_ora.reports.html import render_html
from pytest_ora.reports.page import read_optional
from pytest_ora.reports.pagedata import CompareRow, PageData, Statistics, agreement_from_ledger, page_data
from pytest_ora.reports.statsfiles import stats_file

STATISTICS: dict[str, Any] = {
    "configurations": {
        "optimum": {"overall_interval": [7.0, 9.0], "failure_interval": [0.0, 0.4]},
        "big-1": {"overall_interval": [4.2, 6.0], "failure_interval": [0.1, 0.7]},
    },
    "agreement": {name: {"alpha": 0.71, "kappa": 0.74, "exact": 0.4, "within_one": 0.9} for name in ORA_V1.names},
    "paired": [
        {
            "a": "optimum",
            "b": "big-1",
            "n": 3,
            "mean_difference": 2.4,
            "interval": [1.1, 3.5],
            "p_value": 0.25,
            "p_holm": 0.25,
        }
    ],
    "hypotheses": {
        "verdict": "PASS",
        "detail": "6 of 6 directional; no critical vote",
        "rows": [
            {
                "id": "H1",
                "better": "optimum",
                "worse": "big-1",
                "margin": 0.3,
                "mean_delta": 2.4,
                "interval": [1.1, 3.5],
                "directional": 3,
                "meets_margin": 3,
            }
        ],
    },
}
COMPARE = [
    {"a": "optimum", "b": "big-1", "wins": 2, "ties": 1, "losses": 0, "win_rate": 0.83, "interval": [0.44, 0.97]}
]


def captures() -> tuple[list[BaseModel], list[CaptureRecord]]:
    records = [
        record("optimum", "scored", scores=("8", "7", "8", "6", "7"), key="mode:a"),
        record("big-1", "scored", scores=("3", "5", "5", "5", "5"), key="mode:a"),
        record("optimum", "scored", scores=("9", "9", "9", "9", "9"), key="mode:b"),
        record("big-1", "excluded", key="mode:b"),
    ]
    return [ledger_row(r, ORA_V1) for r in records], records


def full_page_data(statistics: dict[str, Any] | None = STATISTICS, compare: Any = COMPARE) -> PageData:
    """Page data for four captures, with optional sections (used by the browser test too)."""
    ledger, records = captures()
    summary = summarize(records, ["optimum", "big-1"], ORA_V1)
    return page_data(
        bundle="test-bundle",
        rubric=ORA_V1,
        judges=[{"label": "Judge A", "model": "m", "provider": "anthropic"}],
        rows=ledger,
        summary=[row for row, _ in summary],
        table=[public_row(r, v, ORA_V1) for r, v in summary],
        scoring_date="2026-06-21",
        statistics=None if statistics is None else Statistics.model_validate(statistics),
        compare=None if compare is None else [CompareRow.model_validate(row) for row in compare],
    )


def embedded(html: str) -> dict[str, Any]:
    match = re.search(r'<script type="application/json" id="ora-data">(.*?)</script>', html, re.S)
    assert match is not None
    result: dict[str, Any] = json.loads(match.group(1))
    return result


@pytest.fixture(scope="module")
def full_html() -> str:
    """The page with every optional section, rendered once for the tests that only read it."""
    return render_html(full_page_data())


@pytest.fixture
def no_charts(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests about everything but the charts: skip drawing them."""
    monkeypatch.setattr(charts, "charts_available", lambda: False)


def test_the_same_data_gives_the_same_bytes(full_html: str) -> None:
    assert render_html(full_page_data()) == full_html


def test_the_page_is_self_contained(full_html: str) -> None:
    html = full_html

    # Nothing is loaded from elsewhere: no src, no stylesheet link, no URL other than SVG's namespaces
    assert not re.search(r"<(script|img|iframe)[^>]* src=", html)
    assert "<link" not in html
    urls = set(re.findall(r"https?://[^\s\"')<]+", html))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}
    assert "default-src 'none'" in html


def test_embedded_rows_come_back_as_the_ledger_says(full_html: str) -> None:
    data = embedded(full_html)
    captures = data["captures"]
    strings = captures["strings"]
    first = captures["rows"][1]

    assert [strings[i] for i in first[:4]] == ["mode:a/big-1", "mode", "big-1", "scored"]
    assert first[5] == 3.0 and first[6] == 1  # overall capped by fidelity 3: a quality failure
    judge_a = first[8][0]
    assert strings[judge_a[0]] == "Judge A" and judge_a[2] == [3.0, 5.0, 5.0, 5.0, 5.0]
    assert strings[judge_a[4]] == "fine"
    # each distinct note is stored once however many captures and judges repeat it
    assert strings.count("ok") == 1
    excluded = captures["rows"][3]
    assert strings[excluded[3]] == "excluded" and excluded[5] is None and excluded[8] == []


def test_text_cannot_close_the_script_it_travels_in(no_charts: None) -> None:
    data = full_page_data()
    data["captures"]["strings"].append("</script><script>alert(1)</script>")
    data["texts"] = {"strings": ["<!-- </script><script>alert(2)</script>"], "rows": [("mode:a/optimum", 0, -1, 0, -1)]}

    html = render_html(data)

    assert html.count("<script") == 4  # the data, the page's two scripts, the captures' texts
    assert embedded(html)["captures"]["strings"][-1] == "</script><script>alert(1)</script>"
    texts = re.search(r'<script type="application/json" id="ora-texts">(.*?)</script>', html, re.S)
    assert texts is not None and json.loads(texts.group(1))["strings"] == ["<!-- </script><script>alert(2)</script>"]


def test_agreement_per_criterion_counts_exact_and_within_one_point() -> None:
    def row(a: str, b: str) -> BaseModel:
        r = record("optimum", "scored", scores=(a,) * 5)
        r["judges"][1]["scores"] = dict.fromkeys(ORA_V1.names, b)
        return ledger_row(r, ORA_V1)

    agreement = agreement_from_ledger([row("5", "5"), row("5", "6"), row("5", "8"), row("5", "5")], ORA_V1.names)

    assert agreement["fidelity"] == {"n": 4, "exact": 0.5, "within_one": 0.75, "mean_abs_diff": 1.0}


def test_optional_sections_are_shown_only_when_present(full_html: str) -> None:
    bare = render_html(full_page_data(statistics=None, compare=None))
    full = full_html

    assert "No statistics in this run" in bare and 'data-chart="paired"' not in bare
    assert "statistics" not in embedded(bare) and "compare" not in embedded(bare)
    for name in ("paired", "compare", "hypotheses"):
        assert f'data-chart="{name}"' in full
    assert 'class="verdict-PASS"' in full


def test_without_the_plotting_library_the_page_says_how_to_get_charts(no_charts: None) -> None:
    html = render_html(full_page_data())

    assert 'data-chart="' not in html
    assert 'pip install "pytest-ora[report]"' in html
    assert "Configuration summary" in html and embedded(html)["captures"]["rows"]


def test_chart_svgs_keep_their_ids_apart(full_html: str) -> None:
    svgs = re.findall(r"<svg .*?</svg>", full_html, re.S)
    ids = [found for svg in svgs for found in re.findall(r'id="([^"]+)"', svg)]

    assert len(svgs) == len(charts.CHART_TITLES)

    assert len(ids) == len(set(ids))
    assert all(identifier.startswith("ora-") for identifier in ids)


def test_results_beside_the_tables_are_read_in_the_page_s_shape_or_said_to_be_left_out(
    tmp_path: Path, no_charts: None
) -> None:
    written = stats_file(stats(5), ORA_V1.version)
    (tmp_path / "stats.json").write_text(written.dumps(), encoding="utf-8")
    (tmp_path / "compare.json").write_text(json.dumps({"pairs": "not a list"}), encoding="utf-8")

    found, notes = read_optional(tmp_path)

    shown = written.comparisons[0].t_interval
    assert found.statistics is not None and found.statistics.paired[0].interval == tuple(shown or ())
    assert "seed" not in found.statistics.model_dump()  # fields the page does not show are left in stats.json
    assert found.compare is None
    assert notes == ["compare.json is not shown: (top): Input should be a valid list"]
    statistics = found.statistics.model_dump(exclude_none=True)
    html = render_html(full_page_data(statistics=statistics, compare=None) | {"notes": notes})
    assert "compare.json is not shown" in html and "Paired comparisons" in html


def test_when_stats_json_is_not_a_run_s_statistics_then_the_page_says_which_field_and_leaves_it_out(
    tmp_path: Path,
) -> None:
    # The page's own shape is not stats.json's: the file is named with its first bad field, not guessed at.
    (tmp_path / "stats.json").write_text(json.dumps(STATISTICS), encoding="utf-8")

    found, notes = read_optional(tmp_path)

    assert found.statistics is None
    assert notes == ["stats.json is not shown: not a run's statistics: field rubric: Field required"]
