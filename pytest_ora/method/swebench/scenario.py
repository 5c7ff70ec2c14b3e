"""SWE-bench scenarios, read from a JSONL file in the dataset's own fields, and the response files scored against them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...core.errors import OraError

__all__ = ["Scenario", "ScenarioError", "find_scenario", "read_response", "read_scenarios"]


class ScenarioError(OraError):
    """A scenarios file or a response file that cannot be read as given (file, line, field named)."""


class Scenario(BaseModel):
    """One SWE-bench instance; other dataset fields (hints_text, version, ...) are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    instance_id: str = Field(min_length=1)
    repo: str = Field(min_length=1)
    base_commit: str = Field(min_length=1)
    patch: str = Field(min_length=1)
    test_patch: str = ""
    problem_statement: str = Field(min_length=1)
    FAIL_TO_PASS: list[str] = Field(default_factory=list)
    PASS_TO_PASS: list[str] = Field(default_factory=list)

    @field_validator("FAIL_TO_PASS", "PASS_TO_PASS", mode="before")
    @classmethod
    def _listed(cls, value: Any) -> Any:
        """The dataset stores these lists as JSON text ("[\\"tests/...\\"]"); both forms are read."""
        if isinstance(value, str):
            try:
                return json.loads(value) if value.strip() else []
            except ValueError:
                raise ValueError("must be a list of test ids, or that list as JSON text") from None
        return value


def read_scenarios(path: Path) -> dict[str, Scenario]:
    """Every scenario of a JSONL file by instance_id; ScenarioError naming the file, line and field."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(f"{path}: does not exist") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"{path}: cannot be read ({error})") from None
    scenarios: dict[str, Scenario] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except ValueError as error:
            raise ScenarioError(f"{path}:{number}: not a JSON object ({error})") from None
        if not isinstance(data, dict):
            raise ScenarioError(f"{path}:{number}: not a JSON object")
        try:
            scenario = Scenario.model_validate(data)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            field = ".".join(str(part) for part in first["loc"]) or "(line)"
            reason = (
                "is missing" if first["type"] == "missing" else str(first["msg"]).removeprefix("Value error, ").lower()
            )
            raise ScenarioError(f"{path}:{number}: field '{field}' {reason}") from None
        if scenario.instance_id in scenarios:
            raise ScenarioError(f"{path}:{number}: field 'instance_id' repeats {scenario.instance_id!r}")
        scenarios[scenario.instance_id] = scenario
    if not scenarios:
        raise ScenarioError(f"{path}: holds no scenario")
    return scenarios


def find_scenario(path: Path, name: str) -> Scenario:
    """The scenario `name` (its instance_id) of the file; ScenarioError listing the ids there are."""
    scenarios = read_scenarios(path)
    if name not in scenarios:
        raise ScenarioError(f"{path}: no scenario {name!r}; it holds {', '.join(sorted(scenarios))}")
    return scenarios[name]


def read_response(path: Path) -> str:
    """The agent's response text of a response file: its `result`, else its `response_text` field."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ScenarioError(f"{path}: does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise ScenarioError(f"{path}: not a JSON response file ({error})") from None
    if not isinstance(data, dict):
        raise ScenarioError(f"{path}: a response file is a JSON object with `result` or `response_text`")
    for field in ("result", "response_text"):
        value = data.get(field)
        if isinstance(value, str) and value.strip():
            return value
    raise ScenarioError(
        f"{path}: field 'result' (or 'response_text') is missing or empty: it holds the agent's response text"
    )
