"""N-judge panels and rubric-driven judging: reply validation by rubric, blind packets, token
usage, gold standards, and the trio example end to end at -n 0 and -n 2."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from support.bundle_factory import write_bundle
from support.example_runs import terminal_output

from pytest_ora.bundle.intake import intake
from pytest_ora.core.errors import InvalidReplyError
from pytest_ora.core.models import JudgeReply, RoleSpec
from pytest_ora.core.plan import JudgeSlot, Panel
from pytest_ora.core.usage import reported_usage
from pytest_ora.judges.packet import build_packet, judge_prompt, packet_json, read_header, read_sections
from pytest_ora.judges.panel import Judging, judge_packet
from pytest_ora.judges.providers.base import ProviderReply
from pytest_ora.judges.reply import ReplyProblem, check_reply, check_usage, reply_schema
from pytest_ora.judges.transport import RetryPolicy
from pytest_ora.method.rubric import ORA_V1, get_rubric

TRIO = get_rubric("trio-likert-1.0")
SOLO = get_rubric("judge-solo-1.0")
EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "trio"
REPORT = ("ledger.jsonl", "ledger.csv", "summary.json", "summary.md", "summary.csv", "methodology.md")


def trio_reply(**changes: Any) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "entry_key": "task:board-memo",
        "judge_model": "gpt-5.4",
        "scores": {name: 4 for name in TRIO.names},
        "notes": {name: "fine" for name in TRIO.names},
        "impression": "Usable.",
    }
    reply.update(changes)
    return reply


def checked(payload: dict[str, Any], rubric: Any = TRIO) -> JudgeReply | ReplyProblem:
    reply = ProviderReply(payload=payload, text=None, stop="complete", usage=reported_usage(10, 5))
    return cast("JudgeReply | ReplyProblem", check_reply(reply, rubric, "task:board-memo", "cell-a"))


def test_a_blind_reply_validates_against_the_rubrics_criteria_scale_and_step() -> None:
    assert isinstance(checked(trio_reply()), JudgeReply)
    schema = reply_schema(TRIO)
    assert "configuration" not in schema["properties"] and "configuration" not in schema["required"]
    assert schema["properties"]["scores"]["required"] == list(TRIO.names)
    assert schema["properties"]["scores"]["properties"]["accuracy"] == {"type": "integer", "minimum": 1, "maximum": 5}


@pytest.mark.parametrize(
    ("payload", "field", "reason"),
    [
        (
            trio_reply(scores={**{n: 4 for n in TRIO.names}, "accuracy": 3.5}),
            "scores.accuracy",
            "is not a multiple of the scale step 1",
        ),
        (
            trio_reply(scores={**{n: 4 for n in TRIO.names}, "structure": 6}),
            "scores.structure",
            "is outside the scale 1-5",
        ),
        (
            trio_reply(scores={**{n: 4 for n in TRIO.names}, "structure": 0}),
            "scores.structure",
            "is outside the scale 1-5",
        ),
        (trio_reply(scores={n: 4 for n in TRIO.names if n != "synthesis"}), "scores.synthesis", "is missing"),
        (
            trio_reply(scores={**{n: 4 for n in TRIO.names}, "fidelity": 4}),
            "scores.fidelity",
            "is not a criterion of rubric trio-likert-1.0",
        ),
        (trio_reply(configuration="cell-a"), "configuration", "is not a field of a blind reply"),
    ],
)
def test_an_invalid_reply_is_refused_by_the_rubric(payload: dict[str, Any], field: str, reason: str) -> None:
    problem = checked(payload)
    assert isinstance(problem, ReplyProblem)
    assert (problem.field, problem.reason) == (field, reason)


def test_a_reply_without_token_usage_is_invalid() -> None:
    for usage in (reported_usage(0, 0), reported_usage(120, 0), reported_usage(0, 40)):
        problem = check_usage(ProviderReply(payload={}, text=None, stop="complete", usage=usage))
        assert problem is not None and "no token usage: not estimated" in problem.sentence()
    assert check_usage(ProviderReply(payload={}, text=None, stop="complete", usage=reported_usage(1, 1))) is None


def test_a_judge_that_reports_no_usage_fails_the_capture_after_re_asks(tmp_path: Path) -> None:
    # Given a judge whose every reply is valid but reports zero tokens
    asked: list[httpx.Request] = []
    spec = RoleSpec(model="claude-opus-4-7", provider="anthropic", route="http://127.0.0.1:9/v1/messages")
    panel = Panel((JudgeSlot("Judge A", "judge", "judge", spec),), "one judge")
    judging = Judging(
        panel, TRIO, policy=RetryPolicy(timeout=httpx.Timeout(2.0)), reasks=1, environ={"ANTHROPIC_API_KEY": "k-test"}
    )
    root = write_bundle(tmp_path / "bundle", routes={})
    planned = intake(root).captures[0]
    packet, image = build_packet(planned.capture, root, TRIO)
    answer = trio_reply(judge_model="claude-opus-4-7", entry_key=packet.entry_key)

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        body = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-7",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "ora_judge_reply", "input": answer}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        return httpx.Response(200, json=body)

    async def run() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            await judge_packet(judging, client, packet, image)

    # When it is judged, Then the reply is refused, asked again once, then the capture fails
    with pytest.raises(InvalidReplyError) as caught:
        asyncio.run(run())
    assert caught.value.field == "usage" and "no token usage: not estimated" in str(caught.value)
    assert len(asked) == 2


def test_a_blind_packet_withholds_the_configuration_and_the_model_snapshot(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle", routes={})
    capture = intake(root).captures[0].capture
    packet, image = build_packet(capture, root, TRIO)
    prompt = judge_prompt(packet, image, TRIO)
    text = "\n".join(part.text for part in prompt.parts if hasattr(part, "text"))

    assert packet.configuration is None and packet.model_snapshot == {} and packet.capture_id is None
    assert "configuration" not in read_header(text) and "model_snapshot" not in read_header(text)
    assert capture.configuration not in json.dumps(packet_json(packet)) + text
    assert "claude-opus-4-7" not in text  # the configuration's model snapshot
    assert "do not guess it" in prompt.system


def test_the_prompt_carries_the_rubrics_criteria_questions_and_anchors(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle", routes={})
    packet, image = build_packet(intake(root).captures[0].capture, root, SOLO)
    system = judge_prompt(packet, image, SOLO).system

    assert "Score each criterion from 1 to 10 (whole numbers only)" in system
    for criterion in SOLO.criteria:
        assert f"{criterion.name} (weight 2.5): {criterion.question}" in system
        for band, meaning in criterion.anchors:
            assert f"   - {band}: {meaning}" in system
    assert "SPECIFICATION section" not in system  # only rubrics requiring a specification say so


def test_a_gold_standard_becomes_a_calibration_anchor_and_context_a_section(tmp_path: Path) -> None:
    gold = {"response": "The expert answer.", "score": 92, "notes": "written by a lead"}

    def add(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0].update(gold_standard=gold, context="Doc 1: the budget memo.")
        return items

    root = write_bundle(tmp_path / "bundle", routes={}, edit=add)
    planned = intake(root).captures
    with_gold = next(p for p in planned if p.capture.gold_standard is not None).capture
    without = next(p for p in planned if p.capture.gold_standard is None).capture

    packet, image = build_packet(with_gold, root, SOLO)
    text = "\n\n".join(p.text for p in judge_prompt(packet, image, SOLO).parts if hasattr(p, "text"))
    sections = read_sections(text)
    assert sections["GOLD"] == "The expert answer." and sections["CONTEXT"] == "Doc 1: the budget memo."
    assert "an expert-level response for this prompt scored 92/100." in text and '"written by a lead"' in text

    plain, _ = build_packet(without, root, ORA_V1)
    assert "gold_standard" not in packet_json(plain) and "context" not in packet_json(plain)
    assert "GOLD" not in read_sections(
        "\n\n".join(p.text for p in judge_prompt(plain, None, ORA_V1).parts if hasattr(p, "text"))
    )


def test_a_panel_must_match_the_rubrics_panel_size(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle", routes={})
    manifest = root / "bundle.yaml"
    manifest.write_text(manifest.read_text() + "rubric: trio-likert-1.0\n", encoding="utf-8")

    with pytest.raises(Exception, match=r"field 'panel': names 2 judges but rubric trio-likert-1.0 needs panel_size 3"):
        intake(root)


def copy_example(pytester: pytest.Pytester) -> None:
    for name in ("bundle", "cassettes"):
        shutil.copytree(EXAMPLE / name, pytester.path / name)
    for name in ("conftest.py", "test_trio.py", "pytest.ini"):
        shutil.copy(EXAMPLE / name, pytester.path / name)


def test_the_trio_example_replays_identically_at_n0_and_n2(replayed: Callable[..., Path]) -> None:
    # Given the trio example (three judges, blind, 3 tasks x 4 cells) and its recorded cassettes

    # When it is replayed offline serially and under two xdist workers (the session's replays)
    serial, workers = replayed("trio"), replayed("trio", 2)
    stdout = terminal_output(workers)
    stdout.fnmatch_lines(
        ["ora: panel Optimum judge-opus / judge-gpt / judge-minimax: Judge A = *", "*7 passed, 5 lowscore*"]
    )

    # Then every report file is byte-identical, and each row lists the three judges in panel order
    for name in REPORT:
        assert (serial / name).read_bytes() == (workers / name).read_bytes(), name
    rows = [json.loads(line) for line in (workers / "ledger.jsonl").read_text().splitlines()]
    assert len(rows) == 12 and "judge_a" not in rows[0]
    for row in rows:
        assert [j["label"] for j in row["judges"]] == ["A", "B", "C"]
        assert [j["role"] for j in row["judges"]] == ["judge-opus", "judge-gpt", "judge-minimax"]
        assert row["rubric"] == "trio-likert-1.1" and row["rubric_digest"] == get_rubric("trio-likert-1.1").digest
        assert row["failure"] == row["fail"]


def test_a_rubric_edited_without_a_version_bump_stops_the_run(pytester: pytest.Pytester) -> None:
    # Given the trio example judged with a copy of its rubric whose fail vote was moved without a bump
    copy_example(pytester)
    text = get_rubric("trio-likert-1.0")
    from pytest_ora.method.rubric import builtin_text

    edited = builtin_text(text.version).replace("below: 3.0}", "below: 3.5}", 1)
    (pytester.path / "my-trio.yaml").write_text(edited, encoding="utf-8")

    # When the run names it with --ora-rubric
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-rubric", "my-trio.yaml")

    # Then nothing is judged: exit 4, the file named, the reason said
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*my-trio.yaml: rubric trio-likert-1.0 changed without a new version*"])


def test_three_judges_are_called_live_through_real_http_and_recorded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the trio example routed to a reference judge on a free port, with a Gemini third judge substituted
    copy_example(pytester)
    shutil.rmtree(pytester.path / "cassettes")
    from pytest_ora.testing.server import ReferenceJudge

    with ReferenceJudge() as judge:
        optimum = pytester.path / "bundle" / "optimum.yaml"
        text = optimum.read_text().replace("http://127.0.0.1:8766/v1/messages", judge.route("anthropic"))
        text = text.replace("http://127.0.0.1:8766/v1/chat/completions", judge.route("openai"))
        optimum.write_text(text)
        for name in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"):
            monkeypatch.setenv(name, "reference-judge-test-key")

        # When it is judged live and recorded, the third judge substituted (the rubric locks its panel's models)
        gemini = "judge-minimax=google:gemini-2.5-pro@" + judge.route("google", "gemini-2.5-pro")
        result = pytester.runpytest_subprocess(
            "-p",
            "no:cacheprovider",
            "--ora-record",
            "all",
            "-k",
            "board-memo",
            "--ora-substitute",
            gemini,
            "--ora-panel-label",
            "trio with Gemini",
        )

        # Then each capture took one call per judge, on three wire formats, and every reply validated
        result.assert_outcomes(passed=2)
        posts = [r for r in judge.requests if r.method == "POST"]
        assert len(posts) == 4 * 3
        assert {r.path.split("/")[-1] for r in posts} == {"messages", "completions", "gemini-2.5-pro:generateContent"}
    rows = [json.loads(line) for line in (pytester.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    assert [j["model"] for j in rows[0]["judges"]] == ["claude-opus-4-7", "gpt-5.4", "gemini-2.5-pro"]
    assert all(set(j["scores"]) == set(TRIO.names) for row in rows for j in row["judges"])
    assert not any("cell-" in r.body.decode() for r in posts)  # blind on the wire


def test_bundle_yaml_names_a_rubric_file_under_the_bundle_and_nothing_outside(tmp_path: Path) -> None:
    from pytest_ora.core.errors import IntakeError
    from pytest_ora.method.rubric import builtin_text

    root = write_bundle(tmp_path / "bundle", routes={})
    text = builtin_text("judge-solo-1.0").replace("panel_size: 1", "panel_size: 2")
    (root / "rubrics").mkdir()
    (root / "rubrics" / "solo-pair.yaml").write_text(text, encoding="utf-8")
    manifest = root / "bundle.yaml"
    original = manifest.read_text()

    # A copy whose number changed without a bump is refused, naming the file
    manifest.write_text(original + "rubric: rubrics/solo-pair.yaml\n")
    with pytest.raises(
        IntakeError, match=r"rubrics/solo-pair.yaml: rubric judge-solo-1.0 changed without a new version"
    ):
        intake(root)

    # A path leaving the bundle is refused before it is read
    manifest.write_text(original + "rubric: ../elsewhere.yaml\n")
    with pytest.raises(IntakeError, match=r"bundle.yaml: field 'rubric': points outside the bundle"):
        intake(root)

    # --ora-rubric wins over bundle.yaml
    plan = intake(root, rubric_option=("ora-1.0", tmp_path))
    assert plan.rubric.version == "ora-1.0"
