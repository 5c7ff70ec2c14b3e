"""Wire conformance against the official SDKs (openai, anthropic, google-genai; test-only dependencies).

Every request body pytest-ora sends (each provider route, both batch flows, the file upload) is
checked against the SDKs' request types, and where an SDK can send it, the SDK must send the same
body; every reply of the reference judge (live, batch, files, models, errors) is parsed strictly
by the SDKs' response models, no field unknown to them. So neither our clients nor our test double
can drift from the providers without a test failing.

    python tests/unit/judges/batch/test_conformance.py      # the result table, route x check
"""

from __future__ import annotations

import base64
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest
from anthropic.types import ErrorResponse, Message, ModelInfo
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from anthropic.types.messages import MessageBatch, MessageBatchIndividualResponse
from anthropic.types.messages.batch_create_params import BatchCreateParams as AnthropicBatchParams
from google import genai
from google.genai import errors as genai_errors
from google.genai import types as genai_types
from openai.types import Batch, ErrorObject, FileObject, Model
from openai.types.batch_create_params import BatchCreateParams as OpenAIBatchParams
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from openai.types.responses import Response as ResponsesResponse
from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

sys.path.insert(0, str(Path(__file__).parents[3]))
from support.sdk_types import candidate_prompt, gemini_request_problems, request_problems, response_problems

from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.batch import anthropic as anthropic_batch
from pytest_ora.judges.batch import openai as openai_batch
from pytest_ora.judges.batch.base import Pending
from pytest_ora.judges.batch.http import Caller
from pytest_ora.judges.packet import Packet, judge_prompt
from pytest_ora.judges.providers.anthropic import AnthropicClient
from pytest_ora.judges.providers.base import JudgePrompt, ProviderClient
from pytest_ora.judges.providers.gemini import GeminiClient
from pytest_ora.judges.providers.openai import OpenAIClient
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.testing.server import ReferenceJudge

KEY = "conformance-test-key"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c63600000000200015e2e8b2d0000000049454e44ae426082"
)
MODELS = {
    "anthropic": "claude-opus-4-7",
    "openai": "gpt-5.4",
    "openai-compatible": "openai/gpt-oss-120b",
    "google": "gemini-2.5-pro",
}


def _prompt(cache: bool, image: bool = True, configuration: str = "optimum") -> JudgePrompt:
    packet = Packet(
        capture_id=f"mode:argument-audit/{configuration}",
        entry_key="mode:argument-audit",
        family="mode",
        technique="argument-audit",
        specification_source="specs/argument-audit.md",
        specification="# Argument audit\n\n## Method\n1. **Frame the claim**: state it.\n" * 40,
        target=None,
        prompt="Audit the argument that remote work is more productive.",
        configuration=configuration,
        answer="## Frame the claim\nThe claim is narrow, because the evidence is.",
        model_snapshot={"big-1": "m"},
        artifact=None,
        acceptance_notes="",
        rubric_version=ORA_V1.version,
    )
    if image:
        from pytest_ora.judges.packet import Artifact

        packet = packet.model_copy(
            update={"artifact": Artifact(path="a.png", kind="image", media_type="image/png", sha256="0" * 64)}
        )
    return judge_prompt(packet, PNG if image else None, ORA_V1, cache=cache)


# --- the routes --------------------------------------------------------------------------------------


class Route:
    """One provider route: our client, its role, the SDK's request type."""

    def __init__(
        self, name: str, provider: str, client: ProviderClient, request_type: Any, api: str | None = None
    ) -> None:
        self.name, self.provider, self.client, self.request_type, self.api = name, provider, client, request_type, api

    def role(self, judge: ReferenceJudge) -> RoleSpec:
        model = MODELS[self.provider]
        return RoleSpec(
            model=model,
            provider=self.provider,
            route=judge.route(self.provider, model, api=self.api) if self.api else judge.route(self.provider, model),
        )

    def body(self, judge: ReferenceJudge, prompt: JudgePrompt) -> dict[str, Any]:
        return json.loads(self.client.build_request(self.role(judge), prompt, KEY).content)


ROUTES = {
    route.name: route
    for route in (
        Route("anthropic messages", "anthropic", AnthropicClient(), MessageCreateParamsNonStreaming),
        Route("openai chat.completions", "openai", OpenAIClient("openai"), CompletionCreateParamsNonStreaming),
        Route("openai responses", "openai", OpenAIClient("openai"), ResponseCreateParamsNonStreaming, api="responses"),
        Route(
            "openrouter chat.completions",
            "openai-compatible",
            OpenAIClient("openai-compatible"),
            CompletionCreateParamsNonStreaming,
        ),
        Route("gemini generateContent", "google", GeminiClient(), None),
    )
}


# --- checks: each returns the problems found (empty: the check passed) --------------------------------


def check_request_type(judge: ReferenceJudge, route: Route) -> list[str]:
    problems = []
    for cache in (True, False):
        for image in (True, False):
            body = route.body(judge, _prompt(cache, image))
            found = (
                gemini_request_problems(body)
                if route.request_type is None
                else request_problems(body, route.request_type)
            )
            problems += [f"(cache {'on' if cache else 'off'}, image {image}) {p}" for p in found]
    return problems


def check_sdk_sends_same_body(judge: ReferenceJudge, route: Route) -> list[str]:
    """The SDK, given our body's fields, sends exactly our body (and takes every field we send)."""
    if route.provider == "google":
        return []  # google-genai builds its body from Python types; its request models are checked above
    problems = []
    for cache in (True, False):
        body = route.body(judge, _prompt(cache))
        before = len(judge.requests)
        try:
            if route.provider == "anthropic":
                sdk = anthropic.Anthropic(api_key=KEY, base_url=judge.url, max_retries=0)
                sdk.messages.create(**body)
            else:
                base = judge.route(route.provider).rsplit("/chat/completions", 1)[0]
                client = openai.OpenAI(api_key=KEY, base_url=base, max_retries=0)
                if route.api == "responses":
                    client.responses.create(**body)
                else:
                    client.chat.completions.create(**body)
        except TypeError as error:
            problems.append(f"the SDK refuses a field: {error}")
            continue
        # What the SDK sent, as the reference judge received it.
        sent = json.loads(next(r for r in judge.requests[before:] if r.method == "POST").body)
        if sent != body:
            problems.append(
                f"(cache {'on' if cache else 'off'}) the SDK sends a different body: "
                f"{sorted(set(sent) ^ set(body)) or 'same keys, different values'}"
            )
    return problems


_REPLY_MODELS: dict[str, Any] = {
    "anthropic messages": Message,
    "openai chat.completions": ChatCompletion,
    "openai responses": ResponsesResponse,
    "openrouter chat.completions": ChatCompletion,
    "gemini generateContent": genai_types.GenerateContentResponse,
}


def _post(judge: ReferenceJudge, route: Route, body: dict[str, Any], key: str = KEY) -> httpx.Response:
    request = route.client.build_request(route.role(judge), _prompt(True), key)
    headers = {k: v for k, v in request.headers.items() if k.lower() != "content-length"}
    return httpx.post(request.url, headers=headers, content=json.dumps(body).encode(), timeout=30)


def check_live_reply(judge: ReferenceJudge, route: Route) -> list[str]:
    """The reference judge's 200, twice (a cache write, then a read), parses strictly into the SDK's model."""
    problems = []
    for configuration in ("optimum", "big-1"):
        response = _post(judge, route, route.body(judge, _prompt(True, configuration=configuration)))
        if response.status_code != 200:
            return [f"HTTP {response.status_code}: {response.text[:200]}"]
        found = _strict(response.text, _REPLY_MODELS[route.name])
        if route.provider == "openai-compatible":
            # OpenRouter's documented additions to the Chat Completions reply (fixture 24 shows them).
            found = [p for p in found if p.split(":")[0].rsplit(".", 1)[-1] not in OPENROUTER_FIELDS]
        problems += found
        route.client.parse_reply(response)  # and ours reads it
    if route.provider == "google":
        # And through the SDK's own request and response pipeline.
        client = _gemini(judge)
        reply = client.models.generate_content(model=MODELS["google"], contents="Score this.")
        if not reply.candidates or reply.usage_metadata is None:
            problems.append(f"the SDK read no candidate: {reply}")
    return problems


OPENROUTER_FIELDS = frozenset({"provider", "native_finish_reason", "reasoning", "cost", "is_byok"})
"""Fields OpenRouter adds to the OpenAI Chat Completions reply; the OpenAI SDK's models do not declare them."""


def _strict(text: str, model: Any) -> list[str]:
    if model is genai_types.GenerateContentResponse:
        try:
            model.model_validate_json(text, strict=True)  # google-genai's models forbid unknown fields themselves
        except Exception as error:
            return [str(error)[:300]]
        return []
    return response_problems(json.loads(text), model)


def _gemini(judge: ReferenceJudge, key: str = KEY) -> genai.Client:
    return genai.Client(
        api_key=key, http_options=genai_types.HttpOptions(base_url=judge.url + "/", api_version="v1beta")
    )


def check_error_reply(judge: ReferenceJudge, route: Route) -> list[str]:
    """A wrong key's error, as the SDK reads that provider's errors."""
    body = route.body(judge, _prompt(True))
    if route.provider == "google":
        with ReferenceJudge(keys={"google": "the-right-key"}) as strict_judge:
            client = _gemini(strict_judge, "wrong-key")
            try:
                client.models.generate_content(model=MODELS["google"], contents="x")
            except genai_errors.ClientError as error:
                details = json.dumps(error.details)
                ok = error.code == 400 and error.status == "INVALID_ARGUMENT" and "API_KEY_INVALID" in details
                return [] if ok else [f"Gemini SDK read {error.code} {error.status}"]
        return ["no error for a wrong key"]
    with ReferenceJudge(keys={route.provider: "the-right-key"}) as strict_judge:
        response = _post(strict_judge, route, route.body(strict_judge, _prompt(True)), key="wrong-key")
    del body
    if route.provider == "anthropic":
        return response_problems(response.json(), ErrorResponse) + ([] if response.status_code == 401 else ["not 401"])
    if route.provider == "openai":
        return response_problems(response.json()["error"], ErrorObject) + (
            [] if response.status_code == 401 else ["not 401"]
        )
    error = response.json().get("error", {})  # OpenRouter: integer code, no SDK model of its own
    return [] if error.get("code") == 401 and isinstance(error.get("message"), str) else [f"OpenRouter error {error}"]


def check_models_endpoint(judge: ReferenceJudge, route: Route) -> list[str]:
    """The reachability check's reply, in the SDK's model."""
    role = route.role(judge)
    request = route.client.reachability_request(role, KEY)
    response = httpx.request(request.method, request.url, headers=request.headers)
    if response.status_code != 200:
        return [f"HTTP {response.status_code}"]
    if route.provider == "anthropic":
        return response_problems(response.json(), ModelInfo)
    if route.provider == "google":
        # google-genai maps the REST fields onto its own model (supportedGenerationMethods -> supported_actions).
        client = _gemini(judge)
        model = client.models.get(model=MODELS["google"])
        return [] if model.name == f"models/{MODELS['google']}" and model.supported_actions else [f"SDK read {model}"]
    if route.provider == "openai":
        return response_problems(response.json(), Model)
    data = response.json().get("data")
    return [] if isinstance(data, list) else ["no data list"]


# --- batch flows -------------------------------------------------------------------------------------


def _pendings(judge: ReferenceJudge, route: Route) -> list[Pending]:
    pending = []
    for configuration in ("optimum", "big-1", "small"):
        request = route.client.build_request(route.role(judge), _prompt(True, configuration=configuration), KEY)
        pending.append(
            Pending(
                f"r{configuration}", f"mode:argument-audit/{configuration}", "Judge", str(request.url), request.content
            )
        )
    return pending


def _headers(route: Route) -> dict[str, str]:
    return (
        {"x-api-key": KEY, "anthropic-version": "2023-06-01"}
        if route.provider == "anthropic"
        else {"authorization": f"Bearer {KEY}"}
    )


def _run_batch(judge: ReferenceJudge, route: Route) -> tuple[list[Any], Any, Any]:
    """Submit, poll to the end, fetch: (requests the judge received, last poll status, outcomes)."""
    module: Any = anthropic_batch if route.provider == "anthropic" else openai_batch
    caller = Caller(httpx.Client(timeout=30), sleep=lambda seconds: None)
    before = len(judge.requests)
    with tempfile.TemporaryDirectory() as scratch:
        # The upload file as a batch run writes it: HEAD, the items joined by SEPARATOR, TAIL.
        body = Path(scratch) / "batch.body"
        items = (module.item(route.role(judge).route, pending) for pending in _pendings(judge, route))
        body.write_bytes(module.HEAD + module.SEPARATOR.join(items) + module.TAIL)
        batch_id = module.submit(caller, route.role(judge).route, _headers(route), body)
    status = module.poll(caller, route.role(judge).route, _headers(route), batch_id)
    while not status.finished:
        status = module.poll(caller, route.role(judge).route, _headers(route), batch_id)
    outcomes = module.fetch(caller, route.role(judge).route, _headers(route), status)
    return judge.requests[before:], status, outcomes


def check_batch_requests(judge: ReferenceJudge, route: Route) -> list[str]:
    """Both batch flows' request bodies, the file upload's included, against the SDKs' types."""
    received, _, outcomes = _run_batch(judge, route)
    problems = [] if all(o.body for o in outcomes) and len(outcomes) == 3 else [f"answered {len(outcomes)}"]
    if route.provider == "anthropic":
        create = next(r for r in received if r.method == "POST")
        problems += request_problems(create.json(), AnthropicBatchParams)
        return problems
    upload = next(r for r in received if r.path.endswith("/v1/files"))
    create = next(r for r in received if r.path.endswith("/v1/batches"))
    endpoint = "/v1/responses" if route.api == "responses" else "/v1/chat/completions"
    problems += request_problems(create.json(), OpenAIBatchParams)
    if create.json()["endpoint"] != endpoint:
        problems.append(f"batch endpoint {create.json()['endpoint']} for a {route.name} route")
    from pytest_ora.testing.batch import _multipart

    fields, _ = _multipart(upload.headers["content-type"], upload.body)
    if fields.get("purpose") != b"batch":
        problems.append("upload purpose is not batch")
    for number, line in enumerate(fields["file"].splitlines(), start=1):
        entry = json.loads(line)
        if (
            entry["url"] != endpoint
            or entry["method"] != "POST"
            or set(entry) != {"custom_id", "method", "url", "body"}
        ):
            problems.append(f"line {number}: {sorted(entry)} url {entry['url']}")
        problems += request_problems(entry["body"], route.request_type, f"line {number}.body")
    return problems


def check_batch_replies(judge: ReferenceJudge, route: Route) -> list[str]:
    """The batch objects, file objects and result lines, strictly in the SDKs' models."""
    received, _, _ = _run_batch(judge, route)
    del received
    client = httpx.Client(timeout=30, headers=_headers(route))
    problems: list[str] = []
    if route.provider == "anthropic":
        batch_id = judge.batches.created[-1]
        view = client.get(f"{judge.url}/v1/messages/batches/{batch_id}").json()
        problems += response_problems(view, MessageBatch)
        if not str(view["results_url"]).startswith("http"):
            problems.append("results_url is not absolute")
        for line in client.get(view["results_url"]).text.splitlines():
            problems += response_problems(json.loads(line), MessageBatchIndividualResponse)
        return problems
    batch_id = judge.batches.created[-1]
    view = client.get(f"{judge.url}/v1/batches/{batch_id}").json()
    problems += response_problems(view, Batch)
    for file_id in filter(None, (view["output_file_id"], view["error_file_id"])):
        for line in client.get(f"{judge.url}/v1/files/{file_id}/content").text.splitlines():
            entry = json.loads(line)
            body = (entry.get("response") or {}).get("body")
            if entry["response"]["status_code"] == 200:
                problems += response_problems(body, ResponsesResponse if route.api == "responses" else ChatCompletion)
    upload = client.post(
        f"{judge.url}/v1/files",
        data={"purpose": "batch"},
        files={"file": ("x.jsonl", b'{"custom_id":"a"}\n', "application/jsonl")},
    )
    problems += response_problems(upload.json(), FileObject)
    return problems


def check_batch_error_file(judge: ReferenceJudge, route: Route) -> list[str]:
    """OpenAI: a request that failed is in the error file, not the output file; the SDK reads both."""
    from pytest_ora.testing.server import Fault

    judge.inject(Fault("500", provider="openai", times=1))
    _, status, outcomes = _run_batch(judge, route)
    problems = [] if status.errors and status.results else [f"output {status.results}, errors {status.errors}"]
    if sum(1 for o in outcomes if o.body is None) != 1:
        problems.append(f"{sum(1 for o in outcomes if o.body is None)} failed requests seen, not 1")
    return problems


def check_candidate_reply(judge: ReferenceJudge, route: Route) -> list[str]:
    """A candidate's plain-text call: its body in the SDK's request type, and the reply (a plain answer, with usage)
    strictly in the SDK's model; ours reads its text."""
    problems = []
    for cache, system in ((True, "You are a careful analyst."), (False, "")):
        body = route.body(judge, candidate_prompt(cache, system, claude=route.provider == "anthropic"))
        found = (
            gemini_request_problems(body) if route.request_type is None else request_problems(body, route.request_type)
        )
        problems += [f"(request, cache {'on' if cache else 'off'}) {p}" for p in found]
        response = _post(judge, route, body)
        if response.status_code != 200:
            return [f"HTTP {response.status_code}: {response.text[:200]}"]
        found = _strict(response.text, _REPLY_MODELS[route.name])
        if route.provider == "openai-compatible":
            found = [p for p in found if p.split(":")[0].rsplit(".", 1)[-1] not in OPENROUTER_FIELDS]
        problems += found
        reply = route.client.parse_reply(response)
        if (
            reply.stop != "complete"
            or not reply.text
            or "reference answer" not in reply.text
            or reply.payload is not None
        ):
            problems.append(f"not a plain-text answer: {reply.stop} {reply.text!r:.120}")
        if not reply.usage["input_tokens"] or not reply.usage["output_tokens"]:
            problems.append(f"no usage: {reply.usage}")
    if route.provider == "google":
        client = _gemini(judge)  # kept: google-genai closes a client once it is collected
        answer = client.models.generate_content(model=MODELS["google"], contents="Should they consolidate?")
        if not (answer.text or "").endswith("reference answer)"):
            problems.append(f"google-genai read no plain answer: {answer.text!r:.120}")
    elif route.provider == "anthropic":
        message = anthropic.Anthropic(api_key=KEY, base_url=judge.url, max_retries=0).messages.create(
            model=MODELS["anthropic"],
            max_tokens=512,
            messages=[{"role": "user", "content": "Should they consolidate?"}],
        )
        if message.content[0].type != "text" or message.stop_reason != "end_turn":
            problems.append(f"the Anthropic SDK read {message.content[0].type}, {message.stop_reason}")
    return problems


CHECKS: dict[str, tuple[Callable[[ReferenceJudge, Route], list[str]], tuple[str, ...]]] = {
    "request type": (check_request_type, tuple(ROUTES)),
    "SDK sends the same body": (check_sdk_sends_same_body, tuple(r for r in ROUTES if ROUTES[r].provider != "google")),
    "live reply (strict)": (check_live_reply, tuple(ROUTES)),
    "error reply": (check_error_reply, tuple(ROUTES)),
    "models endpoint": (check_models_endpoint, tuple(ROUTES)),
    "candidate plain-text reply (strict)": (check_candidate_reply, tuple(ROUTES)),
    "batch + upload requests": (
        check_batch_requests,
        ("anthropic messages", "openai chat.completions", "openai responses"),
    ),
    "batch replies (strict)": (
        check_batch_replies,
        ("anthropic messages", "openai chat.completions", "openai responses"),
    ),
    "batch error file": (check_batch_error_file, ("openai chat.completions", "openai responses")),
}
CASES = [(check, route) for check, (_, routes) in CHECKS.items() for route in routes]


@pytest.fixture(scope="module")
def judge() -> Iterator[ReferenceJudge]:
    with ReferenceJudge(batch_delay=0.0) as server:
        yield server


@pytest.mark.parametrize(("check", "route"), CASES, ids=[f"{route}-{check}" for check, route in CASES])
def test_conformance(judge: ReferenceJudge, check: str, route: str) -> None:
    problems = CHECKS[check][0](judge, ROUTES[route])
    assert not problems, "\n".join(problems)


def test_the_checks_catch_a_drift(judge: ReferenceJudge) -> None:
    """The checks can fail: an unknown field, a Responses image without detail, an unknown reply field."""
    route = ROUTES["openai responses"]
    body = route.body(judge, _prompt(True))
    body["bogus"] = 1
    assert request_problems(body, ResponseCreateParamsNonStreaming)
    body = route.body(judge, _prompt(True))
    del body["input"][0]["content"][-1]["detail"]
    assert request_problems(body, ResponseCreateParamsNonStreaming)
    reply = json.loads(
        _post(judge, ROUTES["anthropic messages"], ROUTES["anthropic messages"].body(judge, _prompt(True))).text
    )
    reply["usage"]["made_up"] = 1
    assert response_problems(reply, Message) == ["reply.usage.made_up: not a field of Usage"]


def test_gemini_inline_data_in_url_safe_base64_as_google_genai_sends_it_is_accepted(judge: ReferenceJudge) -> None:
    """google-genai writes inline_data in the URL-safe alphabet; the Gemini API takes both alphabets, and so does the judge."""
    image = bytes([251, 255, 254, 250]) * 8  # its base64 holds + and / in one alphabet, - and _ in the other
    part = genai_types.Part.from_bytes(data=image, mime_type="image/png")
    assert "-" in part.model_dump(mode="json", exclude_none=True)["inline_data"]["data"]
    client = _gemini(judge)

    reply = client.models.generate_content(model=MODELS["google"], contents=["Score this.", part])

    assert reply.candidates
    sent = next(r for r in reversed(judge.requests) if r.method == "POST").body.decode()
    assert base64.urlsafe_b64encode(image).decode() in sent and base64.b64encode(image).decode() not in sent


def test_mixed_base64_alphabets_in_one_image_are_refused(judge: ReferenceJudge) -> None:
    body = {
        "contents": [
            {"role": "user", "parts": [{"text": "x"}, {"inline_data": {"mime_type": "image/png", "data": "+_+_"}}]}
        ]
    }
    response = httpx.post(judge.route("google", MODELS["google"]), json=body, headers={"x-goog-api-key": KEY})

    assert response.status_code == 400 and "invalid base64 data" in response.json()["error"]["message"]


def test_the_files_reply_echoes_the_uploaded_file_name(judge: ReferenceJudge) -> None:
    """OpenAI's Files API names the file as uploaded; the SDK reads the reply as its FileObject."""
    client = openai.OpenAI(api_key=KEY, base_url=judge.url + "/v1", max_retries=0)

    uploaded = client.files.create(file=("ora-judge-calls-3.jsonl", b'{"custom_id":"a"}\n'), purpose="batch")

    assert uploaded.filename == "ora-judge-calls-3.jsonl"


def test_an_expired_openai_batch_writes_its_requests_to_the_error_file() -> None:
    """As OpenAI does: an expired batch's error_file_id holds every request it never ran, each with batch_expired."""
    with ReferenceJudge(batch_delay=0.0, batch_expire=True) as expiring:
        route = ROUTES["openai chat.completions"]
        _run_batch(expiring, route)
        client = openai.OpenAI(api_key=KEY, base_url=expiring.url + "/v1", max_retries=0)
        batch = client.batches.retrieve(expiring.batches.created[-1])
        assert batch.status == "expired" and batch.output_file_id is None and batch.error_file_id
        lines = [json.loads(line) for line in client.files.content(batch.error_file_id).text.splitlines()]

    assert sorted(line["custom_id"] for line in lines) == ["rbig-1", "roptimum", "rsmall"]
    assert {line["error"]["code"] for line in lines} == {"batch_expired"} and all(
        line["response"] is None for line in lines
    )
    assert len({line["id"] for line in lines}) == 3


def table() -> str:
    """The result table, route x check, as markdown."""
    with ReferenceJudge(batch_delay=0.0) as server:
        rows = []
        for route in ROUTES:
            cells = []
            for function, routes in CHECKS.values():
                if route not in routes:
                    cells.append("n/a")
                    continue
                problems = function(server, ROUTES[route])
                cells.append("pass" if not problems else f"FAIL ({len(problems)})")
            rows.append(f"| {route} | " + " | ".join(cells) + " |")
    head = "| route | " + " | ".join(CHECKS) + " |\n|" + " --- |" * (len(CHECKS) + 1)
    return head + "\n" + "\n".join(rows)


if __name__ == "__main__":
    print(table())
