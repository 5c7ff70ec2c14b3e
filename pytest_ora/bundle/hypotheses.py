"""bundle.yaml `hypotheses:` and `verdict:`: checked against the bundle and the rubric at intake.

Their shape is validated with the manifest (models.Hypothesis, models.VerdictRule); here are the
checks that need the rest of the bundle: named configurations, unique ids, a verdict with
something to count, and a `critical` vote for `no_critical` to test.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import Problem, show_value
from ..core.models import BundleManifest
from .read import read_yaml, yaml_line

__all__ = ["check_hypotheses", "rubric_votes"]


def rubric_votes(rubric: Any) -> tuple[str, ...]:
    """The vote names a rubric defines (none for ora-1.0)."""
    # Rubrics gain votes with rubric files; an older rubric object simply has none.
    return tuple(getattr(rubric, "vote_names", ()))


def check_hypotheses(root: Path, manifest: BundleManifest, rubric: Any, problems: list[Problem]) -> None:
    """Add a problem, with its bundle.yaml line, for every hypothesis or verdict that cannot be evaluated."""
    if manifest.hypotheses is None and manifest.verdict is None:
        return
    try:
        _, node = read_yaml(root / "bundle.yaml")
    except (OSError, ValueError):
        node = None  # read_bundle has already reported an unreadable manifest

    def problem(location: tuple[Any, ...], message: str, value: object = None, fix: str | None = None) -> None:
        problems.append(
            Problem(
                "bundle.yaml",
                message,
                line=yaml_line(node, location),
                field=".".join(map(str, location)),
                value=None if value is None else show_value(value),
                fix=fix,
            )
        )

    known = manifest.configurations
    seen: dict[str, int] = {}
    for index, hypothesis in enumerate(manifest.hypotheses or []):
        if hypothesis.id in seen:
            problem(
                ("hypotheses", index, "id"),
                f"repeats the id of hypotheses[{seen[hypothesis.id]}]",
                hypothesis.id,
                "give every hypothesis its own id",
            )
        seen.setdefault(hypothesis.id, index)
        for side in ("better", "worse"):
            name = getattr(hypothesis, side)
            if name not in known:
                problem(
                    ("hypotheses", index, side),
                    "names a configuration that bundle.yaml does not list",
                    name,
                    f"use one of {', '.join(known)}",
                )
        if hypothesis.better == hypothesis.worse:
            problem(
                ("hypotheses", index, "worse"),
                "is the same configuration as `better`",
                hypothesis.worse,
                "a hypothesis compares two different configurations",
            )
    verdict = manifest.verdict
    if verdict is None:
        return
    if not manifest.hypotheses:
        problem(("verdict",), "needs hypotheses to count", fix="add `hypotheses:` or remove `verdict:`")
    if verdict.no_critical and "critical" not in rubric_votes(rubric):
        problem(
            ("verdict", "no_critical"),
            f"needs a `critical` vote, which rubric {rubric.version} does not define",
            True,
            "use a rubric with votes (e.g. trio-likert-1.0) or set no_critical: false",
        )
