"""What one capture's test does, as the `ora` fixture offers it to an eval suite."""

from __future__ import annotations

from typing import Any

import pytest

from ..core.plan import PlannedCapture
from ..core.record import CaptureRecord

__all__ = ["CaptureTest"]


class CaptureTest:
    """The `ora` fixture: judge this item's capture and keep its record for the ledger."""

    def __init__(self, session: Any, item: pytest.Item, key: pytest.StashKey[Any]) -> None:
        self._session = session
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
        if self._session.options.dry_run:
            estimate = self._session.estimate(planned)
            self._item.stash[self._key] = {"estimate": estimate}
            tokens = sum(judge["input_tokens"] for judge in estimate["judges"])
            pytest.skip(f"{planned.capture.capture_id}: dry run: packet built, about {tokens} input tokens")
        return self._session.run_capture(planned)  # type: ignore[no-any-return]

    def grade(self, planned: PlannedCapture) -> CaptureRecord:
        """judge() by its name for kinds that call no judge (scorecard, python): graded in this process."""
        return self.judge(planned)

    def record(self, record: CaptureRecord) -> None:
        """Hand the record to the controller, which writes the ledger and the tables."""
        self._item.stash[self._key] = {"record": record}
