"""Report wording that must not contradict itself: each sentence says one thing, once, about this run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_ora.core.record import CaptureRecord
from pytest_ora.method.rubric import get_rubric
from pytest_ora.reports.aggregation import _rate_index, fit_table
from pytest_ora.reports.notes import scored_share
from pytest_ora.reports.statsdata import AgreementRow, AgreementSection, ComparisonRow
from pytest_ora.reports.statsfiles import _agreement_lines


def _row(criterion: str, alpha: float | None, note: str | None) -> dict[str, Any]:
    return {
        "criterion": criterion,
        "n": 600,
        "krippendorff_alpha": alpha,
        "exact": 0.5,
        "within_one": 0.9,
        "quadratic_kappa": None,
        "note": note,
    }


def test_an_alpha_computed_in_closed_form_is_not_listed_as_not_computed() -> None:
    closed = "alpha in closed form: 600 distinct values over 600 captures exceed what krippendorff.alpha holds"
    lines = _agreement_lines(
        AgreementSection(
            judges=["A", "B"],
            captures=600,
            criteria=[
                AgreementRow.model_validate(
                    _row("accuracy", None, "alpha undefined: fewer than two captures or no variation")
                )
            ],
            overall=AgreementRow.model_validate(_row("overall", 0.928, closed)),
        )
    )
    text = "\n".join(lines)
    assert f"How computed:\n- overall: {closed}" in text
    assert "Not computed:\n- accuracy: alpha undefined" in text
    assert "- overall: alpha in closed form" not in text.partition("Not computed:")[2]


def test_a_configuration_with_nothing_judged_has_no_failure_rate_percent_sign() -> None:
    rubric = get_rubric("ora-1.0")
    rate = _rate_index(rubric)
    empty = ["base", "0", "0", "0", "0", "", *[""] * (rate - 6), "", "", ""]
    judged = ["solo", "3", "0", "0", "0", "7.1", *[""] * (rate - 6), "33", "", ""]
    assert fit_table([empty, judged], width=10, rubric=rubric) == [
        "base: overall -, judged 0, failure rate -",
        "solo: overall 7.1, judged 3, failure rate 33%",
    ]


def _record(configuration: str, status: str) -> CaptureRecord:
    return CaptureRecord(
        capture_id=f"e:x/{configuration}",
        entry_key="e:x",
        family="e",
        technique="x",
        configuration=configuration,
        status=status,
        reason=None,
        judges=[],
        cost_usd=None,
        wall_clock_minutes=None,
        failure=None,
        live_calls=0,
    )


def test_an_overall_from_part_of_a_configurations_captures_is_said_plainly() -> None:
    records = [
        *(_record("gpt4", "scored") for _ in range(7)),
        *(_record("gpt4", "error") for _ in range(143)),
        _record("qwen", "scored"),
        _record("qwen", "excluded"),
    ]
    assert scored_share(records) == [
        "**Overall from part of the captures: gpt4 from 7 of 150.** The others failed (the Errors column; ledger "
        "status error, with the reason); each mean covers only the captures scored."
    ]
    assert scored_share(records[:7]) == []


def test_spend_from_judges_on_this_machine_is_a_price_not_money_paid(tmp_path: Path) -> None:
    from pytest_ora.bundle.intake import intake
    from pytest_ora.harness.scaffold import init_suite
    from pytest_ora.reports.judgesites import LOCAL_SPEND_HEADING, SPEND_HEADING, spend_heading

    init_suite(tmp_path / "real", today="2026-12-01")
    init_suite(
        tmp_path / "local",
        today="2026-12-01",
        judges=(
            "judge-a=anthropic:claude-opus-4-7@http://127.0.0.1:8765/v1/messages",
            "judge-b=openai:gpt-5.4@http://127.0.0.1:8765/v1/chat/completions",
        ),
    )
    assert spend_heading(intake(tmp_path / "real" / "bundle")) == SPEND_HEADING
    assert spend_heading(intake(tmp_path / "local" / "bundle")) == LOCAL_SPEND_HEADING
    assert "nothing paid" in LOCAL_SPEND_HEADING and "would cost at the named models' prices" in LOCAL_SPEND_HEADING


def test_cost_and_minutes_a_bundle_did_not_give_say_not_given() -> None:
    from pytest_ora.reports.aggregation import public_cells

    rubric = get_rubric("ora-1.0")
    rate = _rate_index(rubric)
    judged = ["solo", "3", "0", "0", "0", "7.1", *["7.0"] * (rate - 6), "33", "", "", "0"]
    priced = ["base", "3", "0", "0", "0", "6.0", *["6.0"] * (rate - 6), "0", "12", "1.5", "0"]
    nothing = ["none", "0", "0", "0", "0", "", *[""] * (rate - 6), "", "", "", "0"]
    _, rows = public_cells([judged, priced, nothing], rubric)
    assert rows[0][rate + 1 : rate + 3] == ["not given", "not given"]
    assert rows[1][rate + 1 : rate + 3] == ["$12", "1.5"]
    assert rows[2][rate + 1 : rate + 3] == ["", ""]
    assert "not given" in "\n".join(fit_table([judged], width=100, rubric=rubric))


def _pair(difference: float, interval: list[float], holm: float | None, bound: bool | None = None) -> ComparisonRow:
    return ComparisonRow(
        first="gpt4_1106_preview",
        second="Qwen1.5-7B-Chat",
        n=150,
        mean_difference=difference,
        interval=None,
        p_value=holm,
        interval_method="t",
        t_interval=interval,
        p_holm=holm,
        p_holm_bound=bound,
        p_min=0.0001,
        mde_80_adjusted=0.4,
        units=40,
    )


def test_reading_never_says_not_significant_beside_an_interval_that_excludes_0() -> None:
    from pytest_ora.reports.statsfiles import reading

    text = reading(_pair(0.53, [0.31, 0.75], 0.09), 0.05)
    assert not text.startswith("not significant")
    assert text == (
        "interval excludes 0 but the sign-flip test after Holm does not confirm it (p 0.0900): "
        "a likely difference, not established"
    )
    assert reading(_pair(0.1, [-0.2, 0.4], 0.6), 0.05).startswith("not significant")
    assert reading(_pair(0.53, [0.31, 0.75], 0.001), 0.05) == "significant (Holm)"


def test_each_comparison_gets_one_ranking_sentence() -> None:
    from pytest_ora.reports.statsfiles import ranking

    assert ranking(_pair(0.53, [0.31, 0.75], 0.001), 0.05) == (
        "gpt4_1106_preview leads Qwen1.5-7B-Chat by 0.53 (150 shared entries; 95% interval [0.31, 0.75] for "
        "gpt4_1106_preview - Qwen1.5-7B-Chat); a lead the sign-flip test confirms after Holm (p 0.0010)."
    )
    assert ranking(_pair(-0.2, [-0.5, 0.1], 0.4), 0.05).startswith("Qwen1.5-7B-Chat leads gpt4_1106_preview by 0.20 (")
    assert ranking(_pair(-0.2, [-0.5, 0.1], 0.4), 0.05).endswith("the interval includes 0: neither leads surely.")
    assert ranking(_pair(0.53, [0.31, 0.75], 0.09), 0.05).endswith("likely, not established.")
    bounded = _pair(0.53, [0.31, 0.75], 0.002, bound=True)  # Holm from a p on the resampling floor
    assert ranking(bounded, 0.05).endswith("a lead the sign-flip test confirms after Holm (p <= 0.0020).")
