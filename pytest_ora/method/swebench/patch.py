"""What the scorers read from a unified diff and from a response: files, locations, changed lines, code."""

from __future__ import annotations

import ast
import io
import re
import textwrap
import tokenize
from dataclasses import dataclass, field
from pathlib import PurePosixPath

__all__ = ["Code", "Hunk", "Patch", "parse_patch", "response_code", "syntax_ok"]

_FILE = re.compile(r"^\+\+\+ (?:b/)?(?P<path>\S+)", re.MULTILINE)
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,\d+)? @@ ?(?P<header>.*)$")
_DEF = re.compile(r"\b(?:def|class)\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)")
_DEF_LINE = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+(?P<name>[A-Za-z_][A-Za-z0-9_]*)")
"""A definition on a changed line: the line starts with it (a comment's "this class is used" names nothing)."""
_FENCE = re.compile(r"^```(?P<lang>[A-Za-z0-9_+-]*)[ \t]*\n(?P<body>.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass
class Hunk:
    """One hunk: its file, the new side's first line, the location its header names, its lines."""

    path: str
    start: int
    header: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    new_side: list[str] = field(default_factory=list)
    old_side: list[str] = field(default_factory=list)


@dataclass
class Patch:
    """A unified diff as the scorers read it."""

    hunks: list[Hunk]

    @property
    def files(self) -> list[str]:
        """The changed files, in diff order."""
        return list(dict.fromkeys(hunk.path for hunk in self.hunks))

    @property
    def locations(self) -> list[str]:
        """Functions and classes the diff changes: those its hunk headers name, and those defined on changed lines
        (a line that starts with `def` or `class`, not a word in a comment or a string)."""
        names: list[str] = []
        for hunk in self.hunks:
            names += [match.group("name") for match in _DEF.finditer(hunk.header)][-1:]
            for line in hunk.added + hunk.removed:
                defined = _DEF_LINE.match(line)
                if defined:
                    names.append(defined.group("name"))
        return list(dict.fromkeys(names))

    @property
    def added(self) -> list[str]:
        return [line for hunk in self.hunks for line in hunk.added]

    @property
    def added_code(self) -> list[str]:
        """The added lines that are code: comment-only lines (`# ...`) left out, unless the patch adds nothing else."""
        code = [line for line in self.added if not line.strip().startswith("#")]
        return code if any(line.strip() for line in code) else self.added

    @property
    def changed(self) -> int:
        """Non-blank added and removed lines."""
        return sum(1 for hunk in self.hunks for line in hunk.added + hunk.removed if line.strip())


def parse_patch(text: str) -> Patch:
    """The hunks of a unified diff (git's or plain `---`/`+++` headers); anything else is skipped."""
    hunks: list[Hunk] = []
    path = ""
    current: Hunk | None = None
    for line in text.splitlines():
        if line.startswith("+++ "):
            found = _FILE.match(line)
            path = found.group("path") if found else ""
            current = None
            continue
        if line.startswith(("--- ", "diff --git ", "index ")):
            current = None
            continue
        header = _HUNK.match(line)
        if header:
            current = Hunk(path, int(header.group("start")), header.group("header"))
            hunks.append(current)
            continue
        if current is None:
            continue
        if line.startswith("+"):
            current.added.append(line[1:])
            current.new_side.append(line[1:])
        elif line.startswith("-"):
            current.removed.append(line[1:])
            current.old_side.append(line[1:])
        elif line.startswith(" ") or line == "":
            current.new_side.append(line[1:])
            current.old_side.append(line[1:])
    return Patch(hunks)


@dataclass
class Code:
    """The code a response proposes: its diffs (parsed) and its other code blocks (by language)."""

    diffs: list[Patch]
    blocks: list[tuple[str, str]]

    @property
    def lines(self) -> list[str]:
        """Every proposed line: a diff's added lines, every line of the other blocks."""
        lines = [line for patch in self.diffs for line in patch.added]
        return lines + [line for _, body in self.blocks for line in body.splitlines()]

    def lines_for(self, files: list[str]) -> list[str]:
        """The proposed lines that may carry a fix to `files`: the added lines of diff hunks of one of them (same
        path, or same file name), every line of the other blocks (they name no file)."""
        names = {PurePosixPath(path).name for path in files}
        lines = [
            line
            for patch in self.diffs
            for hunk in patch.hunks
            if hunk.path in files or PurePosixPath(hunk.path).name in names
            for line in hunk.added
        ]
        return lines + [line for _, body in self.blocks for line in body.splitlines()]

    @property
    def changed(self) -> int:
        """Proposed non-blank lines: a diff's added and removed lines, the other blocks' lines."""
        return sum(patch.changed for patch in self.diffs) + sum(
            1 for _, body in self.blocks for line in body.splitlines() if line.strip()
        )

    @property
    def empty(self) -> bool:
        return not self.diffs and not self.blocks


def response_code(text: str) -> Code:
    """Fenced blocks of a response: `diff`/`patch` blocks, or blocks that read as a diff, are diffs; the rest code.

    A response with no fenced block but a bare unified diff (a `diff --git` or `@@` line) is read as that diff.
    """
    diffs: list[Patch] = []
    blocks: list[tuple[str, str]] = []
    for match in _FENCE.finditer(text):
        lang, body = match.group("lang").lower(), match.group("body")
        if lang in ("diff", "patch") or re.search(r"^(?:diff --git |@@ -\d)", body, re.MULTILINE):
            parsed = parse_patch(body)
            if parsed.hunks:
                diffs.append(parsed)
                continue
        blocks.append((lang, body))
    if not diffs and not blocks and re.search(r"^(?:diff --git |@@ -\d)", text, re.MULTILINE):
        parsed = parse_patch(text)
        if parsed.hunks:
            diffs.append(parsed)
    return Code(diffs, blocks)


def syntax_ok(code: Code) -> bool | None:
    """Whether the proposed Python is syntactically correct; None when there is no Python to check.

    A Python block (```python / ```py, or unlabeled) must parse once dedented. A diff hunk of a `.py`
    file: its new side must parse when dedented; a hunk is a fragment, so when its old side does not
    parse either, the new side must keep the old side's bracket balance and tokenize as well as it.
    """
    checked = False
    for lang, body in code.blocks:
        if lang not in ("python", "py", ""):
            continue
        checked = True
        if not _parses(body):
            return False
    for patch in code.diffs:
        for hunk in patch.hunks:
            if not hunk.path.endswith(".py"):
                continue
            checked = True
            new, old = "\n".join(hunk.new_side), "\n".join(hunk.old_side)
            if _parses(new):
                continue
            if _parses(old) or _balance(new) != _balance(old) or _tokenizes(new) < _tokenizes(old):
                return False
    return True if checked else None


def _parses(text: str) -> bool:
    try:
        ast.parse(textwrap.dedent(text))
    except (SyntaxError, ValueError):
        return False
    return True


def _balance(text: str) -> int:
    """Open brackets minus closing ones, outside strings and comments."""
    total = 0
    for kind, value in _tokens(text)[0]:
        if kind == tokenize.OP:
            total += value in "([{"
            total -= value in ")]}"
    return total


def _tokenizes(text: str) -> bool:
    """Whether the text tokenizes: no unterminated string, no error token (an unclosed bracket is a fragment's)."""
    return not _tokens(text)[1]


def _tokens(text: str) -> tuple[list[tuple[int, str]], bool]:
    """The tokens read, and whether the tokenizer met an error other than the fragment's end inside brackets."""
    found: list[tuple[int, str]] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(textwrap.dedent(text)).readline):
            if token.type == tokenize.ERRORTOKEN:
                return found, True
            found.append((token.type, token.string))
    except tokenize.TokenError as error:
        return found, "multi-line statement" not in str(error)
    except (IndentationError, SyntaxError):
        return found, True
    return found, False
