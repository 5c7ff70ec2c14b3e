"""The `opencode-advisory-observation.1` record, read strictly, and the `profile-adherence-v1` threshold.

A thin host adapter writes one record per observation into a capture's `evidence`. It holds
normalized fields only; the evaluator never receives, reads or forwards a prompt, a model output,
a path, a token, a credential, a stack or a raw diagnostic. The record is closed: any other field
makes it UNKNOWN, and no message ever shows a value it holds (only the field's name in the schema).

A complete, bound result is PASS or FAIL. Everything else is UNKNOWN with one cause:
missing, malformed, mismatched, multiple, abnormal, unsupported-model or secret-bearing.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ....core.errors import OraError

__all__ = [
    "CASES",
    "CAUSES",
    "MODEL",
    "SCHEMA",
    "SUPPORTED_MODELS",
    "THRESHOLD",
    "Binding",
    "Observation",
    "observe",
    "read_binding",
]

SCHEMA = "opencode-advisory-observation.1"
THRESHOLD = "profile-adherence-v1"
MODEL = "openai/gpt-5.3-codex-spark"
SUPPORTED_MODELS = (MODEL,)
"""The only configured model this record kind evaluates."""
BASELINE_CASE = "static-policy-overlay"
PROFILE_CASE = "profile-captured-correction"
CASES = (BASELINE_CASE, PROFILE_CASE)
CAUSES = ("missing", "malformed", "mismatched", "multiple", "abnormal", "unsupported-model", "secret-bearing")
CAPSULE_RATIO_MAX = Fraction(3, 2)

_SHA1 = re.compile(r"^[0-9a-f]{40}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_NAME = re.compile(r"^(?:@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$")
_VERSION = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+(?:[-+][0-9A-Za-z.-]+)?$")
_METRICS = (
    "repeated_corrections",
    "architecture_guesses",
    "relevant_rule_precision",
    "capsule_bytes",
    "conflict_overwrites",
    "rollback",
)
_DIGESTS = ("source_sha256", "task_sha256", "budget_sha256")
"""The inputs both cases must share: the same source, task and budget, by SHA-256."""


class Unknown(OraError):
    """The record cannot give PASS or FAIL: its cause (one of CAUSES) and why, naming schema fields only."""

    def __init__(self, cause: str, why: str) -> None:
        assert cause in CAUSES
        self.cause = cause
        self.why = why
        super().__init__(f"{cause}: {why}")


@dataclass(frozen=True)
class Binding:
    """What the record must be bound to exactly: the commits, the package, the configured model."""

    candidate_sha: str
    base_sha: str
    package: Mapping[str, str]
    model: str


@dataclass(frozen=True)
class Observation:
    """One record's result: PASS / FAIL / UNKNOWN, the cause of an UNKNOWN, the threshold's checks, the metrics."""

    result: str
    cause: str | None = None
    reason: str = ""
    checks: Mapping[str, bool] = field(default_factory=dict)
    metrics: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def cell(self) -> str:
        return f"{self.result} ({self.reason})" if self.reason else self.result

    def data(self) -> dict[str, Any]:
        return {
            "result": self.result,
            "cause": self.cause,
            "reason": self.reason,
            "checks": dict(self.checks),
            "metrics": {name: dict(values) for name, values in self.metrics.items()},
            "advisory_only": True,
        }


def _object(value: Any, where: str, keys: tuple[str, ...], cause_missing: str = "missing") -> Mapping[str, Any]:
    if value is None:
        raise Unknown(cause_missing, f"{where} is missing")
    if not isinstance(value, Mapping):
        raise Unknown("malformed", f"{where} is not an object")
    extra = [key for key in value if key not in keys]
    if extra:
        # Never named: an unknown key may itself be a prompt, a path or a token.
        raise Unknown(
            "malformed",
            f"{where} holds {len(extra)} field(s) outside the schema; the evaluator receives "
            "no prompts, outputs, paths, tokens, credentials, stacks or raw diagnostics",
        )
    absent = [key for key in keys if value.get(key) is None]
    if absent:
        raise Unknown("missing", f"{where}.{absent[0]} is missing")
    return value


def _matches(value: Any, pattern: re.Pattern[str], where: str, what: str) -> str:
    if not isinstance(value, str) or not pattern.match(value):
        raise Unknown("malformed", f"{where} is not {what}")
    return value


def _exact(value: Any) -> Fraction | None:
    """A finite number exactly (captures' numbers arrive as Decimal), or None for anything else."""
    if isinstance(value, bool):
        return None
    if isinstance(value, Decimal):
        return Fraction(value) if value.is_finite() else None
    if isinstance(value, float):
        return Fraction(repr(value)) if math.isfinite(value) else None
    return Fraction(value) if isinstance(value, int) else None


def _count(value: Any, where: str) -> int:
    number = _exact(value)
    if number is None or number < 0 or number.denominator != 1:
        raise Unknown("malformed", f"{where} is not a whole count")
    return int(number)


def _precision(value: Any, where: str) -> Fraction:
    number = _exact(value)
    if number is None or not 0 <= number <= 1:
        raise Unknown("malformed", f"{where} is not a precision between 0 and 1")
    return number


def read_binding(data: Any) -> Binding:
    """binding.yaml: the exact commits, package identity and model a record must be bound to (ValueError names the field)."""
    try:
        top = _object(data, "binding", ("candidate_sha", "base_sha", "package", "model"))
        package = _package(top["package"], "binding.package")
        _matches(top["candidate_sha"], _SHA1, "binding.candidate_sha", "a 40-hex commit SHA")
        _matches(top["base_sha"], _SHA1, "binding.base_sha", "a 40-hex commit SHA")
    except Unknown as problem:
        raise ValueError(problem.why) from None
    if top["model"] not in SUPPORTED_MODELS:
        raise ValueError(
            f"binding.model is not a model this record kind evaluates (supported: {', '.join(SUPPORTED_MODELS)})"
        )
    return Binding(top["candidate_sha"], top["base_sha"], package, str(top["model"]))


def _package(value: Any, where: str) -> dict[str, str]:
    package = _object(value, where, ("name", "version", "tar_sha256", "content_sha256"))
    return {
        "name": _matches(package["name"], _NAME, f"{where}.name", "a package name"),
        "version": _matches(package["version"], _VERSION, f"{where}.version", "a semantic version"),
        "tar_sha256": _matches(package["tar_sha256"], _SHA256, f"{where}.tar_sha256", "a 64-hex SHA-256"),
        "content_sha256": _matches(package["content_sha256"], _SHA256, f"{where}.content_sha256", "a 64-hex SHA-256"),
    }


def _metrics(value: Any, where: str) -> dict[str, Any]:
    keys = _DIGESTS + _METRICS + (("captured_corrections",) if where.endswith(PROFILE_CASE) else ())
    case = _object(value, where, keys)
    rollback = case["rollback"]
    if rollback not in ("passed", "failed"):
        raise Unknown("malformed", f"{where}.rollback is neither passed nor failed")
    capsule = _count(case["capsule_bytes"], f"{where}.capsule_bytes")
    if capsule == 0:
        raise Unknown("malformed", f"{where}.capsule_bytes is 0: no capsule was measured")
    for name in _DIGESTS:
        _matches(case[name], _SHA256, f"{where}.{name}", "a 64-hex SHA-256")
    metrics: dict[str, Any] = {
        **{name: case[name] for name in _DIGESTS},
        "repeated_corrections": _count(case["repeated_corrections"], f"{where}.repeated_corrections"),
        "architecture_guesses": _count(case["architecture_guesses"], f"{where}.architecture_guesses"),
        "relevant_rule_precision": _precision(case["relevant_rule_precision"], f"{where}.relevant_rule_precision"),
        "capsule_bytes": capsule,
        "conflict_overwrites": _count(case["conflict_overwrites"], f"{where}.conflict_overwrites"),
        "rollback": rollback,
    }
    if "captured_corrections" in keys:
        corrections = case["captured_corrections"]
        if not isinstance(corrections, list) or not all(
            isinstance(item, Mapping) and set(item) == {"verified"} and isinstance(item["verified"], bool)
            for item in corrections
        ):
            raise Unknown("malformed", f"{where}.captured_corrections is not a list of {{verified: true|false}}")
        verified = sum(1 for item in corrections if item["verified"])
        if len(corrections) != 1 or verified != 1:
            raise Unknown(
                "malformed",
                f"{where} carries {verified} verified of {len(corrections)} captured corrections, "
                "not exactly one verified",
            )
        metrics["captured_corrections"] = 1
    return metrics


def observe(evidence: Any, binding: Binding) -> Observation:
    """The record's result against the exact binding and the profile-adherence-v1 threshold."""
    try:
        return _observe(evidence, binding)
    except Unknown as problem:
        return Observation("UNKNOWN", problem.cause, f"{problem.cause}: {problem.why}")


# C901: the record's fields read strictly in order; split, another field's problem could be named first.
def _observe(evidence: Any, binding: Binding) -> Observation:  # noqa: C901
    if isinstance(evidence, list):
        if len(evidence) != 1:
            raise Unknown("multiple" if evidence else "missing", f"the capture holds {len(evidence)} records, not one")
        evidence = evidence[0]
    record = _object(evidence, "record", ("schema", "binding", "execution", "cases"))
    if record["schema"] != SCHEMA:
        raise Unknown("malformed", f"record.schema is not {SCHEMA}")
    bound = _object(record["binding"], "binding", ("candidate_sha", "base_sha", "package", "model"))
    model = bound["model"]
    if not isinstance(model, str):
        raise Unknown("malformed", "binding.model is not a model id")
    if model not in SUPPORTED_MODELS:
        raise Unknown("unsupported-model", f"binding.model is not a model this record kind evaluates ({MODEL} only)")
    candidate = _matches(bound["candidate_sha"], _SHA1, "binding.candidate_sha", "a 40-hex commit SHA")
    base = _matches(bound["base_sha"], _SHA1, "binding.base_sha", "a 40-hex commit SHA")
    package = _package(bound["package"], "binding.package")
    for name, got, expected in (
        ("candidate_sha", candidate, binding.candidate_sha),
        ("base_sha", base, binding.base_sha),
        ("model", model, binding.model),
    ):
        if got != expected:
            raise Unknown("mismatched", f"binding.{name} is not the configured one")
    for key, expected in binding.package.items():
        if package[key] != expected:
            raise Unknown("mismatched", f"binding.package.{key} is not the configured package's")
    execution = _object(record["execution"], "execution", ("count", "status"))
    count = _count(execution["count"], "execution.count")
    if count != 1:
        raise Unknown(
            "multiple" if count > 1 else "missing", f"execution.count is {count}: one bounded A/B run is required"
        )
    if execution["status"] != "complete":
        if execution["status"] in ("aborted", "timeout", "crashed", "budget-exceeded", "partial"):
            raise Unknown("abnormal", f"execution.status is {execution['status']}: the run did not complete")
        raise Unknown(
            "malformed", "execution.status is not one of complete, aborted, timeout, crashed, budget-exceeded, partial"
        )
    cases = record["cases"]
    if not isinstance(cases, Mapping):
        raise Unknown("malformed", "cases is not an object")
    if set(cases) != set(CASES):
        raise Unknown("mismatched", f"cases are not exactly {' and '.join(CASES)}")
    metrics = {name: _metrics(cases[name], f"cases.{name}") for name in CASES}
    for name in _DIGESTS:
        if metrics[BASELINE_CASE][name] != metrics[PROFILE_CASE][name]:
            raise Unknown("mismatched", f"the two cases do not share {name}: not one A/B run over the same input")
    static, profile = metrics[BASELINE_CASE], metrics[PROFILE_CASE]
    checks = {
        "fewer repeated corrections": profile["repeated_corrections"] < static["repeated_corrections"],
        "no increase in architecture guesses": profile["architecture_guesses"] <= static["architecture_guesses"],
        "no decrease in relevant rule precision": profile["relevant_rule_precision"]
        >= static["relevant_rule_precision"],
        "capsule size <= 1.5x baseline": profile["capsule_bytes"] <= CAPSULE_RATIO_MAX * static["capsule_bytes"],
        "zero conflict overwrites": profile["conflict_overwrites"] == 0,
        "rollback passed": profile["rollback"] == "passed",
    }
    shown = {
        name: {key: (float(value) if isinstance(value, Fraction) else value) for key, value in values.items()}
        for name, values in metrics.items()
    }
    failing = [name for name, held in checks.items() if not held]
    if failing:
        return Observation(
            "FAIL",
            None,
            f"{len(checks) - len(failing)} of {len(checks)} hold; not: {'; '.join(failing)}",
            checks,
            shown,
        )
    return Observation("PASS", None, f"all {len(checks)} hold", checks, shown)
