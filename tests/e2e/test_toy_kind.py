"""Adding a rubric kind, walked through with a toy one: the places a new kind touches.

A kind is one package (here `toy_kind/`; in the project `pytest_ora/method/kinds/<kind>/`) whose
`kind.py` defines KIND, plus one line in the registry `KINDS` (pytest_ora/method/kinds/__init__.py;
the tests add it with monkeypatch). Nothing else changes: intake, the packet, the judges, the ledger,
the summary tables and the terminal come from the kind's protocol (kinds/base.py):

- a judged kind implements JudgedKind: name, formula, summary_columns, instructions, reply_schema,
  check, record_fields, panel and ledger_fields (the toy judged kind below has exactly these);
- a kind that calls no judge implements MechanicalKind: name, formula, summary_columns, files,
  score_capture, report_files and scored_by (the toy mechanical kind below).

What only some kinds do is an optional capability (kinds/capabilities.py: several packets per item,
material beside the answer, report files of its own, terminal lines, extra ledger fields, its own
rubric section); a kind without one gets the default. Two things still live outside the package:
- a rubric section of its own needs its fields in the rubric file schema (method/rubric_file.py,
  RubricFile); the kind parses them into `Rubric.options` (capability RubricOptions);
- `verify` re-renders report files through the report registry (reports/renderers.py): toy.md below
  is written, not verified.
A judged kind's replies in tests come from the reference judge (testing/judgescores.py), which answers by
the reply schema's shape: a kind whose replies look like the scores kind's (the toy) needs nothing there.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
import yaml
from support.bundle_factory import write_bundle
from support.e2e import outcomes, record

import pytest_ora
from pytest_ora.method import kinds
from pytest_ora.method.rubric import builtin_text
from pytest_ora.method.rubric_file import digest_of
from pytest_ora.testing.server import ReferenceJudge

EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "patch"

TOY_JUDGED = '''
"""kind toy: the judges score as for kind scores, but the weakest judge decides: overall = the lowest
judge's own overall."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from pytest_ora.core.record import CaptureRecord
from pytest_ora.core.rubric import Rubric
from pytest_ora.method.kinds.base import JudgedKind
from pytest_ora.method.kinds.scores.kind import KIND as SCORES
from pytest_ora.method.scoring import Scores, combine, is_failure


class ToyKind(JudgedKind):
    name = "toy"

    def formula(self, rubric: Rubric) -> str:
        return f"{rubric.scores_formula()}; the toy's overall = the lowest judge's own overall"

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return rubric.names

    def instructions(self, rubric: Rubric) -> str:
        return SCORES.instructions(rubric)

    def reply_schema(self, rubric: Rubric) -> dict[str, Any]:
        return SCORES.reply_schema(rubric)

    def check(self, payload: Any, rubric: Rubric, entry_key: str, configuration: str | None,
              material: Mapping[str, Any] | None = None) -> Any:
        return SCORES.check(payload, rubric, entry_key, configuration)

    def record_fields(self, reply: Any, rubric: Rubric) -> dict[str, Any]:
        return SCORES.record_fields(reply, rubric)

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        scores = combine([judge["scores"] for judge in record["judges"]], rubric)
        lowest = min(scores.judge_overalls)
        return dataclasses.replace(scores, overall=lowest, failure=is_failure(rubric, lowest, scores.votes))

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {name: float(mean) for name, mean in scores.means.items()}


KIND = ToyKind()
'''

TOY_MECHANICAL = '''
"""kind toy: each criterion is 10 when the answer has at least that many words, else 0."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_ora.core.plan import Plan, PlannedCapture
from pytest_ora.core.record import CaptureRecord, JudgeRecord, Usage, base_record
from pytest_ora.core.rubric import Rubric
from pytest_ora.method.kinds.base import MechanicalKind, PanelScores
from pytest_ora.method.scoring import Scores, combine

WORDS = {"files": 1, "functions": 5, "lines": 20}


class ToyKind(MechanicalKind, PanelScores):
    name = "toy"
    files = ("toy.md",)

    def formula(self, rubric: Rubric) -> str:
        return rubric.scores_formula()

    def summary_columns(self, rubric: Rubric) -> tuple[str, ...]:
        return rubric.names

    def scored_by(self, rubric: Rubric) -> str:
        return "None: rubric kind toy counts each answer's words."

    def score_capture(self, plan: Plan, planned: PlannedCapture, suite: Any) -> CaptureRecord:
        words = len(planned.capture.answer.split())
        scores = {name: "10" if words >= WORDS[name] else "0" for name in plan.rubric.names}
        record = base_record(planned, "scored")
        record["judges"] = [JudgeRecord(
            label="Toy", slot="toy", role="toy", provider="toy", model="words", resolved_model=None,
            judge_model="words", scores=scores, notes=dict.fromkeys(plan.rubric.names, ""), impression="",
            asks=1, attempts=0, usage=Usage(input_tokens=0, output_tokens=0, cached_input_tokens=0, reasoning_tokens=0),
        )]
        record["failure"] = combine([scores], plan.rubric).failure
        return record

    def panel(self, record: CaptureRecord, rubric: Rubric) -> Scores:
        return combine([judge["scores"] for judge in record["judges"]], rubric)

    def ledger_fields(self, scores: Scores, rubric: Rubric) -> dict[str, Any]:
        return {name: float(mean) for name, mean in scores.means.items()}

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        lines = [f"{r['capture_id']}: {r['judges'][0]['scores']}" for r in records if r["status"] == "scored"]
        return {"toy.md": "# Toy kind\\n\\n" + "\\n".join(lines) + "\\n"}


KIND = ToyKind()
'''


def add_toy_kind(root: Path, source: str, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The toy kind's package under root and its one registry line; the files written, relative to root."""
    package = root / "toy_kind"
    package.mkdir()
    (package / "__init__.py").write_text('"""A toy rubric kind."""\n', encoding="utf-8")
    (package / "kind.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setitem(kinds.KINDS, "toy", "toy_kind.kind")
    return sorted(str(path.relative_to(root)) for path in package.iterdir())


def toy_rubric(text: str, version: str) -> str:
    """A rubric file of kind toy from another one's text: a new version, its digest recorded."""
    data = yaml.safe_load(text)
    data.update(rubric=version, kind="toy")
    data.pop("scorer", None)
    data["history"] = [{**data["history"][-1], "version": version}]
    data["history"][-1]["digest"] = digest_of(data)
    return yaml.safe_dump(data, sort_keys=False)


def source_digest() -> str:
    """One digest over every file of the installed pytest_ora package."""
    root = Path(pytest_ora.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def test_a_judged_toy_kind_is_its_package_and_one_registry_line(
    project: pytest.Pytester,
    judge: ReferenceJudge,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a bundle judged by the loopback reference judge, its rubric ora-1.0 switched to kind toy
    registry, before = dict(kinds.KINDS), source_digest()
    (project.path / "bundle" / "toy-1.0.yaml").write_text(
        toy_rubric(builtin_text("ora-1.0"), "toy-1.0"), encoding="utf-8"
    )
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(project.path / "bundle", routes=routes, manifest={"rubric": "toy-1.0.yaml"})
    # And the toy kind: a package implementing only the judged protocol, registered by one line
    written = add_toy_kind(project.path, TOY_JUDGED, monkeypatch)
    # Then that is all it touched: its package's two files and one registry entry, no file of pytest_ora
    assert written == ["toy_kind/__init__.py", "toy_kind/kind.py"]
    assert {name: module for name, module in kinds.KINDS.items() if registry.get(name) != module} == {
        "toy": "toy_kind.kind"
    }
    assert source_digest() == before
    # When the judges score the bundle
    result = record(project)
    # Then every capture is judged through the common interface, and the toy's arithmetic decides
    assert outcomes(result)["failed"] == outcomes(result)["errors"] == 0, result.stdout.str()
    out = project.path / "ora-results"
    rows = [json.loads(line) for line in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    scored = [row for row in rows if row["status"] == "scored"]
    assert scored and all(len(row["judges"]) == 2 for row in scored)
    assert all(row["overall"] == min(judge["overall"] for judge in row["judges"]) for row in scored)
    assert "the toy's overall = the lowest judge's own overall" in (out / "summary.md").read_text(encoding="utf-8")


def test_a_mechanical_toy_kind_is_its_package_and_one_registry_line(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given the patch example, its rubric switched to kind toy (no scorer: the toy kind scores by itself)
    registry, before = dict(kinds.KINDS), source_digest()
    shutil.copytree(
        EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("ora-results", "__pycache__")
    )
    rubric_path = pytester.path / "bundle" / "patch-match-1.0.yaml"
    rubric_path.write_text(toy_rubric(rubric_path.read_text(encoding="utf-8"), "patch-match-1.0"), encoding="utf-8")
    # And the toy kind's package implementing only the mechanical protocol (and the panel), registered by one line
    assert add_toy_kind(pytester.path, TOY_MECHANICAL, monkeypatch) == ["toy_kind/__init__.py", "toy_kind/kind.py"]
    assert {name: module for name, module in kinds.KINDS.items() if registry.get(name) != module} == {
        "toy": "toy_kind.kind"
    }
    assert source_digest() == before
    # When the example runs
    result = pytester.runpytest("-p", "no:cacheprovider")
    # Then every capture is scored by the toy kind through the common interface
    outcomes = result.parseoutcomes()
    assert outcomes.get("failed", 0) == 0 and outcomes.get("error", 0) == 0, result.stdout.str()
    out = pytester.path / "ora-results"
    rows = [json.loads(line) for line in (out / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    assert rows and all(row["status"] == "scored" and row["judges"][0]["model"] == "words" for row in rows)
    assert {row["overall"] for row in rows} <= {0.0, 2.0, 5.0, 10.0}
    # And its own report file is written beside the tables, the summary names its formula
    toy = (out / "toy.md").read_text(encoding="utf-8")
    assert toy.startswith("# Toy kind") and all(row["capture_id"] in toy for row in rows)
    assert "weighted = 0.20*files + 0.30*functions + 0.50*lines" in (out / "summary.md").read_text(encoding="utf-8")


def test_every_registered_kind_is_judged_or_mechanical_and_says_its_capabilities() -> None:
    from pytest_ora.method.kinds import calls_judges, get_kind, graded, judged_kind, mechanical_kind, panel_kind
    from pytest_ora.method.kinds.capabilities import ItemShape, Material, OwnReports

    judged = {name for name in kinds.KINDS if calls_judges(name)}
    assert judged == {"scores", "checklist", "compare", "behavior", "coherence"}
    assert {name for name in kinds.KINDS if mechanical_kind(name) is not None} == {"scorecard", "python", "advisory"}
    assert all(judged_kind(name) is get_kind(name) for name in judged)
    with pytest.raises(TypeError, match="calls no judge"):
        judged_kind("scorecard")
    # a kind whose records carry grades has no panel combination; every other kind has one
    assert {name for name in kinds.KINDS if graded(name) is not None} == {"scorecard", "advisory"}
    with pytest.raises(TypeError, match="no scores to combine"):
        panel_kind("advisory")
    assert panel_kind("python") is get_kind("python")
    # the optional capabilities belong to the kinds that use them
    assert {name for name in kinds.KINDS if isinstance(get_kind(name), ItemShape)} == {"compare"}
    assert {name for name in kinds.KINDS if isinstance(get_kind(name), Material)} == {
        "checklist",
        "behavior",
        "coherence",
        "compare",
    }
    assert {name for name in kinds.KINDS if isinstance(get_kind(name), OwnReports)} == {"checklist", "compare"}
