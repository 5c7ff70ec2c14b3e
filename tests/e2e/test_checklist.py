"""kind checklist: the judge skill's worked example computed by the harness, replies validated
against the exact listed ids, rubric-overridable weights, intake, and the example end to end."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from support.example_runs import terminal_output

from pytest_ora.core.errors import InvalidReplyError
from pytest_ora.core.models import Capture, RoleSpec
from pytest_ora.core.plan import JudgeSlot, Panel
from pytest_ora.core.usage import reported_usage
from pytest_ora.judges.packet import Packet, build_packet, judge_prompt
from pytest_ora.judges.panel import Judging, judge_packet
from pytest_ora.judges.providers.base import ProviderReply
from pytest_ora.judges.reply import ReplyProblem, check_reply
from pytest_ora.judges.transport import RetryPolicy
from pytest_ora.method.checklist import judge_checklist
from pytest_ora.method.kinds import formula, get_kind
from pytest_ora.method.kinds.checklist.kind import ChecklistReply
from pytest_ora.method.rubric import get_rubric, load_rubric
from pytest_ora.method.rubric_file import digest_of

CHECKLIST = get_rubric("judge-checklist-2.0")
EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "checklist"
RUBRIC_FILE = Path(__file__).parents[2] / "pytest_ora" / "method" / "rubrics" / "judge-checklist-2.0.yaml"
SEED_SCORES = {"clear_explanations": 8, "actionable_fixes": 7, "in_character": 9, "professional_tone": 8}
# The judge skill's detection deep dive: 6 critical, 6 high, 8 medium, 2 low; 5 / 4 / 3 / 1 found.
WORKED = {"critical": (6, 5), "high": (6, 4), "medium": (8, 3), "low": (2, 1)}


def worked_material() -> tuple[dict[str, Any], dict[str, bool]]:
    issues, found = [], {}
    for severity, (total, hits) in WORKED.items():
        for index in range(1, total + 1):
            name = f"{severity.upper()}-{index}"
            issues.append({"id": name, "severity": severity, "description": f"{severity} defect {index}"})
            found[name] = index <= hits
    return {"issues": issues, "bonus": [{"id": "BONUS-1", "description": "extra credit"}]}, found


def worked_reply(found: dict[str, bool], **changes: Any) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "entry_key": "review:worked",
        "configuration": "thorough",
        "judge_model": "claude-opus-4-7",
        "findings": [{"id": name, "found": hit, "evidence": "quoted" if hit else ""} for name, hit in found.items()]
        + [{"id": "BONUS-1", "found": False, "evidence": ""}],
        "novel": [
            {"description": "a real defect", "valid": True, "reasoning": "reproduced"},
            {"description": "another real defect", "valid": True, "reasoning": "reproduced"},
            {"description": "a style nit", "valid": False, "reasoning": "not a defect"},
        ],
        "false_positives": [{"claim": "a phantom race", "why_invalid": "single-threaded"}],
        "scores": dict(SEED_SCORES),
        "assessment": "Strong on criticals, thin on mediums.",
    }
    reply.update(changes)
    return reply


def checked(payload: dict[str, Any], material: dict[str, Any]) -> Any:
    reply = ProviderReply(payload=payload, text=None, stop="complete", usage=reported_usage(10, 5))
    return check_reply(reply, CHECKLIST, "review:worked", "thorough", material)


def test_seed_002_worked_example_is_computed_exactly_with_spec_9s_tp_count() -> None:
    # Given the judge skill's scenario (194 weighted points, 132 found) with 2 valid novel findings and 1 false positive
    material, found = worked_material()
    reply = checked(worked_reply(found), material)
    assert isinstance(reply, ChecklistReply)
    record: Any = {
        "judges": [{"label": "Judge A", **get_kind("checklist").record_fields(reply, CHECKLIST)}],
        "material": material,
    }

    # When the harness combines the panel
    scores = get_kind("checklist").panel(record, CHECKLIST)
    judge = scores.details["checklist_judges"][0]

    # Then recall is 132/194 and TP counts found issues plus valid novel findings (13 + 2 = 15), not the seed's 14
    assert (judge["weighted_found"], judge["weighted_total"]) == ("132", "194")
    assert (judge["found"], judge["novel_valid"], judge["tp"], judge["fp"]) == (13, 2, 15, 1)
    assert Fraction(judge["recall_exact"]) == Fraction(132, 194)
    assert Fraction(judge["precision_exact"]) == Fraction(15, 16)
    f2 = 5 * Fraction(15, 16) * Fraction(132, 194) / (4 * Fraction(15, 16) + Fraction(132, 194))
    assert Fraction(judge["f2_exact"]) == f2 == Fraction(275, 382)
    detection = 30 * Fraction(132, 194) + 10 * Fraction(15, 16) + 6
    assert Fraction(judge["detection_exact"]) == detection == Fraction(27771, 776)
    assert (Fraction(judge["quality_exact"]), Fraction(judge["persona_exact"])) == (Fraction(75, 4), Fraction(85, 4))
    assert scores.overall == detection + Fraction(75, 4) + Fraction(85, 4) == Fraction(58811, 776)
    assert scores.means["precision"] == Fraction(15, 16) and not scores.failure


def test_precision_f2_and_novel_bonus_edges() -> None:
    issues = [("A", "critical"), ("B", "unlabelled")]
    scores = {name: Fraction(1) for name in CHECKLIST.names}
    # An answer that finds nothing and claims nothing: every detection figure is 0, never a division error
    none = judge_checklist(issues, {"A": False, "B": False}, 0, 0, 0, scores, CHECKLIST)
    assert (none.recall, none.precision, none.f2, none.detection) == (0, 0, 0, 0)
    # Only false positives: precision 0; an unlisted category weighs `other` (5); the novel bonus caps at 10
    noisy = judge_checklist(issues, {"A": False, "B": True}, 0, 5, 3, scores, CHECKLIST)
    assert noisy.recall == Fraction(5, 20) and noisy.precision == Fraction(6, 9)
    assert noisy.detection == 30 * Fraction(1, 4) + 10 * Fraction(2, 3) + 10


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        (lambda r: r["findings"].pop(3), "findings[CRITICAL-4]", "is missing"),
        (
            lambda r: r["findings"].append({"id": "INVENTED-1", "found": True, "evidence": ""}),
            "findings.23.id",
            "is not a listed id",
        ),
        (lambda r: r["findings"].append(dict(r["findings"][0])), "findings.23.id", "a second time"),
        (lambda r: r["findings"][-1].pop("id"), "findings.22.id", "is missing"),
        (lambda r: r["findings"][0].update(found="yes"), "findings.0.found", "valid boolean"),
        (lambda r: r["scores"].update(in_character=11), "scores.in_character", "outside the scale"),
        (lambda r: r.update(entry_key="review:other"), "entry_key", "does not match"),
    ],
)
def test_a_reply_answering_other_than_the_exact_listed_ids_is_invalid(change: Any, field: str, reason: str) -> None:
    material, found = worked_material()
    reply = worked_reply(found)
    change(reply)
    problem = checked(reply, material)
    assert isinstance(problem, ReplyProblem)
    assert problem.field == field and reason in problem.reason


def _packet(tmp_path: Path) -> Packet:
    material, _ = worked_material()
    capture = Capture.model_validate(
        {
            "entry_key": "review:worked",
            "configuration": "thorough",
            "prompt": "Review this.",
            "answer": "[CRITICAL-1] x",
            "acceptance": {"passed": True},
            "checklist": material,
        }
    )
    packet, _ = build_packet(capture, tmp_path, CHECKLIST)
    return packet


def test_the_packet_shows_the_checklist_and_the_prompt_asks_for_every_id(tmp_path: Path) -> None:
    prompt = judge_prompt(_packet(tmp_path), None, CHECKLIST)
    text = "\n\n".join(p.text for p in prompt.parts if hasattr(p, "text"))  # entry part, then capture part
    assert "- CRITICAL-1 [critical]: critical defect 1" in text and "- BONUS-1 [bonus]: extra credit" in text
    assert "exactly one entry for every listed id" in prompt.system and "critical 15" in prompt.system
    assert prompt.reply_schema is not None
    assert set(prompt.reply_schema["properties"]) >= {"findings", "novel", "false_positives", "scores", "assessment"}


def test_a_judge_that_omits_an_id_is_re_asked_then_the_capture_fails(tmp_path: Path) -> None:
    # Given a judge whose replies always leave one listed id out
    packet = _packet(tmp_path)
    _material, found = worked_material()
    answer = worked_reply(found)
    answer["findings"].pop(0)
    asked: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request)
        body = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-opus-4-7",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "ora_judge_reply", "input": answer}],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 100, "output_tokens": 50},
        }
        return httpx.Response(200, json=body)

    spec = RoleSpec(model="claude-opus-4-7", provider="anthropic", route="http://127.0.0.1:9/v1/messages")
    panel = Panel((JudgeSlot("Judge A", "judge", "judge", spec),), "one judge")
    judging = Judging(
        panel,
        CHECKLIST,
        policy=RetryPolicy(timeout=httpx.Timeout(2.0)),
        reasks=1,
        environ={"ANTHROPIC_API_KEY": "k-test"},
    )

    async def run() -> None:
        async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
            await judge_packet(judging, client, packet, None)

    # When it is judged, Then it is asked twice (the re-ask names the missing id) and the capture fails: no zero
    with pytest.raises(InvalidReplyError) as caught:
        asyncio.run(run())
    assert caught.value.field == "findings[CRITICAL-1]" and len(asked) == 2
    assert "findings[CRITICAL-1]" in json.loads(asked[1].content)["messages"][0]["content"][-1]["text"]


def test_the_rubric_overrides_the_severity_weights(tmp_path: Path) -> None:
    # Given a copy of judge-checklist-2.0 whose critical weight is 30, as a new version
    data = yaml.safe_load(RUBRIC_FILE.read_text())
    data["rubric"] = "checklist-critical-30"
    data["params"]["severity_weights"]["critical"] = 30
    data["history"] = [
        {"version": "checklist-critical-30", "date": "2026-05-01", "change": "critical 30", "digest": digest_of(data)}
    ]
    path = tmp_path / "rubric.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    rubric = load_rubric(path)

    # When the worked example is scored with it, Then recall uses 30 per critical: (150+40+15+2) / (180+60+40+4)
    _, found = worked_material()
    issues = [(name, name.split("-")[0].lower()) for name in found]
    result = judge_checklist(issues, found, 0, 2, 1, {n: Fraction(5) for n in rubric.names}, rubric)
    assert result.recall == Fraction(207, 284)
    assert "critical 30" in formula(rubric)


def test_a_checklist_rubric_without_its_params_is_refused(tmp_path: Path) -> None:
    from pytest_ora.core.rubric import RubricError

    data = yaml.safe_load(RUBRIC_FILE.read_text())
    del data["params"]["detection"]["novel_cap"]
    data["history"][-1]["digest"] = digest_of(data)
    path = tmp_path / "rubric.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(RubricError, match=r"params.detection.*novel_cap"):
        load_rubric(path)


def copy_example(pytester: pytest.Pytester) -> None:
    for name in ("bundle", "cassettes", "conftest.py", "pytest.ini", "test_checklist.py"):
        source = EXAMPLE / name
        if source.is_dir():
            shutil.copytree(source, pytester.path / name)
        else:
            shutil.copy(source, pytester.path / name)


def test_the_checklist_example_replays_identically_and_reports_the_worked_example(
    replayed: Callable[..., Path],
) -> None:
    # Given the recorded checklist example, replayed serially and under two xdist workers (the session's replays)
    serial, out = replayed("checklist"), replayed("checklist", 2)

    # Then every file is byte-identical, and the worked example carries the judge skill's figures with the checklist's TP
    stdout = terminal_output(out)
    stdout.no_fnmatch_line("* failed*")
    for name in (
        "ledger.jsonl",
        "ledger.csv",
        "summary.json",
        "summary.md",
        "summary.csv",
        "methodology.md",
        "checklist.md",
    ):
        assert (serial / name).read_bytes() == (out / name).read_bytes(), name
    rows = {
        json.loads(line)["capture_id"]: json.loads(line) for line in (out / "ledger.jsonl").read_text().splitlines()
    }
    worked = rows["review:worked-example/thorough"]
    for judge in worked["checklist_judges"]:
        assert (judge["weighted_found"], judge["weighted_total"], judge["tp"], judge["fp"]) == ("132", "194", 15, 1)
        assert (judge["recall_exact"], judge["precision_exact"], judge["f2_exact"]) == ("66/97", "15/16", "275/382")
    # the answer that finds nothing, and the one with false positives
    assert rows["review:payment-handler/silent"]["recall"] == 0 == rows["review:payment-handler/silent"]["precision"]
    assert all(j["fp"] == 2 for j in rows["review:payment-handler/noisy"]["checklist_judges"])
    # per-issue disagreement: a ledger field and checklist.md
    assert rows["review:payment-handler/thorough"]["issue_disagreements"] == [
        {"id": "RATE-LIMIT", "severity": "bonus", "found_by": ["B"], "missed_by": ["A"]}
    ]
    assert "- MISSING-TESTS (low): found by A; missed by B" in (out / "checklist.md").read_text()
    assert "recall = weighted found / weighted total" in (out / "methodology.md").read_text()
    heading = next(line for line in (out / "summary.md").read_text().splitlines() if line.startswith("| Configuration"))
    assert [cell.strip() for cell in heading.split("|")[7:13]] == [
        "Recall",
        "Precision",
        "F2",
        "Detection",
        "Quality",
        "Persona",
    ]
    stdout.fnmatch_lines(["ora: checklist: 2 listed ids with judge disagreement over 7 captures (checklist.md)"])


def test_a_checklist_capture_without_a_checklist_stops_intake(pytester: pytest.Pytester) -> None:
    copy_example(pytester)
    path = pytester.path / "bundle" / "captures.jsonl"
    lines = path.read_text().splitlines()
    first = json.loads(lines[0])
    del first["checklist"]
    lines[0] = json.dumps(first)
    path.write_text("\n".join(lines) + "\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*captures.jsonl:1*review:payment-handler/thorough*field 'checklist'*is missing*"])
