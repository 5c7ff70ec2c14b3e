"""Every shell command and Python block fenced in README.md and docs/ runs, offline, as a reader would run it in a
clone of the repository, or is marked `<!-- not run: why -->` right before its fence (tests/unit/test_doc_blocks.py
checks the marks).

Each block is a test of its own, named by page and line. It runs in its own directory: the files git tracks, copied
once per session (per xdist worker) and hard-linked into the directory, so only what the block writes is fresh; the copy
is checked unchanged after each block. A block marked `<!-- continues -->` runs after the block before it, in the same
shell; a `<!-- file: NAME -->` block is written as NAME for the page's later blocks. Where the machine allows it the
block runs in a network namespace of its own: no network at all, and its own loopback, so the reference judge a block
starts on its documented port meets no other block's (elsewhere such blocks take turns, by a lock file).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from support.docblocks import (
    PYTHON,
    ROOT,
    Block,
    blocks,
    chain,
    clean_copy,
    doc_pages,
    files_before,
    fingerprint,
    link_tree,
    offline_env,
    shell_code,
)

BLOCK_SECONDS = 120
_STARTED = "@@doc-block "
_LOOPBACK = ("127.0.0.1", "localhost", "pytest_ora.testing")


def _script(to_run: list[Block], directory: Path) -> str:
    """One bash script running the blocks in order, each announced on stderr so a failure names its block."""
    parts = ["set -euo pipefail"]
    for number, block in enumerate(to_run):
        parts.append(f"echo {shlex.quote(_STARTED + block.where)} >&2")
        if block.language in PYTHON:
            source = directory / f".doc-block-{number}.py"
            source.write_text(block.code, encoding="utf-8")
            parts.append(f"{shlex.quote(sys.executable)} {shlex.quote(str(source))}")
        else:
            parts.append(shell_code(block))
    return "\n".join(parts) + "\n"


@cache
def _own_network() -> bool:
    """Whether a command can run in a network namespace of its own (unprivileged user namespaces, `ip`)."""
    if not (shutil.which("unshare") and shutil.which("ip")):
        return False
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--net", "ip", "link", "set", "lo", "up"], capture_output=True
    )
    return probe.returncode == 0


@contextlib.contextmanager
def _loopback_turn(to_run: list[Block]) -> Iterator[None]:
    """Without a network namespace, blocks that serve or call on the loopback take turns (one documented port)."""
    if _own_network() or not any(word in block.code for block in to_run for word in _LOOPBACK):
        yield
        return
    with open(Path(tempfile.gettempdir()) / "pytest-ora-doc-blocks.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def run_blocks(to_run: list[Block], directory: Path, seconds: float = BLOCK_SECONDS) -> tuple[int, str]:
    """(exit status, output) of the blocks run in order in `directory`; anything they left running is stopped."""
    venv_bin = str(Path(sys.executable).parent)
    env = offline_env(PATH=venv_bin + os.pathsep + os.environ.get("PATH", ""), CI="true")
    command = ["bash", "-c", _script(to_run, directory)]
    if _own_network():
        command = ["unshare", "--user", "--map-root-user", "--net", "sh", "-c", 'ip link set lo up && exec "$@"', "-"]
        command += ["bash", "-c", _script(to_run, directory)]
    log = directory / ".doc-block.log"  # a file, not a pipe: a server left in the background holds no pipe open
    with _loopback_turn(to_run), open(log, "w") as output:
        process = subprocess.Popen(
            command,
            cwd=directory,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # a server a block starts in the background is stopped with the block's group
        )
        try:
            status = process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            status = -1
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    text = log.read_text(encoding="utf-8", errors="replace")
    return status, text + (f"\n(timed out after {seconds:g} s)" if status == -1 else "")


def failed_block(output: str) -> str:
    """The page:line of the block that was running when the script stopped."""
    started = [line[len(_STARTED) :] for line in output.splitlines() if line.startswith(_STARTED)]
    return started[-1] if started else "(before the first block)"


def _pages() -> dict[str, list[Block]]:
    return {
        path.relative_to(ROOT).as_posix(): blocks(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())
        for path in doc_pages()
    }


PAGES = _pages()
RUN = [block for found in PAGES.values() for block in found if block.run]


@pytest.fixture(scope="session")
def shared_copy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, tuple[int, int]]]:
    """The files git tracks, copied once for every block of this session (or xdist worker), and their fingerprint."""
    copy = clean_copy(tmp_path_factory.mktemp("repository"))
    return copy, fingerprint(copy)


@pytest.mark.parametrize("block", RUN, ids=[block.where for block in RUN])
def test_when_the_docs_show_a_command_then_it_runs_offline_in_a_clone(
    block: Block, shared_copy: tuple[Path, dict[str, tuple[int, int]]], tmp_path: Path
) -> None:
    copy, before = shared_copy
    directory = link_tree(copy, tmp_path / "clone")
    page = PAGES[block.page]
    for name, text in files_before(page, block).items():
        (directory / name).write_text(text, encoding="utf-8")
    started = time.monotonic()
    status, output = run_blocks(chain(page, block), directory)
    assert status == 0, (
        f"{failed_block(output)} failed (exit {status}) after {time.monotonic() - started:.1f} s; run it, fix it, or "
        f"mark it <!-- not run: why --> right before its fence:\n{output[-4000:]}"
    )
    changed = sorted(name for name, stamp in fingerprint(copy).items() if before.get(name) != stamp)
    assert not changed, f"{block.where} changed files of the repository in place (write new files instead): {changed}"


PAGE = """# A page

```bash
echo one > one.txt
```

<!-- file: check.py -->
```python
import pathlib
assert pathlib.Path("one.txt").read_text() == "one\\n"
```

<!-- continues -->
```bash
python check.py
```
"""


def test_when_a_block_continues_then_it_runs_after_the_one_before_with_the_page_s_files(tmp_path: Path) -> None:
    page = blocks(PAGE, "page.md")
    for name, text in files_before(page, page[2]).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    status, output = run_blocks(chain(page, page[2]), tmp_path)
    assert (status, failed_block(output)) == (0, "page.md:14"), output


def test_when_a_block_fails_then_the_page_and_line_of_that_block_are_named(tmp_path: Path) -> None:
    page = "```bash\ntrue\n```\n\n```console\n$ false\nsome output\n```\n\n```bash\ntouch never\n```\n"
    status, output = run_blocks(blocks(page, "page.md"), tmp_path)
    assert (status, failed_block(output)) == (1, "page.md:5")
    assert not (tmp_path / "never").exists()


def test_when_a_block_runs_too_long_then_it_is_stopped_and_said(tmp_path: Path) -> None:
    started = time.monotonic()
    status, output = run_blocks(blocks("```bash\nsleep 60\n```\n", "page.md"), tmp_path, seconds=1)
    assert (status, output.endswith("(timed out after 1 s)")) == (-1, True)
    assert time.monotonic() - started < 30


def test_when_a_block_leaves_a_server_running_then_it_is_stopped_with_the_block(tmp_path: Path) -> None:
    status, output = run_blocks(blocks("```bash\nsleep 300 &\necho $! > pid\n```\n", "page.md"), tmp_path)
    assert status == 0, output
    pid = int((tmp_path / "pid").read_text())  # a network namespace keeps the process ids of this machine
    status_file = Path("/proc") / str(pid) / "status"
    deadline = time.monotonic() + 5
    while _alive(status_file) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(status_file)


def test_when_a_block_serves_on_the_loopback_then_its_next_command_reaches_it(tmp_path: Path) -> None:
    page = '```bash\npython -m http.server 8765 --bind 127.0.0.1 &\nsleep 1\npython -c "' + (
        "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8765/')\"\n```\n"
    )
    status, output = run_blocks(blocks(page, "page.md"), tmp_path)
    assert status == 0, output


def _alive(status_file: Path) -> bool:
    """Whether the process runs (a zombie waiting for its reaper does not)."""
    try:
        return "\tZ" not in next(line for line in status_file.read_text().splitlines() if line.startswith("State:"))
    except (FileNotFoundError, ProcessLookupError):
        return False
