"""The session end's statistics and charts, kept by the digest of their inputs: the same bytes, fewer seconds."""

from __future__ import annotations

import filecmp
import json
from dataclasses import replace
from pathlib import Path

import pytest
from test_report_process import sample_records, write

from pytest_ora.bundle.labels import read_labels
from pytest_ora.reports import charts, output, resultcache
from pytest_ora.reports.methodology import RunFacts
from pytest_ora.reports.output import REPORT_FILES, STATS_FILES, OutputDir

NAMES = [*REPORT_FILES, *STATS_FILES[:2], "run.json"]


def _same(left: Path, right: Path) -> None:
    _match, mismatch, errors = filecmp.cmpfiles(left, right, NAMES, shallow=False)
    assert (mismatch, errors) == ([], [])


def test_a_second_report_of_the_same_ledger_is_served_from_the_cache_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the sample's records and a report made without any cache
    plan, records = sample_records()
    write(tmp_path / "fresh", plan, records)
    # When the same report is made twice with a cache
    monkeypatch.setenv(resultcache.CACHE_ENV, str(tmp_path / "cache"))
    write(tmp_path / "first", plan, records)
    computed: list[str] = []
    monkeypatch.setattr(output, "_computed_statistics", lambda *args: computed.append("statistics") or {})
    monkeypatch.setattr(charts, "render_charts", lambda data: computed.append("charts") or {})
    write(tmp_path / "second", plan, records)
    # Then the second computed neither the statistics nor the charts, and all three are the same bytes
    assert computed == []
    _same(tmp_path / "fresh", tmp_path / "first")
    _same(tmp_path / "fresh", tmp_path / "second")
    assert len(list((tmp_path / "cache" / "statistics").glob("*.json"))) == 1
    assert len(list((tmp_path / "cache" / "charts").glob("*.json"))) == 1


def test_a_changed_ledger_computes_afresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(resultcache.CACHE_ENV, str(tmp_path / "cache"))
    plan, records = sample_records()
    write(tmp_path / "first", plan, records)
    # When one capture's score differs
    changed = [dict(record) for record in records]
    scored = next(index for index, record in enumerate(changed) if record["status"] == "scored")
    judges = [dict(judge) for judge in changed[scored]["judges"]]
    judges[0]["scores"] = {name: "1" for name in judges[0]["scores"]}
    changed[scored]["judges"] = judges
    write(tmp_path / "second", plan, changed)
    # Then its statistics and charts are new entries, and its stats.json differs from the first run's
    assert len(list((tmp_path / "cache" / "statistics").glob("*.json"))) == 2
    assert len(list((tmp_path / "cache" / "charts").glob("*.json"))) == 2
    assert (tmp_path / "first" / "stats.json").read_bytes() != (tmp_path / "second" / "stats.json").read_bytes()


def test_other_labels_under_the_same_name_compute_the_calibration_afresh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same ledger judged against other human labels (the file edited, its name kept) is a new entry:
    a cached calibration would let --ora-fail-calibration hold on labels nobody gave."""
    monkeypatch.setenv(resultcache.CACHE_ENV, str(tmp_path / "cache"))
    plan, records = sample_records()
    bundle = Path(__file__).parents[3] / "evals" / "bundle"
    captures = [planned.capture.capture_id for planned in plan.captures]
    first = read_labels(bundle / "labels.jsonl", "labels.jsonl", plan.rubric, captures)
    # When one label's first score is another number, under the same file name
    label = first.labels[0]
    (name, value), *rest = label.scores
    other = "1" if value != "1" else "9"
    second = replace(first, labels=(replace(label, scores=((name, other), *rest)), *first.labels[1:]))
    for directory, labels in (("first", first), ("second", second)):
        out = OutputDir(tmp_path / directory)
        out.claim()
        try:
            out.write_report(
                plan, records, RunFacts(scoring_date="2026-06-20", record_mode="none", selected=1185, labels=labels)
            )
        finally:
            out.release()
    # Then the statistics were computed twice, and the calibration differs
    assert len(list((tmp_path / "cache" / "statistics").glob("*.json"))) == 2
    calibration = [json.loads((tmp_path / d / "stats.json").read_text())["calibration"] for d in ("first", "second")]
    assert calibration[0] != calibration[1]


def test_a_torn_or_foreign_entry_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(resultcache.CACHE_ENV, str(tmp_path / "cache"))
    inputs = {"a": 1}
    key = resultcache.digest("things", inputs)
    (tmp_path / "cache" / "things").mkdir(parents=True)
    (tmp_path / "cache" / "things" / f"{key}.json").write_text('{"key": "', encoding="utf-8")
    assert resultcache.cached("things", inputs, lambda: {"x": "computed"}) == {"x": "computed"}
    # An entry whose key is not its name's (copied, or another code's) is not trusted either
    (tmp_path / "cache" / "things" / f"{key}.json").write_text(json.dumps({"key": "other", "result": {"x": "old"}}))
    assert resultcache.cached("things", inputs, lambda: {"x": "again"}) == {"x": "again"}
    assert resultcache.cached("things", inputs, lambda: {"x": "never"}) == {"x": "again"}


def test_the_key_covers_the_inputs_and_the_code() -> None:
    assert resultcache.digest("k", {"a": 1, "b": 2}) == resultcache.digest("k", {"b": 2, "a": 1})
    assert resultcache.digest("k", {"a": 1}) != resultcache.digest("k", {"a": 2})
    assert resultcache.digest("k", {"a": 1}) != resultcache.digest("j", {"a": 1})
    resultcache._code_digest.cache_clear()
    assert len(resultcache._code_digest()) == 64


def test_off_disables_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(resultcache.CACHE_ENV, "off")
    assert resultcache.cache_directory() is None
    calls: list[int] = []
    for _ in range(2):
        resultcache.cached("things", {}, lambda: calls.append(1) or {})
    assert calls == [1, 1]
    monkeypatch.delenv(resultcache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert resultcache.cache_directory() == tmp_path / "pytest-ora"
