"""The files step: a capture's packets and judges' replies, each written under the output directory as made."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...judges.packet import Packet, packet_json
from ...reports.filewriter import CaptureFiles

__all__ = ["CaptureFiles", "write_judges", "write_packets"]


def write_packets(output: CaptureFiles | None, capture_id: str, packets: Sequence[tuple[str, Packet]]) -> None:
    """Each packet, under its tag (compare: both orders), before any judge is asked; None writes nothing (a judgment)."""
    if output is None:
        return
    for tag, packet in packets:
        output.write_capture(capture_id, "packets", tag, packet_json(packet))


def write_judges(output: CaptureFiles, capture_id: str, judges: Sequence[Any]) -> None:
    """Each judge's checked reply, under its slot."""
    for judge in judges:
        output.write_capture(capture_id, "judges", judge["slot"], dict(judge))
