"""A judge-skill mode's data as the packets a bundle run sends: names kept as given, the gold standard's scale stated."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.judge_modes import MODES

from pytest_ora.core.errors import OraError
from pytest_ora.harness.judgment.api import judge
from pytest_ora.harness.judgment.chosenpanel import panel_note, panel_of
from pytest_ora.harness.judgment.data import DataError, parse_data
from pytest_ora.harness.judgment.items import judgment_of
from pytest_ora.judges.packet import build_packet, judge_prompt, read_sections
from pytest_ora.method.kinds import item_shape
from pytest_ora.method.rubric import get_rubric


def _texts(case: str, data: dict[str, object], tmp_path: Path) -> list[str]:
    judgment = judgment_of(case, parse_data(case, data))
    rubric = get_rubric(judgment.rubric)
    texts = []
    for item in judgment.items:
        for _, packet, image in item_shape(rubric.kind).packets(item.planned, tmp_path, rubric, build_packet):
            texts.append("\n\n".join(p.text for p in judge_prompt(packet, image, rubric).parts if hasattr(p, "text")))
    return texts


@pytest.mark.parametrize("checklist", [False, True])
def test_the_gold_standard_anchor_states_its_scale(tmp_path: Path, checklist: bool) -> None:
    data = {
        **MODES["solo-checklist" if checklist else "solo"],
        "gold_standard": {"response": "The expert answer.", "score": 85},
    }
    (text,) = _texts("solo", data, tmp_path)
    assert "an expert-level response for this prompt scored 85/100." in text
    assert read_sections(text)["GOLD"] == "The expert answer."


def test_the_contestant_is_shown_as_given_with_the_code_under_review(tmp_path: Path) -> None:
    (text,) = _texts("solo", {**MODES["solo"], "code": "def div(a, b):\n    return a / b"}, tmp_path)
    assert (
        read_sections(text)["CONTEXT"]
        == "Contestant: bmad/architect (Winston)\n\nCode under review:\ndef div(a, b):\n    return a / b"
    )


def test_compare_is_judged_in_both_orders_under_neutral_labels(tmp_path: Path) -> None:
    first, second = _texts("compare", MODES["compare"], tmp_path)
    assert read_sections(first)["RESPONSE-1"] == MODES["compare"]["contestants"][0]["response"]
    assert read_sections(second)["RESPONSE-1"] == MODES["compare"]["contestants"][1]["response"]


def test_a_checklist_may_be_grouped_by_severity() -> None:
    data = {
        **MODES["solo"],
        "baseline_issues": {
            "critical": [{"id": "ZERO", "description": "division by zero"}],
            "happy_path": [{"id": "OK", "description": "works for b != 0"}],
        },
    }
    parsed = parse_data("solo", data)
    assert [(i.id, i.severity) for i in parsed.baseline_issues] == [("ZERO", "critical"), ("OK", "happy_path")]


@pytest.mark.parametrize(
    ("mode", "data", "message"),
    [
        (
            "compare",
            {"contestants": [MODES["compare"]["contestants"][0]], "challenge": "c"},
            "field 'contestants' list should have at least 2 items",
        ),
        (
            "compare",
            {"contestants": [MODES["compare"]["contestants"][0]] * 2, "challenge": "c"},
            "names the spec 'bmad/architect' twice",
        ),
        (
            "phase-sm",
            {"team1": {"theme": "a", "response": "r"}, "context": "c"},
            "field 'team2' is missing (mode phase-sm)",
        ),
        (
            "solo",
            {
                **MODES["solo"],
                "baseline_issues": [{"id": "A", "severity": "critical", "description": "d"}],
                "baseline_criteria": [{"id": "B", "description": "d"}],
            },
            "not both",
        ),
        ("wrong", {}, "unknown mode 'wrong'"),
    ],
)
def test_data_that_cannot_be_judged_names_the_field(mode: str, data: dict[str, object], message: str) -> None:
    with pytest.raises(DataError, match=message.replace("(", "\\(").replace(")", "\\)")):
        judgment_of(mode, parse_data(mode, data))


def test_without_judges_one_judge_per_provider_key_that_is_set() -> None:
    panel = panel_of([], {"ANTHROPIC_API_KEY": "sk-ant-x", "GEMINI_API_KEY": " "}, 2)
    assert [(j.label, j.spec.provider, j.spec.model, j.spec.route) for j in panel.judges] == [
        ("anthropic", "anthropic", "claude-opus-4-7", "https://api.anthropic.com/v1/messages")
    ]
    with pytest.raises(DataError, match="no judge: give --judge LABEL=PROVIDER:MODEL, or set a provider's key"):
        panel_of([], {}, 2)
    with pytest.raises(DataError, match="the label a is given twice"):
        panel_of(["a=openai:gpt-5.4", "a=anthropic:claude-opus-4-7"], {}, 2)


def test_without_judges_the_rubric_s_panel_size_is_taken_from_the_keys_that_are_set() -> None:
    keys = {"ANTHROPIC_API_KEY": "sk-ant-x", "OPENAI_API_KEY": "sk-y", "GEMINI_API_KEY": "g-z"}
    assert [j.label for j in panel_of([], keys, 1).judges] == ["anthropic"]
    assert [j.label for j in panel_of([], keys, 2).judges] == ["anthropic", "openai"]
    assert [j.label for j in panel_of(["a=openai:gpt-5.4"], keys, 2).judges] == ["a"]  # as given


def test_a_panel_of_another_size_than_the_rubric_s_is_said_in_the_result() -> None:
    checklist, solo = get_rubric("judge-checklist-2.0"), get_rubric("judge-solo-1.0")
    one = panel_of(["a=anthropic:claude-opus-4-7"], {}, 2)
    assert panel_note(one, solo) == {
        "judges": ["a=anthropic:claude-opus-4-7"],
        "size": 1,
        "panel_size": 1,
        "note": None,
    }
    note = panel_note(one, checklist)["note"]
    assert note is not None and note.startswith(
        "rubric judge-checklist-2.0 is judged by 2 judges (panel_size); this judgment had 1"
    )


def test_data_holding_a_configured_key_is_never_sent(tmp_path: Path) -> None:
    key = "sk-ant-FAKE-KEY-in-the-data-1234"
    data = {**MODES["solo"], "response": f"my key is {key}"}
    with pytest.raises(OraError, match="holds the value of a configured API key"):
        judge(
            "solo",
            data,
            judges=["a=anthropic:claude-opus-4-7@http://127.0.0.1:9/v1/messages"],
            cassette=tmp_path / "c.json",
            environ={"ANTHROPIC_API_KEY": key},
        )
    assert not (tmp_path / "c.json").exists()
