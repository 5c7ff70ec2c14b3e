"""The loopback reference judge (a test double): wire formats, determinism, scoring, faults."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, cast

import httpx
import pytest

import pytest_ora
from pytest_ora.core.models import Acceptance, Capture, JudgeReply
from pytest_ora.judges.packet import build_packet, judge_prompt
from pytest_ora.judges.providers.base import ImagePart, JudgePrompt, ProviderReply, Stop, TextPart
from pytest_ora.judges.reply import ReplyProblem, check_reply
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.testing.judgescores import half_point, judge_offset, method_steps
from pytest_ora.testing.server import FAULT_KINDS, Fault, ReferenceJudge

PROVIDERS = ("anthropic", "openai", "openai-compatible", "google")
"""The wire formats built here by hand; the cloud providers' are tested through their clients (test_testing_cloud.py)."""
KEYS = {
    "anthropic": "sk-ant-test-key",
    "openai": "sk-openai-test-key",
    "openai-compatible": "sk-or-test-key",
    "google": "goog-test-key",
}
MODELS = {
    "anthropic": "claude-opus-4-7",
    "openai": "gpt-5.4",
    "openai-compatible": "openai/gpt-oss-120b",
    "google": "gemini-2.5-pro",
}
ENTRY = "mode:argument-audit"
STEPS = ("Frame the claim", "Map the premises", "Test the inferences", "Weigh the evidence")
SPEC = """# Argument audit

## Purpose
Audit an argument's structure.

## Method
1. **Frame the claim**: state the conclusion under audit.
2. **Map the premises**: list every premise, stated or hidden.
3. **Test the inferences**: check each step from premises to claim.
4. **Weigh the evidence**: rate the support behind each premise.

## Output
A short audit table.
"""
PROMPT = "Audit the argument that remote workers are more productive than office workers."
EXECUTED = """## Frame the claim
The claim is that remote workers are more productive, because output per hour rose.
## Map the premises
- Productivity was measured by tickets closed, since no other metric exists.
## Test the inferences
Therefore the inference holds only if tickets are comparable; the evidence implies selection bias.
## Weigh the evidence
We assume the survey is likely biased; the risk is that confidence is overstated and effects are unknown."""
GENERIC = "Remote work is a popular topic. Many people have opinions about it and it is often discussed."
_CLIENT: list[httpx.Client] = []  # the module's keep-alive client while the shared judge runs
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


# --- helpers -------------------------------------------------------------------------------


def make_prompt(root: Path, answer: str, configuration: str = "optimum", image: bool = False) -> JudgePrompt:
    """The judge prompt the harness would send for one capture."""
    spec = root / "specs" / "mode" / "argument-audit.md"
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(SPEC, encoding="utf-8")
    artifact = None
    if image:
        artifact = "artifacts/audit.png"
        (root / "artifacts").mkdir(exist_ok=True)
        (root / artifact).write_bytes(PNG)
    capture = Capture(
        entry_key=ENTRY,
        configuration=configuration,
        prompt=PROMPT,
        answer=answer,
        visual_artifact=artifact,
        acceptance=Acceptance(passed=True, notes="clean run"),
    )
    packet, data = build_packet(capture, root, ORA_V1)
    return judge_prompt(packet, data, ORA_V1)


def request_body(provider: str, prompt: JudgePrompt, tools: bool = True) -> dict[str, Any]:
    """The request body in the provider's documented shape."""
    model = MODELS[provider]
    if provider == "anthropic":
        blocks = [
            {"type": "text", "text": p.text}
            if isinstance(p, TextPart)
            else {"type": "image", "source": {"type": "base64", "media_type": p.media_type, "data": _b64(p)}}
            for p in prompt.parts
        ]
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": prompt.max_tokens,
            "system": prompt.system,
            "messages": [{"role": "user", "content": blocks}],
        }
        if tools:
            tool = {"name": prompt.schema_name, "description": "Record scores.", "input_schema": prompt.reply_schema}
            body["tools"] = [tool]
            body["tool_choice"] = {"type": "tool", "name": prompt.schema_name}
        return body
    if provider in ("openai", "openai-compatible"):
        parts = [
            {"type": "text", "text": p.text}
            if isinstance(p, TextPart)
            else {"type": "image_url", "image_url": {"url": f"data:{p.media_type};base64,{_b64(p)}"}}
            for p in prompt.parts
        ]
        schema = {"name": prompt.schema_name, "strict": True, "schema": prompt.reply_schema}
        return {
            "model": model,
            "messages": [{"role": "system", "content": prompt.system}, {"role": "user", "content": parts}],
            "response_format": {"type": "json_schema", "json_schema": schema},
            "max_completion_tokens": prompt.max_tokens,
        }
    parts_g = [
        {"text": p.text} if isinstance(p, TextPart) else {"inlineData": {"mimeType": p.media_type, "data": _b64(p)}}
        for p in prompt.parts
    ]
    return {
        "contents": [{"role": "user", "parts": parts_g}],
        "systemInstruction": {"parts": [{"text": prompt.system}]},
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": prompt.reply_schema},
    }


def _b64(part: ImagePart) -> str:
    return base64.b64encode(part.data).decode("ascii")


def auth_headers(provider: str, key: str | None) -> dict[str, str]:
    """The provider's auth headers (none when key is None)."""
    headers = {"anthropic-version": "2023-06-01"} if provider == "anthropic" else {}
    if key is None:
        return headers
    if provider == "anthropic":
        return {**headers, "x-api-key": key}
    if provider == "google":
        return {"x-goog-api-key": key}
    return {"authorization": f"Bearer {key}"}


def post(
    judge: ReferenceJudge, provider: str, body: Any, key: str | None = "default", timeout: float = 5.0
) -> httpx.Response:
    """POST a judge call with the right key (or the given one), on the kept-alive client if any."""
    key = KEYS[provider] if key == "default" else key
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    headers = {"content-type": "application/json", **auth_headers(provider, key)}
    url = judge.route(provider, MODELS[provider])
    if _CLIENT:
        return _CLIENT[0].post(url, content=content, headers=headers, timeout=timeout)
    return httpx.post(url, content=content, headers=headers, timeout=timeout)


def provider_reply(provider: str, response: httpx.Response) -> ProviderReply:
    """A minimal reading of each wire format, enough for check_reply."""
    data = json.loads(response.text)
    if provider == "anthropic":
        blocks = [b for b in data["content"] if b["type"] != "thinking"]
        tool = next((b for b in blocks if b["type"] == "tool_use"), None)
        text = "".join(b["text"] for b in blocks if b["type"] == "text")
        stops: dict[str, Stop] = {"max_tokens": "truncated", "refusal": "refused"}
        stop = stops.get(data["stop_reason"], "complete" if tool or text else "empty")
        return ProviderReply(tool["input"] if tool else None, text if tool is None else None, stop, data["stop_reason"])
    if provider == "google":
        candidate = data["candidates"][0]
        parts = [p for p in candidate.get("content", {}).get("parts", []) if not p.get("thought")]
        reason = candidate["finishReason"]
        g_stops: dict[str, Stop] = {"MAX_TOKENS": "truncated", "SAFETY": "refused"}
        g_stop = g_stops.get(reason, "complete")
        return ProviderReply(None, "".join(p.get("text", "") for p in parts), g_stop, reason)
    choice = data["choices"][0]
    message = choice["message"]
    if message.get("refusal"):
        return ProviderReply(None, None, "refused", message["refusal"])
    o_stop: Stop = "truncated" if choice["finish_reason"] == "length" else "complete"
    return ProviderReply(None, message["content"], o_stop, choice["finish_reason"])


def validated(provider: str, response: httpx.Response, configuration: str = "optimum") -> JudgeReply | ReplyProblem:
    """The reply validated by the project's own reply checks."""
    return cast(
        "JudgeReply | ReplyProblem", check_reply(provider_reply(provider, response), ORA_V1, ENTRY, configuration)
    )


def scores_for(judge: ReferenceJudge, root: Path, answer: str, provider: str = "anthropic") -> dict[str, float]:
    """The reference judge's scores for one answer."""
    reply = validated(provider, post(judge, provider, request_body(provider, make_prompt(root, answer))))
    assert isinstance(reply, JudgeReply), reply
    return {name: float(value) for name, value in reply.scores.items()}


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[ReferenceJudge, httpx.Client]]:
    with ReferenceJudge(keys=KEYS) as running, httpx.Client() as client:
        yield running, client


@pytest.fixture
def judge(shared: tuple[ReferenceJudge, httpx.Client]) -> Iterator[ReferenceJudge]:
    """One running judge for the module, reset for each test (starting one per test is slower)."""
    running, client = shared
    running.reset()
    _CLIENT[:] = [client]
    yield running
    _CLIENT.clear()


@pytest.fixture
def executed(tmp_path: Path) -> JudgePrompt:
    """The judge prompt for an answer that executes every method step."""
    return make_prompt(tmp_path, EXECUTED)


# --- wire formats --------------------------------------------------------------------------


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_provider_returns_a_schema_valid_reply_echoing_the_packet(
    judge: ReferenceJudge, tmp_path: Path, provider: str
) -> None:
    response = post(judge, provider, request_body(provider, make_prompt(tmp_path, EXECUTED, configuration="big-1")))

    assert response.status_code == 200
    reply = validated(provider, response, configuration="big-1")
    assert isinstance(reply, JudgeReply), reply
    assert (reply.entry_key, reply.configuration, reply.judge_model) == (ENTRY, "big-1", MODELS[provider])
    assert set(reply.notes) == set(ORA_V1.names) and all(reply.notes.values()) and reply.impression


def test_anthropic_answers_a_forced_tool_with_tool_use_and_a_request_without_tools_with_a_plain_answer(
    judge: ReferenceJudge, executed: JudgePrompt
) -> None:

    tool = post(judge, "anthropic", request_body("anthropic", executed)).json()
    text = post(judge, "anthropic", request_body("anthropic", executed, tools=False)).json()

    assert tool["type"] == "message" and tool["model"] == "claude-opus-4-7-20260101"
    assert [b["type"] for b in tool["content"]] == ["tool_use"] and tool["stop_reason"] == "tool_use"
    assert tool["content"][0]["name"] == executed.schema_name and tool["content"][0]["id"].startswith("toolu_")
    usage = tool["usage"]
    assert {"input_tokens", "output_tokens", "cache_creation_input_tokens"} <= set(usage)
    assert usage["cache_read_input_tokens"] == 0
    # No tool and no schema: a candidate's call, answered in plain text built from the prompt (testing/answers.py).
    assert text["stop_reason"] == "end_turn" and [b["type"] for b in text["content"]] == ["text"]
    assert (
        text["content"][0]["text"].endswith("(claude-opus-4-7, reference answer)")
        and text["usage"]["output_tokens"] > 0
    )


def test_openai_answers_json_schema_as_content_with_usage_details(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    response = post(judge, "openai", request_body("openai", executed))
    data = response.json()

    assert response.text.startswith("{\n  ") and response.text.endswith("}\n")
    assert data["object"] == "chat.completion" and data["model"] == "gpt-5.4-2026-01-01"
    assert data["choices"][0]["finish_reason"] == "stop" and data["choices"][0]["message"]["refusal"] is None
    usage = data["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert "cached_tokens" in usage["prompt_tokens_details"]
    assert "reasoning_tokens" in usage["completion_tokens_details"]
    assert response.headers["x-ratelimit-remaining-requests"] and response.headers["x-request-id"]


def test_gemini_answers_in_candidate_parts_with_usage_metadata(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    data = post(judge, "google", request_body("google", executed)).json()

    candidate = data["candidates"][0]
    assert candidate["finishReason"] == "STOP" and candidate["content"]["role"] == "model"
    assert json.loads(candidate["content"]["parts"][0]["text"])["entry_key"] == ENTRY
    assert {"promptTokenCount", "candidatesTokenCount", "totalTokenCount"} <= set(data["usageMetadata"])
    assert data["modelVersion"] == "gemini-2.5-pro"


def test_openrouter_route_speaks_chat_completions_with_its_extra_fields(
    judge: ReferenceJudge, executed: JudgePrompt
) -> None:
    response = post(judge, "openai-compatible", request_body("openai-compatible", executed))
    data = response.json()

    assert judge.route("openai-compatible").endswith("/openrouter/api/v1/chat/completions")
    assert data["id"].startswith("gen-") and response.headers["x-generation-id"] == data["id"]
    assert data["model"] == "openai/gpt-oss-120b" and data["choices"][0]["native_finish_reason"] == "stop"


@pytest.mark.parametrize("provider", PROVIDERS)
def test_the_same_request_gets_the_same_bytes(judge: ReferenceJudge, executed: JudgePrompt, provider: str) -> None:
    body = request_body(provider, executed)
    # The module's judge keeps its prompt cache across tests: one call first, so both compared calls
    # meet the same cache state whichever tests ran before (a cold first call reports no cached tokens).
    post(judge, provider, body)

    first, second = post(judge, provider, body), post(judge, provider, body)

    assert first.content == second.content


def test_requests_and_calls_are_recorded(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    body = request_body("openai", executed)
    post(judge, "openai", body)
    httpx.get(f"{judge.url}/v1/models/gpt-5.4", headers=auth_headers("openai", KEYS["openai"]))

    seen = judge.requests
    assert judge.calls == 1 and [r.method for r in seen] == ["POST", "GET"]
    assert seen[0].path == "/v1/chat/completions" and seen[0].json() == body
    assert seen[0].headers["authorization"] == f"Bearer {KEYS['openai']}"


# --- scoring -------------------------------------------------------------------------------


def test_method_steps_are_read_from_the_method_section() -> None:
    assert method_steps(SPEC) == STEPS
    other = "# T\n\n## Method\n1. **Only step:** do it\n\n## Notes\n2. **Not a step**: x\n"
    assert method_steps(other) == ("Only step",)


def test_an_executed_answer_outscores_a_generic_and_an_empty_one(judge: ReferenceJudge, tmp_path: Path) -> None:
    full = scores_for(judge, tmp_path, EXECUTED)
    generic = scores_for(judge, tmp_path, GENERIC)
    empty = scores_for(judge, tmp_path, "")

    assert full["fidelity"] >= 8 and 1 <= generic["fidelity"] <= 3
    assert all(full[c] > generic[c] for c in ("fidelity", "soundness", "completeness", "calibration"))
    assert all(0 <= value <= 1 for value in empty.values())
    assert all(value * 2 == int(value * 2) for value in [*full.values(), *generic.values()])


def test_fidelity_rises_with_the_steps_covered(judge: ReferenceJudge, tmp_path: Path) -> None:
    answers = [" ".join(f"{step}: done." for step in STEPS[:count]) or "No steps at all." for count in range(5)]

    fidelity = [scores_for(judge, tmp_path, answer)["fidelity"] for answer in answers]

    assert fidelity == sorted(fidelity) and len(set(fidelity)) == 5


def test_two_judges_differ_by_a_deterministic_half_point_at_most(judge: ReferenceJudge, tmp_path: Path) -> None:
    a = scores_for(judge, tmp_path, EXECUTED, "anthropic")
    b = scores_for(judge, tmp_path, EXECUTED, "openai")

    assert all(abs(a[c] - b[c]) <= 1 for c in a)
    assert judge_offset("m", ENTRY, "optimum", "fidelity") == judge_offset("m", ENTRY, "optimum", "fidelity")
    assert {judge_offset(f"model-{i}", ENTRY, "optimum", "fidelity") for i in range(40)} == {-0.5, 0.0, 0.5}
    assert (half_point(7.24), half_point(7.25), half_point(10.6), half_point(-1)) == (7.0, 7.5, 10.0, 0.0)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_image_artifact_is_decoded_and_acknowledged(judge: ReferenceJudge, tmp_path: Path, provider: str) -> None:
    prompt = make_prompt(tmp_path, EXECUTED, image=True)
    assert any(isinstance(part, ImagePart) for part in prompt.parts)

    reply = validated(provider, post(judge, provider, request_body(provider, prompt)))

    assert isinstance(reply, JudgeReply), reply
    assert f"image artifact of {len(PNG)} bytes seen" in " ".join(reply.notes.values())


# --- refusals of bad requests --------------------------------------------------------------


@pytest.mark.parametrize("key", ["wrong-key", None], ids=["wrong", "missing"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_wrong_or_missing_key_gets_401_in_the_provider_format(
    judge: ReferenceJudge, executed: JudgePrompt, provider: str, key: str | None
) -> None:
    response = post(judge, provider, request_body(provider, executed), key=key)
    error = response.json()

    # Gemini alone answers a wrong key 400 INVALID_ARGUMENT (API_KEY_INVALID) and a missing one 403.
    expected = (400 if key else 403) if provider == "google" else 401
    assert response.status_code == expected and judge.calls == 1
    if provider == "anthropic":
        assert error["type"] == "error" and error["error"]["type"] == "authentication_error"
        assert response.headers["x-should-retry"] == "false" and response.headers["request-id"].startswith("req_")
    elif provider == "openai":
        assert set(error["error"]) == {"message", "type", "param", "code"}
        assert error["error"]["code"] == ("invalid_api_key" if key else None)
    elif provider == "openai-compatible":
        assert error["error"]["code"] == 401 and error["error"]["message"]
    elif key:
        assert error["error"]["code"] == 400 and error["error"]["status"] == "INVALID_ARGUMENT"
        assert error["error"]["details"][0]["reason"] == "API_KEY_INVALID"
    else:
        assert error["error"]["code"] == 403 and error["error"]["status"] == "PERMISSION_DENIED"
    assert "wrong-key" not in response.text


def test_any_non_empty_key_passes_when_no_keys_are_set(executed: JudgePrompt) -> None:
    with ReferenceJudge() as judge:
        assert post(judge, "google", request_body("google", executed), key="anything").status_code == 200
        assert post(judge, "google", request_body("google", executed), key="").status_code == 403


def test_anthropic_requires_the_version_header(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    body = json.dumps(request_body("anthropic", executed))

    response = httpx.post(judge.route("anthropic"), content=body, headers={"x-api-key": KEYS["anthropic"]})

    assert response.status_code == 400 and response.json()["error"]["type"] == "invalid_request_error"


@pytest.mark.parametrize("body", [b"{not json", b'{"model": "x"}'], ids=["unparsable", "incomplete"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_malformed_body_gets_400_invalid_request(judge: ReferenceJudge, provider: str, body: bytes) -> None:
    response = post(judge, provider, body)
    error = response.json()["error"]

    assert response.status_code == 400
    if provider == "anthropic" or provider == "openai":
        assert error["type"] == "invalid_request_error"
    elif provider == "google":
        assert error["status"] == "INVALID_ARGUMENT"
    else:
        assert error["code"] == 400


def test_model_endpoints_answer_known_models_and_404_unknown_ones() -> None:
    with ReferenceJudge(models=["claude-opus-4-7", "gpt-5.4", "gemini-2.5-pro"]) as judge:
        anthropic = auth_headers("anthropic", "k")
        openai = auth_headers("openai", "k")
        google = auth_headers("google", "k")

        assert httpx.get(f"{judge.url}/v1/models/claude-opus-4-7", headers=anthropic).json()["type"] == "model"
        missing = httpx.get(f"{judge.url}/v1/models/claude-nope", headers=anthropic)
        assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found_error"
        assert httpx.get(f"{judge.url}/v1/models/gpt-5.4", headers=openai).json()["object"] == "model"
        assert httpx.get(f"{judge.url}/v1/models/gpt-nope", headers=openai).json()["error"]["code"] == "model_not_found"
        assert [m["id"] for m in httpx.get(f"{judge.url}/v1/models", headers=openai).json()["data"]] == [
            "claude-opus-4-7",
            "gpt-5.4",
            "gemini-2.5-pro",
        ]
        gemini = httpx.get(f"{judge.url}/v1beta/models/gemini-2.5-pro", headers=google).json()
        assert gemini["name"] == "models/gemini-2.5-pro"
        assert httpx.get(f"{judge.url}/v1beta/models/nope", headers=google).json()["error"]["status"] == "NOT_FOUND"
        assert httpx.get(f"{judge.url}/v1/models/gpt-5.4", headers={}).status_code == 401


def test_a_judge_call_for_a_model_outside_the_allowlist_is_404(executed: JudgePrompt) -> None:
    with ReferenceJudge(models=["gpt-4o"]) as judge:
        response = post(judge, "openai", request_body("openai", executed))

    assert response.status_code == 404 and response.json()["error"]["code"] == "model_not_found"


# --- faults: status ------------------------------------------------------------------------


def test_a_429_carries_retry_after_and_rate_limit_headers_then_clears(
    judge: ReferenceJudge, executed: JudgePrompt
) -> None:
    body = request_body("openai", executed)
    judge.inject(Fault("429", retry_after="2", retry_after_ms="1500", times=2))

    first, second, third = (post(judge, "openai", body) for _ in range(3))

    assert [r.status_code for r in (first, second, third)] == [429, 429, 200]
    assert first.headers["retry-after"] == "2" and first.headers["retry-after-ms"] == "1500"
    assert first.headers["x-ratelimit-remaining-requests"] == "0" and first.headers["x-ratelimit-reset-requests"]
    assert first.json()["error"]["code"] == "rate_limit_exceeded"


@pytest.mark.parametrize(
    ("provider", "kind", "status", "check"),
    [
        ("anthropic", "429", 429, lambda e: e["error"]["type"] == "rate_limit_error"),
        ("anthropic", "500", 500, lambda e: e["error"]["type"] == "api_error"),
        ("anthropic", "529", 529, lambda e: e["error"]["type"] == "overloaded_error"),
        ("anthropic", "408", 408, lambda e: e["error"]["type"] == "timeout_error"),
        ("anthropic", "401", 401, lambda e: e["error"]["type"] == "authentication_error"),
        ("openai", "500", 500, lambda e: e["error"]["type"] == "server_error"),
        ("openai", "503", 503, lambda e: e["error"]["type"] == "server_error"),
        ("openai", "401", 401, lambda e: e["error"]["code"] == "invalid_api_key"),
        ("google", "429", 429, lambda e: set(e["error"]) == {"code", "message", "status"}),
        ("google", "503", 503, lambda e: e["error"]["status"] == "UNAVAILABLE"),
        ("openai-compatible", "429", 429, lambda e: e["error"]["code"] == 429 and e["error"]["metadata"]["raw"]),
        ("openai-compatible", "502", 502, lambda e: e["error"]["message"] == "Provider returned error"),
    ],
)
def test_status_faults_answer_in_the_provider_format(
    judge: ReferenceJudge, executed: JudgePrompt, provider: str, kind: str, status: int, check: Any
) -> None:
    judge.inject(Fault(kind))

    response = post(judge, provider, request_body(provider, executed))

    assert response.status_code == status and check(response.json())
    assert "retry-after" not in response.headers
    if provider == "anthropic":
        assert response.headers["x-should-retry"] == ("false" if status == 401 else "true")
        assert response.json()["request_id"] == response.headers["request-id"]


def test_a_502_from_the_gateway_is_html(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    judge.inject(Fault("502", retry_after="1"))

    response = post(judge, "anthropic", request_body("anthropic", executed))

    assert response.status_code == 502 and response.headers["content-type"] == "text/html"
    assert b"502 Bad Gateway" in response.content and response.headers["retry-after"] == "1"


def test_a_fault_only_hits_its_provider_and_model(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    judge.inject(Fault("500", provider="openai"), Fault("503", model="claude-other"))

    assert post(judge, "anthropic", request_body("anthropic", executed)).status_code == 200
    assert post(judge, "openai", request_body("openai", executed)).status_code == 500
    assert post(judge, "openai", request_body("openai", executed)).status_code == 200
    assert judge.pending() == [Fault("503", model="claude-other")]


def test_a_duration_fault_is_a_storm_that_expires(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    body = request_body("anthropic", executed)
    judge.inject(Fault("429", retry_after="1", duration=0.4))

    during = [post(judge, "anthropic", body).status_code for _ in range(3)]
    time.sleep(0.45)

    assert during == [429, 429, 429]
    assert post(judge, "anthropic", body).status_code == 200 and judge.pending() == []


# --- faults: transport ---------------------------------------------------------------------


def test_a_dropped_connection_is_a_remote_protocol_error(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    judge.inject(Fault("drop"))

    with pytest.raises(httpx.RemoteProtocolError):
        post(judge, "openai", request_body("openai", executed))
    assert post(judge, "openai", request_body("openai", executed)).status_code == 200


def test_a_slow_reply_trips_a_short_client_timeout(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    judge.inject(Fault("slow", delay=2.0))

    with pytest.raises(httpx.ReadTimeout):
        post(judge, "google", request_body("google", executed), timeout=0.2)


def test_latency_delays_every_judge_call_and_32_calls_run_concurrently(tmp_path: Path) -> None:
    bodies = [request_body("openai", make_prompt(tmp_path, EXECUTED, configuration=f"c{i}")) for i in range(32)]
    with ReferenceJudge(latency=0.3) as judge, httpx.Client(limits=httpx.Limits(max_connections=64)) as client:
        headers = auth_headers("openai", "k")

        def call(body: dict[str, Any]) -> int:
            return client.post(judge.route("openai"), json=body, headers=headers, timeout=10).status_code

        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=32) as pool:
            statuses = list(pool.map(call, bodies))
        elapsed = time.monotonic() - started

    assert statuses == [200] * 32 and judge.calls == 32
    assert 0.3 <= elapsed < 3.0  # serially it would take 9.6 s


# --- faults: invalid replies ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "field", "reason"),
    [
        ("out_of_range", "scores.fidelity", "outside the scale"),
        ("missing_criterion", "scores.fidelity", "missing"),
        ("non_numeric", "scores.fidelity", "number"),
        ("wrong_echo", "entry_key", "does not match"),
        ("truncated", "(reply)", "cut off"),
        ("refusal", "(reply)", "refusal"),
        ("prose", "(reply)", "not a single JSON object"),
    ],
)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_invalid_reply_faults_are_refused_by_the_reply_checks(
    judge: ReferenceJudge, executed: JudgePrompt, provider: str, kind: str, field: str, reason: str
) -> None:
    judge.inject(Fault(kind))

    response = post(judge, provider, request_body(provider, executed))
    problem = validated(provider, response)

    assert response.status_code == 200
    assert isinstance(problem, ReplyProblem) and problem.field == field and reason in problem.reason, problem


def test_invalid_replies_look_like_the_providers_own(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    judge.inject(*[Fault("truncated"), Fault("refusal")] * 3)

    cut, refused = (post(judge, "anthropic", request_body("anthropic", executed)).json() for _ in range(2))
    o_cut, o_refused = (post(judge, "openai", request_body("openai", executed)).json()["choices"][0] for _ in range(2))
    g_cut, g_refused = (post(judge, "google", request_body("google", executed)).json()["candidates"][0] for _ in "ab")

    assert cut["stop_reason"] == "max_tokens" and cut["content"][0]["type"] == "text"
    assert refused["stop_reason"] == "refusal"
    assert o_cut["finish_reason"] == "length" and o_cut["message"]["content"].startswith('{"entry_key"')
    assert o_refused["message"]["content"] is None and o_refused["message"]["refusal"]
    assert g_cut["finishReason"] == "MAX_TOKENS" and "parts" not in g_cut["content"]
    assert g_refused["finishReason"] == "SAFETY" and "content" not in g_refused


@pytest.mark.parametrize("provider", PROVIDERS)
def test_a_reply_longer_than_the_requested_token_limit_is_truncated(
    judge: ReferenceJudge, executed: JudgePrompt, provider: str
) -> None:
    body = request_body(provider, executed)
    if provider == "anthropic":
        body["max_tokens"] = 20
    elif provider == "google":
        body["generationConfig"]["maxOutputTokens"] = 20
    else:
        body["max_completion_tokens"] = 20

    problem = validated(provider, post(judge, provider, body))

    assert isinstance(problem, ReplyProblem) and "cut off" in problem.reason


@pytest.mark.parametrize("provider", PROVIDERS)
def test_an_empty_reply_has_no_content(judge: ReferenceJudge, executed: JudgePrompt, provider: str) -> None:
    judge.inject(Fault("empty"))

    reply = provider_reply(provider, post(judge, provider, request_body(provider, executed)))

    assert reply.payload is None and not reply.text


# --- faults: valid quirks ------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["gzip", "leading_whitespace", "pretty", "thinking_first", "fenced"])
@pytest.mark.parametrize("provider", PROVIDERS)
def test_quirky_replies_still_parse_to_the_same_scores(
    judge: ReferenceJudge, executed: JudgePrompt, provider: str, kind: str
) -> None:
    body = request_body(provider, executed)
    plain = validated(provider, post(judge, provider, body))
    judge.inject(Fault(kind))

    quirky = post(judge, provider, body)

    assert isinstance(plain, JudgeReply) and validated(provider, quirky) == plain


def test_quirks_show_on_the_wire(judge: ReferenceJudge, executed: JudgePrompt) -> None:
    kinds = ("gzip", "leading_whitespace", "pretty", "thinking_first", "text_before_tool")
    judge.inject(*(Fault(kind) for kind in kinds))

    zipped, spaced, pretty, thinking, preamble = (
        post(judge, "anthropic", request_body("anthropic", executed)) for _ in range(5)
    )
    judge.inject(Fault("fenced"))
    fenced = post(judge, "openai", request_body("openai", executed)).json()["choices"][0]["message"]["content"]

    assert zipped.headers["content-encoding"] == "gzip" and zipped.json()["stop_reason"] == "tool_use"
    assert spaced.content.startswith(b"\n") and json.loads(spaced.content)["type"] == "message"
    assert pretty.text.startswith("{\n  ") and pretty.text.endswith("}\n")
    assert [b["type"] for b in thinking.json()["content"]] == ["thinking", "tool_use"]
    assert [b["type"] for b in preamble.json()["content"]] == ["text", "tool_use"]
    assert fenced.startswith("```json\n") and fenced.endswith("\n```")


def test_faults_are_checked_when_made() -> None:
    assert len(FAULT_KINDS) == len(set(FAULT_KINDS)) == 28
    bad: list[dict[str, Any]] = [
        {"kind": "418"},
        {"kind": "429", "times": 0},
        {"kind": "429", "provider": "azure"},
        {"kind": "non_numeric", "criterion": "style"},
        {"kind": "slow", "delay": -1},
    ]
    for fields in bad:
        with pytest.raises(ValueError):
            Fault(**fields)


# --- lifecycle -----------------------------------------------------------------------------


def test_stop_closes_the_server_and_kept_alive_connections(tmp_path: Path) -> None:
    judge = ReferenceJudge().start()
    with httpx.Client() as client:
        url = judge.route("openai")
        body = request_body("openai", make_prompt(tmp_path, ""))
        assert client.post(url, json=body, headers=auth_headers("openai", "k")).status_code == 200
        judge.stop()

        with pytest.raises(httpx.TransportError):
            client.post(url, json={}, headers=auth_headers("openai", "k"), timeout=2)
    with pytest.raises(RuntimeError):
        _ = judge.url


def test_the_server_runs_standalone_from_the_command_line() -> None:
    root = Path(pytest_ora.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))}
    command = [sys.executable, "-m", "pytest_ora.testing.server", "--port", "0", "--latency", "0.1"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=root) as process:
        try:
            assert process.stdout is not None
            banner = process.stdout.readline()
            url = banner.rsplit(" ", 1)[-1].strip()
            response = httpx.get(f"{url}/v1beta/models/gemini-2.5-pro", headers={"x-goog-api-key": "k"}, timeout=5)
        finally:
            process.terminate()

    assert banner.startswith("reference judge (test double) at http://127.0.0.1:")
    assert response.json()["name"] == "models/gemini-2.5-pro"


# --- the cloud providers' formats ------------------------------------------------------------------------------


def test_anthropic_replies_carry_token_rate_limit_headers_and_take_both_auth_headers(
    judge: ReferenceJudge, executed: JudgePrompt
) -> None:
    response = post(judge, "anthropic", request_body("anthropic", executed))
    for kind in ("input-tokens", "output-tokens", "tokens"):
        for field in ("limit", "remaining", "reset"):
            assert f"anthropic-ratelimit-{kind}-{field}" in response.headers
    assert int(response.headers["anthropic-ratelimit-input-tokens-remaining"]) < int(
        response.headers["anthropic-ratelimit-input-tokens-limit"]
    )
    # The Python SDK sends the key as a bearer token (and its own API version)
    with ReferenceJudge(keys={"anthropic": "the-key"}) as keyed:
        headers = {
            "content-type": "application/json",
            "anthropic-version": "2026-10-21",
            "authorization": "Bearer the-key",
        }
        ok = httpx.post(
            keyed.route("anthropic"), content=json.dumps(request_body("anthropic", executed)), headers=headers
        )
        headers["authorization"] = "Bearer wrong"
        refused = httpx.post(
            keyed.route("anthropic"), content=json.dumps(request_body("anthropic", executed)), headers=headers
        )
    assert ok.status_code == 200 and refused.status_code == 401


def test_the_responses_api_answers_in_output_items_and_refuses_an_image_without_detail(
    judge: ReferenceJudge, executed: JudgePrompt
) -> None:
    parts: list[dict[str, Any]] = [
        {"type": "input_text", "text": p.text} for p in executed.parts if isinstance(p, TextPart)
    ]
    body = {
        "model": MODELS["openai"],
        "instructions": executed.system,
        "input": [{"role": "user", "content": parts}],
        "text": {"format": {"type": "json_schema", "name": "r", "strict": True, "schema": executed.reply_schema}},
    }
    headers = {"content-type": "application/json", "authorization": f"Bearer {KEYS['openai']}"}
    response = httpx.post(judge.route("openai", api="responses"), content=json.dumps(body), headers=headers)
    reply = response.json()
    assert response.status_code == 200 and reply["object"] == "response" and reply["status"] == "completed"
    message = next(item for item in reply["output"] if item["type"] == "message")
    assert json.loads(message["content"][0]["text"])["entry_key"] == "mode:argument-audit"
    body["input"][0]["content"].append({"type": "input_image", "image_url": "data:image/png;base64,iVBORw=="})  # type: ignore[index]
    refused = httpx.post(judge.route("openai", api="responses"), content=json.dumps(body), headers=headers)
    assert refused.status_code == 400 and refused.json()["error"]["param"].endswith(".detail")


@pytest.mark.parametrize(
    ("body", "plain"),
    [
        ({"messages": [{"role": "user", "content": "Hi"}]}, True),
        ({"messages": [], "tools": [{"name": "ora_judge_reply"}]}, False),
        ({"messages": [], "output_config": {"format": {"type": "json_schema"}}}, False),
        ({"messages": [], "response_format": {"type": "json_object"}}, False),
        ({"messages": [], "response_format": {"type": "text"}}, True),
        ({"input": [], "text": {"format": {"type": "json_schema", "name": "x"}}}, False),
        ({"contents": [], "generationConfig": {"maxOutputTokens": 9, "responseMimeType": "application/json"}}, False),
        ({"contents": [], "generationConfig": {"maxOutputTokens": 9}}, True),
        ({"messages": [], "toolConfig": {"tools": []}}, False),
    ],
)
def test_a_request_is_a_candidates_plain_text_call_only_without_tools_or_structured_output(
    body: dict[str, Any], plain: bool
) -> None:
    from pytest_ora.testing.answers import asks_plain_text

    assert asks_plain_text(body) is plain


def test_the_plain_answer_is_built_from_the_prompt_the_same_every_time_and_differs_by_model() -> None:
    from pytest_ora.testing.answers import plain_answer

    prompt = "The team runs two warehouses.\\nShould they consolidate?"
    first = plain_answer(prompt, "claude-opus-4-7")
    assert first == plain_answer(prompt, "claude-opus-4-7") and "Should they consolidate?" in first
    assert first != plain_answer(prompt, "qwen3.6-35b-a3b")
