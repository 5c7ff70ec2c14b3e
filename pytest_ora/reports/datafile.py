"""Reading back a file a run wrote as typed data: one way to parse it, one way to say what is wrong with it.

A broken or edited file is refused with the error class of its kind, naming the file and the first field
its model refused (`first_problem`); nothing is guessed or repaired.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from ..core.errors import OraError

__all__ = ["first_problem", "parse_data", "read_data"]

_Model = TypeVar("_Model", bound=BaseModel)


def first_problem(error: ValidationError) -> str:
    """The first field a validation refused, and why, in one line."""
    first = error.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or "(the whole file)"
    return f"field {field}: {first['msg']}"


def parse_data(text: str, model: type[_Model], error: type[OraError], what: str) -> _Model:
    """`text` as `model`; `error` saying it is not `what`, naming the first bad field."""
    try:
        return model.model_validate_json(text)
    except ValidationError as problem:
        raise error(f"not {what}: {first_problem(problem)}") from None


def read_data(path: Path, parse: Callable[[str], _Model], error: type[OraError]) -> _Model:
    """The file at `path` through `parse`; `error` naming the file when it cannot be read or parsed."""
    try:
        return parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as problem:
        raise error(f"{path}: cannot read the machine-written data ({problem})") from None
    except error as problem:
        raise error(f"{path}: {problem}") from None
