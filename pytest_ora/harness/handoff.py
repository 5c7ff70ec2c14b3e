"""The controller's intake handed to xdist workers, so a worker does not read and check the whole bundle again.

Before its intake the controller digests everything intake reads (every file under the bundle
directory, the --ora-rubric file, the options intake takes); after it, the plan is written once
to the run's private directory. Each worker gets the file's path and both digests through
workerinput, digests the same inputs itself, and takes the plan only when both digests match:
a bundle changed since the controller read it (or a worker that cannot see the file, on another
host) makes the worker run its own intake, with its own error messages. The digest is taken
before the controller's intake, so a change while it reads is a mismatch too.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import stat
from pathlib import Path
from typing import Any

import pytest

from ..core.plan import Plan
from .xdist import hand_to_worker, worker_value

__all__ = ["PLAN_KEY", "PlanHandoff", "inputs_digest", "received_plan"]

PLAN_KEY = "ora_plan"
"""workerinput key: the plan file's path, its digest and the digest of intake's inputs, tab-separated."""
_FILE_NAME = "plan.pickle"


def inputs_digest(bundle: Path, arguments: tuple[Any, ...], rubric_file: Path | None) -> str | None:
    """A digest of what intake reads: the bundle's files (paths and bytes), the rubric file, the options.

    None when it cannot be told (a directory reached through a symbolic link, an unreadable file):
    then no plan is handed on and every worker runs its own intake, as without this module.
    """
    digest = hashlib.blake2b(repr(arguments).encode("utf-8"), digest_size=32)
    try:
        if rubric_file is not None:
            _add_file(digest, "\0rubric", rubric_file)
        for directory, subdirectories, files in os.walk(bundle, onerror=_raise):
            subdirectories.sort()
            for name in subdirectories:
                if os.path.islink(os.path.join(directory, name)):
                    return None  # os.walk does not follow it, intake might: not digested, so not handed on
            for name in sorted(files):
                path = os.path.join(directory, name)
                if os.path.islink(path):
                    # Never read through a link the bundle holds (it may lead outside the bundle): no plan
                    # is handed on, and each worker's own intake applies its rules to the link.
                    return None
                _add_file(digest, os.path.relpath(path, bundle), Path(path))
    except OSError:
        return None
    return digest.hexdigest()


def _add_file(digest: Any, name: str, path: Path) -> None:
    status = os.stat(path)  # the --ora-rubric file the user named may be a link; the bundle's files are not (see above)
    digest.update(f"\0{name}\0{stat.S_IFMT(status.st_mode)}\0{status.st_size}\0".encode("utf-8", "surrogateescape"))
    if stat.S_ISREG(status.st_mode):  # never open a FIFO or a device: intake refuses them by type alone
        with open(path, "rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)


def _raise(error: OSError) -> None:
    raise error


class PlanHandoff:
    """In the controller: the intake it ran, with the digest of its inputs, written once for the workers."""

    def __init__(self, plan: Plan, inputs: str) -> None:
        self._plan = plan
        self._inputs = inputs
        self._written: str | None = None

    def configure_node(self, node: Any, directory: Path) -> None:
        """Hand the plan file to a worker before it starts (written on the first worker's turn)."""
        if self._written is None:
            data = pickle.dumps(self._plan, protocol=pickle.HIGHEST_PROTOCOL)
            path = directory / _FILE_NAME
            with open(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as stream:
                stream.write(data)
            self._written = f"{path}\t{hashlib.sha256(data).hexdigest()}\t{self._inputs}"
        hand_to_worker(node, {PLAN_KEY: self._written})


def received_plan(
    config: pytest.Config, bundle: Path, arguments: tuple[Any, ...], rubric_file: Path | None
) -> Plan | None:
    """On a worker: the controller's plan, if it was handed on and this worker reads the same inputs; else None."""
    handed = worker_value(config, PLAN_KEY)
    if not isinstance(handed, str) or handed.count("\t") != 2:
        return None
    path, file_digest, inputs = handed.split("\t")
    if inputs_digest(bundle, arguments, rubric_file) != inputs:
        return None  # the bundle (or an option) is not what the controller read: this worker checks it itself
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if hashlib.sha256(data).hexdigest() != file_digest:
        return None
    plan = pickle.loads(data)  # the file the controller wrote, in its private directory, checked by its digest
    return plan if isinstance(plan, Plan) else None
