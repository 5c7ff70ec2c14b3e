"""The package's import graph read from its source: every import, function-level and TYPE_CHECKING ones included.

`python tests/support/import_graph.py` prints its figures (modules, edges, cycles, layer violations).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import tomllib  # type: ignore[import-not-found,unused-ignore]  # Python 3.11+; mypy checks as 3.10

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "pytest_ora"


@dataclass(frozen=True)
class Import:
    """One import statement's target, where it is and whether it runs at module level."""

    source: str
    target: str
    path: Path
    line: int
    where: str
    """"module", "function" or "TYPE_CHECKING"."""

    def location(self, root: Path = ROOT) -> str:
        return f"{self.path.relative_to(root).as_posix()}:{self.line}"


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules(package: Path = PACKAGE) -> dict[str, Path]:
    """Module name -> file, for every module of the package at `package`."""
    return {module_name(path, package.parent): path for path in sorted(package.rglob("*.py"))}


def _resolve(source: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = source.split(".")
    if not is_package:
        base.pop()
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def _known(name: str, known: dict[str, Path]) -> str | None:
    """The longest known module a dotted name starts with (a name imported from a module is not a module)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def _walk(node: ast.AST, where: str) -> Iterator[tuple[ast.AST, str]]:
    """Every node under `node` with where it runs: module level, in a function, or only for the type checker."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
            for part in child.body:
                yield part, "TYPE_CHECKING"
                yield from _walk(part, "TYPE_CHECKING")
            for part in child.orelse:
                yield part, where
                yield from _walk(part, where)
            continue
        inner = "function" if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) else where
        yield child, inner
        yield from _walk(child, inner)


def imports(known: dict[str, Path] | None = None) -> list[Import]:
    """Every import of one package module by another, with its file and line."""
    known = modules() if known is None else known
    found: list[Import] = []
    for source, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node, where in _walk(tree, "module"):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(source, is_package, node.level, node.module)
                # `from package import submodule` imports the submodule; `from module import name` the module
                targets = [f"{base}.{alias.name}" for alias in node.names] or [base]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                targets = [node.args[0].value]
            for name in targets:
                target = _known(name, known)
                if target is not None and target != source:
                    found.append(Import(source, target, path, node.lineno, where))  # type: ignore[attr-defined]
    return found


def external_imports(path: Path, root: Path = ROOT) -> Iterator[tuple[int, str]]:
    """(line, absolute module name) of every import statement of one file, wherever it runs."""
    source = module_name(path, root)
    for node, _ in _walk(ast.parse(path.read_text(encoding="utf-8"), str(path)), "module"):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, _resolve(source, path.name == "__init__.py", node.level, node.module)


def edges(found: list[Import]) -> set[tuple[str, str]]:
    return {(item.source, item.target) for item in found}


# C901: Tarjan's strongly connected components written out in one function, as usually given.
def cycles(names: list[str], links: set[tuple[str, str]]) -> list[list[str]]:  # noqa: C901
    """The strongly connected components of more than one module (Tarjan, iterative)."""
    graph: dict[str, list[str]] = {name: [] for name in names}
    for source, target in sorted(links):
        graph[source].append(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in names:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            children = graph[node]
            if position < len(children):
                work.append((node, position + 1))
                child = children[position]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return found


def layers(pyproject: Path = ROOT / "pyproject.toml") -> list[list[str]]:
    """The import-linter layers contract of pyproject.toml, top layer first, siblings split."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return [[name.strip() for name in line.replace(":", "|").split("|")] for line in contract["layers"]]


def layer_of(module: str, stack: list[list[str]]) -> tuple[int, str] | None:
    """(layer index, the layer's module) a module belongs to, or None when no layer names it."""
    for position, siblings in enumerate(stack):
        for root in siblings:
            if module == root or module.startswith(root + "."):
                return position, root
    return None


def violations(found: list[Import], stack: list[list[str]], root: Path = ROOT) -> list[str]:
    """Every import that reaches up a layer (or sideways between independent siblings), as file:line text."""
    lines = []
    separators = _independent_layers()
    for item in found:
        source, target = layer_of(item.source, stack), layer_of(item.target, stack)
        if source is None or target is None:
            continue
        upward = target[0] < source[0]
        sideways = target[0] == source[0] and target[1] != source[1] and separators.get(source[0], True)
        if upward or sideways:
            how = "up" if upward else "across independent siblings"
            lines.append(f"{item.location(root)}: {item.source} imports {item.target} ({item.where}-level, {how})")
    return sorted(lines)


def _independent_layers(pyproject: Path = ROOT / "pyproject.toml") -> dict[int, bool]:
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    (contract,) = [c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers"]
    return {position: ":" not in line for position, line in enumerate(contract["layers"])}


def main() -> int:
    known = modules()
    found = imports(known)
    links = edges(found)
    loops = cycles(sorted(known), links)
    kinds = {
        where: sum(1 for item in found if item.where == where) for where in ("module", "function", "TYPE_CHECKING")
    }
    print(f"modules {len(known)}  edges {len(links)}  import statements {kinds}")
    print(f"cycles {len(loops)}  modules in cycles {sum(len(loop) for loop in loops)}")
    for loop in loops:
        print(f"  cycle of {len(loop)}: {', '.join(loop)}")
    try:
        stack = layers()
    except KeyError:
        return 0
    bad = violations(found, stack)
    print(f"layer violations {len(bad)}")
    for line in bad:
        print(f"  {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
