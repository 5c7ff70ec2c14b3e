"""Python candidates: `module:function`, importable from the suite's directory, sync or async."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import importlib
import inspect
import sys
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any

from ...core.candidates import CandidateSpec
from .answer import CandidateAnswer, CandidateFailure, answer_from_output

__all__ = ["call_python"]


def _function(target: str, suite: Path) -> Callable[..., Any]:
    module_name, _, name = target.partition(":")
    if str(suite) not in sys.path:
        sys.path.insert(0, str(suite))
    try:
        module = importlib.import_module(module_name)
    except Exception as error:
        raise CandidateFailure(
            f"cannot import {module_name} from {suite.name}/: {type(error).__name__}: {error}"
        ) from None
    function = getattr(module, name, None)
    if not callable(function):
        raise CandidateFailure(f"{target}: {module_name} has no function {name}")
    return function  # type: ignore[no-any-return]


async def call_python(
    spec: CandidateSpec, request: dict[str, Any], suite: Path, threads: Executor | None = None
) -> CandidateAnswer:
    """The function's answer; CandidateFailure when it raises or returns no answer.

    A sync function runs in `threads` (else the loop's default executor), with the caller's context, as
    `asyncio.to_thread` runs it."""
    assert spec.python is not None
    function = _function(spec.python, suite)
    try:
        if inspect.iscoroutinefunction(function):
            output = await function(dict(request))
        else:
            context = contextvars.copy_context()
            call = functools.partial(context.run, function, dict(request))
            output = await asyncio.get_running_loop().run_in_executor(threads, call)
            if inspect.isawaitable(output):
                output = await output
    except Exception as error:  # the user's function failed: an operational failure of this capture
        raise CandidateFailure(f"{spec.python} raised {type(error).__name__}: {error}") from None
    return answer_from_output(output, spec, default_model=f"python:{spec.python}")
