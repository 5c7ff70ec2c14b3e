"""bundle.yaml `hypotheses:` and `verdict:` at intake: bad input is named by file, line and field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from support.bundle_factory import write_bundle

from pytest_ora.bundle.intake import intake
from pytest_ora.core.errors import IntakeError

GOOD: dict[str, Any] = {
    "hypotheses": [{"id": "H1", "better": "optimum", "worse": "big-1", "margin": 0.3}],
    "verdict": {"directional_at_least": 1},
}


def problems_of(root: Path) -> list[str]:
    with pytest.raises(IntakeError) as caught:
        intake(root)
    return [problem.render() for problem in caught.value.problems]


def test_valid_hypotheses_are_read_exactly(tmp_path: Path) -> None:
    plan = intake(write_bundle(tmp_path, manifest=GOOD))

    hypotheses = plan.bundle.manifest.hypotheses
    assert hypotheses is not None and str(hypotheses[0].margin) == "0.3"
    assert plan.bundle.manifest.verdict is not None and plan.bundle.manifest.verdict.no_critical is False


@pytest.mark.parametrize(
    ("manifest", "expected"),
    [
        (
            {"hypotheses": [{"id": "H1", "better": "nobody", "worse": "big-1"}]},
            "bundle.yaml:12: field 'hypotheses.0.better': names a configuration that "
            "bundle.yaml does not list (got 'nobody'); use one of optimum, big-1",
        ),
        (
            {"hypotheses": [{"id": "H1", "better": "big-1", "worse": "big-1"}]},
            "bundle.yaml:13: field 'hypotheses.0.worse': is the same configuration as "
            "`better` (got 'big-1'); a hypothesis compares two different configurations",
        ),
        (
            {
                "hypotheses": [
                    {"id": "H1", "better": "optimum", "worse": "big-1"},
                    {"id": "H1", "better": "big-1", "worse": "optimum"},
                ]
            },
            "bundle.yaml:14: field 'hypotheses.1.id': repeats the id of hypotheses[0] (got 'H1'); give every hypothesis its own id",
        ),
        (
            {"hypotheses": [{"id": "H1", "better": "optimum", "worse": "big-1", "margin": "lots"}]},
            "bundle.yaml:14: field 'hypotheses.0.margin': must be a number (got 'lots')",
        ),
        (
            {"verdict": {"directional_at_least": 2}},
            "bundle.yaml:11: field 'verdict': needs hypotheses to count; add `hypotheses:` or remove `verdict:`",
        ),
        (
            {**GOOD, "verdict": {"directional_at_least": 1, "no_critical": True}},
            "bundle.yaml:17: field 'verdict.no_critical': needs a `critical` vote, which rubric ora-1.0 does not define (got True); "
            "use a rubric with votes (e.g. trio-likert-1.0) or set no_critical: false",
        ),
        (
            {**GOOD, "verdict": {"directional_at_least": -1}},
            "bundle.yaml:16: field 'verdict.directional_at_least': input should be greater than or equal to 0 (got -1)",
        ),
    ],
)
def test_bad_hypotheses_are_named_by_line_and_field(tmp_path: Path, manifest: dict[str, Any], expected: str) -> None:
    assert expected in problems_of(write_bundle(tmp_path, manifest=manifest))
