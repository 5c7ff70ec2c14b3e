"""The worker: what it does around pytest's test loop."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from pytest_ora.harness.worker import OraWorker


class _Runner:
    """Stands in for the capture runner: counts the closes, reports one file that could not be written."""

    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> list[str]:
        self.closed += 1
        return ["judges/mode/x/a.judge.json: No space left on device"]


def test_the_worker_waits_for_its_files_once_its_items_have_run(capsys: pytest.CaptureFixture[str]) -> None:
    """Before: the per-capture files were waited for after the session end, which in a run without -n renders
    checklist.md from judges/ and packets/ in the same process. Now the end of the test loop waits for them."""
    worker = OraWorker(SimpleNamespace(config=None, options=None))  # type: ignore[arg-type]
    runner = _Runner()
    worker._runner = runner  # type: ignore[assignment]
    loop: Any = worker.pytest_runtestloop(session=None)  # type: ignore[arg-type]

    next(loop)  # the items run
    assert runner.closed == 0
    with pytest.raises(StopIteration) as done:
        loop.send(True)  # they have run

    assert done.value.value is True and runner.closed == 1
    assert "ora: could not write judges/mode/x/a.judge.json: No space left on device" in capsys.readouterr().err
    worker.close()  # the session end's close: nothing is left to wait for
    assert runner.closed == 1
