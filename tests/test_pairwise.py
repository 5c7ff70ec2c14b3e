"""Pairwise evaluation: the generic pairwise rubric, preference labels and the judges measured against them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_ora.method.rubric import builtin_ids, builtin_text, get_rubric

EXAMPLE = Path(__file__).parent.parent / "evals" / "examples" / "compare"
PAIRS = [  # (entry, prompt, answer of model-a, answer of model-b): pairs this test writes
    (f"qa:item-{i:02d}", f"Question {i}: explain step {i} of the procedure in a short list.",
     "\n".join(f"- Step {i}.{k}: check the input, then the output, because each stage depends on it." for k in range(1 + i % 4)),
     "Not sure." if i % 3 else "\n".join(f"- Step {i}.{k}: verify the result carefully." for k in range(1 + (i + 1) % 4)))
    for i in range(12)
]


def test_the_generic_pairwise_rubric_is_built_in_versioned_and_persona_free() -> None:
    rubric = get_rubric("pairwise-1.0")
    data = yaml.safe_load(builtin_text("pairwise-1.0"))
    assert "pairwise-1.0" in builtin_ids()
    assert rubric.kind == "compare" and rubric.blind
    assert rubric.names == ("instruction_following", "helpfulness", "accuracy", "harmlessness")
    assert not any("persona" in (c.name + c.question).lower() for c in rubric.criteria)
    assert data["history"][-1]["version"] == "pairwise-1.0"


def write_project(path: Path, routes: dict[str, str], rubric: str = "pairwise-1.0") -> None:
    """A compare project over PAIRS: two configurations, the compare example's suite, the reference judge's routes."""
    for name in ("conftest.py", "pytest.ini", "test_compare.py"):
        shutil.copy(EXAMPLE / name, path / name)
    bundle = path / "bundle"
    bundle.mkdir()
    (bundle / "bundle.yaml").write_text(
        "bundle: pairwise-test\ncreated: 2026-12-06\nconfigurations: [model-a, model-b]\n"
        f"rubric: {rubric}\npanel: [judge-opus, judge-gpt]\ncompare: [[model-a, model-b]]\n", encoding="utf-8")
    lines = []
    for entry, prompt, first, second in PAIRS:
        for configuration, answer in (("model-a", first), ("model-b", second)):
            lines.append(json.dumps({"entry_key": entry, "configuration": configuration, "prompt": prompt, "answer": answer,
                                     "acceptance": {"passed": True, "reason": None, "notes": ""}}))
    (bundle / "captures.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    optimum = (EXAMPLE / "bundle" / "optimum.yaml").read_text(encoding="utf-8")
    optimum = optimum.replace("http://127.0.0.1:8770/v1/messages", routes["anthropic"])
    (bundle / "optimum.yaml").write_text(optimum.replace("http://127.0.0.1:8770/v1/chat/completions", routes["openai"]),
                                         encoding="utf-8")


def judged_live(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str, **judge: Any) -> pytest.RunResult:
    from pytest_ora.testing.server import ReferenceJudge

    with ReferenceJudge(**judge) as server:
        write_project(pytester.path, {"anthropic": server.route("anthropic"), "openai": server.route("openai")})
        monkeypatch.setenv("ANTHROPIC_API_KEY", "reference-judge-test-key")
        monkeypatch.setenv("OPENAI_API_KEY", "reference-judge-test-key")
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-record", "all", "-n", "0", *args)


def test_the_reference_judge_answers_the_generic_pairwise_rubric(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    result = judged_live(pytester, monkeypatch)
    result.assert_outcomes(passed=len(PAIRS))
    rows = [json.loads(line) for line in (pytester.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    assert {row["rubric"] for row in rows} == {"pairwise-1.0"}
    assert {row["winner"] for row in rows} >= {"model-a"}
