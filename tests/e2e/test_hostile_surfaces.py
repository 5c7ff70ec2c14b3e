"""Hostile input on the newer surfaces: secrets as key names, keys from any variable, PNG text, blind
packets, forged batch results and reports, rubric files, hangs on absurd numbers and waits.

One test (or one parametrized test) per row of docs/reliability.md's "Hostile input on the newer
surfaces" section.
"""

from __future__ import annotations

import copy
import json
import shutil
import struct
import time
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.bundle_factory import write_bundle
from support.fake_keys import KEYS

from pytest_ora.bundle.intake import intake
from pytest_ora.core.errors import IntakeError
from pytest_ora.core.rubric import RubricError
from pytest_ora.method.rubric import builtin_text, get_rubric, load_rubric
from pytest_ora.method.rubric_file import digest_of, parse_rubric
from pytest_ora.testing.server import ReferenceJudge

ROOT = Path(__file__).parents[2]
EVAL_TEST = (ROOT / "evals" / "test_ora.py").read_text(encoding="utf-8")
SCORECARD_EXAMPLE = ROOT / "evals" / "examples" / "scorecard"
TOKEN = "ghp_" + "Zq7" * 12
"""A GitHub-token-shaped key name (36 characters after the prefix)."""


def problems(root: Path) -> str:
    with pytest.raises(IntakeError) as caught:
        intake(root)
    return str(caught.value)


def holding(root: Path, needle: str, *texts: str) -> list[str]:
    """Files under root (the bundle left out) and texts that hold needle."""
    found = [
        str(path)
        for path in root.rglob("*")
        if path.is_file() and "bundle" not in path.relative_to(root).parts and needle.encode() in path.read_bytes()
    ]
    return found + [text[:80] for text in texts if needle in text]


def edit_first_capture(root: Path, change: Any) -> None:
    lines = (root / "captures.jsonl").read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    change(first)
    (root / "captures.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")


@pytest.fixture
def reference_judge_options() -> dict[str, Any]:
    """tests/conftest.py's `judge`, accepting any key."""
    return {}


@pytest.fixture
def project(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The sample eval suite over the 12-capture test bundle (8 judged), judged by the loopback judge."""
    write_bundle(pytester.path / "bundle", routes={"big-1": judge.route("anthropic"), "big-2": judge.route("openai")})
    pytester.makepyfile(test_ora=EVAL_TEST)
    pytester.makeini("[pytest]\nora_bundle = bundle\n")
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    return pytester


# --- secrets as key names ----------------------------------------------------------------------


def test_a_token_used_as_a_key_name_is_never_printed_or_written(
    project: pytest.Pytester, judge: ReferenceJudge
) -> None:
    """`model_snapshot: {"ghp_...": ...}`: excluded as secret-bearing, the reason's field path redacted everywhere."""
    edit_first_capture(project.path / "bundle", lambda first: first["model_snapshot"].update({TOKEN: "x"}))

    result = project.runpytest("--ora-record", "once", "-rA", "-v", "--junitxml", "junit.xml", "-p", "no:cacheprovider")

    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["*secret-bearing input: field 'model_snapshot.[[]redacted[]]' holds text shaped like a GitHub token*"]
    )
    outputs = project.path / "ora-results"
    for name in ("ledger.jsonl", "ledger.csv", "methodology.md", "report.html", "run.json"):
        assert "model_snapshot.[redacted]" in (outputs / name).read_text(encoding="utf-8"), name
    assert holding(project.path, TOKEN, result.stdout.str(), result.stderr.str()) == []
    assert holding(project.path, TOKEN[:12]) == []


def test_a_token_as_an_evidence_key_is_never_in_a_scorecard(pytester: pytest.Pytester) -> None:
    """A key under `evidence.closure` shaped like a token: UNKNOWN, and SCORECARD-RESULT.md names no token."""
    shutil.copytree(
        SCORECARD_EXAMPLE,
        pytester.path,
        dirs_exist_ok=True,
        ignore=shutil.ignore_patterns("ora-results", "__pycache__"),
    )
    edit_first_capture(pytester.path / "bundle", lambda first: first["evidence"]["closure"].update({TOKEN: 1}))

    result = pytester.runpytest("-rA", "-v", "-p", "no:cacheprovider")

    card = (pytester.path / "ora-results" / "SCORECARD-RESULT.md").read_text(encoding="utf-8")
    assert "UNKNOWN (secret-bearing input in evidence.closure.[redacted])" in card
    assert holding(pytester.path, TOKEN, result.stdout.str(), result.stderr.str()) == []


def test_an_intake_error_about_a_token_key_redacts_the_path(tmp_path: Path) -> None:
    """A wrong type under a token-shaped key: the intake message names the field with the key redacted."""
    root = write_bundle(tmp_path)
    edit_first_capture(root, lambda first: first["model_snapshot"].update({TOKEN: 5}))

    message = problems(root)

    assert "field 'model_snapshot.[redacted]'" in message
    assert TOKEN not in message


# --- scorecards: malformed evidence, line splitting --------------------------------------------


@pytest.mark.parametrize(
    ("axis", "changes", "cell"),
    [
        (
            "rail",
            {"rail__entered": False, "rail__entry_tool_call": None, "rail__reports_filled": "yes"},
            "UNKNOWN (malformed rail.reports_filled: a string, expected a boolean)",
        ),
        (
            "completion",
            {"closure__finish_exit_code": 0, "closure__blockers_after": 0, "closure__blockers_before": "three"},
            "UNKNOWN (malformed closure.blockers_before: a string, expected a number)",
        ),
    ],
)
def test_malformed_evidence_is_unknown_whatever_rule_decides_first(
    axis: str, changes: dict[str, Any], cell: str
) -> None:
    """Before: `reports_filled: "yes"` graded FAIL and `blockers_before: "three"` PASS (an earlier rule decided)."""
    from test_scorecard import evidence, grade

    assert grade(axis, evidence(**changes)).text() == cell


def test_a_duplicate_key_after_a_carriage_return_is_caught(tmp_path: Path) -> None:
    """A `\\r` inside a line (JSON whitespace): intake and the scorecard split lines by one rule, so the repeat is seen."""
    from pytest_ora.method.kinds.scorecard.card import duplicate_paths

    second = '{"entry_key": "task:b", "evidence": {"closure": {"blockers_after": 1,\r "blockers_after": 0}}}'
    (tmp_path / "captures.jsonl").write_bytes(b'{"entry_key": "task:a",\r "evidence": {}}\n' + second.encode() + b"\n")

    assert duplicate_paths(tmp_path, 2) == ("closure.blockers_after",)


# --- rubric files -------------------------------------------------------------------------------


def _rubric_text(data: dict[str, Any]) -> str:
    data = copy.deepcopy(data)
    data.pop("history", None)
    data["history"] = [{"version": data["rubric"], "date": "2026-07-03", "change": "c", "digest": digest_of(data)}]
    return yaml.safe_dump(data, sort_keys=False)


ORA = yaml.safe_load(builtin_text("ora-1.0"))


def test_a_file_calling_itself_a_builtin_with_other_content_is_refused() -> None:
    """`rubric: ora-1.0` with another weight and a matching history digest: refused, never cited as ora-1.0."""
    data = copy.deepcopy(ORA)
    data["criteria"][0]["weight"] = 0.95
    text = _rubric_text(data)  # its history line records the new digest: only the id is wrong

    from pytest_ora.method.rubric import resolve_rubric

    path = Path(__file__).parents[1] / "mine.yaml"
    with pytest.raises(
        RubricError, match=r"calls itself ora-1.0, the id of a built-in rubric, but its content differs"
    ):
        from pytest_ora.method.rubric import _parse

        _parse(text, "mine.yaml", "mine.yaml")  # what load_rubric does with a file's text
    assert _parse(builtin_text("ora-1.0"), "copy.yaml", "copy.yaml").digest == get_rubric("ora-1.0").digest
    assert resolve_rubric("ora-1.0", path.parent).source == "builtin:ora-1.0"


def test_yaml_duplicate_keys_in_a_rubric_are_refused_with_the_line() -> None:
    """`weight: 0.35` then `weight: 0.95` in one criterion: refused naming the key and both lines, never last-wins."""
    text = builtin_text("ora-1.0")
    first = text.index("weight:")
    end = text.index("\n", first)
    doubled = text[: end + 1] + text[text.rindex("\n", 0, first) + 1 : first] + "weight: 0.95\n" + text[end + 1 :]

    with pytest.raises(RubricError) as caught:
        parse_rubric(doubled, "dup.yaml", "dup.yaml")

    line = doubled[:first].count("\n") + 1
    assert f"line {line + 1}: key 'weight' appears twice in one mapping (first on line {line})" in str(caught.value)


SCORES = {
    "rubric": "mine-1.0",
    "title": "t",
    "kind": "scores",
    "scale": {"min": 0, "max": 10},
    "criteria": [{"name": "a", "title": "A", "weight": 1, "question": "q"}],
    "failure": {"below": 4},
}


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["criteria"][0].update(weight=-1), "field 'criteria.a.weight': is negative"),
        (
            lambda d: d.update(failure={"below": 11}),
            "field 'failure.below': 11 is outside what overall can be (0 to 10",
        ),
        (lambda d: d.update(failure={"below": -1}), "field 'failure.below': -1 is outside"),
        (
            lambda d: d.update(verdicts=[{"name": "HIGH", "min": 50}, {"name": "LOW"}]),
            "field 'verdicts.HIGH.min': 50 is outside",
        ),
        (lambda d: d.update(votes={"fail": {"judges": 2, "below": -3}}), "field 'votes.fail.below': -3 is outside"),
    ],
)
def test_rubric_numbers_outside_the_scale_or_negative_are_refused(edit: Any, message: str) -> None:
    data = copy.deepcopy(SCORES)
    edit(data)
    with pytest.raises(RubricError) as caught:
        parse_rubric(_rubric_text(data), "r.yaml", "r.yaml")
    assert message in str(caught.value)


def test_a_negative_scorecard_band_is_refused() -> None:
    from test_scorecard import RUBRIC

    data = copy.deepcopy(RUBRIC)
    data["axes"][0].update(rules=None, count={"field": "x"}, bands=[{"grade": "PASS", "max": -1}, {"grade": "FAIL"}])
    with pytest.raises(RubricError, match="a band's max must not be negative"):
        parse_rubric(_rubric_text(data), "t.yaml", "t.yaml")


@pytest.mark.parametrize("where", ["weight", "step", "band"])
def test_absurd_rubric_numbers_are_refused_at_once(where: str) -> None:
    """ "1e999999999" as a weight, a scale step or a scorecard band: refused in well under a second, no hang."""
    from test_scorecard import RUBRIC

    if where == "band":
        data = copy.deepcopy(RUBRIC)
        data["axes"][0].update(
            rules=None, count={"field": "x"}, bands=[{"grade": "PASS", "max": "1e999999999"}, {"grade": "FAIL"}]
        )
    else:
        data = copy.deepcopy(SCORES)
        if where == "weight":
            data["criteria"][0]["weight"] = "1e999999999"
        else:
            data["scale"]["step"] = "1e-999999999"
    started = time.monotonic()
    with pytest.raises(RubricError, match="has an exponent beyond"):
        parse_rubric(_rubric_text(data), "r.yaml", "r.yaml")
    assert time.monotonic() - started < 2


def test_a_non_utf8_rubric_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("rubric: caf\xe9-1.0\n".encode("latin-1"))
    with pytest.raises(RubricError) as caught:
        load_rubric(path)
    assert str(caught.value) == f"{path}: is not UTF-8 at line 1, column 12 (byte 11); save the rubric file as UTF-8"


# --- routes --------------------------------------------------------------------------------------


@pytest.mark.parametrize("route", ["file:///etc/passwd", "ftp://judge.example/v1", "javascript:alert(1)"])
def test_a_route_that_is_not_http_is_refused_as_a_route(tmp_path: Path, route: str) -> None:
    root = write_bundle(tmp_path, routes={"big-1": route, "big-2": "https://api.openai.com/v1/chat/completions"})

    message = problems(root)

    assert (
        "optimum.yaml:7: field 'roles.big-1.route': must be a full http(s) URL: a judge route is called over http:// or https:// only"
        in message
    )
    assert "family:technique" not in message


def _png(*chunks: tuple[bytes, bytes]) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + b"".join(chunk(k, d) for k, d in chunks)
        + chunk(b"IDAT", pixels)
        + chunk(b"IEND", b"")
    )


def _with_image(root: Path, image: bytes) -> None:
    (root / "artifacts").mkdir(exist_ok=True)
    (root / "artifacts" / "diagram.png").write_bytes(image)
    edit_first_capture(root, lambda first: first.update(visual_artifact="artifacts/diagram.png"))


@pytest.mark.parametrize("chunk", ["tEXt", "zTXt", "iTXt"])
def test_a_token_in_a_png_text_chunk_is_never_sent(project: pytest.Pytester, judge: ReferenceJudge, chunk: str) -> None:
    """A GitHub token in a tEXt, zTXt (deflated) or compressed iTXt chunk: the capture is secret-bearing, never sent."""
    text = f"Comment\x00token {TOKEN}".encode()
    body = {
        "tEXt": text,
        "zTXt": b"Comment\x00\x00" + zlib.compress(f"token {TOKEN}".encode()),
        "iTXt": b"Comment\x00\x01\x00en\x00\x00" + zlib.compress(f"token {TOKEN}".encode()),
    }[chunk]
    _with_image(project.path / "bundle", _png((chunk.encode(), body)))

    result = project.runpytest("--ora-record", "once", "-rA", "-p", "no:cacheprovider")

    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*secret-bearing input: field 'visual_artifact (artifacts/diagram.png)' holds text "
            "shaped like a GitHub token*"
        ]
    )
    sent = b"".join(request.body for request in judge.requests)
    assert zlib.compress(f"token {TOKEN}".encode()) not in sent and TOKEN.encode() not in sent
    assert len([r for r in judge.requests if r.method == "POST"]) == 14  # 7 judged captures x 2 judges


def test_the_configured_key_deflated_in_a_ztxt_chunk_stops_the_live_run(
    project: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The configured key (a gateway's, shaped like no provider's) deflated in zTXt: the live run stops, no call."""
    house_key = "house-gateway-key-0042-abcdef"
    monkeypatch.setenv("ANTHROPIC_API_KEY", house_key)
    _with_image(project.path / "bundle", _png((b"zTXt", b"Author\x00\x00" + zlib.compress(house_key.encode()))))

    result = project.runpytest("--ora-record", "once", "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*the value of ANTHROPIC_API_KEY occurs in the bundle (artifacts/diagram.png)*"])
    assert [r for r in judge.requests if r.method == "POST"] == []


def test_a_ztxt_bomb_is_refused_unread(tmp_path: Path) -> None:
    """A zTXt chunk inflating past 1 MiB is never inflated whole: the image cannot be scanned, so it is never sent."""
    from pytest_ora.core.pngtext import PngTextError, png_texts

    bomb = _png((b"zTXt", b"k\x00\x00" + zlib.compress(b"\x00" * (64 << 20), 9)))
    started = time.monotonic()
    with pytest.raises(PngTextError, match="inflate past 1048576 bytes"):
        png_texts(bomb)
    assert time.monotonic() - started < 2
    assert png_texts(_png((b"tEXt", b"Title\x00a diagram"))) == ["Title: a diagram"]


# --- api_key_env --------------------------------------------------------------------------------


def _key_env(root: Path, name: str) -> None:
    optimum = yaml.safe_load((root / "optimum.yaml").read_text(encoding="utf-8"))
    optimum["roles"]["big-2"]["api_key_env"] = name
    (root / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")


def test_api_key_env_path_is_refused_before_any_request(project: pytest.Pytester, judge: ReferenceJudge) -> None:
    """`api_key_env: PATH`: a live run stops at intake (exit 4); the judge gets no request, reachability check included."""
    _key_env(project.path / "bundle", "PATH")

    result = project.runpytest("--ora-record", "once", "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*optimum.yaml: field 'roles.big-2.api_key_env': names an environment variable that is "
            "not an API key's*(got 'PATH'); name a variable ending in _API_KEY, or allow this one "
            "with --ora-key-env NAME (ini ora_key_env)*"
        ]
    )
    assert judge.requests == []
    assert not (project.path / "ora-results").exists()


def test_an_api_key_env_outside_the_default_needs_the_users_allow_list(
    project: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`VLLM_TOKEN` is refused unless the user (never the bundle) allows it; `*_API_KEY` names pass by default."""
    _key_env(project.path / "bundle", "VLLM_TOKEN")
    monkeypatch.setenv("VLLM_TOKEN", KEYS["OPENAI_API_KEY"])
    assert project.runpytest("--ora-record", "once", "-p", "no:cacheprovider").ret == pytest.ExitCode.USAGE_ERROR
    assert judge.requests == []

    allowed = project.runpytest("--ora-record", "once", "--ora-key-env", "VLLM_TOKEN", "-p", "no:cacheprovider")
    assert allowed.ret == 0

    _key_env(project.path / "bundle", "MINIMAX_API_KEY")
    assert intake(project.path / "bundle").panel.judges[1].spec.api_key_env == "MINIMAX_API_KEY"


def _role_field(root: Path, field: str, value: str) -> None:
    optimum = yaml.safe_load((root / "optimum.yaml").read_text(encoding="utf-8"))
    optimum["roles"]["big-2"][field] = value
    (root / "optimum.yaml").write_text(yaml.safe_dump(optimum, sort_keys=False), encoding="utf-8")


def test_an_api_token_env_is_held_to_the_key_names_and_to_the_providers_that_take_a_token(tmp_path: Path) -> None:
    """`api_token_env: GITHUB_TOKEN` is refused like api_key_env; on an openai role it is refused outright."""
    root = tmp_path / "bundle"
    write_bundle(root)
    _role_field(root, "api_token_env", "GITHUB_TOKEN")

    with pytest.raises(IntakeError) as raised:
        intake(root)
    text = str(raised.value)
    assert "roles.big-2.api_token_env" in text and "not an API key's" in text
    assert "is for azure-openai and vertex roles only" in text

    _role_field(root, "provider", "azure-openai")
    _role_field(root, "api_token_env", "AZURE_OPENAI_AD_TOKEN")
    assert intake(root).panel.judges[1].spec.api_token_env == "AZURE_OPENAI_AD_TOKEN"


# --- blind packets -------------------------------------------------------------------------------


def test_a_strict_blind_packet_names_no_configuration(tmp_path: Path) -> None:
    """Artifact and spec paths, acceptance notes and texts naming lane-zulu or its model: withheld under `blind: strict`."""
    import dataclasses

    from pytest_ora.core.models import Capture
    from pytest_ora.judges.packet import build_packet, judge_prompt, packet_json

    (tmp_path / "specs" / "lane-zulu").mkdir(parents=True)
    (tmp_path / "specs" / "lane-zulu" / "board-memo.md").write_text("# Memo\nThe LANE-ZULU variant adds a step.\n")
    (tmp_path / "artifacts" / "lane-zulu").mkdir(parents=True)
    (tmp_path / "artifacts" / "lane-zulu" / "diagram.svg").write_text("<svg><text>lane-zulu v2</text></svg>")
    capture = Capture.model_validate(
        {
            "entry_key": "task:board-memo",
            "configuration": "lane-zulu",
            "prompt": "Write the memo.",
            "answer": "Signed, zulu-model-7 (lane-zulu).",
            "spec": "specs/lane-zulu/board-memo.md",
            "visual_artifact": "artifacts/lane-zulu/diagram.svg",
            "model_snapshot": {"agent": "zulu-model-7"},
            "acceptance": {"passed": True, "reason": None, "notes": "captured by the lane-zulu harness"},
        }
    )
    rubric = dataclasses.replace(get_rubric("trio-likert-1.0"), blind_strict=True)

    packet, _ = build_packet(capture, tmp_path, rubric)
    prompt = judge_prompt(packet, None, rubric)

    sent = json.dumps(packet_json(packet)) + "".join(getattr(part, "text", "") for part in prompt.parts)
    assert "zulu" not in sent.lower()
    assert packet.artifact is not None and packet.artifact.path == "artifact.svg"
    assert packet.specification_source == "(withheld: blind packet)" and packet.acceptance_notes == ""
    assert packet.answer == "Signed, [withheld] ([withheld])."
    # Blind but not strict: the fields and paths name nothing, the texts are the capture's as written
    plain, _ = build_packet(capture, tmp_path, get_rubric("trio-likert-1.0"))
    assert plain.configuration is None and plain.model_snapshot == {} and plain.acceptance_notes == ""
    assert plain.artifact is not None and plain.artifact.path == "artifact.svg"
    assert plain.answer == "Signed, zulu-model-7 (lane-zulu)."
    # Not blind: the same capture's packet keeps every name (nothing is withheld without the rubric saying so)
    seen, _ = build_packet(capture, tmp_path, get_rubric("judge-solo-1.0"))
    assert seen.artifact is not None and seen.artifact.path == "artifacts/lane-zulu/diagram.svg"


def test_a_strict_blind_compare_packet_withholds_both_configurations(tmp_path: Path) -> None:
    """Kind compare: each response may name its own lane; as written when blind, both withheld under `blind: strict`."""
    import dataclasses

    from pytest_ora.core.models import Capture
    from pytest_ora.core.plan import PlannedCapture
    from pytest_ora.method.kinds import get_kind

    (tmp_path / "specs" / "review").mkdir(parents=True)
    (tmp_path / "specs" / "review" / "x.md").write_text("spec")

    def capture(configuration: str, answer: str) -> Capture:
        return Capture.model_validate(
            {
                "entry_key": "review:x",
                "configuration": configuration,
                "prompt": "p",
                "answer": answer,
                "acceptance": {"passed": True, "reason": None, "notes": ""},
            }
        )

    first = capture("team-red", "team-red found it").model_copy(update={"configuration": "team-red+team-blue"})
    second = capture("team-blue", "Team-Blue wins")
    planned = PlannedCapture(first, 1, "judge", partner=second)

    from pytest_ora.judges.packet import build_packet

    strict = dataclasses.replace(get_rubric("judge-compare-1.0"), blind_strict=True)
    packets = get_kind("compare").packets(planned, tmp_path, strict, build_packet)
    assert all("team" not in json.dumps(packet.material).lower() for _, packet, _ in packets)

    as_written = get_kind("compare").packets(planned, tmp_path, get_rubric("judge-compare-1.0"), build_packet)
    assert next(packet.material for _, packet, _ in as_written) == {
        "order": "first-second",
        "response-1": "team-red found it",
        "response-2": "Team-Blue wins",
    }


# --- waits a server asks for -------------------------------------------------------------------


ABSURD_WAITS = {
    "retry-after": {"retry-after": "1000000000"},
    "retry-after-ms": {"retry-after-ms": "1000000000000"},
    "http-date-9999": {"retry-after": "Fri, 31 Dec 9999 23:59:59 GMT"},
    "reset-year-9999": {
        "anthropic-ratelimit-requests-remaining": "0",
        "anthropic-ratelimit-requests-reset": "9999-12-31T23:59:59Z",
    },
    "reset-99999h": {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "99999h"},
}


def _two_captures(tmp_path: Path, headers: dict[str, str]) -> tuple[list[str], list[float], float]:
    """Two captures in turn through the shared pace, the judge refusing every call with 429 and these headers:
    (their errors, how long each took on the fake clock, how far ahead the shared pace is held at the end)."""
    import asyncio
    import random

    import httpx

    from pytest_ora.core.errors import TransportError
    from pytest_ora.core.models import RoleSpec
    from pytest_ora.core.plan import JudgeSlot
    from pytest_ora.judges.calling import JUDGE_EXTENSION
    from pytest_ora.judges.ratelimit import PacedTransport, SharedLimiter
    from pytest_ora.judges.transport import RetryPolicy, send

    now = [1_000_000.0]

    async def sleep(seconds: float) -> None:
        now[0] += seconds

    limiter = SharedLimiter(tmp_path, {}, clock=lambda: now[0], sleep=sleep)
    refusal = httpx.Response(
        429,
        headers={"date": "Tue, 01 Dec 2026 18:00:00 GMT", **headers},
        json={"type": "error", "error": {"message": "slow down"}},
    )
    transport = PacedTransport(httpx.MockTransport(lambda request: refusal), limiter)
    spec = RoleSpec(model="m", provider="anthropic", route="https://judge.example/v1/messages")
    messages: list[str] = []
    durations: list[float] = []
    rng = random.Random(0)

    async def capture() -> None:
        judge = JudgeSlot("Judge A", "big-1", "big-1", spec)
        started = now[0]
        async with httpx.AsyncClient(transport=transport) as client:
            try:
                request = httpx.Request("POST", spec.route, content=b"{}", extensions={JUDGE_EXTENSION: judge})
                await send(
                    client,
                    request,
                    policy=RetryPolicy(),
                    judge="Judge A",
                    error_message=lambda r: "slow down",
                    sleep=sleep,
                    rng=rng,
                )
            except TransportError as error:
                messages.append(str(error))
        durations.append(now[0] - started)

    async def two_in_turn() -> None:
        await capture()
        await capture()

    asyncio.run(asyncio.wait_for(two_in_turn(), timeout=10))
    return messages, durations, limiter.snapshot("big-1")["tat"] - now[0]


@pytest.mark.parametrize("headers", ABSURD_WAITS.values(), ids=ABSURD_WAITS.keys())
def test_an_absurd_wait_ends_each_capture_within_the_retry_budget(tmp_path: Path, headers: dict[str, str]) -> None:
    """Each capture fails with a message; the absurd wait holds the shared pace not at all (before: forever).

    A retry-after beyond the 120 s budget fails the call at once, naming the wait. A reset header
    beyond it holds nothing: the captures take exactly as long as under a plain 429 storm (the
    backoff within the budget, and the pace the 429s themselves teach).
    """
    from pytest_ora.judges.ratelimit import MAX_HOLD
    from pytest_ora.judges.transport import RetryPolicy

    messages, durations, held = _two_captures(tmp_path / "absurd", headers)

    assert len(messages) == 2 and all("Judge A: HTTP 429 after" in message for message in messages)
    assert held <= MAX_HOLD
    if "retry-after" in headers or "retry-after-ms" in headers:
        assert all("past the remaining retry budget of 120.0 s" in message for message in messages), messages
        assert all(duration <= RetryPolicy().max_total_wait for duration in durations), durations
    else:
        assert durations == _two_captures(tmp_path / "plain", {})[1]


# --- batch results bound to their requests -----------------------------------------------------


BATCH_KEYS = {"ANTHROPIC_API_KEY": "ora-batch-test-key-a", "OPENAI_API_KEY": "ora-batch-test-key-b"}


@pytest.fixture
def batch_judge() -> Any:
    with ReferenceJudge(batch_delay=0.2) as server:
        yield server


@pytest.fixture
def batch_project(
    pytester: pytest.Pytester, batch_judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> pytest.Pytester:
    from support.live_project import live_project

    return live_project(pytester, batch_judge, monkeypatch, BATCH_KEYS)


def _ids(line: bytes) -> str:
    return str(json.loads(line)["custom_id"])


def _with_id(line: bytes, custom_id: str) -> bytes:
    entry = json.loads(line)
    entry["custom_id"] = custom_id
    return json.dumps(entry).encode()


def _scores(path: Path) -> list[Any]:
    return [
        (row["capture_id"], row["status"], row.get("judges"))
        for row in map(json.loads, (path / "ledger.jsonl").read_text(encoding="utf-8").splitlines())
    ]


def test_a_swapped_batch_results_file_is_refused_and_asked_live(
    batch_project: pytest.Pytester, batch_judge: ReferenceJudge
) -> None:
    """Two captures' custom_ids swapped in the OpenAI results file: both refused, asked live, scored from their own
    replies (the ledger equals a clean run's), never from each other's."""
    from support.live_project import EXPECTED, live_calls, outcomes

    def swap(provider: str, lines: list[bytes]) -> list[bytes]:
        if provider != "openai":
            return lines
        first, second = _ids(lines[0]), _ids(lines[1])
        return [_with_id(lines[0], second), _with_id(lines[1], first), *lines[2:]]

    batch_judge.batches.tamper = swap
    result = batch_project.runpytest("--ora-record", "once", "--ora-batch", "-p", "no:cacheprovider")

    assert outcomes(result) == EXPECTED
    result.stdout.fnmatch_lines(
        [
            "*ora: batch batch_* of Judge B: 2 results refused, their requests are asked live: "
            "*got the reply of configuration*"
        ]
    )
    assert live_calls(batch_judge, "/v1/chat/completions") == 2
    batch_judge.batches.tamper = None
    clean = batch_project.runpytest(
        "--ora-record",
        "once",
        "--ora-batch",
        "--ora-cassettes",
        "clean",
        "--ora-out",
        "clean",
        "-p",
        "no:cacheprovider",
    )
    assert outcomes(clean) == EXPECTED
    assert _scores(batch_project.path / "ora-results") == _scores(batch_project.path / "clean")


def test_a_forged_duplicate_result_placed_first_is_refused(
    batch_project: pytest.Pytester, batch_judge: ReferenceJudge
) -> None:
    """Another capture's reply under a capture's custom_id, before its own line: the id is answered twice, so neither
    is kept; that request is asked live."""
    from support.live_project import EXPECTED, live_calls, outcomes

    def forge(provider: str, lines: list[bytes]) -> list[bytes]:
        if provider != "anthropic":
            return lines
        return [_with_id(lines[1], _ids(lines[0])), *lines]

    batch_judge.batches.tamper = forge
    result = batch_project.runpytest("--ora-record", "once", "--ora-batch", "-p", "no:cacheprovider")

    assert outcomes(result) == EXPECTED
    result.stdout.fnmatch_lines(["*of Judge A: 2 results refused*mode:argument-audit/optimum is answered 2 times*"])
    assert live_calls(batch_judge, "/v1/messages") == 1


def test_a_non_json_line_in_a_batch_results_file_is_a_clear_refusal(
    batch_project: pytest.Pytester, batch_judge: ReferenceJudge
) -> None:
    """`<html>` among the result lines: no INTERNALERROR; the file is refused naming the line, its requests asked live."""
    from support.live_project import EXPECTED, live_calls, outcomes

    batch_judge.batches.tamper = lambda provider, lines: (
        [*lines[:3], b"<html>gateway timeout</html>", *lines[3:]] if provider == "openai" else lines
    )
    result = batch_project.runpytest("--ora-record", "once", "--ora-batch", "-p", "no:cacheprovider")

    assert outcomes(result) == EXPECTED and "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(["*of Judge B: results refused (line 4 is not JSON: *); its requests are asked live*"])
    assert live_calls(batch_judge, "/v1/chat/completions") == 8


def test_a_batch_stuck_in_progress_stops_the_run_resumably(
    batch_project: pytest.Pytester, batch_judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch that never ends: polling stops at the bound (25 h; here shortened) with a message, its id kept."""
    from pytest_ora.judges.batch import job

    monkeypatch.setattr(job, "MAX_WAIT", 1.0)
    batch_judge.batches.delay = 1e9
    result = batch_project.runpytest("--ora-record", "once", "--ora-batch", "-p", "no:cacheprovider")

    assert result.ret not in (pytest.ExitCode.OK, pytest.ExitCode.INTERNAL_ERROR)
    assert "INTERNALERROR" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "*is still in_progress after * hours of polling, past the providers' 24-hour window*"
            "re-run the same command to resume polling*"
        ]
    )
    assert list((batch_project.path / "cassettes" / job.BATCH_STATE_DIR).glob("*"))  # the batch ids stay


def _openai_body(entry_key: str, prompt_tokens: int) -> bytes:
    reply = {"entry_key": entry_key, "judge_model": "gpt-5.4", "scores": {}, "notes": {}, "impression": ""}
    return json.dumps(
        {
            "id": "c",
            "object": "chat.completion",
            "model": "gpt-5.4",
            "choices": [
                {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": json.dumps(reply)}}
            ],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 40},
        }
    ).encode()


def test_a_blind_reply_swapped_within_one_entry_is_refused_by_its_token_count() -> None:
    """Blind: the replies echo only the entry key. A larger request billed for fewer input tokens than a smaller one of
    the same entry is a swap: both refused. Consistent counts, and other entries, are bound."""
    from pytest_ora.core.models import RoleSpec
    from pytest_ora.core.plan import JudgeSlot
    from pytest_ora.judges.batch.base import Outcome
    from pytest_ora.judges.batch.binding import bind_outcomes

    judge = JudgeSlot(
        "Judge B",
        "big-2",
        "big-2",
        RoleSpec(model="gpt-5.4", provider="openai", route="https://api.openai.com/v1/chat/completions"),
    )
    rows = {
        f"r{i}": {"custom_id": f"r{i}", "capture_id": capture_id, "bytes": size}
        for i, (capture_id, size) in enumerate(
            [("task:a/cell-a", 4000), ("task:a/cell-b", 8000), ("task:b/cell-a", 4000), ("task:b/cell-b", 8000)]
        )
    }
    said: list[str] = []
    swapped = [
        Outcome("r0", _openai_body("task:a", 2000)),
        Outcome("r1", _openai_body("task:a", 1000)),
        Outcome("r2", _openai_body("task:b", 1000)),
        Outcome("r3", _openai_body("task:b", 2000)),
    ]

    bound = bind_outcomes(swapped, rows, judge, True, said.append, "batch_x")

    assert sorted(row["capture_id"] for row, _ in bound) == ["task:b/cell-a", "task:b/cell-b"]
    assert "2 results refused" in said[0] and "input tokens contradict its request's size" in said[0]
    wrong_entry = bind_outcomes([Outcome("r2", _openai_body("task:a", 1000))], rows, judge, True, said.append, "b")
    assert wrong_entry == [] and "got the reply of entry 'task:a'" in said[-1]
    forged = bind_outcomes([Outcome("zz", _openai_body("task:a", 1000))], rows, judge, True, said.append, "b")
    assert forged == [] and "is not a request of this batch" in said[-1]


# --- verify: forged data ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runs(replayed: Callable[[str], Path]) -> dict[str, Path]:
    """The solo, scorecard, compare and checklist examples, each replayed once offline."""
    return {name: replayed(name) for name in ("solo", "scorecard", "compare", "checklist")}


def _forged(runs: dict[str, Path], name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copytree(runs[name], target)
    return target


def _rerender(directory: Path, *reports: str) -> None:
    """What a careful forger does: every report rendered again from the edited data, so each matches it."""
    from pytest_ora.reports.verify import RENDERERS

    for renderer in RENDERERS:
        if renderer.report in reports:
            (directory / renderer.report).write_text(renderer.render(directory), encoding="utf-8")


def _verify(directory: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from pytest_ora.__main__ import main

    code = main(["verify", str(directory)])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("name", ["solo", "scorecard", "compare", "checklist"])
def test_untouched_outputs_verify_with_their_data_cross_checked(
    runs: dict[str, Path], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _verify(runs[name], capsys)
    assert code == 0, out
    assert "not checked" not in out


def test_a_forged_summary_mean_with_its_reports_rerendered_fails(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _forged(runs, "solo", tmp_path)
    summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    summary[0]["mean_overall"] += 5
    (directory / "summary.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    _rerender(directory, "summary.md", "summary.csv", "report.html")

    code, out = _verify(directory, capsys)

    assert code == 1
    assert "verify: ok: summary.md (from summary.json, run.json)" in out  # the report matches the forged data...
    assert (
        f"verify: FAILED: {directory / 'summary.json'}: does not match the other data: {summary[0]['configuration']}: "
        f"mean_overall is {summary[0]['mean_overall']!r}, but its ledger rows give" in out
    )  # ...which the ledger refutes


def test_a_forged_ledger_overall_fails_against_its_judges_scores(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _forged(runs, "solo", tmp_path)
    rows = [json.loads(line) for line in (directory / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    row = next(row for row in rows if row["status"] == "scored")
    row["overall"] = 99.5
    (directory / "ledger.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    _rerender(directory, "ledger.csv", "report.html")

    code, out = _verify(directory, capsys)

    assert code == 1
    assert (
        f"ledger.jsonl: does not match the other data: {row['capture_id']}: overall is 99.5, but its judges' "
        "scores give" in out
    )


def test_forged_judge_scores_fail_against_the_kept_replies(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _forged(runs, "solo", tmp_path)
    rows = [json.loads(line) for line in (directory / "ledger.jsonl").read_text(encoding="utf-8").splitlines()]
    row = next(row for row in rows if row["status"] == "scored")
    criterion = next(iter(row["judges"][0]["scores"]))
    row["judges"][0]["scores"][criterion] += 1
    (directory / "ledger.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")

    code, out = _verify(directory, capsys)

    assert code == 1, out
    assert (
        f"{row['capture_id']}: {row['judges'][0]['label']}'s scores differ from its reply in the judges/ directory"
        in out
    ), out


def test_a_deleted_summary_md_fails(runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = _forged(runs, "solo", tmp_path)
    (directory / "summary.md").unlink()

    code, out = _verify(directory, capsys)

    assert code == 1 and f"verify: FAILED: {directory / 'summary.md'}: missing: every run writes it (deleted?)" in out


def test_a_scorecard_cell_flipped_from_unknown_to_pass_fails(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The cell, its grade, the pair view and the aggregate all edited alike, SCORECARD-RESULT.md re-rendered."""
    directory = _forged(runs, "scorecard", tmp_path)
    data = json.loads((directory / "scorecard.json").read_text(encoding="utf-8"))
    capture = next(
        c
        for c in data["captures"]
        if c["status"] == "scored" and any(cell["grade"] == "UNKNOWN" for cell in c["axes"].values())
    )
    axis = next(name for name, cell in capture["axes"].items() if cell["grade"] == "UNKNOWN")
    capture["axes"][axis] = {"grade": "PASS", "cell": "PASS (0 blockers)", "raw": 0}
    pair = next(p for p in data["pairs"] if p["entry_key"] == capture["entry_key"])
    pair["axes"][axis][capture["configuration"]] = capture["axes"][axis]
    tally = data["aggregate"][capture["configuration"]][axis]
    tally["UNKNOWN"] -= 1
    tally["PASS"] += 1
    (directory / "scorecard.json").write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    _rerender(directory, "SCORECARD-RESULT.md")

    code, out = _verify(directory, capsys)

    assert code == 1
    assert f"{capture['capture_id']}: axis {axis} is 'PASS (0 blockers)', but ledger.jsonl grades it 'UNKNOWN" in out


@pytest.mark.parametrize(("name", "report"), [("compare", "compare.md"), ("checklist", "checklist.md")])
def test_an_edited_compare_or_checklist_report_fails(
    runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, report: str
) -> None:
    """Before: "not checked". Now each is rendered again (compare.md from compare.json; checklist.md from the
    ledger, the judges' answers and the packets' checklists) and an edit is named."""
    directory = _forged(runs, name, tmp_path)
    text = (directory / report).read_text(encoding="utf-8")
    (directory / report).write_text(
        text.replace("| 1", "| 2", 1) if "| 1" in text else text + "edited\n", encoding="utf-8"
    )

    code, out = _verify(directory, capsys)

    assert code == 1 and f"verify: FAILED: {directory / report}: edited by hand: line" in out


def test_the_session_end_renders_checklist_md_with_the_registry_verify_runs(runs: dict[str, Path]) -> None:
    """Before: the session end wrote checklist.md from its records and only verify rendered it from the files.
    Now the session end's registry pass renders it too, and the kind writes no copy of its own."""
    from pytest_ora.method.kinds import get_kind
    from pytest_ora.method.rubric_file import parse_rubric
    from pytest_ora.reports.renderers import RUN_DATA, render_reports

    directory = runs["checklist"]
    run = json.loads((directory / RUN_DATA).read_text(encoding="utf-8"))
    rubric = parse_rubric(run["rubric_text"], "run.json rubric", str(directory / RUN_DATA))

    first_pass = [renderer.report for renderer in render_reports(directory, rubric, statistics=False)]

    assert "checklist.md" in first_pass
    assert get_kind("checklist").outputs([], rubric) == {}


def test_checklist_md_finds_a_substituted_judge_by_its_role(runs: dict[str, Path], tmp_path: Path) -> None:
    """A judge's file is named by its panel slot; a substituted judge's role (what the ledger keeps) is not that slot."""
    from pytest_ora.reports.verify import RENDERERS

    directory = _forged(runs, "checklist", tmp_path)
    renderer = next(r for r in RENDERERS if r.report == "checklist.md")
    for path in (directory / "judges").rglob("*.judge-gpt.json"):
        path.write_text(
            path.read_text(encoding="utf-8").replace('"role": "judge-gpt"', '"role": "substitute-judge-gpt"'),
            encoding="utf-8",
        )
    ledger = directory / "ledger.jsonl"
    ledger.write_text(
        ledger.read_text(encoding="utf-8").replace('"role":"judge-gpt"', '"role":"substitute-judge-gpt"'),
        encoding="utf-8",
    )

    assert renderer.render(directory) == (runs["checklist"] / "checklist.md").read_text(encoding="utf-8")


def test_the_reports_verify_expects_are_the_ones_every_run_writes() -> None:
    from pytest_ora.reports.output import REPORT_FILES
    from pytest_ora.reports.verify import ALWAYS_WRITTEN

    assert ALWAYS_WRITTEN == REPORT_FILES
