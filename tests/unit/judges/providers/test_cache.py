"""The reference judge's prompt cache: writes and reads accounted as Anthropic and OpenAI report them."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest
from support.bundle_factory import write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.budget import DEFAULT_PRICES, cost, price_for
from pytest_ora.judges.packet import build_packet, judge_prompt
from pytest_ora.judges.providers.anthropic import AnthropicClient
from pytest_ora.judges.providers.base import JudgePrompt
from pytest_ora.judges.providers.openai import OpenAIClient
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.testing.promptcache import MIN_TOKENS, PromptCache
from pytest_ora.testing.server import ReferenceJudge


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """tests/conftest.py's `judge`, accepting any key."""
    return {}


def prompts(tmp_path: Path, cache: bool = True) -> list[JudgePrompt]:
    """The judge prompts of one entry's two captures, with a specification long enough to cache."""
    root = write_bundle(tmp_path)
    spec = root / "specs"
    for path in spec.rglob("*.md"):
        path.write_text(path.read_text(encoding="utf-8") + "\nA long method note.\n" * 400, encoding="utf-8")
    plan = intake(root)
    found = []
    for planned in plan.captures:
        if planned.capture.entry_key == "mode:argument-audit" and planned.status == "judge":
            packet, image = build_packet(planned.capture, root, ORA_V1)
            found.append(judge_prompt(packet, image, ORA_V1, cache=cache))
    return found


def send(judge: ReferenceJudge, provider: str, prompt: JudgePrompt, api: str | None = None) -> dict[str, object]:
    role = RoleSpec(
        model="claude-opus-4-7" if provider == "anthropic" else "gpt-5.4",
        provider=provider,
        route=judge.route(provider, api=api),
    )
    client = AnthropicClient() if provider == "anthropic" else OpenAIClient()
    request = client.build_request(role, prompt, "k")
    response = httpx.Client().send(request)
    assert response.status_code == 200, response.text
    reply = client.parse_reply(response)
    usage = json.loads(response.content)["usage"]
    return {"usage": usage, "reply": reply.usage}


def test_anthropic_writes_the_prefix_once_and_reads_it_after(judge: ReferenceJudge, tmp_path: Path) -> None:
    first, second = (send(judge, "anthropic", p) for p in prompts(tmp_path))
    assert first["usage"]["cache_creation_input_tokens"] >= MIN_TOKENS
    assert first["usage"]["cache_read_input_tokens"] == 0
    assert second["usage"]["cache_read_input_tokens"] == first["usage"]["cache_creation_input_tokens"]
    assert second["usage"]["cache_creation_input_tokens"] == 0
    # Our client adds the cache tokens back into the input it bills
    reply = second["reply"]
    assert reply["cached_input_tokens"] == second["usage"]["cache_read_input_tokens"]
    assert reply["input_tokens"] == (second["usage"]["input_tokens"] + reply["cached_input_tokens"])


@pytest.mark.parametrize("api", [None, "responses"])
def test_openai_reports_the_repeated_prefix_as_cached_tokens(
    judge: ReferenceJudge, tmp_path: Path, api: str | None
) -> None:
    first, second = (send(judge, "openai", p, api) for p in prompts(tmp_path))
    details = "prompt_tokens_details" if api is None else "input_tokens_details"
    assert first["usage"][details]["cached_tokens"] == 0
    cached = second["usage"][details]["cached_tokens"]
    assert cached >= MIN_TOKENS and cached % 128 == 0
    assert second["reply"]["cached_input_tokens"] == cached


def test_without_prompt_caching_the_capture_comes_first_and_little_is_cached(
    judge: ReferenceJudge, tmp_path: Path
) -> None:
    off = prompts(tmp_path, cache=False)
    _first, second = (send(judge, "anthropic", p) for p in off)
    assert second["usage"]["cache_read_input_tokens"] == 0  # no breakpoints: nothing cached
    on = [send(judge, "openai", p) for p in prompts(tmp_path / "on")]
    off_openai = [send(judge, "openai", p) for p in prompts(tmp_path / "off", cache=False)]
    assert (
        on[1]["usage"]["prompt_tokens_details"]["cached_tokens"]
        > off_openai[1]["usage"]["prompt_tokens_details"]["cached_tokens"]
    )


def test_a_cache_entry_expires_five_minutes_after_its_last_use() -> None:
    now = [0.0]
    cache = PromptCache(clock=lambda: now[0])
    body = {
        "model": "m",
        "system": [{"type": "text", "text": "x" * 8000, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "hi"}],
    }
    assert cache.account("anthropic", body, 5000).written > 0
    now[0] = 299.0
    assert cache.account("anthropic", body, 5000).read > 0
    now[0] = 299.0 + 301.0
    assert cache.account("anthropic", body, 5000).read == 0


def test_cache_reads_and_writes_are_priced_at_the_providers_cache_rates() -> None:
    claude = price_for("claude-opus-4-7", DEFAULT_PRICES)
    gpt = price_for("gpt-5.4", DEFAULT_PRICES)
    assert claude is not None and gpt is not None
    # 1M input: 600k plain at $5, 300k read at $0.50, 100k written at $6.25
    assert cost(claude, 1_000_000, 0, cached=300_000, written=100_000) == Decimal("3") + Decimal("0.15") + Decimal(
        "0.625"
    )
    assert cost(gpt, 1_000_000, 0, cached=500_000) == Decimal("0.625") + Decimal("0.0625")
    assert cost(claude, 1000, 0) == cost(claude, 1000, 0, 0, 0)
