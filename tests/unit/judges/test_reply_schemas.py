"""Reply JSON Schemas generated from the kinds' reply models are byte for byte the schemas judges were sent
when each kind wrote its schema by hand (fixtures/reply_schemas.json): a changed schema would change
every request body, and every recorded cassette would stop replaying."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path

import pytest

from pytest_ora.core.rubric import Rubric
from pytest_ora.judges.reply import reply_schema
from pytest_ora.method.kinds import mechanical_kind
from pytest_ora.method.rubric import builtin_ids, get_rubric

SENT = Path(__file__).parents[2] / "fixtures" / "reply_schemas.json"
"""The schemas the hand-written reply_schema functions returned for the cases below (one case a line)."""


def schema_cases() -> dict[str, Rubric]:
    """Every built-in judged rubric, seeing and blind, and the scores kind on every scale shape it has."""
    cases: dict[str, Rubric] = {}
    for version in builtin_ids():
        rubric = get_rubric(version)
        if mechanical_kind(rubric.kind) is not None:
            continue
        cases[version] = rubric
        cases[f"{version} blind={not rubric.blind}"] = dataclasses.replace(rubric, blind=not rubric.blind)
    ora = get_rubric("ora-1.0")
    for label, low, high, step in (
        ("whole steps", 1, 5, Fraction(1)),
        ("halves", 0, 10, Fraction(1, 2)),
        ("whole steps from a half", Fraction(1, 2), 5, Fraction(1)),
        ("no step", 0, 10, None),
    ):
        cases[f"ora-1.0 {label}"] = dataclasses.replace(
            ora, scale_min=Fraction(low), scale_max=Fraction(high), scale_step=step
        )
    trio = get_rubric("trio-likert-1.1")
    cases["trio-likert-1.1 seeing, verdicts"] = dataclasses.replace(trio, blind=False)
    return cases


def sent_bytes(schema: object) -> str:
    """The schema as a request body carries it: key order and number types kept."""
    return json.dumps(schema, ensure_ascii=False)


@pytest.mark.parametrize("case", sorted(schema_cases()))
def test_when_a_kind_generates_its_reply_schema_then_it_is_the_schema_sent_before(case: str) -> None:
    sent = json.loads(SENT.read_text(encoding="utf-8"))

    # Then: the same keys in the same order, the same numbers (1.0 stays 1.0, 5 stays 5).
    assert sent_bytes(reply_schema(schema_cases()[case])) == sent_bytes(sent[case])


def test_every_case_has_its_sent_schema() -> None:
    assert sorted(json.loads(SENT.read_text(encoding="utf-8"))) == sorted(schema_cases())
