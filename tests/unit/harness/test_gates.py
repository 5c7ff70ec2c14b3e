"""CI gates: a registry of checks, one line when a gate holds, a failed JUnit testcase when it fails."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from types import SimpleNamespace

import pytest

from pytest_ora.harness.gates import (
    GateContext,
    GateResult,
    any_set,
    evaluate,
    gate,
    gate_reports,
    option_attribute,
    registered,
    validate,
)
from pytest_ora.harness.options import Options
from pytest_ora.method.rubric import get_rubric


def context(under: str | None = None, share: str | None = None) -> GateContext:
    options = SimpleNamespace(
        fail_under=None if under is None else Decimal(under),
        fail_lowscore_pct=None if share is None else Decimal(share),
        fail_calibration=None,
        fail_regression=False,
    )
    summary = [
        ("a", {"overall": Fraction(7), "failure_rate": Fraction(1, 10)}),
        ("b", {"overall": Fraction(5), "failure_rate": Fraction(1, 2)}),
    ]
    return GateContext(options, get_rubric("ora-1.0"), summary)


def test_unset_gates_say_nothing() -> None:
    assert evaluate(context()) == []


def test_without_a_gate_set_none_runs_and_each_builtin_gate_names_its_options_field() -> None:
    """The controller skips the gates (and the summary they read) only when no gate could run."""
    fields = set(Options.__dataclass_fields__)
    assert all(option_attribute(option) in fields for option in registered())
    assert not any_set(context().options)
    assert any_set(context(under="6").options)
    assert any_set(context(under="0").options)  # 0 is a threshold, not unset
    assert any_set(SimpleNamespace(**{**vars(context().options), "fail_regression": True}))


def test_a_failing_gate_names_each_configuration_and_a_holding_one_says_one_line() -> None:
    results = evaluate(context(under="6", share="60"))
    assert [r.option for r in results] == ["--ora-fail-under", "--ora-fail-lowscore-pct"]
    under, share = results
    assert under.failures == ("b mean overall 5.00 < 6",)
    assert share.holds
    assert (
        share.line()
        == "ora: gate --ora-fail-lowscore-pct 60 holds: no selected configuration's LOWSCORE share exceeds 60%"
    )


def test_failing_gates_become_failed_testcases() -> None:
    reports = gate_reports([GateResult("--ora-fail-under", "6", ("b mean overall 5 < 6",)), GateResult("--x", "1", ())])
    assert [(r.nodeid, r.when, r.outcome) for r in reports] == [
        ("ora-gate::--ora-fail-under", "setup", "passed"),
        ("ora-gate::--ora-fail-under", "call", "failed"),
        ("ora-gate::--ora-fail-under", "teardown", "passed"),
    ]
    assert "b mean overall 5 < 6" in str(reports[1].longrepr)


def test_a_threshold_outside_the_overall_range_is_a_usage_error() -> None:
    with pytest.raises(pytest.UsageError, match=r"--ora-fail-under 11 is outside rubric ora-1.0's overall range 0-10"):
        validate(context(under="11").options, get_rubric("ora-1.0"))
    with pytest.raises(pytest.UsageError, match="--ora-fail-lowscore-pct 150 is a percentage"):
        validate(context(share="150").options, get_rubric("ora-1.0"))
    validate(context(under="10").options, get_rubric("ora-1.0"))


def test_other_gates_plug_in() -> None:
    @gate("--ora-fail-test-only")
    def _check(ctx: GateContext) -> GateResult | None:
        return GateResult("--ora-fail-test-only", "x", ("always",))

    try:
        assert "--ora-fail-test-only" in registered()
        assert any_set(context().options)  # its option is not an Options field: it may run, so it is asked
        assert evaluate(context())[-1].failures == ("always",)
    finally:
        from pytest_ora.harness import gates

        del gates._GATES["--ora-fail-test-only"]
