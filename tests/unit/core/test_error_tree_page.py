"""The documentation's error tree page shows the tree core/errors.py holds, line for line."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_ora.core import errors

PAGE = Path(__file__).parents[3] / "docs" / "internals" / "errors.md"


def test_the_error_tree_page_shows_the_docstring_s_tree_line_for_line() -> None:
    (shown,) = re.findall(r"```text\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.DOTALL)
    doc = errors.__doc__ or ""
    tree = doc[doc.index("OraError\n") :].rstrip("\n") + "\n"
    assert shown == tree, "docs/internals/errors.md: copy the tree of pytest_ora/core/errors.py's docstring"
