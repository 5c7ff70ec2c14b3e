"""The built-in `kind: python` scorers of rubrics swebench-1.0 and ground-truth-1.0.

A capture holds the agent's response as its `answer` and the SWE-bench instance under `metadata`
(instance_id, repo, base_commit, patch, test_patch, problem_statement, FAIL_TO_PASS, PASS_TO_PASS);
`python -m pytest_ora init --from` keeps those columns there. Each criterion's score is its
component's points as a share of its weight (0-100); the rubric's weights give the 0-100 total.
"""

from __future__ import annotations

from pydantic import ValidationError

from ...core.errors import OraError
from ...core.models import Capture
from .scenario import Scenario
from .scorers import Scored, ground_truth, swebench

__all__ = ["ground_truth_scores", "swebench_scores"]


def _scenario(capture: Capture) -> Scenario:
    try:
        return Scenario.model_validate(capture.metadata or {})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"])
        raise OraError(
            f"{capture.capture_id}: field 'metadata.{field}' {first['msg'].lower()}: the capture's metadata "
            "holds the SWE-bench instance (instance_id, repo, base_commit, patch, problem_statement, ...)"
        ) from None


def _criteria(scored: Scored) -> dict[str, float]:
    """Each component as a percentage of its weight, to four decimals (the similarity checks' fractions do not end)."""
    return {name: round(float(scored.percent(name)), 4) for name in scored.weights}


def swebench_scores(capture: Capture) -> dict[str, float]:
    """Rubric swebench-1.0: root_cause, fix_quality, completeness, persona (see scorers.swebench)."""
    return _criteria(swebench(_scenario(capture), capture.answer))


def ground_truth_scores(capture: Capture) -> dict[str, float]:
    """Rubric ground-truth-1.0: file, location, fix logic, completeness (see scorers.ground_truth)."""
    return _criteria(ground_truth(_scenario(capture), capture.answer))
