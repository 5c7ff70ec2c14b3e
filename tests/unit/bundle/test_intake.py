"""Intake protocol: what gets judged, and every bad input named by file, line and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.bundle_factory import capture, write_bundle

from pytest_ora.bundle.intake import intake, parse_substitution
from pytest_ora.core.errors import IntakeError


def problems_of(root: Path) -> str:
    with pytest.raises(IntakeError) as caught:
        intake(root)
    return str(caught.value)


def test_a_valid_bundle_plans_every_capture(tmp_path: Path) -> None:
    plan = intake(write_bundle(tmp_path))

    assert plan.scored_entry_count == 4
    assert {f: len(k) for f, k in plan.entries.items()} == {"mode": 2, "visual": 1, "lens": 1}
    statuses = {p.capture.capture_id: p.status for p in plan.captures}
    assert statuses["mode:argument-audit/optimum"] == "judge"
    assert [j.spec.model for j in plan.panel.judges] == ["claude-opus-4-7", "gpt-5.4"]
    assert [j.label for j in plan.panel.judges] == ["Judge A", "Judge B"]


def test_collision_losers_are_excluded_and_the_denominator_kept(tmp_path: Path) -> None:
    plan = intake(write_bundle(tmp_path))

    assert plan.collision_losers == ("lens:fishbone-diagram", "visual:causal-dag")
    loser = next(p for p in plan.captures if p.capture.capture_id == "visual:causal-dag/optimum")
    assert loser.status == "excluded"
    assert loser.reason == "collision: causal-dag is scored as mode"
    assert "mode:causal-dag" in plan.entries["mode"]
    assert "visual:fishbone-diagram" in plan.entries["visual"]
    assert plan.scored_set_captures == 8


def test_invalid_captures_are_excluded_not_failed(tmp_path: Path) -> None:
    def fail_one(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["acceptance"] = {"passed": False, "reason": "wrong-model", "notes": "ran on a fallback"}
        return items

    plan = intake(write_bundle(tmp_path, edit=fail_one))

    first = next(p for p in plan.captures if p.capture.capture_id == "mode:argument-audit/optimum")
    assert first.status == "excluded"
    assert first.reason == "invalid capture (wrong-model): returned to capture audit"


def test_missing_spec_makes_the_entry_unscorable(tmp_path: Path) -> None:
    plan = intake(write_bundle(tmp_path, skip_specs=("lens:historian",)))

    unscorable = [p for p in plan.captures if p.status == "unscorable"]
    assert {p.capture.capture_id for p in unscorable} == {"lens:historian/optimum", "lens:historian/big-1"}
    assert unscorable[0].reason == "no technique specification at specs/lens/historian.md"


@pytest.mark.parametrize("text", ["", "  \n\t\n"])
def test_an_empty_or_blank_spec_is_a_missing_spec_so_the_entry_is_unscorable(tmp_path: Path, text: str) -> None:
    bundle = write_bundle(tmp_path)
    (bundle / "specs" / "lens" / "historian.md").write_text(text, encoding="utf-8")

    plan = intake(bundle)

    unscorable = [p for p in plan.captures if p.status == "unscorable"]
    assert {p.capture.capture_id for p in unscorable} == {"lens:historian/optimum", "lens:historian/big-1"}
    assert unscorable[0].reason == (
        "the technique specification at specs/lens/historian.md is empty (a blank specification is a missing one)"
    )


def test_missing_artifact_makes_the_capture_unscorable(tmp_path: Path) -> None:
    def point_at_nothing(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for item in items:
            if item["entry_key"] == "visual:fishbone-diagram":
                item["visual_artifact"] = "artifacts/missing.svg"
        return items

    plan = intake(write_bundle(tmp_path, edit=point_at_nothing))

    visual = next(p for p in plan.captures if p.capture.capture_id == "visual:fishbone-diagram/optimum")
    assert visual.status == "unscorable"
    assert visual.reason == "visual artifact artifacts/missing.svg is missing"


def test_captures_are_in_stable_table_order(tmp_path: Path) -> None:
    def shuffle(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return list(reversed(items))

    ids = [p.capture.capture_id for p in intake(write_bundle(tmp_path, edit=shuffle)).captures]

    assert ids[:4] == [
        "mode:argument-audit/optimum",
        "mode:argument-audit/big-1",
        "mode:causal-dag/optimum",
        "mode:causal-dag/big-1",
    ]


def test_a_malformed_jsonl_line_is_named_by_line(tmp_path: Path) -> None:
    root = write_bundle(tmp_path, edit=lambda items: [*items[:2], "{not json", *items[2:]])

    assert (
        "captures.jsonl:3: is not valid JSON: Expecting property name enclosed in double quotes at column 2"
        in problems_of(root)
    )


def test_a_missing_field_is_named_with_line_and_capture(tmp_path: Path) -> None:
    def drop_answer(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        del items[1]["answer"]
        return items

    message = problems_of(write_bundle(tmp_path, edit=drop_answer))

    assert "captures.jsonl:2: mode:argument-audit/big-1: field 'answer': is required but missing" in message


def test_a_wrong_type_shows_the_bad_value(tmp_path: Path) -> None:
    def bad_cost(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["cost_usd"] = -2.5
        return items

    message = problems_of(write_bundle(tmp_path, edit=bad_cost))

    assert (
        "captures.jsonl:1: mode:argument-audit/optimum: field 'cost_usd': input should be greater than or equal to 0 (got -2.5)"
        in message
    )


def test_an_unknown_family_or_bad_slug_is_refused(tmp_path: Path) -> None:
    def bad_keys(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["entry_key"] = "method:argument-audit"
        items[1]["entry_key"] = "mode:Argument_Audit"
        return items

    message = problems_of(write_bundle(tmp_path, edit=bad_keys))

    assert "captures.jsonl:1: method:argument-audit/optimum: field 'entry_key': must be family:technique" in message
    assert "(got 'mode:Argument_Audit')" in message


def test_an_unknown_configuration_is_named(tmp_path: Path) -> None:
    def stray(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["configuration"] = "big-9"
        return items

    message = problems_of(write_bundle(tmp_path, edit=stray))

    assert (
        "captures.jsonl:1: mode:argument-audit/big-9: field 'configuration': names a configuration that "
        "bundle.yaml does not list (got 'big-9'); use one of optimum, big-1 or add it to bundle.yaml configurations"
    ) in message


def test_a_duplicate_capture_id_names_both_lines(tmp_path: Path) -> None:
    message = problems_of(write_bundle(tmp_path, edit=lambda items: [*items, items[0]]))

    assert (
        "captures.jsonl:13: mode:argument-audit/optimum: field 'entry_key': repeats the capture id first seen on line 1"
        in message
    )


def test_a_count_mismatch_lists_the_missing_entries(tmp_path: Path) -> None:
    def drop_historian(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [item for item in items if item["entry_key"] != "lens:historian"]

    message = problems_of(write_bundle(tmp_path, edit=drop_historian))

    assert (
        "bundle.yaml: field 'scored_set.lens': scored set has 0 lens entries after collision resolution, "
        "expected 1 (missing: historian)"
    ) in message


def test_a_named_scored_set_lists_missing_and_extra(tmp_path: Path) -> None:
    root = write_bundle(tmp_path, manifest={"scored_set": {"mode": 2, "visual": 1, "lens": ["historian", "economist"]}})

    message = problems_of(root)

    assert "expected 2 (missing: economist)" in message


def test_all_problems_are_reported_together(tmp_path: Path) -> None:
    def two_bad(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["configuration"] = "nowhere"
        del items[3]["prompt"]
        return items

    with pytest.raises(IntakeError) as caught:
        intake(write_bundle(tmp_path, edit=two_bad))

    assert len(caught.value.problems) >= 2
    assert str(caught.value).startswith("capture bundle failed intake (")


def test_missing_judge_roles_stop_intake(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    (root / "optimum.yaml").write_text(
        "snapshot: s\nfrozen_at: '2026-06-18'\nroles:\n  big-1: {model: m, provider: anthropic, route: 'https://x/v1/messages'}\n",
        encoding="utf-8",
    )

    message = problems_of(root)

    assert "optimum.yaml: field 'roles.big-2': defines no role 'big-2', so Judge B cannot be selected" in message


def test_unreadable_yaml_names_the_line(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    (root / "bundle.yaml").write_text("bundle: x\nconfigurations: [a, b\ncreated: 1\n", encoding="utf-8")

    assert "bundle.yaml:3: is not valid YAML" in problems_of(root)


def test_a_yaml_field_error_names_its_line(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    (root / "bundle.yaml").write_text(
        'bundle: sample\ncreated: 2026-06-20\nconfigurations: [optimum, "Big 1"]\n', encoding="utf-8"
    )

    assert (
        "bundle.yaml:3: field 'configurations.1': must be a name of letters, digits, '_', '.', '+' and '-', "
        "starting with a letter or digit"
    ) in problems_of(root)


def test_configuration_names_are_kept_as_given_but_not_two_that_differ_only_in_case(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    (root / "bundle.yaml").write_text(
        "bundle: sample\ncreated: 2026-06-20\nconfigurations: [optimum, Big_1, big_1]\n", encoding="utf-8"
    )

    assert "field 'configurations': names 2 and 3 differ only in case" in problems_of(root)


def test_a_yaml_alias_bomb_is_refused(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x]"]
    for level in "bcdefghi":
        previous = chr(ord(level) - 1)
        bomb.append(
            f"{level}: &{level} [*{previous}, *{previous}, *{previous}, *{previous}, *{previous}, *{previous}, *{previous}, *{previous}, *{previous}]"
        )
    (root / "bundle.yaml").write_text("\n".join(bomb) + "\n", encoding="utf-8")

    assert "bundle.yaml: uses 72 aliases (more than 64): refusing a possible alias bomb" in problems_of(root)


def test_non_utf8_bytes_are_named_by_line(tmp_path: Path) -> None:
    root = write_bundle(tmp_path)
    data = (root / "captures.jsonl").read_bytes().split(b"\n")
    data[4] = data[4].replace(b"warehouse", b"wareh\xffouse", 1)
    (root / "captures.jsonl").write_bytes(b"\n".join(data))

    assert "captures.jsonl:5: is not UTF-8 at byte" in problems_of(root)


def test_paths_outside_the_bundle_are_refused(tmp_path: Path) -> None:
    def escape(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["spec"] = "../../etc/passwd"
        return items

    assert "field 'spec': points outside the bundle (got '../../etc/passwd')" in problems_of(
        write_bundle(tmp_path, edit=escape)
    )


def test_a_one_megabyte_answer_is_accepted(tmp_path: Path) -> None:
    def huge(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items[0]["answer"] = "x" * 1_000_000
        return items

    plan = intake(write_bundle(tmp_path, edit=huge))

    assert len(plan.captures[0].capture.answer) == 1_000_000


def test_substitution_names_a_role_or_a_route() -> None:
    from pytest_ora.core.models import RoleSpec

    roles = {
        "alt": RoleSpec(model="gemini-2.5-pro", provider="google", route="https://g/v1beta/models/x:generateContent")
    }

    assert parse_substitution("big-2=alt", roles).spec.model == "gemini-2.5-pro"
    direct = parse_substitution("big-1=openai:gpt-4.1@https://api.openai.com/v1/chat/completions", roles)
    assert (direct.slot, direct.spec.provider, direct.spec.model) == ("big-1", "openai", "gpt-4.1")
    with pytest.raises(ValueError, match=r"optimum.yaml does not define"):
        parse_substitution("big-2=nobody", roles)


def test_capture_lines_round_trip_as_json(tmp_path: Path) -> None:
    line = json.dumps(capture("mode:argument-audit", "optimum"))

    assert json.loads(line)["entry_key"] == "mode:argument-audit"


def test_an_oversized_or_undecodable_artifact_is_unscorable(tmp_path: Path) -> None:
    def artifacts(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for item in items:
            if item["entry_key"] == "visual:fishbone-diagram":
                item["visual_artifact"] = (
                    f"artifacts/{item['configuration']}.{'png' if item['configuration'] == 'optimum' else 'svg'}"
                )
        return items

    root = write_bundle(tmp_path, edit=artifacts)
    (root / "artifacts").mkdir()
    (root / "artifacts/optimum.png").write_bytes(b"\x89PNG" + b"\0" * (5 * 1024 * 1024))
    (root / "artifacts/big-1.svg").write_bytes(b"<svg>\xff</svg>")

    plan = intake(root)

    reasons = {
        p.capture.configuration: p.reason for p in plan.captures if p.capture.entry_key == "visual:fishbone-diagram"
    }
    assert (
        reasons["optimum"]
        == "visual artifact artifacts/optimum.png is 5242884 bytes, over the 5 MB image limit judges accept"
    )
    assert reasons["big-1"] == "visual artifact artifacts/big-1.svg is neither an image nor UTF-8 text (byte 5)"


def test_a_bundle_without_scored_set_names_the_default_and_the_line_to_add(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle")
    manifest = root / "bundle.yaml"
    manifest.write_text(
        "\n".join(
            line for line in manifest.read_text().splitlines() if "scored_set" not in line and not line.startswith("  ")
        )
        + "\n"
    )

    text = problems_of(root)

    assert "scored_set." not in text  # a field the user never wrote is not named
    assert (
        "declares no scored_set, so the full campaign's default applies (60 mode, 21 visual, 115 lens entries" in text
    )
    assert "this bundle has 2 mode, 1 visual, 1 lens" in text
    assert "add to bundle.yaml: scored_set: {mode: 2, visual: 1, lens: 1}" in text


def test_an_empty_captures_file_says_it_is_empty(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle")
    (root / "captures.jsonl").write_text("\n\n")

    assert "captures.jsonl: is empty: it holds no capture" in problems_of(root)


def test_a_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    root = write_bundle(tmp_path / "bundle")
    for name in ("captures.jsonl", "bundle.yaml", "optimum.yaml"):
        path = root / name
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())

    plan = intake(root)

    assert len(plan.captures) == 12


def test_a_scored_set_may_name_required_entries_and_a_missing_one_stops_intake(tmp_path: Path) -> None:
    manifest = {
        "scored_set": {
            "mode": 2,
            "visual": 1,
            "lens": 1,
            "required": ["mode:argument-audit", "mode:passion-exploration"],
        }
    }

    with pytest.raises(IntakeError) as caught:
        intake(write_bundle(tmp_path, manifest=manifest))

    problem = next(p for p in caught.value.problems if p.field == "scored_set.required")
    assert problem.message == "scored set lacks the required entry mode:passion-exploration"


def test_required_entries_present_pass_intake(tmp_path: Path) -> None:
    manifest = {"scored_set": {"mode": 2, "visual": 1, "lens": 1, "required": ["mode:argument-audit"]}}

    plan = intake(write_bundle(tmp_path, manifest=manifest))

    assert plan.scored_set_captures == 8


def test_the_full_ora_counts_without_its_two_modes_stop_intake(tmp_path: Path) -> None:
    """60 / 21 / 115 that match while passion-exploration and structured-output are absent: not the method's set."""
    manifest = {"scored_set": {"mode": 2, "visual": 1, "lens": 1}}
    root = write_bundle(tmp_path, manifest=manifest)
    text = (
        (root / "bundle.yaml")
        .read_text(encoding="utf-8")
        .replace("mode: 2", "mode: 60")
        .replace("visual: 1", "visual: 21")
        .replace("lens: 1", "lens: 115")
    )
    (root / "bundle.yaml").write_text(text, encoding="utf-8")

    with pytest.raises(IntakeError) as caught:
        intake(root)

    messages = [p.message for p in caught.value.problems]
    assert (
        "scored set lacks the required entries mode:passion-exploration, mode:structured-output "
        "(the full campaign's scored set names them)"
    ) in messages


def test_required_must_list_entry_keys(tmp_path: Path) -> None:
    with pytest.raises(IntakeError) as caught:
        intake(
            write_bundle(
                tmp_path, manifest={"scored_set": {"mode": 2, "visual": 1, "lens": 1, "required": ["argument-audit"]}}
            )
        )

    assert "scored_set.required must list entry keys" in str(caught.value)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (None, "no host mode specification at specs/mode/argument-audit.md (the lens's target 'mode:argument-audit')"),
        (
            " \n",
            "the host mode specification at specs/mode/argument-audit.md is empty (a blank specification is a missing one)",
        ),
    ],
)
def test_a_lens_without_its_host_mode_s_specification_is_unscorable(
    tmp_path: Path, text: str | None, reason: str
) -> None:
    # Given a lens whose target names a mode without a (non-blank) specification
    def elsewhere(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        for item in items:
            if item["entry_key"] == "lens:historian":
                item["target"] = "mode:argument-audit"  # the family prefix is accepted too
        return items

    bundle = write_bundle(tmp_path, edit=elsewhere)
    host = bundle / "specs" / "mode" / "argument-audit.md"
    if text is None:
        host.unlink()
    else:
        host.write_text(text, encoding="utf-8")
    # When intake plans the captures
    plan = intake(bundle)
    # Then the lens is unscorable (Specification Blindness), never judged on its own specification alone
    lens = [p for p in plan.captures if p.capture.entry_key == "lens:historian"]
    assert {p.status for p in lens} == {"unscorable"} and lens[0].reason == reason
