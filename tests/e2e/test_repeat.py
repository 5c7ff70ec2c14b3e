"""--ora-repeat K: each candidate answers each entry K times, ids `#k`, each answer recorded, the entry the unit."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.bundle_factory import ENTRIES, write_bundle
from support.e2e import EVAL_TEST, outcomes, record

from pytest_ora.testing.server import ReferenceJudge

PYTHON = """
def answer(request):
    request.setdefault("repeat", 1)  # given only when answers repeat
    steps = ["Extract the claim", "Map the premises", "Test each inference", "Weigh the evidence"]
    kept = steps[: 1 + request["repeat"]]  # each repeat a different answer: 2, 3 or 4 of the steps
    return {"answer": "Answer " + str(request["repeat"]) + " to: " + request["prompt"] + "\\n" + "\\n".join(kept),
            "usage": {"input": 30, "output": 10 * request["repeat"]}, "model": "toy-1"}
"""

AGENT = """
import json, sys
request = json.loads(sys.stdin.read())
print("Command answer " + str(request.get("repeat")) + " to: " + request["prompt"] + "\\nExtract the claim\\nMap the premises")
"""


def _project(
    pytester: pytest.Pytester, judge: ReferenceJudge, module: str, manifest: dict[str, Any] | None = None
) -> Path:
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    candidates = {
        "candidates": {
            "harness": {"python": f"{module}:answer"},
            "cmd": {"command": [sys.executable, "agent.py"], "timeout_s": 60},
        }
    }
    root = write_bundle(
        pytester.path / "bundle",
        configurations=("optimum", "harness", "cmd"),
        routes=routes,
        edit=lambda items: [item for item in items if item["configuration"] == "optimum"],
        manifest={**candidates, **(manifest or {})},
    )
    entries = [
        {
            "entry_key": f"{family}:{technique}",
            "prompt": f"Use {technique} on the warehouse budget decision of the regional logistics team.",
        }
        for family, techniques in ENTRIES.items()
        for technique in techniques
    ]
    (root / "entries.jsonl").write_text("".join(json.dumps(entry) + "\n" for entry in entries), encoding="utf-8")
    (pytester.path / f"{module}.py").write_text(PYTHON, encoding="utf-8")
    (pytester.path / "agent.py").write_text(AGENT, encoding="utf-8")
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    return root


def _ledger(path: Path) -> dict[str, dict[str, Any]]:
    return {row["capture_id"]: row for row in map(json.loads, path.read_text(encoding="utf-8").splitlines())}


def test_when_answers_repeat_then_each_is_its_own_recorded_capture_and_the_entry_is_the_unit(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _project(pytester, judge, "agents_repeat")
    live = record(pytester, "--ora-repeat", "3", "--ora-out", "live")
    counts = outcomes(live)
    # optimum's 6 captures once; harness and cmd 6 entries x 3 repeats each (the 2 collision losers skipped)
    assert counts["failed"] == counts["errors"] == 0 and sum(counts.values()) == 6 + 2 * 6 * 3, live.stdout.str()
    ledger = _ledger(pytester.path / "live" / "ledger.jsonl")
    assert [cid for cid in ledger if cid.startswith("mode:argument-audit/")] == [
        "mode:argument-audit/optimum",
        "mode:argument-audit/harness#1",
        "mode:argument-audit/harness#2",
        "mode:argument-audit/harness#3",
        "mode:argument-audit/cmd#1",
        "mode:argument-audit/cmd#2",
        "mode:argument-audit/cmd#3",
    ]
    assert [ledger[f"mode:argument-audit/harness#{k}"]["candidate_tokens_out"] for k in (1, 2, 3)] == [10, 20, 30]
    assert {row["configuration"] for cid, row in ledger.items() if "#" in cid} == {"harness", "cmd"}

    # Each repeat is its own recorded answer
    recorded = pytester.path / "cassettes" / "_candidates" / "mode" / "argument-audit"
    answers = [json.loads((recorded / f"harness#{k}.json").read_text())["answer"]["answer"] for k in (1, 2, 3)]
    assert [a.partition(" to:")[0] for a in answers] == ["Answer 1", "Answer 2", "Answer 3"]
    assert len(set(answers)) == 3

    # The statistics take the entry as the unit: harness's 12 scored captures are 4 entries (clusters of 3)
    stats = json.loads((pytester.path / "live" / "stats.json").read_text(encoding="utf-8"))
    rows = {row["configuration"]: row for row in stats["configurations"]}
    assert (rows["harness"]["n"], rows["harness"]["units"], rows["harness"]["clusters"]) == (12, 4, 4)
    assert (rows["optimum"]["n"], rows["optimum"]["units"]) == (4, 4)

    # One entry's repeats are selected together with -k
    one = pytester.runpytest(
        "--ora-repeat", "3", "--ora-record", "none", "--ora-out", "one", "-k", "argument-audit and harness"
    )
    assert outcomes(one)["passed"] + outcomes(one)["lowscore"] == 3

    # Offline, the candidates gone: byte-identical at -n 2
    (pytester.path / "agent.py").write_text("import sys\nsys.exit(1)\n", encoding="utf-8")
    (pytester.path / "agents_repeat.py").write_text("raise ImportError('unavailable')\n", encoding="utf-8")
    judge.stop()
    replay = pytester.runpytest_subprocess(
        "--ora-repeat", "3", "--ora-record", "none", "--ora-out", "replay", "-n", "2", "-p", "no:cacheprovider"
    )
    assert outcomes(replay) == counts
    for name in ("ledger.jsonl", "summary.json", "stats.json", "captures.jsonl"):
        assert (pytester.path / "replay" / name).read_bytes() == (pytester.path / "live" / name).read_bytes(), name
    lines = [json.loads(line) for line in (pytester.path / "live" / "captures.jsonl").read_text().splitlines()]
    assert [line["repeat"] for line in lines if line["configuration"] == "harness"][:3] == [1, 2, 3]


def test_when_bundle_yaml_says_repeat_then_it_applies_and_the_option_overrides_it(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    _project(pytester, judge, "agents_repeat_yaml", {"repeat": 2})
    result = record(pytester, "--ora-generate-only")
    result.stdout.fnmatch_lines(
        ["ora: generate only: 16 candidate answers (made and recorded, or replayed), nothing judged*"]
    )  # 4 entries x 2 x 2
    once = record(pytester, "--ora-generate-only", "--ora-repeat", "1")
    once.stdout.fnmatch_lines(
        ["ora: generate only: 8 candidate answers (made and recorded, or replayed), nothing judged*"]
    )


def test_when_repeat_is_asked_without_candidates_then_it_is_a_usage_error(
    pytester: pytest.Pytester,
    judge: ReferenceJudge,
) -> None:
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    root = write_bundle(pytester.path / "bundle", routes=routes)
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    result = pytester.runpytest("--ora-repeat", "2")
    assert result.ret == 4
    result.stderr.fnmatch_lines(
        ["*--ora-repeat 2: repeated answers are made by candidates, and bundle.yaml names none*"]
    )
    manifest = yaml.safe_load((root / "bundle.yaml").read_text(encoding="utf-8"))
    manifest["repeat"] = 0
    (root / "bundle.yaml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    bad = pytester.runpytest()
    assert bad.ret == 4
    bad.stderr.fnmatch_lines(["*bundle.yaml*repeat*"])
