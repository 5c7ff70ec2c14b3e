"""A capture's scores in pytest's own outputs: junitxml properties, the -v word, the -rL lines; and its report's payload."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from ..core.numbers import round_half_away
from ..core.record import CaptureRecord
from ..core.rubric import Rubric
from ..method.kinds import combined, graded

__all__ = [
    "drop_record",
    "junit_lowscore",
    "junit_only",
    "lowscore_lines",
    "overall_text",
    "score_properties",
    "shows_lowscores",
    "verbose_word",
]


def drop_record(report: pytest.TestReport) -> None:
    """Drop a report's record and ledger line once handed on: pytest's terminal reporter keeps every report."""
    for name in ("ora_record", "ora_ledger"):
        if hasattr(report, name):
            delattr(report, name)


def score_properties(record: CaptureRecord, rubric: Rubric) -> list[tuple[str, str]]:
    """record_property pairs: the outcome (LOWSCORE stands out in junitxml), overall, weighted, criterion means."""
    if record["status"] != "scored":
        return [("ora_outcome", record["status"])]
    if graded(rubric.kind) is not None:  # a cell per axis; no scores to combine
        return [("ora_outcome", "scored"), *((f"ora_grade_{axis}", cell) for axis, cell in record["grades"].items())]
    scores = combined(record, rubric)
    return [
        ("ora_outcome", "LOWSCORE" if scores.failure else "scored"),
        ("ora_overall", str(float(scores.overall))),
        ("ora_weighted", str(float(scores.weighted))),
        *((f"ora_{name}", str(float(mean))) for name, mean in scores.means.items()),
    ]


def overall_text(record: CaptureRecord, rubric: Rubric) -> str | None:
    """The overall as the public table rounds it, for the -v word; None when the capture was not scored."""
    if record["status"] != "scored" or graded(rubric.kind) is not None:
        return None
    overall = combined(record, rubric).overall
    return str(round_half_away(overall, rubric.rounding.rating_places))


def verbose_word(report: pytest.TestReport) -> tuple[str, str, Any] | None:
    """The status of a scored capture's call: PASSED or LOWSCORE with its overall (shown by -v)."""
    if report.when != "call" or not report.passed:
        return None
    overall = getattr(report, "ora_overall", None)
    if getattr(report, "ora_failure", False):
        word = "LOWSCORE" if overall is None else f"LOWSCORE (overall {overall})"
        return "lowscore", "L", (word, {"yellow": True})
    if overall is not None:
        return "passed", ".", (f"PASSED (overall {overall})", {"green": True})
    return None


def shows_lowscores(config: pytest.Config) -> bool:
    """Whether -r asked for low scores: L, or a (all but passes) / A (all), unless N came after."""
    chars = str(config.option.reportchars or "")
    wanted = False
    for char in chars:
        if char in "LaA":
            wanted = True
        elif char == "N":
            wanted = False
    return wanted


def lowscore_lines(reports: Sequence[Any], why: str) -> list[str]:
    """'LOWSCORE test_ora.py::test_capture[...] - overall 2.1 < 4.0', one per low-scoring capture."""
    return [f"LOWSCORE {report.nodeid} - overall {getattr(report, 'ora_overall', '?')} {why}" for report in reports]


def junit_only(config: pytest.Config, reports: Sequence[pytest.TestReport]) -> None:
    """Reports for --junitxml's file alone (a held gate's passed testcase): the terminal's counts stay the tests'."""
    from _pytest.junitxml import xml_key

    logxml = config.stash.get(xml_key, None)
    if logxml is not None:
        for report in reports:
            logxml.pytest_runtest_logreport(report)


def junit_lowscore(config: pytest.Config, report: pytest.TestReport, why: Callable[[], str]) -> None:
    """A low-scoring capture's testcase says LOWSCORE in its system-out, which JUnit viewers show (not only a property)."""
    if report.when != "call" or not report.passed or not getattr(report, "ora_failure", False):
        return
    import xml.etree.ElementTree as ET

    from _pytest.junitxml import xml_key

    logxml = config.stash.get(xml_key, None)
    if logxml is None:
        return
    out = ET.Element("system-out")
    out.text = f"LOWSCORE: overall {getattr(report, 'ora_overall', '?')} {why()}"
    logxml.node_reporter(report).append(out)
