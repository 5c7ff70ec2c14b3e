"""CI gates: options that fail a run on its numbers, each a check that plugs in here.

A gate is registered under its option (`@gate("--ora-fail-under")`) and returns, from the run's
summary, None when its option is not set, else a GateResult: holding, or failing with one message
per offending configuration. The session says one line for a gate that holds; a failing gate
exits 1 and appears in `--junitxml` as a failed testcase `ora-gate::<option>` carrying its messages.
A gate may also check its threshold at start (`validate`), so a value off the rubric's scale is a
usage error before any judge is called.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import pytest

from ..core.numbers import round_half_away
from ..core.rubric import Rubric
from ..reports.baseline import regressed
from ..reports.baselinedata import BaselineComparison
from ..reports.calibration import gate_message, held_message

__all__ = ["GateContext", "GateResult", "evaluate", "gate", "gate_reports", "registered", "validate"]

GATE_PREFIX = "ora-gate::"


@dataclass(frozen=True)
class GateContext:
    """What a gate reads: the options, the rubric, and each selected configuration's summary values."""

    options: Any
    rubric: Rubric
    summary: Sequence[tuple[str, dict[str, Any]]]
    """(configuration, values) with values' exact `overall` and `failure_rate` (None: nothing scored)."""
    calibration: Mapping[str, Any] | None = None
    """stats.json's `calibration` when the run had human labels and its report was written."""
    baseline: BaselineComparison | None = None
    """baseline.json when the run was compared with a baseline and its report was written."""


@dataclass(frozen=True)
class GateResult:
    """One gate's verdict on the run."""

    option: str
    threshold: str
    failures: tuple[str, ...]
    held: str = ""
    """What holding means, for the one line said when it holds."""

    @property
    def holds(self) -> bool:
        return not self.failures

    @property
    def name(self) -> str:
        """The option and its value as given ('--ora-fail-under 7'; a flag alone: '--ora-fail-regression')."""
        return f"{self.option} {self.threshold}" if self.threshold else self.option

    def line(self) -> str:
        if self.holds:
            return f"ora: gate {self.name} holds: {self.held}"
        return "\n".join(f"ora: FAIL {self.name}: {message}" for message in self.failures)


Check = Callable[[GateContext], GateResult | None]
Validate = Callable[[Any, Rubric], str | None]


@dataclass(frozen=True)
class _Gate:
    option: str
    check: Check
    validate: Validate | None


_GATES: dict[str, _Gate] = {}


def gate(option: str, validate: Validate | None = None) -> Callable[[Check], Check]:
    """Register a gate's check under its option; `validate` returns a usage error for a bad threshold."""

    def register(check: Check) -> Check:
        _GATES[option] = _Gate(option, check, validate)
        return check

    return register


def registered() -> tuple[str, ...]:
    return tuple(_GATES)


def option_attribute(option: str) -> str:
    """The Options field a gate's option sets: '--ora-fail-under' -> 'fail_under'."""
    return option.removeprefix("--ora-").replace("-", "_")


def any_set(options: Any) -> bool:
    """Whether any gate may run: one whose option is set, or a plugged-in gate whose option Options does not hold."""
    values = (getattr(options, option_attribute(option), True) for option in _GATES)
    return any(value is not None and value is not False for value in values)  # a threshold of 0 is set


def validate(options: Any, rubric: Rubric) -> None:
    """Every set gate's threshold makes sense for this rubric; else a usage error naming the fix."""
    for item in _GATES.values():
        if item.validate is not None:
            problem = item.validate(options, rubric)
            if problem is not None:
                raise pytest.UsageError(problem)


def evaluate(context: GateContext) -> list[GateResult]:
    """The verdict of every gate whose option is set, in registration order."""
    results = []
    for item in _GATES.values():
        result = item.check(context)
        if result is not None:
            results.append(result)
    return results


def gate_reports(results: Sequence[GateResult], held: bool = False) -> list[pytest.TestReport]:
    """Each failing gate as a failed testcase `ora-gate::<option>` (setup, call, teardown reports); with `held`,
    each gate that holds as a passed one instead."""
    reports = []
    for result in results:
        if result.holds != held:
            continue
        nodeid = f"{GATE_PREFIX}{result.option}"
        message = "\n".join(f"{result.name}: {text}" for text in result.failures)
        phases: tuple[tuple[Literal["setup", "call", "teardown"], str, str | None], ...] = (
            ("setup", "passed", None),
            ("call", "passed" if held else "failed", None if held else message),
            ("teardown", "passed", None),
        )
        for when, outcome, longrepr in phases:
            reports.append(
                pytest.TestReport(
                    nodeid=nodeid,
                    location=("ora-gate", None, nodeid),
                    keywords={},
                    outcome=outcome,  # type: ignore[arg-type]
                    longrepr=longrepr,
                    when=when,
                    sections=[],
                    duration=0.0,
                    user_properties=[("gate", result.option)],
                )
            )
    return reports


# --- the built-in gates -------------------------------------------------------------------------


def overall_range(rubric: Rubric) -> tuple[Fraction, Fraction] | None:
    """The range a scores rubric's overall can take (weights times the scale); None for other kinds."""
    if rubric.kind != "scores" or not rubric.criteria:
        return None
    return rubric.overall_span()


def _plain(value: Fraction) -> str:
    return f"{float(value):g}"


def _validate_under(options: Any, rubric: Rubric) -> str | None:
    under = options.fail_under
    span = overall_range(rubric)
    if under is None or span is None:
        return None
    low, high = span
    if not low <= Fraction(under) <= high:
        return (
            f"--ora-fail-under {under} is outside rubric {rubric.version}'s overall range "
            f"{_plain(low)}-{_plain(high)}: give a threshold within it"
        )
    return None


def _validate_share(options: Any, rubric: Rubric) -> str | None:
    share = options.fail_lowscore_pct
    if share is not None and Fraction(share) > 100:
        return f"--ora-fail-lowscore-pct {share} is a percentage of scored captures: give a value from 0 to 100"
    return None


@gate("--ora-fail-under", _validate_under)
def _fail_under(context: GateContext) -> GateResult | None:
    under = context.options.fail_under
    if under is None:
        return None
    failing = tuple(
        f"{name} mean overall {round_half_away(values['overall'], 2)} < {under}"
        for name, values in context.summary
        if values["overall"] is not None and values["overall"] < Fraction(under)
    )
    return GateResult(
        "--ora-fail-under", str(under), failing, f"every selected configuration's mean overall is at least {under}"
    )


@gate("--ora-fail-lowscore-pct", _validate_share)
def _fail_lowscore(context: GateContext) -> GateResult | None:
    share = context.options.fail_lowscore_pct
    if share is None:
        return None
    failing = tuple(
        f"{name} LOWSCORE share {round_half_away(values['failure_rate'] * 100, 1)}% > {share}%"
        for name, values in context.summary
        if values["failure_rate"] is not None and values["failure_rate"] * 100 > Fraction(share)
    )
    return GateResult(
        "--ora-fail-lowscore-pct", str(share), failing, f"no selected configuration's LOWSCORE share exceeds {share}%"
    )


@gate("--ora-fail-calibration")
def _fail_calibration(context: GateContext) -> GateResult | None:
    threshold = context.options.fail_calibration
    if threshold is None:
        return None
    message = gate_message(context.calibration, threshold)
    if message is not None:
        return GateResult("--ora-fail-calibration", str(threshold), (message,))
    assert context.calibration is not None  # gate_message fails a run without labels
    return GateResult("--ora-fail-calibration", str(threshold), (), held_message(context.calibration, threshold))


@gate("--ora-fail-regression")
def _fail_regression(context: GateContext) -> GateResult | None:
    if not context.options.fail_regression:
        return None
    if context.baseline is None:
        return GateResult("--ora-fail-regression", "", ("the comparison with the baseline was not written",))
    prefix = "--ora-fail-regression: "
    failing = tuple(message.removeprefix(prefix) for message in regressed(context.baseline))
    return GateResult(
        "--ora-fail-regression",
        "",
        failing,
        "no configuration's paired interval against the baseline lies entirely below 0",
    )
