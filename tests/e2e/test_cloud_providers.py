"""End to end on the cloud providers: a live run per provider against the reference judge, recorded, then replayed
offline a day later with other credentials; no credential in any cassette, output or terminal line."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path
from typing import Any

import pytest
import time_machine
import yaml
from support.bundle_factory import write_bundle
from support.e2e import report, tables
from support.live_project import EXPECTED, outcomes
from support.provider_support import make_prompt
from vcr.request import Request as VcrRequest

from pytest_ora.core.models import RoleSpec
from pytest_ora.judges.cassettes import _reduce_request
from pytest_ora.judges.providers import api_key_for
from pytest_ora.judges.providers.bedrock import BedrockClient
from pytest_ora.testing.server import ReferenceJudge

EVAL_TEST = (Path(__file__).parents[2] / "evals" / "test_ora.py").read_text(encoding="utf-8")
A = {
    "AZURE_OPENAI_API_KEY": "azure-key-AAAA-0123456789abcdef",
    "AZURE_OPENAI_AD_TOKEN": "eyJ0eXAiOiJKV1QiLCJ-entra-token-AAAA",
    "AWS_ACCESS_KEY_ID": "AKIAORARECORDAAAA001",
    "AWS_SECRET_ACCESS_KEY": "recordSecretAccessKeyAAAA/0123456789abcdef",
    "AWS_SESSION_TOKEN": "IQoJb3JpZ2luX2VjRECORDsessiontokenAAAA0123",
    "VERTEX_ACCESS_TOKEN": "ya29.record-access-token-AAAA-0123456789",
}
B = {name: value.replace("AAAA", "BBBB") for name, value in A.items()}
"""Other credentials, as a day later: another session token, a refreshed access token, a rotated key."""


def _roles(judge: ReferenceJudge, provider: str) -> dict[str, dict[str, Any]]:
    """Both roles of the bundle on one cloud provider's reference-judge routes."""
    if provider == "azure-openai":
        return {
            "big-1": {"model": "gpt-4.1-mini", "provider": provider, "route": judge.route(provider, "gpt-4.1-mini")},
            "big-2": {
                "model": "gpt-5-mini",
                "provider": provider,
                "route": judge.route(provider, "gpt-5-mini", "responses"),
                "api_token_env": "AZURE_OPENAI_AD_TOKEN",
            },
        }
    if provider == "bedrock":
        claude, llama = "anthropic.claude-sonnet-4-5-20250929-v1:0", "meta.llama3-3-70b-instruct-v1:0"
        return {
            "big-1": {"model": claude, "provider": provider, "route": judge.route(provider, claude)},
            "big-2": {"model": llama, "provider": provider, "route": judge.route(provider, llama)},
        }
    return {
        "big-1": {
            "model": "gemini-2.5-pro",
            "provider": provider,
            "route": judge.route(provider, "gemini-2.5-pro"),
            "api_token_env": "VERTEX_ACCESS_TOKEN",
        },
        "big-2": {
            "model": "claude-sonnet-4-5",
            "provider": provider,
            "route": judge.route(provider, "claude-sonnet-4-5"),
            "api_token_env": "VERTEX_ACCESS_TOKEN",
        },
    }


def _project(pytester: pytest.Pytester, judge: ReferenceJudge, provider: str) -> pytest.Pytester:
    write_bundle(pytester.path / "bundle")
    optimum = yaml.safe_load((pytester.path / "bundle" / "optimum.yaml").read_text(encoding="utf-8"))
    optimum["roles"] = _roles(judge, provider)
    (pytester.path / "bundle" / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\nora_key_env = VERTEX_ACCESS_TOKEN\n")
    return pytester


def _run(project: pytest.Pytester, credentials: dict[str, str], *args: str) -> pytest.RunResult:
    with pytest.MonkeyPatch.context() as patch:
        for name, value in credentials.items():
            patch.setenv(name, value)
        return project.runpytest("-p", "no:cacheprovider", *args)


def _found(root: Path, texts: list[str], values: dict[str, str]) -> list[str]:
    """Where any credential value (or any part of it) occurs: every file under root, and the runs' terminal output."""
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        data = path.read_bytes()
        found += [f"{path.relative_to(root)}: {name}" for name, value in values.items() if value.encode() in data]
    for number, text in enumerate(texts):
        found += [f"terminal output {number}: {name}" for name, value in values.items() if value in text]
    return found


@pytest.mark.parametrize("provider", ["azure-openai", "bedrock", "vertex"])
def test_a_live_run_records_and_replays_a_day_later_with_other_credentials_and_no_credential_is_written(
    pytester: pytest.Pytester, provider: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)  # the clock moves a day: no fixed scoring date
    keys = {"bedrock": A["AWS_ACCESS_KEY_ID"], "vertex": A["VERTEX_ACCESS_TOKEN"]}
    with ReferenceJudge(keys={k: v for k, v in keys.items() if k == provider}) as judge:
        project = _project(pytester, judge, provider)
        # Given a live run against the provider's wire format, recorded
        recorded = _run(project, A, "--ora-record", "once", "--ora-out", "recorded")
        assert outcomes(recorded) == EXPECTED, recorded.stdout.str()[-3000:]
        calls = judge.calls
        assert calls >= 16
        if provider == "bedrock":  # every call was SigV4-signed with the recording credentials
            posts = [r for r in judge.requests if r.method == "POST"]
            assert all(
                r.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={A['AWS_ACCESS_KEY_ID']}/")
                for r in posts
            )
            assert all(r.headers["x-amz-security-token"] == A["AWS_SESSION_TOKEN"] for r in posts)

        # When it is replayed a day later, with other credentials (a new signature date, another token)
        with time_machine.travel(dt.datetime.now(dt.timezone.utc) + dt.timedelta(days=1), tick=True):
            replayed = _run(project, B, "--ora-out", "replayed")

        # Then nothing is sent, the outcomes and tables are the recorded ones
        assert outcomes(replayed) == EXPECTED, replayed.stdout.str()[-3000:]
        assert judge.calls == calls
        recorded_files, replayed_files = tables(report(project, "recorded")), tables(report(project, "replayed"))
        # The report names its scoring date: the replay's is the day after (the clock did move), all else is equal.
        found = re.search(rb'"scoring_date":"(\d{4}-\d\d-\d\d)"', recorded_files["report.html"])
        assert found is not None
        today = dt.date.fromisoformat(found.group(1).decode())
        tomorrow = today + dt.timedelta(days=1)
        assert f"Scoring date {tomorrow}.".encode() in replayed_files["report.html"]
        replayed_files["report.html"] = replayed_files["report.html"].replace(
            str(tomorrow).encode(), str(today).encode()
        )
        assert replayed_files == recorded_files
        # And no credential value is in any cassette, output or terminal line
        texts = [recorded.stdout.str(), recorded.stderr.str(), replayed.stdout.str(), replayed.stderr.str()]
        assert (
            _found(project.path, texts, {**{f"A {k}": v for k, v in A.items()}, **{f"B {k}": v for k, v in B.items()}})
            == []
        )
        assert list((project.path / "cassettes").rglob("*.json"))


def test_a_sigv4_signature_made_a_day_later_with_other_credentials_matches_the_recorded_request() -> None:
    """The cassette keeps method, URL and body digest only: the signature, its date and the session token never match on."""
    role = RoleSpec(
        model="anthropic.claude-sonnet-4-5-20250929-v1:0",
        provider="bedrock",
        route="https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse",
    )

    def signed(environ: dict[str, str]) -> Any:
        request = BedrockClient().build_request(role, make_prompt(), api_key_for(role, environ))
        return request, _reduce_request(
            VcrRequest(request.method, str(request.url), request.content, dict(request.headers))
        )

    now = dt.datetime.now(dt.timezone.utc)
    with time_machine.travel(now, tick=False):
        first, recorded = signed(A)
    with time_machine.travel(now + dt.timedelta(days=1), tick=False):
        later, replayed = signed(B)

    assert first.headers["x-amz-date"][:8] != later.headers["x-amz-date"][:8]
    assert first.headers["authorization"] != later.headers["authorization"]
    assert (recorded.method, recorded.uri, recorded.body) == (replayed.method, replayed.uri, replayed.body)
    assert dict(recorded.headers) == dict(replayed.headers) == {"content-type": "application/json"}


@pytest.mark.parametrize("provider", ["azure-openai", "bedrock", "vertex"])
def test_batches_on_a_cloud_provider_are_refused_before_any_call(pytester: pytest.Pytester, provider: str) -> None:
    """pytest-ora speaks no cloud batch API (Azure batch, Bedrock batch inference, Vertex batch prediction): a usage error."""
    with ReferenceJudge() as judge:
        project = _project(pytester, judge, provider)

        result = _run(project, A, "--ora-record", "once", "--ora-batch")

        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [
                f"*--ora-batch is not supported for Judge A (provider {provider}), Judge B (provider "
                f"{provider}): pytest-ora batches through Anthropic's and OpenAI's batch APIs only*"
            ]
        )
        assert judge.requests == []


@pytest.mark.parametrize(("provider", "module"), [("bedrock", "aws"), ("vertex", "gcp")])
def test_a_live_run_without_the_providers_extra_stops_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, provider: str, module: str
) -> None:
    """botocore and google-auth are optional extras: a live run without them says which to install, before any call."""
    import importlib

    monkeypatch.setattr(importlib.import_module(f"pytest_ora.judges.providers.{module}"), "available", lambda: False)
    with ReferenceJudge() as judge:
        project = _project(pytester, judge, provider)
        if provider == "vertex":  # a vertex role reading ADC, not a token variable
            optimum = yaml.safe_load((project.path / "bundle" / "optimum.yaml").read_text(encoding="utf-8"))
            for role in optimum["roles"].values():
                role.pop("api_token_env")
            (project.path / "bundle" / "optimum.yaml").write_text(yaml.safe_dump(optimum), encoding="utf-8")

        result = _run(project, A, "--ora-record", "once")

        assert result.ret == pytest.ExitCode.USAGE_ERROR
        result.stderr.fnmatch_lines(
            [f"*needs the optional extra pytest-ora[[]{provider}[]] (pip install 'pytest-ora[[]{provider}[]]')*"]
        )
        assert judge.requests == []


def test_a_replay_never_reads_a_cloud_credential_chain(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Application Default Credentials (and botocore's chain) may refresh a token over the network: a replay asks neither."""
    from pytest_ora.judges.providers import aws as aws_module
    from pytest_ora.judges.providers import gcp as gcp_module

    class Credentials:
        """ADC as google-auth gives them: a token after a refresh; `broken` ones fail if anyone asks."""

        def __init__(self, broken: bool) -> None:
            self.broken, self.valid, self.token = broken, False, None

        def refresh(self, request: object) -> None:
            assert not self.broken, "a replay refreshed a token"
            self.valid, self.token = True, A["VERTEX_ACCESS_TOKEN"]

    with ReferenceJudge(keys={"vertex": A["VERTEX_ACCESS_TOKEN"]}) as judge:
        project = _project(pytester, judge, "vertex")
        optimum = yaml.safe_load((project.path / "bundle" / "optimum.yaml").read_text(encoding="utf-8"))
        for role in optimum["roles"].values():
            role.pop("api_token_env")  # both roles read Application Default Credentials
        (project.path / "bundle" / "optimum.yaml").write_text(yaml.safe_dump(optimum), encoding="utf-8")
        monkeypatch.setattr(gcp_module, "_found", [Credentials(broken=False)])
        recorded = _run(project, {}, "--ora-record", "once", "--ora-out", "recorded")
        assert outcomes(recorded) == EXPECTED, recorded.stdout.str()[-2000:]
        calls = judge.calls

        monkeypatch.setattr(gcp_module, "_found", [Credentials(broken=True)])
        monkeypatch.setattr(aws_module, "_from_chain", lambda: pytest.fail("a replay read botocore's chain"))
        replayed = _run(project, {}, "--ora-out", "replayed")

    assert outcomes(replayed) == EXPECTED, replayed.stdout.str()[-2000:]
    assert judge.calls == calls
