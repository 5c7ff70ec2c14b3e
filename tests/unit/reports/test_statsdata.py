"""stats.json as typed data: written from its model, read back into it, a broken file named with its field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_small_samples import stats

from pytest_ora.reports.statsdata import StatsFileError, parse_stats_file, read_stats_file
from pytest_ora.reports.statsfiles import stable_json, stats_file


def test_when_the_statistics_are_written_from_the_model_then_the_text_is_the_plain_json_dump() -> None:
    data = stats(5)

    assert stats_file(data, "ora-1.0").dumps() == stable_json(data, "ora-1.0")


def test_when_stats_json_is_read_and_written_again_then_it_is_the_same_bytes(tmp_path: Path) -> None:
    text = stats_file(stats(25), "ora-1.0").dumps()
    (tmp_path / "stats.json").write_text(text, encoding="utf-8")

    read = read_stats_file(tmp_path / "stats.json")

    assert read.dumps() == text
    assert read.extended and read.units is not None and read.units.entries == 25
    assert isinstance(read.method.seed, int) and isinstance(read.configurations[0].mean_overall, float)


def test_when_an_older_file_lacks_the_extended_figures_then_it_reads_and_writes_back_without_them() -> None:
    data = stats(5)
    for name in ("units", "pairs", "judges", "noise", "scale"):
        data.pop(name)
    text = stats_file(data, "ora-1.0").dumps()

    read = parse_stats_file(text)

    assert not read.extended and read.pairs is None
    assert read.dumps() == text and '"pairs"' not in text


def test_when_a_field_has_the_wrong_type_then_the_error_names_the_file_and_the_field(tmp_path: Path) -> None:
    data = json.loads(stats_file(stats(5), "ora-1.0").dumps())
    data["comparisons"][0]["n"] = "three"
    path = tmp_path / "stats.json"
    path.write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(
        StatsFileError, match=r"stats.json: not a run's statistics: field comparisons.0.n: Input should"
    ):
        read_stats_file(path)


def test_when_the_statistics_hold_a_key_the_model_does_not_know_then_writing_stops() -> None:
    data = stats(5)
    data["configurations"][0]["surprise"] = 1

    with pytest.raises(ValueError, match="surprise"):  # never dropped in silence
        stats_file(data, "ora-1.0")


def test_when_stats_json_is_not_json_then_the_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "stats.json"
    path.write_text("{not json", encoding="utf-8")

    with pytest.raises(
        StatsFileError, match=r"stats.json: not a run's statistics: field \(the whole file\): Invalid JSON"
    ):
        read_stats_file(path)
