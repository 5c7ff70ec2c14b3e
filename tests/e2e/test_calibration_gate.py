"""--ora-fail-calibration: exit 1 below the alpha, or with fewer than 10 labelled captures; a holding gate says so."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, outcomes, record

from pytest_ora.testing.server import ReferenceJudge

CRITERIA = ("fidelity", "soundness", "completeness", "relevance", "calibration")


def vary(items: list[dict[str, object]]) -> list[dict[str, object]]:
    """Answers of different quality, so that people and judges have something to agree on."""
    for index, item in enumerate(items):
        if index % 3 == 1:
            item["answer"] = str(item["answer"]).split("\n\n")[0]
        elif index % 3 == 2:
            item["answer"] = "A generic essay that names the technique and performs none of it."
    return items


@pytest.fixture
def judged(pytester: pytest.Pytester, judge: ReferenceJudge) -> pytest.Pytester:
    """Twelve scored captures over three configurations, judged once by the reference judge."""
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "bundle", configurations=("optimum", "big-1", "big-2"), routes=routes, edit=vary)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    assert outcomes(record(pytester))["failed"] == 0
    return pytester


def write_labels(project: pytest.Pytester, name: str, flip: bool = False, keep: int | None = None) -> Path:
    """Labels that follow the judges' panel mean, rounded to whole points (or its mirror image on the scale)."""
    rows = [json.loads(line) for line in (project.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    scored = [row for row in rows if row["status"] == "scored"][:keep]
    lines = []
    for row in scored:
        scores = {c: round(float(row[c])) for c in CRITERIA}
        if flip:
            scores = {c: 10 - v for c, v in scores.items()}
        lines.append(json.dumps({"capture_id": row["capture_id"], "rater": "ana", "scores": scores, "notes": ""}))
    path = project.path / name
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_gate_holds_when_people_agree_and_fails_when_they_do_not(judged: pytest.Pytester) -> None:
    write_labels(judged, "agree.jsonl")
    write_labels(judged, "mirror.jsonl", flip=True)

    holding = judged.runpytest("--ora-labels=agree.jsonl", "--ora-fail-calibration=0.8")
    failing = judged.runpytest("--ora-labels=mirror.jsonl", "--ora-fail-calibration=0.8")

    assert holding.ret == pytest.ExitCode.OK
    holding.stdout.fnmatch_lines(
        [
            "ora: gate --ora-fail-calibration 0.8 holds: the panel's alpha vs humans on overall "
            "is 0.9* >= 0.8 over 12 labelled captures"
        ]
    )
    assert failing.ret == pytest.ExitCode.TESTS_FAILED
    failing.stdout.fnmatch_lines(
        [
            "ora: FAIL --ora-fail-calibration 0.8: the panel's alpha vs humans on overall is -* < 0.8 "
            "over 12 labelled captures"
        ]
    )
    assert outcomes(failing)["failed"] == 1  # every capture was scored: the one failure is the gate's testcase
    failing.stdout.fnmatch_lines(["FAILED ora-gate::--ora-fail-calibration*"])
    stats = json.loads((judged.path / "ora-results" / "stats.json").read_text())
    assert stats["calibration"]["judges"][-1]["overall"]["krippendorff_alpha"] < 0


def test_fewer_than_ten_labelled_captures_fail_the_gate_whatever_the_alpha(judged: pytest.Pytester) -> None:
    write_labels(judged, "nine.jsonl", keep=9)
    judged.makeini("[pytest]\nora_bundle = bundle\nora_labels = nine.jsonl\nora_fail_calibration = 0\n")

    result = judged.runpytest()

    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(
        [
            "ora: FAIL --ora-fail-calibration 0: only 9 labelled captures were scored (at least 10 are "
            "needed to judge a judge)"
        ]
    )
    summary = (judged.path / "ora-results" / "summary.md").read_text()
    assert "Only 9 labelled captures: every figure below is unstable" in summary


def test_the_gate_without_labels_fails_and_says_why(judged: pytest.Pytester) -> None:
    result = judged.runpytest("--ora-fail-calibration=0.5")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines(["ora: FAIL --ora-fail-calibration 0.5: no human labels in this run*"])


@pytest.mark.parametrize("value", ["1.5", "-0.2", "high"])
def test_a_gate_threshold_outside_alpha_is_a_usage_error(pytester: pytest.Pytester, value: str) -> None:
    write_bundle(pytester.path / "bundle")
    pytester.makepyfile(test_ora=EVAL_TEST)
    result = pytester.runpytest("--ora-bundle=bundle", f"--ora-fail-calibration={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--ora-fail-calibration" in result.stderr.str()


def test_a_judge_built_to_be_biased_shows_its_bias_against_people_while_the_judges_agree(
    judged: pytest.Pytester,
) -> None:
    # Given people whose scores are the unbiased panel's, rounded to whole points
    write_labels(judged, "people.jsonl")
    # When both judges of the panel are the reference judge built to add 1.5 to every soundness score
    keys = {"anthropic": "sk-ant-FAKE-KEY-never-written-4242", "openai": "sk-FAKE-KEY-never-written-8484"}
    with ReferenceJudge(keys=keys, bias={"soundness": 1.5}) as biased:
        routes = {"big-1": biased.route("anthropic"), "big-2": biased.route("openai")}
        write_bundle(judged.path / "biased", configurations=("optimum", "big-1", "big-2"), routes=routes, edit=vary)
        result = record(
            judged,
            "--ora-bundle=biased",
            "--ora-cassettes=biased-cassettes",
            "--ora-labels=people.jsonl",
            "--ora-out=biased-out",
        )
    assert result.ret == pytest.ExitCode.OK
    stats = json.loads((judged.path / "biased-out" / "stats.json").read_text())

    # Then judge vs judge, the bias is invisible: the two judges still agree on soundness
    soundness = next(row for row in stats["agreement"]["criteria"] if row["criterion"] == "soundness")
    assert soundness["krippendorff_alpha"] > 0.9

    # (the judge is built as said: each soundness score is the unbiased one + 1.5, kept within 0-10)
    def ledger(path: Path) -> dict[str, dict[str, object]]:
        return {
            row["capture_id"]: row
            for row in map(json.loads, path.read_text().splitlines())
            if row["status"] == "scored"
        }

    plain, moved = (
        ledger(judged.path / "ora-results" / "ledger.jsonl"),
        ledger(judged.path / "biased-out" / "ledger.jsonl"),
    )
    for capture, row in moved.items():
        for key in ("judge_a", "judge_b"):
            before, after = plain[capture][key]["scores"], row[key]["scores"]  # type: ignore[index]
            assert after["soundness"] == min(10, before["soundness"] + 1.5)
            assert all(after[c] == before[c] for c in CRITERIA if c != "soundness")
    # And against people it shows: +1.5 where the scale's top does not clip it, a t interval excluding 0
    for row in stats["calibration"]["judges"]:
        by = {r["criterion"]: r for r in row["criteria"]}
        assert 0.75 < by["soundness"]["bias"] <= 1.5 and by["soundness"]["bias_interval"][0] > 0, row["judge"]
        for name in ("fidelity", "completeness", "relevance", "calibration"):
            low, _high = by[name]["bias_interval"] or (by[name]["bias"], by[name]["bias"])
            assert abs(by[name]["bias"]) < 0.5 and low < 0.5, (row["judge"], name)
        assert by["soundness"]["krippendorff_alpha"] < min(
            by[n]["krippendorff_alpha"] for n in ("fidelity", "completeness")
        )
    summary = (judged.path / "biased-out" / "summary.md").read_text()
    assert "| panel mean | soundness" in summary
