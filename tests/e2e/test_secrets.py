"""Credential-shaped text: found in every field a packet carries, excluded before any judge call, never written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.bundle_factory import capture, write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.bundle.secrets import find_secret, secret_in
from pytest_ora.core.models import Capture
from pytest_ora.core.vocabulary import SECRET_REASON
from pytest_ora.testing.server import ReferenceJudge

EVAL_TEST = (Path(__file__).parents[2] / "evals" / "test_ora.py").read_text(encoding="utf-8")
JUDGE_KEYS = {"anthropic": "sk-ant-FAKE-JUDGE-KEY-a-0001", "openai": "sk-FAKE-JUDGE-KEY-b-0002"}
PLANTED = "sk-ant-api03-PLANTEDfakeKEY0123456789abcdefXYZ"
"""A fake key shaped like an Anthropic key, planted in a captured answer."""

SHAPED = {
    "an Anthropic API key": "sk-ant-api03-Zx9" + "q" * 30,
    "an OpenRouter API key": "sk-or-v1-" + "0a" * 32,
    "an OpenAI API key": "sk-proj-" + "Ab3" * 12,
    "a Google API key": "AIza" + "Sy" + "B1" * 16 + "x",
    "a GitHub token": "ghp_" + "a1" * 18,
    "an AWS access key id": "AKIA" + "IOSFODNN7EXAMPLE",
    "a Slack token": "xoxb-" + "1234567890-abcdef",
    "a private key block": "-----BEGIN RSA PRIVATE KEY-----\nMIIEow...\n-----END RSA PRIVATE KEY-----",
    "a bearer token": "Authorization: Bearer 4f9c2e7a1b8d3c6e0f5a",
    "an xAI API key": "xai-" + "Ab12" * 12,
    "a Google OAuth access token": "ya29.a0AfH6SMB" + "x1" * 12,
    "a password in a URL": "postgres://deploy:hunter2x@db.internal:5432/app",
    "a JSON Web Token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}


@pytest.mark.parametrize("kind", sorted(SHAPED))
def test_each_known_shape_is_found_and_named(kind: str) -> None:
    assert secret_in(f"the log said {SHAPED[kind]} and moved on") == kind


@pytest.mark.parametrize(
    "text",
    [
        "A risk-assessment-framework-for-2024 review of the task-scheduler-module-v2 design.",
        "Bearer tokens should never be logged; rotate the bearer credential monthly.",
        "The AKIA prefix marks AWS key ids; ghp_ marks GitHub tokens; sk- marks OpenAI keys.",
        "-----BEGIN PUBLIC KEY----- is fine to share.",
        "See https://docs.example.com/api/v1/keys and mailto:team@example.com at 10:30@noon.",
    ],
)
def test_prose_about_credentials_is_not_a_credential(text: str) -> None:
    assert secret_in(text) is None


def _capture(**changes: Any) -> Capture:
    return Capture.model_validate(capture("mode:argument-audit", "optimum", **changes))


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"prompt": f"key={PLANTED}"}, "prompt"),
        ({"answer": f"use {PLANTED}"}, "answer"),
        ({"context": f"env: {PLANTED}"}, "context"),
        ({"gold_standard": {"response": f"x {PLANTED}", "score": 9}}, "gold_standard.response"),
        ({"evidence": {"logs": [{"line": f"token {PLANTED}"}]}}, "evidence.logs.0.line"),
        ({"acceptance": {"passed": True, "reason": None, "notes": PLANTED}}, "acceptance.notes"),
    ],
)
def test_the_field_is_named_never_the_value(tmp_path: Path, changes: dict[str, Any], field: str) -> None:
    found = find_secret(_capture(**changes), tmp_path)
    assert found == (field, "an Anthropic API key")
    assert PLANTED not in repr(found)


def test_spec_and_text_artifacts_are_scanned_inside_the_bundle_only(tmp_path: Path) -> None:
    (tmp_path / "specs" / "mode").mkdir(parents=True)
    (tmp_path / "specs" / "mode" / "argument-audit.md").write_text(f"# Spec\nexport KEY={PLANTED}\n", encoding="utf-8")
    assert find_secret(_capture(), tmp_path) == ("spec (specs/mode/argument-audit.md)", "an Anthropic API key")
    (tmp_path / "outside.svg").write_text(PLANTED, encoding="utf-8")
    assert find_secret(_capture(spec="specs/none.md", visual_artifact="../outside.svg"), tmp_path / "specs") is None


def _plant(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for item in items:
        if item["entry_key"] == "mode:argument-audit" and item["configuration"] == "big-1":
            item["answer"] += f"\n\nDebug: export ANTHROPIC_API_KEY={PLANTED}\n"
    return items


def test_intake_excludes_a_secret_bearing_capture(tmp_path: Path) -> None:
    plan = intake(write_bundle(tmp_path / "bundle", edit=_plant))
    planned = {p.capture.capture_id: p for p in plan.captures}["mode:argument-audit/big-1"]
    assert planned.status == "excluded"
    assert planned.reason is not None and planned.reason.startswith(SECRET_REASON)
    assert "field 'answer'" in planned.reason and PLANTED not in planned.reason


def test_a_planted_key_never_reaches_the_judge_nor_any_file(pytester: pytest.Pytester) -> None:
    with ReferenceJudge(keys=JUDGE_KEYS) as judge:
        routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
        write_bundle(pytester.path / "bundle", routes=routes, edit=_plant)
        pytester.makepyfile(test_ora=EVAL_TEST)
        pytester.makeini("[pytest]\nora_bundle = bundle\n")
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("ANTHROPIC_API_KEY", JUDGE_KEYS["anthropic"])
            patch.setenv("OPENAI_API_KEY", JUDGE_KEYS["openai"])
            result = pytester.runpytest("--ora-record", "once", "-rs")
        posts = [request.body for request in judge.requests if request.method == "POST"]
    assert result.ret == 0
    # The request log: 7 judged captures x 2 judges, none carrying the planted line or the key.
    assert len(posts) == 14
    assert not any(PLANTED.encode() in body or b"Debug: export ANTHROPIC_API_KEY" in body for body in posts)
    result.stdout.fnmatch_lines(["*mode:argument-audit/big-1: excluded: secret-bearing input: field 'answer'*"])
    result.stdout.fnmatch_lines(
        ["ora: 1 captures excluded as secret-bearing input, never sent to a judge: mode:argument-audit/big-1"]
    )
    for path in pytester.path.rglob("*"):
        if path.is_file() and "bundle" not in path.relative_to(pytester.path).parts:
            assert PLANTED.encode() not in path.read_bytes(), path
    assert PLANTED not in result.stdout.str()
    methodology = (pytester.path / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "## Secret-bearing input" in methodology and "mode:argument-audit/big-1: secret-bearing input" in methodology
    assert not (pytester.path / "cassettes" / "mode" / "argument-audit" / "big-1.json").exists()
