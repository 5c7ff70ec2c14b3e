"""Rubric files: the built-ins, the digest, the append-only history, the CLI."""

from __future__ import annotations

import hashlib
import json
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from pytest_ora.__main__ import main
from pytest_ora.core.rubric import RubricError
from pytest_ora.method.rubric import ORA_V1, builtin_ids, builtin_text, get_rubric, load_rubric
from pytest_ora.method.rubric_file import digest_of


def write_rubric(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def edited(version: str, old: str, new: str) -> str:
    text = builtin_text(version)
    assert old in text
    return text.replace(old, new, 1)


def test_the_built_ins_are_shipped_as_files_and_load() -> None:
    assert {"ora-1.0", "judge-solo-1.0", "trio-likert-1.0"} <= set(builtin_ids())
    for version in builtin_ids():
        rubric = get_rubric(version)
        assert rubric.version == version and rubric.digest.startswith("sha256:")
        assert rubric.history[-1].startswith(f"{version} (")


def test_ora_1_0_keeps_seed_000_numbers() -> None:
    assert [(c.name, c.weight) for c in ORA_V1.criteria] == [
        ("fidelity", Fraction("0.35")),
        ("soundness", Fraction("0.25")),
        ("completeness", Fraction("0.18")),
        ("relevance", Fraction("0.12")),
        ("calibration", Fraction("0.10")),
    ]
    assert (ORA_V1.scale_min, ORA_V1.scale_max, ORA_V1.cap_criterion, ORA_V1.failure_below) == (0, 10, "fidelity", 4)
    assert ORA_V1.panel_size == 2 and not ORA_V1.blind and ORA_V1.requires_spec
    assert ORA_V1.families == ("mode", "visual", "lens")


def test_trio_and_solo_carry_their_seeds_numbers() -> None:
    trio = get_rubric("trio-likert-1.0")
    assert [c.weight for c in trio.criteria] == [Fraction(1, 6)] * 6
    assert (trio.scale_min, trio.scale_max, trio.scale_step, trio.blind, trio.panel_size) == (1, 5, 1, True, 3)
    assert [(v.name, v.min) for v in trio.verdicts] == [
        ("PASS_STRONG", 4),
        ("PASS_ADEQUATE", Fraction("3.5")),
        ("FAIL_WEAK", Fraction("2.5")),
        ("FAIL_CRITICAL", None),
    ]
    assert trio.failure_vote == "fail" and trio.vote_names == ("strict_pass", "fail", "critical")
    solo = get_rubric("judge-solo-1.0")
    assert [c.weight for c in solo.criteria] == [Fraction("2.5")] * 4
    assert all(len(c.anchors) == 5 for c in solo.criteria)  # the judge skill's five behavioural bands
    assert solo.failure_below == 60 and solo.panel_size == 1


def test_the_digest_is_sha256_of_the_canonical_json_without_history() -> None:
    data = yaml.safe_load(builtin_text("trio-likert-1.0"))
    content = {key: value for key, value in data.items() if key != "history"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    assert digest_of(data) == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert get_rubric("trio-likert-1.0").digest == digest_of(data) == data["history"][-1]["digest"]


def test_a_number_changed_without_a_new_version_stops_with_the_reason(tmp_path: Path) -> None:
    path = write_rubric(
        tmp_path / "trio.yaml",
        edited("trio-likert-1.0", "fail: {judges: 2, below: 3.0}", "fail: {judges: 2, below: 3.5}"),
    )

    with pytest.raises(RubricError) as caught:
        load_rubric(path)

    message = str(caught.value)
    assert message.startswith(f"{path}: rubric trio-likert-1.0 changed without a new version")
    assert "A changed number needs a new version and a new history line" in message


def test_a_new_version_needs_its_own_history_line(tmp_path: Path) -> None:
    text = edited("trio-likert-1.0", "rubric: trio-likert-1.0", "rubric: trio-likert-1.1")
    with pytest.raises(
        RubricError, match=r"last history entry is version 'trio-likert-1.0' but the file says rubric 'trio-likert-1.1'"
    ):
        load_rubric(write_rubric(tmp_path / "a.yaml", text))


def test_a_bumped_version_with_its_history_line_loads(tmp_path: Path) -> None:
    text = edited("trio-likert-1.0", "rubric: trio-likert-1.0", "rubric: trio-likert-local-1.1")
    text = text.replace("below: 3.0}", "below: 3.5}", 1)
    digest = digest_of(yaml.safe_load(text))
    text += f'  - {{version: trio-likert-local-1.1, date: 2026-05-01, change: "fail below 3.5", digest: "{digest}"}}\n'

    rubric = load_rubric(write_rubric(tmp_path / "b.yaml", text))

    assert rubric.version == "trio-likert-local-1.1" and len(rubric.history) == 2
    assert dict((v.name, v.below) for v in rubric.votes)["fail"] == Fraction("3.5")


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("weight: 1/6", "weight: one sixth", "field 'criteria.0.weight': must be a number or a fraction string"),
        ("failure: {vote: fail}", "failure: {vote: veto}", "failure.vote names 'veto', which is not one of the votes"),
        ("kind: scores", "kind: tarot", "field 'kind': unknown rubric kind 'tarot'"),
        ("scale: {min: 1, max: 5, step: 1}", "scale: {min: 5, max: 1}", "min must be below max"),
    ],
)
def test_a_bad_field_is_named(tmp_path: Path, old: str, new: str, expected: str) -> None:
    with pytest.raises(RubricError, match=expected.replace("(", r"\(").replace(")", r"\)")):
        load_rubric(write_rubric(tmp_path / "bad.yaml", edited("trio-likert-1.0", old, new)))


def test_the_cli_lists_shows_and_digests(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rubric", "list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert any(line.startswith("trio-likert-1.0\tscores\t") for line in listed)

    assert main(["rubric", "show", "judge-solo-1.0"]) == 0
    assert capsys.readouterr().out == builtin_text("judge-solo-1.0")

    path = write_rubric(tmp_path / "edit.yaml", edited("ora-1.0", "weight: 0.35", "weight: 0.40"))
    assert main(["rubric", "digest", str(path)]) == 0
    assert capsys.readouterr().out.strip() == digest_of(yaml.safe_load(path.read_text()))

    assert main(["rubric", "show", "no-such-rubric"]) == 4
    assert "unknown rubric 'no-such-rubric'" in capsys.readouterr().err


def test_a_new_calibration_measurement_needs_no_new_version_but_must_name_a_known_statistic(tmp_path: Path) -> None:
    # A re-measured calibration changes no score: the same version loads with the new value
    path = write_rubric(tmp_path / "trio.yaml", edited("trio-likert-1.1", "value: 0.7878", "value: 0.81"))
    loaded = load_rubric(path)
    assert loaded.calibration is not None and loaded.calibration.value == 0.81
    # A statistic the run cannot compute is refused, naming the field
    path = write_rubric(
        tmp_path / "bad.yaml", edited("trio-likert-1.1", "statistic: fleiss_kappa", "statistic: cohen_kappa")
    )
    with pytest.raises(RubricError, match=r"calibration\.statistic"):
        load_rubric(path)
