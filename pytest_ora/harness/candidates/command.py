"""Command candidates: a real subprocess, the request as JSON on stdin, the answer on stdout."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...core.candidates import CandidateSpec
from .answer import CandidateAnswer, CandidateFailure, answer_from_output

__all__ = ["call_command"]

_STDERR_KEPT = 2000
"""Characters of a failed command's stderr kept in the reason (its end, where the error usually is)."""


async def call_command(
    spec: CandidateSpec,
    request: dict[str, Any],
    suite: Path,
    redact: Callable[[str], str],
) -> CandidateAnswer:
    """The command's answer (plain text, or the answer object as JSON); CandidateFailure on exit, timeout or bad output.

    `redact` takes a text and returns it with every configured credential removed."""
    assert spec.command is not None
    argv = list(spec.command)
    try:
        process = await asyncio.create_subprocess_exec(
            *argv,
            cwd=suite,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=dict(os.environ),
        )
    except OSError as error:
        raise CandidateFailure(f"cannot start {argv[0]}: {error.strerror or error}") from None
    payload = json.dumps(request, ensure_ascii=False).encode("utf-8")
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(payload), timeout=spec.timeout_s)
    except asyncio.TimeoutError:  # TimeoutError itself from Python 3.11
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        raise CandidateFailure(f"{argv[0]} did not answer within timeout_s {spec.timeout_s:g}") from None
    err = redact(stderr.decode("utf-8", "replace"))[-_STDERR_KEPT:].strip()
    if process.returncode != 0:
        raise CandidateFailure(f"{argv[0]} exited with code {process.returncode}" + (f"; stderr: {err}" if err else ""))
    try:
        text = stdout.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CandidateFailure(f"{argv[0]} printed output that is not UTF-8 (byte {error.start})") from None
    output: Any = text[:-1] if text.endswith("\n") else text
    stripped = text.strip()
    if stripped.startswith("{"):
        with contextlib.suppress(ValueError):  # plain text that starts with a brace
            output = json.loads(stripped)
    return answer_from_output(output, spec, default_model=f"command:{argv[0]}")
