"""Repeated answers: each candidate answers each entry K times, each answer its own capture `<id>#<k>`, recorded."""

from __future__ import annotations

import dataclasses

import pytest

from ...core.plan import Plan

__all__ = ["repeated"]


def repeated(plan: Plan, option: int | None) -> Plan:
    """The plan with K captures per entry and candidate configuration (--ora-repeat, else bundle.yaml `repeat:`)."""
    manifest = plan.bundle.manifest
    times = option if option is not None else manifest.repeat or 1
    if times <= 1:
        return plan
    candidates = manifest.candidates or {}
    if not candidates:
        where = "--ora-repeat" if option is not None else "bundle.yaml repeat"
        raise pytest.UsageError(
            f"{where} {times}: repeated answers are made by candidates, and bundle.yaml names none; "
            "add a `candidates:` section, or leave repeat at 1"
        )
    captures = []
    for planned in plan.captures:
        if planned.capture.configuration in candidates and planned.pair is None:
            captures += [
                dataclasses.replace(planned, capture=planned.capture.model_copy(update={"repeat": k}))
                for k in range(1, times + 1)
            ]
        else:
            captures.append(planned)
    return dataclasses.replace(plan, captures=tuple(captures))
