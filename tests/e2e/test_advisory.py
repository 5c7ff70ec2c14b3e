"""The scorecard method's OpenCode advisory observation record (kind advisory): PASS, FAIL and each cause of UNKNOWN."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_ora.method.kinds.advisory.observation import CAUSES, Binding, observe, read_binding

EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "advisory"
BINDING = read_binding(yaml.safe_load((EXAMPLE / "bundle" / "binding.yaml").read_text(encoding="utf-8")))
RECORD = json.loads((EXAMPLE / "bundle" / "captures.jsonl").read_text(encoding="utf-8").splitlines()[0])["evidence"]
PROFILE = "profile-captured-correction"


def record(change: Any = None) -> dict[str, Any]:
    data = copy.deepcopy(RECORD)
    if change is not None:
        change(data)
    return data


def test_a_complete_bound_record_meeting_the_threshold_passes_advisory_only() -> None:
    result = observe(record(), BINDING)
    assert (result.result, result.cause, result.reason) == ("PASS", None, "all 6 hold")
    assert result.data()["advisory_only"] is True


@pytest.mark.parametrize(
    ("change", "failing"),
    [
        (lambda r: r["cases"][PROFILE].update(repeated_corrections=4), "fewer repeated corrections"),
        (lambda r: r["cases"][PROFILE].update(architecture_guesses=4), "no increase in architecture guesses"),
        (lambda r: r["cases"][PROFILE].update(relevant_rule_precision=0.5), "no decrease in relevant rule precision"),
        (lambda r: r["cases"][PROFILE].update(capsule_bytes=6001), "capsule size <= 1.5x baseline"),
        (lambda r: r["cases"][PROFILE].update(conflict_overwrites=1), "zero conflict overwrites"),
        (lambda r: r["cases"][PROFILE].update(rollback="failed"), "rollback passed"),
    ],
)
def test_each_threshold_condition_can_fail_a_complete_bound_record(change: Any, failing: str) -> None:
    result = observe(record(change), BINDING)
    assert result.result == "FAIL" and result.cause is None
    assert result.reason == f"5 of 6 hold; not: {failing}"


def test_capsule_size_of_exactly_one_and_a_half_times_passes() -> None:
    assert observe(record(lambda r: r["cases"][PROFILE].update(capsule_bytes=6000)), BINDING).result == "PASS"


UNKNOWNS = {
    "missing": [
        (None, "missing: record is missing"),
        (lambda r: r.pop("execution"), "missing: record.execution is missing"),
        (
            lambda r: r["cases"][PROFILE].pop("rollback"),
            "missing: cases.profile-captured-correction.rollback is missing",
        ),
    ],
    "malformed": [
        (
            lambda r: r["binding"].update(candidate_sha="HEAD"),
            "malformed: binding.candidate_sha is not a 40-hex commit SHA",
        ),
        (lambda r: r.update(schema="opencode-advisory-observation.2"), "malformed: record.schema is not"),
        (lambda r: r["cases"][PROFILE].update(relevant_rule_precision=1.5), "is not a precision between 0 and 1"),
        (
            lambda r: r["cases"][PROFILE].update(captured_corrections=[{"verified": False}]),
            "carries 0 verified of 1 captured corrections, not exactly one verified",
        ),
        (
            lambda r: r["cases"][PROFILE].update(captured_corrections=[{"verified": True}, {"verified": True}]),
            "carries 2 verified of 2 captured corrections",
        ),
        (lambda r: r.update(prompt="You are OpenCode ..."), "record holds 1 field(s) outside the schema"),
        (
            lambda r: r["execution"].update(stack="Traceback /home/dev/.config/opencode/auth.json"),
            "execution holds 1 field(s) outside the schema; the evaluator receives no prompts, outputs, paths, tokens",
        ),
    ],
    "mismatched": [
        (lambda r: r["binding"].update(base_sha="0" * 40), "mismatched: binding.base_sha is not the configured one"),
        (lambda r: r["binding"].update(candidate_sha="1" * 40), "mismatched: binding.candidate_sha"),
        (lambda r: r["binding"]["package"].update(version="1.4.1"), "mismatched: binding.package.version"),
        (lambda r: r["binding"]["package"].update(tar_sha256="d" * 64), "mismatched: binding.package.tar_sha256"),
        (lambda r: r["cases"][PROFILE].update(task_sha256="d" * 64), "the two cases do not share task_sha256"),
        (lambda r: r["cases"].update(extra=r["cases"][PROFILE]), "cases are not exactly static-policy-overlay and"),
        (lambda r: r["cases"].pop(PROFILE), "cases are not exactly"),
    ],
    "multiple": [
        (lambda r: r["execution"].update(count=2), "multiple: execution.count is 2: one bounded A/B run is required"),
        ("two", "multiple: the capture holds 2 records, not one"),
    ],
    "abnormal": [
        (lambda r: r["execution"].update(status="timeout"), "abnormal: execution.status is timeout"),
        (lambda r: r["execution"].update(status="crashed"), "abnormal: execution.status is crashed"),
    ],
    "unsupported-model": [
        (lambda r: r["binding"].update(model="openai/gpt-4o"), "unsupported-model: binding.model is not a model"),
    ],
}


@pytest.mark.parametrize(
    ("cause", "change", "reason"),
    [(cause, change, reason) for cause, cases in UNKNOWNS.items() for change, reason in cases],
)
def test_each_cause_of_unknown(cause: str, change: Any, reason: str) -> None:
    evidence: Any = None if change is None else [record(), record()] if change == "two" else record(change)
    result = observe(evidence, BINDING)
    assert (result.result, result.cause) == ("UNKNOWN", cause), result.reason
    assert reason in result.reason
    assert "/home/dev" not in result.reason and "OpenCode ..." not in result.reason  # values are never echoed


def test_every_cause_is_exercised() -> None:
    assert set(UNKNOWNS) | {"secret-bearing"} == set(CAUSES)


def test_a_binding_file_must_name_a_supported_model() -> None:
    data = yaml.safe_load((EXAMPLE / "bundle" / "binding.yaml").read_text(encoding="utf-8"))
    data["model"] = "openai/gpt-4o"
    with pytest.raises(ValueError, match=r"binding.model is not a model this record kind evaluates"):
        read_binding(data)
    assert isinstance(BINDING, Binding)


@pytest.fixture
def example(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(
        EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("ora-results", "__pycache__")
    )
    return pytester


def test_the_example_evaluates_offline_advisory_only(example: pytest.Pytester) -> None:
    """A PASS, a FAIL (reported, never failed: exit 0) and one record per cause of UNKNOWN, secret-bearing included."""
    result = example.runpytest("-p", "no:cacheprovider")

    assert result.ret == 0
    assert result.parseoutcomes() == {"passed": 8, "skipped": 1}
    result.stdout.fnmatch_lines(["*ora: advisory only, never a gate: 1 PASS, 1 FAIL, 6 UNKNOWN among scored records*"])
    data = json.loads((example.path / "ora-results" / "advisory.json").read_text(encoding="utf-8"))
    assert data["advisory_only"] is True and data["gate"] is False
    causes = {r["entry_key"].removeprefix("observation:"): (r["result"], r["cause"]) for r in data["results"]}
    assert causes == {"pass": ("PASS", None), "fail": ("FAIL", None), **{cause: ("UNKNOWN", cause) for cause in CAUSES}}
    text = (example.path / "ora-results" / "ADVISORY-RESULT.md").read_text(encoding="utf-8")
    assert "**Advisory only: never a product, merge, CI or release gate.**" in text
    assert "AKIAIOSFODNN7EXAMPLE" not in text + json.dumps(data)


def test_a_capture_carrying_a_prompt_or_an_output_is_unknown(example: pytest.Pytester) -> None:
    lines = (example.path / "bundle" / "captures.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["answer"] = "the model's raw output"
    (example.path / "bundle" / "captures.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")

    example.runpytest("-p", "no:cacheprovider")

    data = json.loads((example.path / "ora-results" / "advisory.json").read_text(encoding="utf-8"))
    first_result = next(r for r in data["results"] if r["entry_key"] == "observation:pass")
    assert (first_result["result"], first_result["cause"]) == ("UNKNOWN", "malformed")
    assert "raw output" not in json.dumps(data)


def test_a_bundle_without_its_binding_stops_at_intake(example: pytest.Pytester) -> None:
    (example.path / "bundle" / "binding.yaml").unlink()

    result = example.runpytest("-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*binding.yaml: is missing: an advisory bundle names the commits, package and model*"])


def test_a_flipped_result_fails_verify(example: pytest.Pytester, capsys: pytest.CaptureFixture[str]) -> None:
    from pytest_ora.__main__ import main
    from pytest_ora.method.kinds.advisory.render import advisory_markdown

    example.runpytest("-p", "no:cacheprovider")
    out = example.path / "ora-results"
    assert main(["verify", str(out)]) == 0
    data = json.loads((out / "advisory.json").read_text(encoding="utf-8"))
    flipped = next(r for r in data["results"] if r["cause"] == "abnormal")
    flipped.update(result="PASS", cause=None, reason="all 6 hold")
    data["counts"] = {"PASS": 2, "FAIL": 1, "UNKNOWN": 6}
    (out / "advisory.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    (out / "ADVISORY-RESULT.md").write_text(advisory_markdown(data), encoding="utf-8")
    capsys.readouterr()

    assert main(["verify", str(out)]) == 1
    assert (
        f"{flipped['capture_id']} is 'PASS (all 6 hold)', but ledger.jsonl has 'UNKNOWN (abnormal:"
        in capsys.readouterr().out
    )
