"""The statistics' design in bundle.yaml and the options: clusters and the pairs compared.

`cluster:` (or --ora-cluster) names a capture field, or `metadata.<key>`, shared by related entries;
`compare_pairs:` (or --ora-pairs A:B, or --ora-reference CONFIG) names what the statistics compare.
Checked at intake (bundle.yaml, with its line) and at session start (the options).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..core.errors import Problem, show_value
from ..core.models import BundleManifest, Capture
from .read import read_yaml, yaml_line

__all__ = ["check_design", "cluster_labels", "cluster_value", "option_problems", "snapshots"]


def cluster_value(capture: Capture, field: str) -> str | None:
    """The capture's cluster label under `field` (a capture field or metadata.<key>); None when it has none."""
    value = (
        (capture.metadata or {}).get(field.removeprefix("metadata."))
        if field.startswith("metadata.")
        else getattr(capture, field, None)
    )
    if value is None or value == "":
        return None
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True, ensure_ascii=False)
    return str(value)


def cluster_labels(captures: Sequence[Capture], field: str) -> dict[str, str]:
    """Entry key -> cluster label, from the first capture of each entry that has one."""
    labels: dict[str, str] = {}
    for capture in captures:
        if capture.entry_key not in labels:
            value = cluster_value(capture, field)
            if value is not None:
                labels[capture.entry_key] = value
    return labels


def snapshots(captures: Sequence[Capture]) -> dict[str, list[str]]:
    """Configuration -> the models its captures' model_snapshot names, sorted."""
    models: dict[str, set[str]] = {}
    for capture in captures:
        models.setdefault(capture.configuration, set()).update(str(m) for m in capture.model_snapshot.values())
    return {name: sorted(found) for name, found in models.items()}


def _field_problem(field: str, captures: Sequence[Capture]) -> str | None:
    """Why `field` cannot cluster these captures, or None."""
    if not field.startswith("metadata.") and field not in Capture.model_fields:
        return "is not a capture field (use a field of captures.jsonl, or metadata.<key>)"
    if captures and not any(cluster_value(capture, field) is not None for capture in captures):
        return "has no value in any capture"
    return None


def check_design(root: Path, manifest: BundleManifest, captures: Sequence[Capture], problems: list[Problem]) -> None:
    """Add a problem, with its bundle.yaml line, for a cluster field or a compared pair that cannot be used."""
    if manifest.cluster is None and not manifest.compare_pairs:
        return
    try:
        _, node = read_yaml(root / "bundle.yaml")
    except (OSError, ValueError):
        node = None

    def problem(location: tuple[Any, ...], message: str, value: object, fix: str) -> None:
        problems.append(
            Problem(
                "bundle.yaml",
                message,
                line=yaml_line(node, location),
                field=".".join(map(str, location)),
                value=show_value(value),
                fix=fix,
            )
        )

    if manifest.cluster is not None:
        reason = _field_problem(manifest.cluster, captures)
        if reason is not None:
            problem(
                ("cluster",), reason, manifest.cluster, "name a field the related entries share, e.g. metadata.scenario"
            )
    for index, pair in enumerate(manifest.compare_pairs or []):
        for side, name in enumerate(pair):
            if name not in manifest.configurations:
                problem(
                    ("compare_pairs", index, side),
                    "names a configuration that bundle.yaml does not list",
                    name,
                    f"use one of {', '.join(manifest.configurations)}",
                )
        if pair[0] == pair[1]:
            problem(
                ("compare_pairs", index),
                "compares a configuration with itself",
                pair,
                "name two different configurations",
            )


def option_problems(
    configurations: Sequence[str],
    captures: Sequence[Capture],
    cluster: str | None,
    reference: str | None,
    pairs: Sequence[tuple[str, str]],
) -> list[str]:
    """What is wrong with --ora-cluster, --ora-reference and --ora-pairs for this bundle (empty when nothing)."""
    found = []
    if cluster is not None:
        reason = _field_problem(cluster, captures)
        if reason is not None:
            found.append(f"--ora-cluster {cluster} {reason}")
    known = ", ".join(configurations)
    if reference is not None and reference not in configurations:
        found.append(f"--ora-reference names {reference!r}, which bundle.yaml does not list (use one of {known})")
    for first, second in pairs:
        for name in (first, second):
            if name not in configurations:
                found.append(
                    f"--ora-pairs {first}:{second} names {name!r}, which bundle.yaml does not list (use one of {known})"
                )
    return found
