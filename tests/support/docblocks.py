"""The fenced code blocks of the documentation, the `<!-- not run: why -->` marker before one, and a clean copy of
the repository to run them in."""

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
_MARKER = re.compile(r"^\s*<!--\s*not run:(?P<reason>.*?)-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced block: where it starts, its language, its code, and why it is not run (None: it is run)."""

    page: str
    line: int
    language: str
    code: str
    not_run: str | None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"

    @property
    def runnable(self) -> bool:
        return self.language in SHELL | PYTHON


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
        before = start - 1
        while before >= 0 and not lines[before].strip():
            before -= 1
        marker = _MARKER.match(lines[before]) if before >= 0 else None
        found.append(
            Block(
                page=page,
                line=start + 1,
                language=opening["info"].lower(),
                code="\n".join(body) + "\n",
                not_run=marker["reason"].strip() if marker else None,
            )
        )
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
