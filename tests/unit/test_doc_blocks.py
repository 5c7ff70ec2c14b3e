"""Every code block of README.md and docs/ is either run by tests/e2e/test_doc_examples.py or marked, with a reason;
read from the pages, nothing run."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.docblocks import (
    ROOT,
    blocks,
    chain,
    doc_pages,
    files_before,
    fingerprint,
    indented_blocks,
    link_tree,
    problems,
)

PAGE = """# A page

```bash
echo one > one.txt
```

<!-- not run: needs a real API key -->

```bash
exit 3
```

- in a list:

    <!-- file: check.py -->
    ```python
    import pathlib
    assert pathlib.Path("one.txt").read_text() == "one\\n"
    ```

<!-- continues -->
```console
$ python check.py
ok
```

```text
exit 3
```
"""


def _pages() -> list[tuple[str, str]]:
    return [(path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")) for path in doc_pages()]


def test_when_the_docs_are_read_then_each_block_is_run_or_marked_with_a_reason() -> None:
    found = [problem for name, text in _pages() for problem in problems(blocks(text, name))]
    assert not found, "blocks the doc-examples test can neither run nor leave out:\n" + "\n".join(found)


def test_when_the_docs_are_read_then_no_code_is_an_indented_block() -> None:
    found = [where for name, text in _pages() for where in indented_blocks(text, name)]
    assert not found, f"indented code blocks (fence them, with their language, so they are run or marked): {found}"


def test_when_the_docs_are_read_then_some_blocks_are_run() -> None:
    run = [block.where for name, text in _pages() for block in blocks(text, name) if block.run]
    assert len(run) >= 8, run


def test_when_a_page_is_parsed_then_its_blocks_languages_and_markers_are_read() -> None:
    found = blocks(PAGE, "page.md")
    assert [(b.line, b.language, b.not_run, b.file, b.continues) for b in found] == [
        (3, "bash", None, None, False),
        (9, "bash", "needs a real API key", None, False),
        (16, "python", None, "check.py", False),
        (22, "console", None, None, True),
        (27, "text", None, None, False),
    ]
    assert found[2].code.startswith("import pathlib\n")  # the list's indentation taken off
    assert [b.run for b in found] == [True, False, False, True, False]
    assert problems(found) == []


def test_when_a_block_continues_then_it_runs_after_the_run_block_before_it_with_the_files_above() -> None:
    found = blocks(PAGE, "page.md")
    assert [b.line for b in chain(found, found[3])] == [3, 22]
    assert [b.line for b in chain(found, found[0])] == [3]
    assert files_before(found, found[3]) == {"check.py": found[2].code}


@pytest.mark.parametrize(
    ("page", "problem"),
    [
        ("```\nls\n```\n", "page.md:1: no language (say bash, python, text, ...)"),
        ("<!-- not run: -->\n```bash\nls\n```\n", "page.md:2: `<!-- not run: -->` without a reason"),
        ("```text\npython -m pytest_ora verify out\n```\n", "page.md:1: a command fenced as 'text'"),
        ("```text\n$ pytest\n```\n", "page.md:1: a command fenced as 'text'"),
        ("<!-- file: a.py -->\n```python\nx = 1\n```\n", "page.md:2: `<!-- file: a.py -->` that no later run"),
        ("<!-- continues -->\n```bash\nls\n```\n", "page.md:2: `<!-- continues -->` with no run block before it"),
        ("```bash\nexport OPENAI_API_KEY=...\n```\n", "page.md:1: a placeholder"),
        ("```bash\npytest --ora-bundle=PATH/TO/BUNDLE\n```\n", "page.md:1: a placeholder"),
    ],
)
def test_when_a_block_can_be_neither_run_nor_left_out_then_it_is_named(page: str, problem: str) -> None:
    found = problems(blocks(page, "page.md"))
    assert len(found) == 1 and found[0].startswith(problem), found


def test_when_a_placeholder_is_marked_then_it_is_no_problem() -> None:
    assert problems(blocks("<!-- not run: needs a key -->\n```bash\nexport OPENAI_API_KEY=...\n```\n", "p.md")) == []


def test_when_code_is_indented_instead_of_fenced_then_it_is_found_but_a_list_item_s_paragraph_is_not() -> None:
    page = (
        "Run:\n\n    pytest evals/\n\n- an item\n\n    its second paragraph\n\n```bash\n    indented in a fence\n```\n"
    )
    assert indented_blocks(page, "page.md") == ["page.md:3"]


def test_when_a_file_of_a_linked_tree_is_changed_in_place_then_its_fingerprint_tells(tmp_path: Path) -> None:
    (tmp_path / "copy" / "evals").mkdir(parents=True)
    (tmp_path / "copy" / "evals" / "a.txt").write_text("a\n", encoding="utf-8")
    before = fingerprint(tmp_path / "copy")
    tree = link_tree(tmp_path / "copy", tmp_path / "tree")
    (tree / "evals" / "new.txt").write_text("new\n", encoding="utf-8")  # a new file stays in the tree
    assert fingerprint(tmp_path / "copy") == before
    with open(tree / "evals" / "a.txt", "a", encoding="utf-8") as changed:  # an edit in place reaches the copy
        changed.write("b\n")
    assert fingerprint(tmp_path / "copy") != before
