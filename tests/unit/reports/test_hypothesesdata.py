"""hypotheses.json as typed data: written from its model, read back into it, the same bytes again; a bad file named."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pytest_ora.reports.hypothesesdata import HypothesesFileError, parse_hypotheses_file, read_hypotheses_file
from pytest_ora.reports.statsfiles import hypotheses_file, hypotheses_markdown, stable_json


def hypotheses(**changes: Any) -> dict[str, Any]:
    """One hypothesis over two entries, a verdict with the per-hypothesis rule, and the method."""
    row = {
        "id": "H1",
        "better": "big",
        "worse": "small",
        "margin": 0.5,
        "n": 2,
        "directional": 2,
        "meets_margin": 1,
        "mean_delta": 1.0 / 3.0 + 0.5,
        "interval": [0.25, 1.5],
        "entries": [
            {"entry_key": "mode:a", "better": 8, "worse": 7.0, "delta": 1.0, "directional": True, "meets_margin": True},
            {
                "entry_key": "mode:b",
                "better": 6.5,
                "worse": 6.0,
                "delta": 0.5,
                "directional": True,
                "meets_margin": False,
            },
        ],
        "unpaired_entries": ["mode:c"],
        "units": 2,
        "clusters": None,
        "bootstrap_interval": [0.25, 1.5],
        "t_interval": [-2.0, 3.5],
        "interval_method": "t",
        "small_n": True,
    }
    data: dict[str, Any] = {
        "directional": 2,
        "meets_margin": 1,
        "deltas": 2,
        "hypotheses": [row],
        "verdict": {
            "rule": {"per_hypothesis_at_least": 2, "no_critical": True},
            "result": "PASS",
            "directional": 2,
            "required": 2,
            "critical_captures": [],
            "reasons": ["H1 2/2 directional, 2 required in every hypothesis", "0 captures with the critical vote"],
            "null_pass_probability": 0.25,
        },
        "method": {
            "seed": 0,
            "resamples": 10000,
            "permutations": 10000,
            "confidence_level": 0.95,
            "interval": "BCa bootstrap of the mean delta, resampling entries",
        },
    }
    data.update(changes)
    return data


def test_when_hypotheses_json_is_written_from_its_model_then_it_is_the_stable_json_and_reads_back_to_the_same_bytes(
    tmp_path: Path,
) -> None:
    data = hypotheses()
    written = hypotheses_file(data, "ora-1.0").dumps()
    (tmp_path / "hypotheses.json").write_text(written, encoding="utf-8")

    assert written == stable_json(data, "ora-1.0")  # the bytes the statistics wrote before the model
    assert read_hypotheses_file(tmp_path / "hypotheses.json").dumps() == written
    assert '"better": 8,' in written and '"worse": 7.0,' in written  # an int stays an int, a float a float
    assert '"mean_delta": 0.833333333333,' in written  # 12 significant digits


def test_when_an_older_file_lacks_the_t_interval_and_the_method_then_it_reads_and_keeps_its_bytes() -> None:
    data = hypotheses(method=None, verdict=None)
    del data["method"]
    for key in ("units", "clusters", "bootstrap_interval", "t_interval", "interval_method", "small_n"):
        del data["hypotheses"][0][key]
    text = stable_json(data, "ora-1.0")

    older = parse_hypotheses_file(text)

    assert older.dumps() == text
    assert older.method is None and older.verdict is None
    shown = hypotheses_markdown(older)
    assert re.search(r"\| 95% bootstrap +\|", shown) and "[0.25, 1.50]" in shown  # the bootstrap interval shown


def test_the_verdict_rule_keeps_the_one_count_condition_the_bundle_gave() -> None:
    data = hypotheses()
    data["verdict"]["rule"] = {"directional_at_least": 3, "no_critical": False}

    written = json.loads(hypotheses_file(data, "ora-1.0").dumps())

    assert written["verdict"]["rule"] == {"directional_at_least": 3, "no_critical": False}


def test_when_the_verdict_and_method_are_read_then_the_summary_says_the_chance_with_the_permutations() -> None:
    text = hypotheses_markdown(hypotheses_file(hypotheses(), "ora-1.0"))

    assert "Verdict: **PASS** (H1 2/2 directional, 2 required in every hypothesis; 0 captures" in text
    assert "passes 25.0% of the time (10,000 seeded permutations;" in text


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["hypotheses"][0].pop("margin"), r"field hypotheses\.0\.margin: Field required"),
        (lambda d: d["hypotheses"][0]["entries"][1].update(delta="0.5"), r"field hypotheses\.0\.entries\.1\.delta"),
        (lambda d: d["verdict"].update(result=None), r"field verdict\.result: Input should be a valid string"),
        (lambda d: d.update(extra=1), r"field extra: Extra inputs are not permitted"),
    ],
)
def test_when_hypotheses_json_is_edited_out_of_shape_then_the_error_names_the_file_and_the_field(
    tmp_path: Path, edit: Any, message: str
) -> None:
    data = json.loads(hypotheses_file(hypotheses(), "ora-1.0").dumps())
    edit(data)
    (tmp_path / "hypotheses.json").write_text(json.dumps(data), encoding="utf-8")

    with pytest.raises(HypothesesFileError, match=rf"hypotheses\.json: not a run's hypotheses: {message}"):
        read_hypotheses_file(tmp_path / "hypotheses.json")


def test_when_hypotheses_json_is_not_json_then_the_error_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "hypotheses.json").write_text("{oops", encoding="utf-8")

    with pytest.raises(
        HypothesesFileError, match=r"hypotheses\.json: not a run's hypotheses: field \(the whole file\)"
    ):
        read_hypotheses_file(tmp_path / "hypotheses.json")
