"""The per-capture files (packets/, judges/), created by a helper process of the judging process.

A capture has three such files, each indented JSON (the standard library's Python encoder: the C
one cannot indent) created under a temporary name and renamed. A process of its own does the
indenting and the file system's work on another core, never holding the judging threads'
interpreter lock (docs/performance.md has the figures).

The helper runs this file as a script (`python -I -S filewriter.py`: the standard library only,
nothing of the user's environment; so the module imports nothing of the package at its top). It
reads frames from its standard input and writes each file, indented JSON, whole or not at all (a
temporary name, then a rename), with the mode a plain open() would give.
When its input closes it prints the files it could not write, one JSON string each, and exits.
If it cannot be started, or dies, the files are written in this process instead and the ones
lost in the dead helper's pipe are named: nothing is silently dropped.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import struct
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

__all__ = ["DRY_RUN_DIR", "PROGRESS_DIR", "SPEND_DIR", "CaptureFileWriter", "CaptureFiles", "capture_file", "write_all"]

SPEND_DIR = ".ora-spend"
"""Live judge spend of the current run, one file per process (see budget.SpendLog)."""
DRY_RUN_DIR = "dry-run"
"""A dry run's packets: beside the last report, never over it."""
PROGRESS_DIR = ".ora-progress"
"""Live judge calls in flight, one file per process (see judges.inflight.InFlightLog)."""

_HEADER = struct.Struct("<II")
"""A frame: the path's and the data's lengths in bytes, then the path (as the file system spells it) and
the data as compact JSON (ASCII)."""


def capture_file(directory: Path, capture_id: str, suffix: str) -> Path:
    """<directory>/<family>/<technique>/<configuration><suffix> for a capture id (names as file names: core/filenames)."""
    from ..core.filenames import capture_relpath  # here: the helper runs this file alone, outside the package

    return directory / capture_relpath(capture_id, suffix)


class CaptureFiles:
    """One process's per-capture files under an output directory: packets/ and judges/.

    What the processes that run items need of the output directory, without the report's modules
    (an xdist worker never writes a report, and each of them would import those at start-up).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._writer: CaptureFileWriter | None = None

    def write_capture(self, capture_id: str, kind: str, name: str, data: Any) -> None:
        """packets/<id>.json or judges/<id>.<judge>.json, written by the helper process.

        Creating thousands of small files costs more than judging from cassettes; the helper
        overlaps it with the next captures. drain() waits for it and says what failed.
        """
        suffix = f".{name}.json" if name else ".json"
        target = capture_file(self.path / kind, capture_id, suffix)
        if self._writer is None:
            from ..core.fileio import file_mode  # here: the helper runs this file alone, outside the package

            self._writer = CaptureFileWriter(file_mode())
        self._writer.write(target, data)

    def drain(self) -> list[str]:
        """Wait for the per-capture files; the ones that could not be written."""
        if self._writer is None:
            return []
        return self._writer.drain()


class CaptureFileWriter:
    """Writes whole files through a helper process; `drain()` waits and returns the failures."""

    def __init__(self, mode: int) -> None:
        self._mode = mode
        self._helper: subprocess.Popen[bytes] | None = None
        self._started = False
        self._errors: list[str] = []
        self._sent = 0
        self._lock = threading.Lock()  # write() may be called from more than one thread

    def write(self, target: Path, data: Any) -> None:
        """`data` as indented JSON at `target`, the bytes json.dumps(indent=2) gives.

        The process that judges only makes the compact form (the C encoder); the helper indents
        it (the Python encoder, several times slower) on the other core.
        """
        path = os.fsencode(target)
        compact = json.dumps(data).encode("ascii")
        with self._lock:
            helper = self._helper if self._started else self._start()
            if helper is not None and helper.stdin is not None:
                try:
                    write_all(helper.stdin.fileno(), _HEADER.pack(len(path), len(compact)) + path + compact)
                    self._sent += 1
                    return
                except (BrokenPipeError, OSError):
                    self._lost_helper()
            write_whole(path, compact, self._mode, self._errors)

    def drain(self) -> list[str]:
        """Wait until every file is written; the ones that could not be, as `path: reason`."""
        with self._lock:
            helper, self._helper, self._started = self._helper, None, False
            if helper is not None:
                self._errors.extend(_finish(helper, self._sent))
            self._sent = 0
            errors, self._errors = self._errors, []
        return errors

    def _start(self) -> subprocess.Popen[bytes] | None:
        self._started = True
        try:
            self._helper = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__, str(self._mode)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                close_fds=True,
                bufsize=0,  # a frame, a write: none waits in a buffer
                # In a session of its own, out of the terminal's process group: Ctrl-C interrupts pytest, which then closes
                # the helper's input; the helper finishes the files already in its pipe.
                start_new_session=True,
            )
        except OSError:
            self._helper = None  # no interpreter to start: written in this process
        return self._helper

    def _lost_helper(self) -> None:
        helper, self._helper = self._helper, None
        if helper is not None:
            self._errors.extend(_finish(helper, self._sent))
        self._sent = 0


def _finish(helper: subprocess.Popen[bytes], sent: int) -> list[str]:
    """Close the helper's input, read what it could not write; name what a dead helper lost."""
    assert helper.stdin is not None and helper.stdout is not None
    # Closing flushes the last frames: the helper writes them, reports and exits. If it died, what it did not
    # confirm is named below.
    with contextlib.suppress(OSError):
        helper.stdin.close()
    output = helper.stdout.read()
    helper.stdout.close()
    helper.wait()
    errors: list[str] = []
    done = None
    for line in output.decode("utf-8", "replace").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, str):
            errors.append(item)
        elif isinstance(item, int):
            done = item
    if helper.returncode != 0 or done != sent:
        count = sent - (done or 0)
        errors.append(
            f"{count} per-capture file(s) of packets/ or judges/: the process writing them stopped "
            f"(exit status {helper.returncode})"
        )
    return errors


def write_all(descriptor: int, data: bytes) -> None:
    """os.write until every byte is written (a short write is not an error)."""
    view = memoryview(data)
    while view:
        view = view[os.write(descriptor, view) :]


def write_whole(path: bytes, compact: bytes, mode: int, errors: list[str]) -> None:
    """The file at `path` holds the indented form of `compact` JSON, whole; or it is left as it was and `errors` says why."""
    folder, name = os.path.split(path)
    temporary = os.path.join(folder, b".%s.%d.tmp" % (name, os.getpid()))
    try:
        data = (json.dumps(json.loads(compact), indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    except ValueError as error:  # text that UTF-8 cannot hold (a lone surrogate in a judge's reply)
        errors.append(f"{os.fsdecode(path)}: {error}")
        return
    try:
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        except FileNotFoundError:  # a capture's first file makes its directory
            os.makedirs(os.path.dirname(path), exist_ok=True)
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            write_all(descriptor, data)
        finally:
            os.close(descriptor)
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        errors.append(f"{os.fsdecode(path)}: {error.strerror or error}")


def _serve(mode: int) -> int:
    """The helper: frames from stdin until it closes; then the failures and the count, one JSON value a line."""
    # The judging process closes this input when it is done, or when it dies: an interrupt of the
    # whole process group (Ctrl-C, a CI job's cancel) must not lose what is already in the pipe.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    source = sys.stdin.buffer
    errors: list[str] = []
    done = 0
    while True:
        header = source.read(_HEADER.size)
        if len(header) < _HEADER.size:
            break
        path_size, data_size = _HEADER.unpack(header)
        path = source.read(path_size)
        data = source.read(data_size)
        if len(path) < path_size or len(data) < data_size:
            break
        write_whole(path, data, mode, errors)
        done += 1
    out = sys.stdout
    for error in errors:
        out.write(json.dumps(error) + "\n")
    out.write(json.dumps(done) + "\n")
    out.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(_serve(int(sys.argv[1])))
