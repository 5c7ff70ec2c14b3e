"""The reference judge's heuristic for any rubric: a better answer by it scores higher."""

from __future__ import annotations

from pytest_ora.testing.judgescores import Shape, features, judge_reply

REFERENCE = "Photosynthesis converts sunlight carbon dioxide water into glucose oxygen inside chloroplasts"


def packet(answer: str, reference: str | None = REFERENCE, spec: str | None = None) -> str:
    sections = []
    if spec is not None:
        sections.append(f"<<<BEGIN SPECIFICATION 0000000000000000>>>\n{spec}\n<<<END SPECIFICATION 0000000000000000>>>")
    if reference is not None:
        sections.append(f"<<<BEGIN REFERENCE 0000000000000000>>>\n{reference}\n<<<END REFERENCE 0000000000000000>>>")
    sections.append(
        "<<<BEGIN PROMPT 0000000000000000>>>\nHow do plants make their food?\n<<<END PROMPT 0000000000000000>>>"
    )
    sections.append(f"<<<BEGIN ANSWER 0000000000000000>>>\n{answer}\n<<<END ANSWER 0000000000000000>>>")
    return "# Ora judge packet\nentry_key: eval:q1\nconfiguration: c\ntechnique: q1\n\n" + "\n\n".join(sections)


SHAPE = Shape(("accuracy", "reasoning", "completeness"), 1.0, 10.0, 1.0, True)
GOOD = "Photosynthesis converts sunlight, carbon dioxide and water into glucose and oxygen inside chloroplasts."
POOR = "Plants eat soil."


def test_coverage_reads_the_reference_when_the_spec_lists_no_steps() -> None:
    found = features("", "How do plants make food?", GOOD, "q1", REFERENCE)
    assert found.points_source == "reference" and found.coverage == 1.0
    assert features("", "How do plants make food?", POOR, "q1", REFERENCE).coverage == 0.0


def test_without_reference_or_spec_the_prompts_key_terms_are_covered() -> None:
    found = features("", "Explain photosynthesis inside chloroplasts", GOOD, "q1", None, prompt_points=True)
    assert found.points_source == "prompt" and found.coverage == 0.75  # explain, photosynthesis, inside, chloroplasts
    assert features("", "Explain photosynthesis", GOOD, "q1").coverage == 0.0  # the old guess, unchanged


def test_steps_still_come_first() -> None:
    spec = "## Method\n1. **Converts sunlight**: ...\n2. **Stores starch**: ...\n"
    found = features(spec, "p", GOOD, "q1", REFERENCE)
    assert found.steps == ("Converts sunlight", "Stores starch") and found.coverage == 0.5


def test_a_better_answer_scores_higher_on_every_criterion_of_any_rubric() -> None:
    good = judge_reply(packet(GOOD), "gpt-5.4", shape=SHAPE)["scores"]
    poor = judge_reply(packet(POOR), "gpt-5.4", shape=SHAPE)["scores"]
    assert all(good[name] > poor[name] for name in SHAPE.criteria), (good, poor)
    assert all(1 <= value <= 10 for value in [*good.values(), *poor.values()])


def test_the_notes_say_what_was_read() -> None:
    notes = judge_reply(packet(GOOD), "gpt-5.4", shape=SHAPE)["notes"]
    assert notes["accuracy"].startswith("accuracy: read as fidelity. Uses 10 of 10 key terms of the reference.")


def test_an_answer_that_only_restates_the_prompt_scores_plainly_low() -> None:
    # Given a plain packet (no reference, no specification): coverage reads the prompt's key terms
    restated = judge_reply(packet("How do plants make their food?", reference=None), "gpt-5.4", shape=SHAPE)
    framed = judge_reply(
        packet("The question asks how plants make their food.", reference=None), "gpt-5.4", shape=SHAPE
    )
    real = judge_reply(
        packet(
            "Plants make food by photosynthesis: chloroplasts turn sunlight, water and carbon dioxide into glucose.",
            reference=None,
        ),
        "gpt-5.4",
        shape=SHAPE,
    )
    # Then restating it scores at the bottom of the scale on every criterion, below a real answer, and says why
    for reply in (restated, framed):
        assert all(reply["scores"][name] <= 2 < real["scores"][name] for name in SHAPE.criteria), (reply, real)
        assert "only restates the prompt" in reply["notes"]["accuracy"]
    assert not features("", "How do plants make their food?", "Photosynthesis.").restates
