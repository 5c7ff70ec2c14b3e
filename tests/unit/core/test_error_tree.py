"""The error tree in core/errors.py lists every exception class of the package, under its base."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import pytest_ora
from pytest_ora.core import errors
from pytest_ora.core.errors import OraError

_ENTRY = re.compile(r"^(?:\W*[├└]── )?(\w+)(?: \(([\w.]+)\))?(?:  |\s*$| \+)")


def _listed() -> tuple[dict[tuple[str, str], str], set[tuple[str, str]]]:
    """The tree's entries: (module, class) -> the parent listed; and the entries outside the base."""
    doc = errors.__doc__ or ""
    inside, _, outside = doc.partition("Outside the base")
    listed: dict[tuple[str, str], str] = {}
    foreign: set[tuple[str, str]] = set()
    for part, into_base in ((inside, True), (outside, False)):
        for line in part.splitlines():
            match = _ENTRY.search(line)
            if match is None:
                continue
            module = "pytest_ora." + match.group(2) if match.group(2) else errors.__name__
            listed[(module, match.group(1))] = line
            if not into_base:
                foreign.add((module, match.group(1)))
    return listed, foreign


def _package_exceptions() -> dict[tuple[str, str], type[BaseException]]:
    found: dict[tuple[str, str], type[BaseException]] = {}
    for info in pkgutil.walk_packages(pytest_ora.__path__, "pytest_ora."):
        if info.name.endswith("__main__"):
            continue  # importing it runs the command line; it defines no exception class
        try:
            module = importlib.import_module(info.name)
        except ImportError:  # an optional extra not installed: its module cannot define a class here
            continue
        for name, value in vars(module).items():
            if inspect.isclass(value) and issubclass(value, BaseException) and value.__module__ == info.name:
                found[(info.name, name)] = value
    return found


def test_when_the_package_is_walked_then_every_exception_class_is_in_the_listed_tree() -> None:
    listed, _ = _listed()
    missing = sorted(f"{module}:{name}" for module, name in _package_exceptions() if (module, name) not in listed)
    assert not missing, f"exception classes not in the tree of core/errors.py: {missing}"


def test_when_the_tree_lists_a_class_then_it_exists_where_it_says() -> None:
    listed, _ = _listed()
    found = _package_exceptions()
    stale = sorted(f"{module}:{name}" for module, name in listed if (module, name) not in found)
    assert not stale, f"the tree of core/errors.py lists classes that do not exist: {stale}"


def test_when_a_class_is_in_the_tree_then_it_is_under_the_base_unless_listed_outside_it() -> None:
    _, foreign = _listed()
    outside = sorted(
        f"{module}:{name}"
        for (module, name), cls in _package_exceptions().items()
        if not issubclass(cls, OraError) and (module, name) not in foreign
    )
    assert not outside, f"exception classes outside OraError: {outside}"


@pytest.mark.parametrize("name", ["RubricError", "StrictJsonError", "BundlePathError", "PngTextError"])
def test_when_a_class_keeps_value_error_as_second_base_then_both_catch_it(name: str) -> None:
    cls = {key[1]: value for key, value in _package_exceptions().items()}[name]
    assert issubclass(cls, OraError)
    assert issubclass(cls, ValueError)
