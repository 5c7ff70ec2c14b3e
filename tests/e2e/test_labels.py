"""Human labels: every bad line a usage error naming file, line and field; several raters per capture."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST

from pytest_ora.bundle.labels import labels_path, read_labels
from pytest_ora.core.errors import IntakeError
from pytest_ora.method.rubric import get_rubric

ORA = get_rubric("ora-1.0")
TRIO = get_rubric("trio-likert-1.0")
CAPTURES = {"mode:argument-audit/optimum", "mode:argument-audit/big-1"}
GOOD = {"fidelity": 8, "soundness": 7.5, "completeness": 7, "relevance": 9, "calibration": 6}


def label(**changes: object) -> str:
    data: dict[str, object] = {
        "capture_id": "mode:argument-audit/optimum",
        "rater": "ana",
        "scores": dict(GOOD),
        "notes": "ok",
    }
    data.update(changes)
    return json.dumps(data)


def problems(tmp_path: Path, *lines: str, rubric: object = ORA) -> list[str]:
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(IntakeError) as caught:
        read_labels(path, "labels.jsonl", rubric, CAPTURES)
    return [problem.render() for problem in caught.value.problems]


def test_good_labels_are_read_in_rubric_order_with_several_raters(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    reordered = dict(reversed(list(GOOD.items())))
    path.write_text(
        "\n".join([label(scores=reordered), "", label(rater="ben"), label(capture_id="mode:argument-audit/big-1")])
        + "\n"
    )
    labels = read_labels(path, "labels.jsonl", ORA, CAPTURES)
    assert [(x.capture_id, x.rater, x.line) for x in labels.labels] == [
        ("mode:argument-audit/optimum", "ana", 1),
        ("mode:argument-audit/optimum", "ben", 3),
        ("mode:argument-audit/big-1", "ana", 4),
    ]
    assert labels.labels[0].scores == (
        ("fidelity", "8"),
        ("soundness", "7.5"),
        ("completeness", "7"),
        ("relevance", "9"),
        ("calibration", "6"),
    )
    assert labels.raters == ("ana", "ben")
    assert {k: len(v) for k, v in labels.by_capture().items()} == {
        "mode:argument-audit/optimum": 2,
        "mode:argument-audit/big-1": 1,
    }


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            label(capture_id="mode:nope/optimum"),
            "labels.jsonl:1: mode:nope/optimum: field 'capture_id': names no capture of this bundle",
        ),
        (
            label(scores={**GOOD, "style": 5}),
            "labels.jsonl:1: mode:argument-audit/optimum: field 'scores.style': is not a criterion of rubric ora-1.0",
        ),
        (label(scores={k: v for k, v in GOOD.items() if k != "relevance"}), "field 'scores.relevance': is missing"),
        (label(scores={**GOOD, "fidelity": 11}), "field 'scores.fidelity': is outside the scale 0-10 (got 11)"),
        (label(scores={**GOOD, "fidelity": -0.5}), "field 'scores.fidelity': is outside the scale 0-10"),
        (label(scores={**GOOD, "fidelity": "8"}), "field 'scores.fidelity': must be a number (got '8')"),
        (label(scores={**GOOD, "fidelity": True}), "field 'scores.fidelity': must be a number (got True)"),
        (label(scores=[8, 7]), "field 'scores': must be an object of criterion: number"),
        (label(rater=""), "field 'rater': must be a non-empty string"),
        (label(rater=3), "field 'rater': must be a non-empty string (got 3)"),
        (label(score=5), "field 'score': is not a label field (a label holds capture_id, rater, scores, notes)"),
        (label(notes=5), "field 'notes': must be text, or an object of criterion: text"),
        (
            '{"capture_id": "mode:argument-audit/optimum", "rater": "ana", "rater": "ben"}',
            "labels.jsonl:1: field 'rater': is not valid JSON: key 'rater' appears twice",
        ),
        (
            "{not json",
            "labels.jsonl:1: is not valid JSON: Expecting property name enclosed in double quotes at column 2",
        ),
        ("[1, 2]", "labels.jsonl:1: is not a JSON object"),
        (label(scores={**GOOD, "fidelity": 1e999}), "is not valid JSON"),
    ],
)
def test_a_bad_line_is_named_with_file_line_and_field(tmp_path: Path, line: str, expected: str) -> None:
    found = problems(tmp_path, line)
    assert len(found) == 1
    assert expected in found[0], found[0]


def test_off_the_step_is_refused_on_a_stepped_scale(tmp_path: Path) -> None:
    scores = {name: 4 for name in TRIO.names}
    line = json.dumps(
        {"capture_id": "mode:argument-audit/optimum", "rater": "ana", "scores": {**scores, "accuracy": 3.5}}
    )
    assert (
        "field 'scores.accuracy': is not a multiple of the scale step 1 (got 3.5)"
        in problems(tmp_path, line, rubric=TRIO)[0]
    )


def test_a_rater_labels_a_capture_once_and_every_bad_line_is_listed(tmp_path: Path) -> None:
    found = problems(tmp_path, label(), label(), label(rater="ben", capture_id="x/y"), label(rater="ben"))
    assert found == [
        "labels.jsonl:2: mode:argument-audit/optimum: field 'rater': rater 'ana' already labelled this capture on line 1",
        "labels.jsonl:3: x/y: field 'capture_id': names no capture of this bundle (got 'x/y')",
    ]


def test_an_empty_or_missing_file_is_refused(tmp_path: Path) -> None:
    assert problems(tmp_path, "") == [
        "labels.jsonl: holds no label; write one JSON object per line: capture_id, rater, scores, notes"
    ]
    with pytest.raises(IntakeError, match="does not exist"):
        read_labels(tmp_path / "absent.jsonl", "absent.jsonl", ORA, CAPTURES)
    with pytest.raises(IntakeError, match="kind checklist"):
        (tmp_path / "x.jsonl").write_text(label())
        read_labels(tmp_path / "x.jsonl", "x.jsonl", get_rubric("judge-checklist-2.0"), CAPTURES)


def test_bundle_labels_are_read_only_inside_the_bundle(tmp_path: Path) -> None:
    root = tmp_path / "bundle"
    root.mkdir()
    (tmp_path / "outside.jsonl").write_text(label())
    (root / "link.jsonl").symlink_to(tmp_path / "outside.jsonl")
    for name, why in (
        ("../outside.jsonl", "points outside the bundle"),
        ("link.jsonl", "resolves outside the bundle"),
        ("absent.jsonl", "does not exist"),
    ):
        with pytest.raises(IntakeError, match=why):
            labels_path(None, name, root)
    (root / "labels.jsonl").write_text(label())
    assert labels_path(None, "labels.jsonl", root) == ((root / "labels.jsonl").resolve(), "labels.jsonl")
    # The option wins over bundle.yaml; a relative path is relative to where it was given.
    assert labels_path(("mine.jsonl", tmp_path), "labels.jsonl", root) == (tmp_path / "mine.jsonl", "mine.jsonl")
    assert labels_path(None, None, root) is None


def test_bad_labels_stop_the_run_before_any_judge_call_with_exit_4(pytester: pytest.Pytester) -> None:
    write_bundle(pytester.path / "bundle", manifest={"labels": "labels.jsonl"})
    (pytester.path / "bundle" / "labels.jsonl").write_text(
        label() + "\n" + label(scores={**GOOD, "fidelity": 12}) + "\n"
    )
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")

    result = pytester.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*human labels refused (1 problem):*",
            "*labels.jsonl:2: mode:argument-audit/optimum: field 'scores.fidelity': is outside the scale 0-10 (got 12)*",
        ]
    )
    assert "Traceback" not in result.stdout.str() + result.stderr.str()
    # --ora-labels names another file instead (relative to where pytest started): its bad line is named the same way
    (pytester.path / "other.jsonl").write_text('{"capture_id": 1}\n')
    result = pytester.runpytest("--ora-labels=other.jsonl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*other.jsonl:1: field 'capture_id': must be a non-empty string (got 1)*"])
