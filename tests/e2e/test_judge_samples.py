"""Judge samples: each judge judges each capture K times, each sample its own recorded exchange, reduced per criterion."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, KEY_A, KEY_B, low_and_excluded, outcomes, record, report, tables

from pytest_ora.core.plan import Panel
from pytest_ora.judges.panel import combine_samples
from pytest_ora.judges.samples import reduce_scores, sample_line, sampled_panel
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.testing.server import ReferenceJudge

JITTER = {"keys": {"anthropic": KEY_A, "openai": KEY_B}, "jitter": 1.0, "jitter_seed": 7}


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """A reference judge made noisy on purpose: seeded noise of sd 1 point on every score."""
    return dict(JITTER)


def test_the_mean_and_median_reduce_each_criterion() -> None:
    samples = [{"a": "7", "b": "9.5"}, {"a": "8", "b": "10"}, {"a": "8", "b": "9"}]
    assert reduce_scores(samples, "median") == {"a": "8", "b": "9.5"}
    assert reduce_scores(samples, "mean") == {"a": "7.666667", "b": "9.5"}  # 23/3 to six places
    assert reduce_scores(samples[:2], "median") == {"a": "7.5", "b": "9.75"}  # even K: the middle two's mean
    assert reduce_scores([{"a": "10"}, {"a": "10"}], "mean") == {"a": "10"}
    with pytest.raises(ValueError, match="unknown reducer"):
        reduce_scores(samples, "max")


def test_a_judges_samples_combine_into_one_record_keeping_each_samples_scores() -> None:
    usage = {"input_tokens": 10, "output_tokens": 5, "cached_input_tokens": 0, "reasoning_tokens": 0}
    base: dict[str, Any] = {
        "label": "Judge A",
        "slot": "big-1",
        "role": "big-1",
        "provider": "anthropic",
        "model": "m",
        "resolved_model": None,
        "judge_model": "m",
        "notes": {"a": "first"},
        "impression": "i",
        "asks": 1,
        "attempts": 1,
        "usage": usage,
    }
    records: list[Any] = [
        {**base, "scores": {"a": score}, "asks": asks} for score, asks in (("6", 1), ("8", 2), ("7", 1))
    ]
    combined = combine_samples(records, "mean")
    assert combined["scores"] == {"a": "7"} and combined["samples"] == [{"a": "6"}, {"a": "8"}, {"a": "7"}]
    assert combined["asks"] == 4 and combined["usage"]["input_tokens"] == 30 and combined["notes"] == {"a": "first"}


def test_sample_k_ends_its_prompt_with_a_line_naming_it_and_sample_1_is_the_ordinary_call() -> None:
    assert sample_line(1) is None
    line = sample_line(3)
    assert line is not None and "judgment 3 of this capture" in line


def test_samples_apply_only_to_a_rubric_scored_per_criterion() -> None:
    panel = Panel((), "p")

    class Manifest:
        judge_samples = 3
        reducer = "median"

    sampled = sampled_panel(panel, Manifest(), ORA_V1, None)
    assert (sampled.samples, sampled.reducer) == (3, "median")
    assert sampled_panel(panel, Manifest(), ORA_V1, 2).samples == 2  # the option wins
    assert (
        sampled_panel(panel, object(), ORA_V1, None).samples == 1
        and sampled_panel(panel, object(), ORA_V1, None).reducer == "mean"
    )

    class Checklist:
        kind, version = "checklist", "x-1"

    with pytest.raises(
        ValueError, match=r"bundle.yaml judge_samples 3: judge samples need a rubric scored per criterion"
    ):
        sampled_panel(panel, Manifest(), Checklist(), None)  # type: ignore[arg-type]


def test_the_jittered_reference_judge_is_seeded_by_the_request_bytes(judge: ReferenceJudge) -> None:
    body = {
        "model": "claude-x",
        "max_tokens": 16000,
        "messages": [{"role": "user", "content": "Configuration: a\n\nanswer"}],
        # a judge's request asks for its reply's shape (a request without one is a candidate's, answered in text)
        "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
    }

    def scores(content: str) -> Any:
        sent = {**body, "messages": [{"role": "user", "content": content}]}
        response = httpx.post(
            judge.route("anthropic"), json=sent, headers={"x-api-key": KEY_A, "anthropic-version": "2023-06-01"}
        )
        return (
            json.loads(response.json()["content"][0]["text"])["scores"]
            if response.json()["content"][0]["type"] == "text"
            else response.json()["content"][0]["input"]["scores"]
        )

    first = scores("Configuration: a\n\nanswer")
    assert scores("Configuration: a\n\nanswer") == first  # the same request, the same reply
    others = [scores(f"Configuration: a\n\nanswer\n\n{sample_line(k)}") for k in (2, 3, 4)]
    assert any(other != first for other in others)  # another sample, another draw
    with ReferenceJudge(keys={"anthropic": KEY_A}) as plain:
        assert plain.jitter == 0


@pytest.fixture
def sampled(pytester: pytest.Pytester, judge: ReferenceJudge) -> pytest.Pytester:
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", routes=routes, edit=low_and_excluded, manifest={"judge_samples": 3})
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return pytester


def ledger(project: pytest.Pytester, out: str = "ora-results") -> list[dict[str, Any]]:
    lines = (project.path / out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_k_3_against_a_noisy_judge_records_each_sample_and_replays_byte_identically(
    sampled: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    # Given a bundle asking for 3 judge samples, judged live by a reference judge noisy on purpose
    recorded_result = record(sampled)
    assert recorded_result.ret == 0
    recorded = report(sampled)
    rows = [row for row in ledger(sampled) if row["status"] == "scored"]
    calls = judge.calls

    # Then every judge judged every scored capture three times, each sample its own exchange in the cassette
    assert calls == sum(3 * len(row["judges"]) for row in rows)
    for row in rows:
        for panel_judge in row["judges"]:
            samples = panel_judge["samples"]
            assert len(samples) == 3
            for name, score in panel_judge["scores"].items():  # the mean of the samples, to six places
                mean = sum(Decimal(repr(s[name])) for s in samples) / 3
                assert abs(Decimal(repr(score)) - mean) <= Decimal("0.0000005")
    assert any(len({json.dumps(s, sort_keys=True) for s in j["samples"]}) > 1 for row in rows for j in row["judges"])
    cassette = next((sampled.path / "cassettes").rglob("*.json"))
    interactions = json.loads(cassette.read_text(encoding="utf-8"))["interactions"]
    bodies = [i["request"]["body"] for i in interactions]
    assert len(interactions) == 6 and len(set(bodies)) == 6  # 2 judges x 3 samples, six different requests

    # And stats.json splits the variance with a within-judge part (the jitter), which summary.md and the page say
    stats = json.loads((sampled.path / "ora-results" / "stats.json").read_text(encoding="utf-8"))
    noise = stats["noise"]
    assert noise["samples"] == 3 and noise["overall"]["captures"] == len(rows)
    assert noise["overall"]["within_judge"] > 0 and noise["overall"]["note"] is None
    # each configuration gets the widths, or a note saying its few captures cannot split its width
    assert all((row["width_with_samples"] is None) == (row["note"] is not None) for row in noise["configurations"])
    assert any(row["width_with_samples"] is not None for row in noise["configurations"])
    summary = (sampled.path / "ora-results" / "summary.md").read_text(encoding="utf-8")
    assert "3 samples per judge" in summary and "within a judge, from one sample to the next" in summary
    assert 'id="noise-note"' in (sampled.path / "ora-results" / "report.html").read_text(encoding="utf-8")

    # When the run replays offline (judges gone, no keys), in one process and under two xdist workers
    judge.stop()
    serial = sampled.runpytest("--ora-out", "serial")
    parallel = sampled.runpytest_subprocess("-n", "2", "--ora-out", "parallel")

    # Then each sample replays: the same outcomes and byte-identical tables, and -n 0 equals -n 2 byte for byte
    assert outcomes(serial) == outcomes(recorded_result) == outcomes(parallel)
    assert tables(report(sampled, "serial")) == tables(recorded)
    assert report(sampled, "serial") == report(sampled, "parallel")
    assert judge.calls == calls


def test_the_option_overrides_the_bundle_and_a_wrong_value_is_a_usage_error(sampled: pytest.Pytester) -> None:
    bad = sampled.runpytest("--ora-judge-samples", "0")
    assert bad.ret == 4
    bad.stderr.fnmatch_lines(["*--ora-judge-samples must be at least 1*"])
    manifest = Path(sampled.path / "bundle" / "bundle.yaml")
    manifest.write_text(
        manifest.read_text(encoding="utf-8").replace("judge_samples: 3", "judge_samples: 0"), encoding="utf-8"
    )
    wrong = sampled.runpytest()
    assert wrong.ret == 4
    assert "judge_samples" in (wrong.stdout.str() + wrong.stderr.str())
