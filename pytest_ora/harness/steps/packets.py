"""The packet step: the kind's packets for one item, refused when they hold a key, written, sized to the judges."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...core.errors import OraError
from ...core.models import Capture
from ...core.plan import PlannedCapture
from ...judges.contextwindows import over_window
from ...judges.packet import Packet, build_packet, judge_prompt, packet_fields
from ...judges.panel import Judging
from ...judges.providers.base import JudgePrompt
from ...method.kinds import item_shape
from .files import CaptureFiles, write_packets
from .spend import NotJudged

__all__ = ["ItemPackets", "OverContextWindow", "checked", "item_packets", "packets_for"]


class OverContextWindow(NotJudged):
    """The packet is larger than a judge's context window: unscorable, never sent."""


@dataclass(frozen=True)
class ItemPackets:
    """One item's packets (tag, packet, image), each one's first ask, and the fields a cassette expects."""

    packets: list[tuple[str, Packet, bytes | None]]
    prompts: list[JudgePrompt]

    def fields(self) -> dict[str, Any]:
        """One packet's fields, or each packet's (compare: both orders) under its tag."""
        if len(self.packets) == 1:
            return packet_fields(self.packets[0][1])
        return {tag: packet_fields(packet) for tag, packet, _ in self.packets}


def packets_for(planned: PlannedCapture, root: Path, judging: Judging) -> list[tuple[str, Packet, bytes | None]]:
    """The kind's packets for one item, each checked for a configured key's value."""
    rubric = judging.rubric
    built = item_shape(rubric.kind).packets(planned, root, rubric, build_packet)
    return [(tag, *checked(planned.capture, packet, image, judging)) for tag, packet, image in built]


def item_packets(planned: PlannedCapture, root: Path, judging: Judging, output: CaptureFiles | None) -> ItemPackets:
    """The item's packets, each written (unless output is None) then sized: one larger than a judge's window is never sent."""
    capture_id = planned.capture.capture_id
    packets = packets_for(planned, root, judging)
    prompts = []  # each packet's first ask, built once: sized here, sent by every judge
    for tag, packet, image in packets:
        write_packets(output, capture_id, [(tag, packet)])
        prompt = judge_prompt(packet, image, judging.rubric, cache=judging.prompt_cache)
        too_large = over_window(judging.panel, prompt)
        if too_large is not None:
            raise OverContextWindow(capture_id, too_large)
        prompts.append(prompt)
    return ItemPackets(packets, prompts)


def checked(capture: Capture, packet: Packet, image: bytes | None, judging: Judging) -> tuple[Packet, bytes | None]:
    """The packet, unless the bundle's own text or artifact holds a configured key's value."""
    text = packet.model_dump_json().encode("utf-8")
    for secret in judging.secrets():
        value = str.__str__(secret).encode("utf-8")
        if value in text or (image is not None and value in image):
            raise OraError(
                f"the packet of {capture.capture_id} holds the value of a configured API key (in the bundle's "
                "own text or artifact); it is neither sent to a judge nor written: remove the key from the bundle"
            )
    return packet, image
