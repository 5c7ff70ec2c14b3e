"""What one capture's test does, as the `ora` fixture offers it to an eval suite."""

from __future__ import annotations

from typing import Any

import pytest

from ..core.errors import OraError
from ..core.plan import PlannedCapture
from ..core.record import CaptureRecord
from .worker import OraWorker

__all__ = ["CaptureTest"]


class CaptureTest:
    """The `ora` fixture: judge this item's capture and keep its record for the ledger."""

    def __init__(self, worker: OraWorker, item: pytest.Item, key: pytest.StashKey[Any]) -> None:
        self._worker = worker
        self._item = item
        self._key = key

    def skip_unless_scorable(self, planned: PlannedCapture) -> None:
        """Excluded and unscorable captures are skipped with their reason, never judged."""
        if planned.status != "judge":
            pytest.skip(f"{planned.capture.capture_id}: {planned.status}: {planned.reason}")

    def judge(self, planned: PlannedCapture) -> CaptureRecord:
        """Build the packet, call every judge of the panel concurrently, validate, score exactly.

        With --ora-dry-run the packet is built and the call estimated instead, and the test skips.
        """
        if self._worker.options.dry_run:
            estimate = self._worker.estimate(planned)
            self._item.stash[self._key] = {"estimate": estimate}
            tokens = sum(judge["input_tokens"] for judge in estimate["judges"])
            pytest.skip(f"{planned.capture.capture_id}: dry run: packet built, about {tokens} input tokens")
        try:
            return self._worker.run_capture(planned)
        except OraError as error:
            # Its failure text is the capture's own line (worker.py), never a traceback: without this, pytest
            # parsed the source of every frame down through httpx and asyncio, about 2 s for each failed capture.
            raise error.with_traceback(None) from None

    def grade(self, planned: PlannedCapture) -> CaptureRecord:
        """judge() by its name for kinds that call no judge (scorecard, python): graded in this process."""
        return self.judge(planned)

    def record(self, record: CaptureRecord) -> None:
        """Hand the record to the controller, which writes the ledger and the tables."""
        self._item.stash[self._key] = {"record": record}
