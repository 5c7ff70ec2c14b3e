"""Every shell command and Python block fenced in README.md and docs/ runs, offline, in a clean copy of the repository
(the shipped sample and examples, the recorded cassettes), or is marked `<!-- not run: why -->` right before its fence.

A page's blocks run in order in one shell, as a reader types them (a `cd` or an `export` carries to the next block);
a Python block runs with `python` from a file in the same directory.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.docblocks import ROOT, Block, blocks, clean_copy, doc_pages, offline_env, shell_code

PAGE_SECONDS = 600
_STARTED = "@@doc-block "


def _script(page_blocks: list[Block], directory: Path) -> str:
    """One bash script running a page's blocks in order, each announced on stderr so a failure names its block."""
    parts = ["set -euo pipefail"]
    for number, block in enumerate(page_blocks):
        parts.append(f"echo {shlex.quote(_STARTED + block.where)} >&2")
        if block.language in {"python", "py"}:
            source = directory / f".doc-block-{number}.py"
            source.write_text(block.code, encoding="utf-8")
            parts.append(f"{shlex.quote(sys.executable)} {shlex.quote(str(source))}")
        else:
            parts.append(shell_code(block))
    return "\n".join(parts) + "\n"


def run_blocks(page_blocks: list[Block], directory: Path) -> tuple[int, str]:
    """(exit status, output) of the page's runnable blocks in `directory`; anything they left running is stopped."""
    venv_bin = str(Path(sys.executable).parent)
    env = offline_env(PATH=venv_bin + os.pathsep + os.environ.get("PATH", ""), CI="true")
    process = subprocess.Popen(
        ["bash", "-c", _script(page_blocks, directory)],
        cwd=directory,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # a server a block starts in the background is stopped with the page's group
    )
    try:
        output, _ = process.communicate(timeout=PAGE_SECONDS)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        output, _ = process.communicate()
        return -1, output + f"\n(timed out after {PAGE_SECONDS} s)"
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
    return process.returncode, output


def failed_block(output: str) -> str:
    """The page:line of the block that was running when the script stopped."""
    started = [line[len(_STARTED) :] for line in output.splitlines() if line.startswith(_STARTED)]
    return started[-1] if started else "(before the first block)"


def _page_blocks() -> list[tuple[str, list[Block]]]:
    pages = []
    for path in doc_pages():
        name = path.relative_to(ROOT).as_posix()
        pages.append((name, blocks(path.read_text(encoding="utf-8"), name)))
    return pages


PAGES = _page_blocks()


def test_when_the_docs_are_read_then_every_fence_names_its_language_and_every_marker_a_reason() -> None:
    unnamed = [block.where for _, found in PAGES for block in found if not block.language]
    assert not unnamed, f"fenced blocks without a language (say bash, python, text, ...): {unnamed}"
    silent = [block.where for _, found in PAGES for block in found if block.not_run == ""]
    assert not silent, f"`<!-- not run: -->` without a reason: {silent}"


@pytest.mark.parametrize(
    "page", [name for name, found in PAGES if any(b.runnable and b.not_run is None for b in found)]
)
def test_when_a_page_shows_commands_then_each_runs_offline_in_a_clean_copy(page: str, tmp_path: Path) -> None:
    to_run = [b for b in dict(PAGES)[page] if b.runnable and b.not_run is None]
    clean_copy(tmp_path)
    status, output = run_blocks(to_run, tmp_path)
    assert status == 0, (
        f"{failed_block(output)} failed (exit {status}); run it, fix it, or mark it "
        f"<!-- not run: why --> right before its fence:\n{output[-4000:]}"
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

    ```python
    import pathlib
    assert pathlib.Path("one.txt").read_text() == "one\\n"
    ```

```text
exit 3
```
"""


def test_when_a_page_is_parsed_then_its_blocks_languages_and_markers_are_read() -> None:
    found = blocks(PAGE, "page.md")
    assert [(b.line, b.language, b.not_run) for b in found] == [
        (3, "bash", None),
        (9, "bash", "needs a real API key"),
        (15, "python", None),
        (20, "text", None),
    ]
    assert found[2].code.startswith("import pathlib\n")  # the list's indentation taken off
    assert [b.runnable for b in found] == [True, True, True, False]


def test_when_unmarked_blocks_run_then_they_share_one_directory_and_a_marked_one_is_left_out(tmp_path: Path) -> None:
    to_run = [b for b in blocks(PAGE, "page.md") if b.runnable and b.not_run is None]
    status, output = run_blocks(to_run, tmp_path)
    assert (status, (tmp_path / "one.txt").read_text()) == (0, "one\n"), output


def test_when_a_block_fails_then_the_page_and_line_of_that_block_are_named(tmp_path: Path) -> None:
    page = "```bash\ntrue\n```\n\n```console\n$ false\nsome output\n```\n\n```bash\ntouch never\n```\n"
    status, output = run_blocks(blocks(page, "page.md"), tmp_path)
    assert (status, failed_block(output)) == (1, "page.md:5")
    assert not (tmp_path / "never").exists()


def test_when_a_block_leaves_a_server_running_then_it_is_stopped_with_the_page(tmp_path: Path) -> None:
    page = "```bash\nsleep 300 &\necho $! > pid\n```\n"
    status, output = run_blocks(blocks(page, "page.md"), tmp_path)
    assert status == 0, output
    status_file = Path("/proc") / (tmp_path / "pid").read_text().strip() / "status"
    deadline = time.monotonic() + 5
    while _alive(status_file) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(status_file)


def _alive(status_file: Path) -> bool:
    """Whether the process runs (a zombie waiting for its reaper does not)."""
    try:
        return "\tZ" not in next(line for line in status_file.read_text().splitlines() if line.startswith("State:"))
    except (FileNotFoundError, ProcessLookupError):
        return False
