"""One test per capture of the bundle named by --ora-bundle (or the ora_bundle ini key)."""

from __future__ import annotations

from typing import Any

from pytest_ora import PlannedCapture


def test_capture(ora_capture: PlannedCapture, ora: Any) -> None:
    # Excluded and unscorable captures skip with their reason; the rest are judged by both judges.
    ora.skip_unless_scorable(ora_capture)
    ora.record(ora.judge(ora_capture))
