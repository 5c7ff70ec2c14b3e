"""The fenced code blocks of the documentation, the markers before one (`<!-- not run: why -->`, `<!-- file: NAME -->`,
`<!-- continues -->`), and a clean copy of the repository to run them in."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELL = frozenset({"bash", "sh", "shell", "console"})
PYTHON = frozenset({"python", "py"})
_OPEN = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)[^`]*$")
_MARKER = re.compile(r"^\s*<!--\s*(?P<kind>not run|file|continues)\b:?(?P<value>.*?)-->\s*$")
_COMMAND = re.compile(r"^\s*(\$ |python3? -m |pytest\b|pip install\b)")
_PLACEHOLDER = re.compile(r"=\.\.\.(\s|$)|PATH/TO")
_LIST_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts, its language, its code, and why it is not run (None: it is run)."""

    page: str
    line: int
    language: str
    code: str
    not_run: str | None
    file: str | None = None
    """`<!-- file: NAME -->`: the block is the text of a file NAME the page's later blocks use (written there first)."""
    continues: bool = False
    """`<!-- continues -->`: the block runs after the page's run block before it, in the same shell and directory."""

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.language in SHELL | PYTHON

    @property
    def run(self) -> bool:
        """Whether the doc-examples test runs it as a command (a file block is written, not run)."""
        return self.runnable and self.not_run is None and self.file is None


def doc_pages(root: Path = ROOT) -> list[Path]:
    """README.md and every page under docs/, in a stable order."""
    pages = [root / "README.md"] if (root / "README.md").is_file() else []
    return pages + sorted((root / "docs").rglob("*.md"))


def blocks(text: str, page: str) -> list[Block]:
    """Every fenced block of a Markdown text, with the `<!-- not run: reason -->` line right before it (blank lines
    between are allowed)."""
    lines = text.splitlines()
    found = []
    index = 0
    while index < len(lines):
        opening = _OPEN.match(lines[index])
        if not opening:
            index += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        start = index
        body = []
        index += 1
        while index < len(lines) and not re.match(
            rf"^[ \t]*{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", lines[index]
        ):
            body.append(lines[index][indent:] if lines[index][:indent].strip() == "" else lines[index])
            index += 1
        index += 1
        markers: dict[str, str] = {}
        before = start - 1
        while before >= 0 and (not lines[before].strip() or _MARKER.match(lines[before])):
            marker = _MARKER.match(lines[before])
            if marker:
                markers.setdefault(marker["kind"], marker["value"].strip())
            before -= 1
        found.append(
            Block(
                page=page,
                line=start + 1,
                language=opening["info"].lower(),
                code="\n".join(body) + "\n",
                not_run=markers.get("not run"),
                file=markers.get("file"),
                continues="continues" in markers,
            )
        )
    return found


def indented_blocks(text: str, page: str) -> list[str]:
    """page:line of each indented code block outside the fences (a block that cannot name its language nor be run):
    lines indented 4 spaces or more after a blank line, not a list item's continuation."""
    lines = text.splitlines()
    fenced = {
        line for block in blocks(text, page) for line in range(block.line, block.line + block.code.count("\n") + 2)
    }
    found = []
    previous = ""  # the last non-blank line not indented as code
    for number, line in enumerate(lines, start=1):
        if number in fenced or not line.strip():
            continue
        indented = line.startswith(("    ", "\t"))
        if (
            indented
            and not lines[number - 2].strip()
            and not _LIST_ITEM.match(previous)
            and not previous.startswith(" ")
        ):
            found.append(f"{page}:{number}")
        if not indented:
            previous = line
    return found


def chain(page_blocks: list[Block], block: Block) -> list[Block]:
    """The blocks to run, in order, for `block`: the run blocks it continues (`<!-- continues -->`), then itself."""
    earlier = [b for b in page_blocks if b.run and b.line < block.line]
    if block.continues and earlier:
        return [*chain(page_blocks, earlier[-1]), block]
    return [block]


def files_before(page_blocks: list[Block], block: Block) -> dict[str, str]:
    """The files the page's `<!-- file: NAME -->` blocks above `block` hold, by name (a later one replaces one)."""
    return {b.file: b.code for b in page_blocks if b.file and b.line < block.line}


def problems(page_blocks: list[Block]) -> list[str]:
    """What keeps a page's blocks from being either run or marked with a reason, one line per block."""
    found = []
    for number, block in enumerate(page_blocks):
        if not block.language:
            found.append(f"{block.where}: no language (say bash, python, text, ...)")
        if block.not_run == "":
            found.append(f"{block.where}: `<!-- not run: -->` without a reason")
        if not block.runnable and _COMMAND.match(block.code):
            found.append(
                f"{block.where}: a command fenced as {block.language!r}: fence it as bash (or console) to run it"
            )
        if block.file is not None and (
            not block.file or not any(block.file in b.code for b in page_blocks[number + 1 :] if b.run)
        ):
            found.append(f"{block.where}: `<!-- file: {block.file} -->` that no later run block of the page uses")
        if block.continues and not any(b.run for b in page_blocks[:number]):
            found.append(f"{block.where}: `<!-- continues -->` with no run block before it")
        if block.run and _PLACEHOLDER.search(shell_code(block) if block.language in SHELL else block.code):
            found.append(f"{block.where}: a placeholder (`=...`, PATH/TO) to fill in: mark it <!-- not run: why -->")
    return found


def shell_code(block: Block) -> str:
    """A shell block as a script: a `console` block's `$ ` lines (its output lines left out), else the block itself."""
    if block.language != "console":
        return block.code
    return "\n".join(line[2:] for line in block.code.splitlines() if line.startswith("$ ")) + "\n"


def clean_copy(target: Path, root: Path = ROOT) -> Path:
    """The files git tracks in `root`, as they are in the work tree, copied under `target` (a fresh clone's tree)."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], check=True, capture_output=True, text=True
    ).stdout.split("\0")
    for name in filter(None, listed):
        source = root / name
        if not source.is_file():  # deleted in the work tree, not yet in the index
            continue
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / name)
    return target


def link_tree(source: Path, target: Path) -> Path:
    """`target` as a tree of fresh directories whose files are hard links to `source`'s (not symbolic links, which a
    bundle refuses): what a command adds lands in `target`, and `source`'s files are shared by every such tree, so a
    command must not change a file in place (`fingerprint` tells)."""
    for directory, _subdirectories, names in os.walk(source):
        relative = Path(directory).relative_to(source)
        (target / relative).mkdir(parents=True, exist_ok=True)
        for name in names:
            os.link(Path(directory) / name, target / relative / name)
    return target


def fingerprint(root: Path) -> dict[str, tuple[int, int]]:
    """Each file under `root` with its size and modification time, to see later whether any was changed."""
    return {
        str(path.relative_to(root)): (path.stat().st_size, path.stat().st_mtime_ns)
        for path in root.rglob("*")
        if path.is_file()
    }


def offline_env(**extra: str) -> dict[str, str]:
    """This environment without any API key or credential variable, nor the variables of the pytest running the
    test (an xdist worker's among them), so a command runs as a newcomer's would, offline."""
    secret = re.compile(r"(_API_KEY|_TOKEN|_SECRET|_CREDENTIALS|ACCESS_KEY_ID|SECRET_ACCESS_KEY)$|^GOOGLE_APPLICATION")
    env = {
        name: value
        for name, value in os.environ.items()
        if not secret.search(name) and not name.startswith(("PYTEST_", "GITHUB_")) and name != "COV_CORE_SOURCE"
    }
    env.update(extra)
    return env
