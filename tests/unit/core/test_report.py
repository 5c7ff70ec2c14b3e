"""Aggregation and the public table: which captures each mean is over, and how it is rounded."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pytest_ora.core.numbers import round_half_away
from pytest_ora.core.record import CaptureRecord, JudgeRecord
from pytest_ora.method.rubric import ORA_V1
from pytest_ora.reports.aggregation import PUBLIC_COLUMNS, ledger_csv, ledger_row, public_row, summarize, summary_csv


def judge(label: str, *values: str) -> JudgeRecord:
    return JudgeRecord(
        label=label,
        slot="big-1" if label == "Judge A" else "big-2",
        role="big-1",
        provider="anthropic",
        model="m",
        resolved_model=None,
        judge_model="m",
        scores=dict(zip(ORA_V1.names, values)),
        notes={n: "ok" for n in ORA_V1.names},
        impression="fine",
        asks=1,
        attempts=1,
        usage={"input_tokens": 10, "output_tokens": 5, "cached_input_tokens": 0, "reasoning_tokens": 0},
    )


def record(
    configuration: str,
    status: str,
    *,
    scores: tuple[str, ...] = (),
    cost: str | None = "1",
    minutes: str | None = "2",
    key: str = "mode:a",
) -> CaptureRecord:
    judges = [judge("Judge A", *scores), judge("Judge B", *scores)] if scores else []
    return CaptureRecord(
        capture_id=f"{key}/{configuration}",
        entry_key=key,
        family="mode",
        technique=key[5:],
        configuration=configuration,
        status=status,
        reason=None if status == "scored" else status,
        judges=judges,
        cost_usd=cost,
        wall_clock_minutes=minutes,
        failure=None,
        live_calls=0,
    )


@pytest.mark.parametrize(
    ("value", "places", "expected"),
    [
        (Fraction("6.25"), 1, "6.3"),
        (Fraction("6.35"), 1, "6.4"),
        (Fraction("12.5"), 0, "13"),
        (Fraction("13.5"), 0, "14"),
        (Fraction("-6.25"), 1, "-6.3"),
        (Fraction(2, 3), 1, "0.7"),
        (Fraction("6.2499"), 1, "6.2"),
    ],
)
def test_rounding_is_half_away_from_zero(value: Fraction, places: int, expected: str) -> None:
    assert str(round_half_away(value, places)) == expected


def test_public_table_rounds_ratings_percentages_dollars_and_minutes() -> None:
    overalls = ["3", "6.5", "6.5", "6.5", "6.5", "7", "7", "7"]  # mean 6.25; one failure in eight
    minutes = ["1.2"] + ["1.25"] * 7  # mean 1.24375
    records = [
        record("optimum", "scored", scores=(value,) * 5, cost="0.125", minutes=minute, key=f"mode:e{i}")
        for i, (value, minute) in enumerate(zip(overalls, minutes))
    ]

    ((row, values),) = summarize(records, ["optimum"], ORA_V1)
    cells = dict(zip(PUBLIC_COLUMNS, public_row(row, values, ORA_V1)))

    assert values["overall"] == Fraction("6.25")
    assert cells["overall"] == "6.3"
    assert values["failure_rate"] == Fraction(1, 8)
    assert cells["failure_rate_pct"] == "13"
    assert values["cost_per_100"] == Fraction("12.5")
    assert cells["cost_per_100_usd"] == "13"
    assert cells["minutes_per_run"] == "1.2"  # 1.24375 rounds down


def test_means_are_over_scored_captures_and_cost_over_accepted_ones() -> None:
    records = [
        record("optimum", "scored", scores=("8", "8", "8", "8", "8"), cost="1", minutes="10"),
        record("optimum", "unscorable", cost="3", minutes="20", key="mode:b"),
        record("optimum", "error", cost="5", minutes="30", key="mode:c"),
        record("optimum", "excluded", cost="1000", minutes="1000", key="mode:d"),
    ]

    ((row, values),) = summarize(records, ["optimum"], ORA_V1)

    assert (row.judged, row.unscorable, row.errors, row.excluded) == (1, 1, 1, 1)
    assert row.mean_overall == 8.0
    assert row.failure_rate == 0.0
    assert values["cost_per_100"] == Fraction(300)  # mean of 1, 3, 5 dollars per query, times 100
    assert row.minutes_per_run == 20.0


def test_a_configuration_with_nothing_scored_has_empty_cells() -> None:
    ((row, values),) = summarize([record("local", "excluded")], ["local"], ORA_V1)

    cells = dict(zip(PUBLIC_COLUMNS, public_row(row, values, ORA_V1)))

    assert row.mean_overall is None and row.failure_rate is None
    assert cells["overall"] == "" and cells["failure_rate_pct"] == ""


def test_summary_csv_has_the_contract_columns_in_order() -> None:
    header = summary_csv([], ORA_V1).splitlines()[0].split(",")

    assert header[:14] == [
        "configuration",
        "judged",
        "unscorable",
        "excluded",
        "errors",
        "overall",
        "fidelity",
        "soundness",
        "completeness",
        "relevance",
        "calibration",
        "failure_rate_pct",
        "cost_per_100_usd",
        "minutes_per_run",
    ]


def test_ledger_rows_carry_both_judges_means_and_the_capped_overall() -> None:
    scored = record("optimum", "scored", scores=("3", "9", "9", "9", "9"))

    row = ledger_row(scored, ORA_V1)

    assert row.judge_a is not None and row.judge_a.scores["fidelity"] == 3.0
    assert row.fidelity == 3.0
    assert row.weighted == 6.9
    assert row.overall == 3.0
    assert row.failure is True
    assert row.rubric == "ora-1.0"
    csv_text = ledger_csv([row], ORA_V1)
    assert "a_fidelity" in csv_text.splitlines()[0]
    assert csv_text.splitlines()[1].endswith(",6.9,3,true,ora-1.0") or ",3.0,true,ora-1.0" in csv_text


def test_a_failure_rate_reads_the_same_in_the_summary_the_statistics_table_and_the_chart() -> None:
    from pytest_ora.core.numbers import whole_percent
    from pytest_ora.reports.statsfiles import _pct

    # 18 of 80 (0.225): half away from zero everywhere, never 23% in one table and 22% in the next
    assert whole_percent(18 / 80) == _pct(18 / 80) == "23%"
    assert [whole_percent(share) for share in (0.145, 0.15, 1 / 3, 0.0, 1.0)] == ["15%", "15%", "33%", "0%", "100%"]
