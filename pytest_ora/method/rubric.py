"""The scoring definition as versioned data: criteria, weights, scale, cap, failure, votes, verdicts.

Every number of the method lives in a rubric file (YAML) and nowhere else. A
change to any of them is a new version with a new line in its append-only history; the file's
digest is checked against that line, and reports name the version and digest that produced them.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path

from ..core.errors import utf8_error_at
from ..core.rubric import Rubric, RubricError
from .rubric_file import parse_rubric

__all__ = [
    "ORA_V1",
    "builtin_ids",
    "check_not_builtin",
    "get_rubric",
    "load_rubric",
    "resolve_rubric",
]

DEFAULT_RUBRIC = "ora-1.0"


# --- files ----------------------------------------------------------------------------------


def builtin_ids() -> tuple[str, ...]:
    """The ids of the rubrics shipped in the package."""
    folder = resources.files("pytest_ora.method").joinpath("rubrics")
    return tuple(sorted(entry.name.removesuffix(".yaml") for entry in folder.iterdir() if entry.name.endswith(".yaml")))


def builtin_text(version: str) -> str:
    """A built-in rubric file's text."""
    if version not in builtin_ids():
        raise RubricError(
            "rubric", f"unknown rubric {version!r}; built-ins: {', '.join(builtin_ids())}, or give a file path"
        )
    return (
        resources.files("pytest_ora.method").joinpath("rubrics").joinpath(f"{version}.yaml").read_text(encoding="utf-8")
    )


@functools.lru_cache(maxsize=32)
def get_rubric(version: str) -> Rubric:
    """The built-in rubric of that version."""
    return _parse(builtin_text(version), f"builtin:{version}", f"rubric {version}")


def load_rubric(path: Path) -> Rubric:
    """A rubric file from disk, checked."""
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise RubricError(
            str(path),
            "does not exist (a rubric is a built-in id or a YAML file; "
            "python -m pytest_ora rubric list names the built-ins)",
        ) from None
    except OSError as error:
        raise RubricError(str(path), f"cannot read the rubric file ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise RubricError(
            str(path), f"is not UTF-8 at {utf8_error_at(data, error)}; save the rubric file as UTF-8"
        ) from None
    return _parse(text, str(path), str(path))


def resolve_rubric(reference: str, base: Path) -> Rubric:
    """An id of a built-in, or a path (relative to base) of a rubric file."""
    if reference in builtin_ids():
        return get_rubric(reference)
    candidate = Path(reference)
    if not candidate.is_absolute():
        candidate = base / candidate
    if reference.endswith((".yaml", ".yml")) or candidate.is_file():
        return load_rubric(candidate)
    raise RubricError(
        "rubric", f"unknown rubric {reference!r}; built-ins: {', '.join(builtin_ids())}, or give a file path"
    )


def _parse(text: str, source: str, where: str) -> Rubric:
    rubric = parse_rubric(text, source, where)
    if not source.startswith("builtin:"):
        check_not_builtin(rubric, where)
    return rubric


def check_not_builtin(rubric: Rubric, where: str) -> None:
    """A file may not take a built-in's id with other content: every output would cite that built-in."""
    if rubric.version in builtin_ids() and get_rubric(rubric.version).digest != rubric.digest:
        raise RubricError(
            where,
            f"calls itself {rubric.version}, the id of a built-in rubric, but its content differs from it (digest "
            f"{rubric.digest}, the built-in's {get_rubric(rubric.version).digest}): give the file its own id and history",
        )


ORA_V1: Rubric = get_rubric(DEFAULT_RUBRIC)
"""The default rubric (ora-1.0), the one the Ora judging method defines."""
