"""Before any judge call: keys that could leak are refused, oversize packets are never sent; files keep the umask."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST, KEY_A, KEY_B

from pytest_ora.core.fileio import file_mode
from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.contextwindows import DEFAULT_MAX_INPUT_TOKENS, max_input_tokens
from pytest_ora.testing.server import ReferenceJudge


def live(project: pytest.Pytester, key_a: str, key_b: str, *args: str) -> pytest.RunResult:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", key_a)
        patch.setenv("OPENAI_API_KEY", key_b)
        return project.runpytest("--ora-record", "once", *args)


def test_a_key_too_short_to_redact_stops_the_run_before_any_call(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    result = live(project, "a", KEY_B)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: API key check failed before any judge call: ANTHROPIC_API_KEY (Judge A) is 1 characters, too short "
            "to redact safely (at least 12)*"
        ]
    )
    assert judge.requests == []


def test_a_key_whose_value_is_in_the_bundle_stops_the_run_before_any_call(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    captures = project.path / "bundle" / "captures.jsonl"
    lines = captures.read_text().splitlines()
    lines[4] = lines[4].replace("Applying", f"Applying (key {KEY_B})")
    captures.write_text("\n".join(lines) + "\n")

    result = live(project, KEY_A, KEY_B)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "ERROR: API key check failed before any judge call: the value of OPENAI_API_KEY occurs in the bundle (captures.jsonl:5)*"
        ]
    )
    assert judge.requests == []
    assert KEY_B not in result.stdout.str() + result.stderr.str()
    assert not (project.path / "cassettes").exists() or not any((project.path / "cassettes").rglob("*.json"))


def test_a_missing_key_on_a_loopback_route_names_the_variable(
    project: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)

    result = project.runpytest("--ora-record", "once")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: judging stopped before any capture was judged: Judge A *HTTP 401*(ANTHROPIC_API_KEY is not set)*"]
    )


def five_megabyte_answer(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for item in items:
        if item["entry_key"] == "mode:argument-audit" and item["configuration"] == "optimum":
            item["answer"] = "word " * (1024 * 1024)
    return items


def test_a_packet_over_the_context_window_is_unscorable_and_never_sent(pytester: pytest.Pytester) -> None:
    with ReferenceJudge() as server:
        routes = {"big-1": server.route("anthropic"), "big-2": server.route("openai")}
        write_bundle(pytester.path / "bundle", routes=routes, edit=five_megabyte_answer)
        pytester.makepyfile(test_ora=EVAL_TEST)
        pytester.makeini("[pytest]\nora_bundle = bundle\n")

        result = live(pytester, KEY_A, KEY_B, "-rs")

        assert result.ret == 0
        result.stdout.fnmatch_lines(
            [
                "SKIPPED*mode:argument-audit/optimum: unscorable: packet is about 1,3*,*** input tokens, over Judge A "
                "(claude-opus-4-7)'s context window of 1,000,000 (max_input_tokens); not sent"
            ]
        )
        assert max(len(r.body) for r in server.requests if r.method == "POST") < 100_000
    rows = {
        json.loads(line)["capture_id"]: json.loads(line)
        for line in (pytester.path / "ora-results" / "ledger.jsonl").read_text().splitlines()
    }
    assert rows["mode:argument-audit/optimum"]["status"] == "unscorable"
    assert "context window" in rows["mode:argument-audit/optimum"]["reason"]


def test_a_roles_max_input_tokens_overrides_the_models_default() -> None:
    spec = RoleSpec(model="claude-opus-4-7", provider="anthropic", route="https://api.anthropic.com/v1/messages")

    assert max_input_tokens(spec) == 1_000_000
    assert max_input_tokens(spec.model_copy(update={"max_input_tokens": 8000})) == 8000
    assert (
        max_input_tokens(spec.model_copy(update={"model": "claude-haiku-4-5"})) == DEFAULT_MAX_INPUT_TOKENS["claude-"]
    )
    assert max_input_tokens(spec.model_copy(update={"model": "qwen3:14b"})) is None


def test_reports_and_cassettes_follow_the_umask(project: pytest.Pytester) -> None:
    old = os.umask(0o022)
    file_mode.cache_clear()
    try:
        result = live(project, KEY_A, KEY_B)
    finally:
        os.umask(old)
        file_mode.cache_clear()

    assert result.ret == 0
    written = [
        *(project.path / "ora-results").glob("*.*"),
        *(project.path / "cassettes").rglob("*.json"),
        *(project.path / "ora-results" / "packets").rglob("*.json"),
    ]
    modes = {oct(stat.S_IMODE(Path(path).stat().st_mode)) for path in written if path.is_file()}
    assert modes == {"0o644"}
