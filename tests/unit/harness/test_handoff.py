"""An xdist worker takes the controller's intake only when it reads the very inputs the controller digested."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from support.bundle_factory import write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.harness.handoff import PLAN_KEY, PlanHandoff, inputs_digest, received_plan

ARGUMENTS = ("bundle", (), None, None, (), ())


def _handed(root: Path, directory: Path, arguments: tuple[Any, ...] = ARGUMENTS) -> tuple[Any, Any]:
    """The controller's side: digest, intake, the plan file written; the worker's config as xdist would start it."""
    inputs = inputs_digest(root, arguments, None)
    assert inputs is not None
    plan = intake(root)
    node = SimpleNamespace(workerinput={})
    PlanHandoff(plan, inputs).configure_node(node, directory)
    return plan, SimpleNamespace(workerinput=node.workerinput)


def test_a_worker_takes_the_controllers_plan_when_the_bundle_is_unchanged(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (tmp_path / "run").mkdir()
    plan, worker = _handed(root, tmp_path / "run")

    received = received_plan(worker, root, ARGUMENTS, None)

    assert received is not None and received is not plan
    assert [p.capture.capture_id for p in received.captures] == [p.capture.capture_id for p in plan.captures]
    assert [p.capture.answer for p in received.captures] == [p.capture.answer for p in plan.captures]
    assert received.rubric.digest == plan.rubric.digest


def test_a_bundle_changed_after_the_controller_read_it_makes_the_worker_run_its_own_intake(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (tmp_path / "run").mkdir()
    _, worker = _handed(root, tmp_path / "run")
    lines = (root / "captures.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["answer"] = "edited after the controller's intake"
    (root / "captures.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")

    assert received_plan(worker, root, ARGUMENTS, None) is None


def test_a_new_file_in_the_bundle_or_another_option_is_a_mismatch_too(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (tmp_path / "run").mkdir()
    _, worker = _handed(root, tmp_path / "run")

    assert received_plan(worker, root, ("bundle", (), "another panel", None, (), ()), None) is None
    (root / "specs" / "new.md").parent.mkdir(exist_ok=True)
    (root / "specs" / "new.md").write_text("new\n", encoding="utf-8")
    assert received_plan(worker, root, ARGUMENTS, None) is None


def test_a_plan_file_that_is_not_the_one_written_is_never_unpickled(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (tmp_path / "run").mkdir()
    _, worker = _handed(root, tmp_path / "run")
    path = Path(worker.workerinput[PLAN_KEY].split("\t")[0])
    path.write_bytes(path.read_bytes() + b"\0")

    assert received_plan(worker, root, ARGUMENTS, None) is None
    path.unlink()
    assert received_plan(worker, root, ARGUMENTS, None) is None


def test_without_a_handed_plan_a_worker_runs_its_own_intake(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")

    assert received_plan(SimpleNamespace(workerinput={}), root, ARGUMENTS, None) is None  # type: ignore[arg-type]


def test_a_directory_reached_through_a_symbolic_link_is_not_digested_so_nothing_is_handed_on(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    (tmp_path / "elsewhere").mkdir()
    (root / "linked").symlink_to(tmp_path / "elsewhere", target_is_directory=True)

    assert inputs_digest(root, ARGUMENTS, None) is None


def test_a_file_link_in_the_bundle_is_never_read_to_digest_it(tmp_path: Path) -> None:
    # Given a bundle holding a link to a file outside it
    root = write_bundle(tmp_path / "b")
    outside = tmp_path / "outside.txt"
    outside.write_text("not the bundle's\n", encoding="utf-8")
    (root / "notes.txt").symlink_to(outside)

    # Then nothing is digested through it, and no plan is handed on (each worker's intake judges the link)
    assert inputs_digest(root, ARGUMENTS, None) is None


def test_the_rubric_file_is_part_of_the_digest(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "b")
    rubric = tmp_path / "rubric.yaml"
    rubric.write_text("one\n", encoding="utf-8")
    before = inputs_digest(root, ARGUMENTS, rubric)
    rubric.write_text("two\n", encoding="utf-8")

    assert before is not None and inputs_digest(root, ARGUMENTS, rubric) not in (None, before)
