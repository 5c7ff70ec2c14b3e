"""The package's layering (pyproject's import-linter contract), checked with every import counted.

pytest wiring > harness > reports > bundle / judges / stats > method > core: a module imports only from
layers below it. Function-level and TYPE_CHECKING imports count, so a cycle cannot hide inside a function.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from support import import_graph


def test_no_module_imports_upward() -> None:
    # Given every import of the package, function-level and TYPE_CHECKING ones included
    found = import_graph.imports()
    # Then none reaches a layer above its own, nor a sibling it must stay independent of
    bad = import_graph.violations(found, import_graph.layers())
    assert not bad, "imports against pyproject's layers contract:\n" + "\n".join(bad)


def test_the_import_graph_has_no_cycle() -> None:
    known = import_graph.modules()
    loops = import_graph.cycles(sorted(known), import_graph.edges(import_graph.imports(known)))
    assert not loops, "modules that import each other (a cycle):\n" + "\n".join(", ".join(loop) for loop in loops)


def test_every_module_sits_in_a_layer() -> None:
    # A new room outside the contract would escape both checks.
    stack = import_graph.layers()
    loose = [
        name for name in import_graph.modules() if name != "pytest_ora" and import_graph.layer_of(name, stack) is None
    ]
    assert loose == []


def test_the_core_imports_nothing_but_the_standard_library_and_pydantic() -> None:
    allowed = set(sys.stdlib_module_names) | {"pydantic", "typing_extensions", "pytest_ora"}
    known = import_graph.modules()
    outside = []
    for name, path in known.items():
        if not name.startswith("pytest_ora.core"):
            continue
        for line, target in import_graph.external_imports(path):
            if target.split(".")[0] not in allowed or (
                target.startswith("pytest_ora") and not target.startswith("pytest_ora.core")
            ):
                outside.append(f"{path.name}:{line}: {target}")
    assert outside == []


@pytest.mark.parametrize("where", ["module", "function"])
def test_a_planted_upward_import_is_named_with_its_file_and_line(tmp_path: Path, where: str) -> None:
    # Given a copy of the package where the core imports the harness (at module level, or inside a function)
    package = tmp_path / "pytest_ora"
    shutil.copytree(import_graph.PACKAGE, package, ignore=shutil.ignore_patterns("__pycache__"))
    numbers = package / "core" / "numbers.py"
    text = numbers.read_text(encoding="utf-8")
    if where == "module":
        planted = "from ..harness.run import OraRun  # planted\n"
        text = text.replace("__all__", planted + "\n__all__", 1)
    else:
        planted = "    from ..harness.run import OraRun  # planted\n"
        text = text.replace('    """Round an exact', planted + '    """Round an exact', 1)
    numbers.write_text(text, encoding="utf-8")
    line = text.splitlines().index(planted.rstrip("\n")) + 1
    # When the layering is checked
    found = import_graph.imports(import_graph.modules(package))
    bad = import_graph.violations(found, import_graph.layers(), root=tmp_path)
    # Then exactly that import is reported, by file and line
    assert bad == [
        f"pytest_ora/core/numbers.py:{line}: pytest_ora.core.numbers imports pytest_ora.harness.run ({where}-level, up)"
    ]
