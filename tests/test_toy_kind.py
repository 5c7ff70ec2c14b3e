"""Adding a rubric kind, walked through with a toy one: the places a new kind touches.

A kind is one package (here `toy_kind/`, in the package `pytest_ora/method/kinds/<kind>/`) whose
`kind.py` defines KIND, plus one line in the registry `KINDS` (pytest_ora/method/kinds/__init__.py;
the test adds it with monkeypatch). Nothing else changes: intake, the runner, the ledger, the
summary tables and the kind's own report file come from the interface (kinds/base.py for judged
kinds, kinds/mechanical.py for kinds that call no judge).

What a kind needs beyond that, and where it still goes (phase 2 of the architecture work):
- rubric fields of its own (like scorecard's axes, python's scorer): core/rubric.py and
  method/rubric_file.py; a kind without them (this one) uses the common fields only;
- a judged kind's replies in replayed runs: the reference judge (testing/scoring.py) must know
  its reply schema to record cassettes for it;
- a new record field (like the scorecard's grades): harness/outcomes.py, reports/tables.py,
  reports/rows.py;
- `verify` re-rendering its report files: reports/verify.py (toy.md below is written, not verified).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from pytest_ora.method import kinds
from pytest_ora.method.rubric_file import digest_of

EXAMPLE = Path(__file__).parent.parent / "evals" / "examples" / "patch"

TOY_KIND = '''
"""kind toy: each criterion is 10 when the answer has at least that many words, else 0."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pytest_ora.core.plan import Plan, PlannedCapture
from pytest_ora.core.record import CaptureRecord, JudgeRecord, Usage, base_record
from pytest_ora.method.kinds.mechanical import NoJudge
from pytest_ora.method.kinds.scores.kind import ScoresKind
from pytest_ora.method.scoring import combine

WORDS = {"files": 1, "functions": 5, "lines": 20}


class ToyKind(NoJudge, ScoresKind):
    name = "toy"

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

    def report_files(self, plan: Plan, records: Sequence[CaptureRecord]) -> dict[str, str]:
        lines = [f"{r['capture_id']}: {r['judges'][0]['scores']}" for r in records if r["status"] == "scored"]
        return {"toy.md": "# Toy kind\\n\\n" + "\\n".join(lines) + "\\n"}


KIND = ToyKind()
'''


def test_a_toy_kind_is_its_package_and_one_registry_line(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given the patch example, its rubric switched to kind toy (no scorer: the toy kind scores by itself)
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True, ignore=shutil.ignore_patterns("ora-results", "__pycache__"))
    rubric_path = pytester.path / "bundle" / "patch-match-1.0.yaml"
    data = yaml.safe_load(rubric_path.read_text(encoding="utf-8"))
    data["kind"] = "toy"
    del data["scorer"]
    data["history"] = [{**data["history"][-1], "digest": digest_of(data)}]
    rubric_path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    # And the toy kind's package, registered by one line
    (pytester.path / "toy_kind").mkdir()
    (pytester.path / "toy_kind" / "__init__.py").write_text('"""A toy rubric kind."""\n', encoding="utf-8")
    (pytester.path / "toy_kind" / "kind.py").write_text(TOY_KIND, encoding="utf-8")
    pytester.syspathinsert()
    monkeypatch.setitem(kinds.KINDS, "toy", "toy_kind.kind")
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
