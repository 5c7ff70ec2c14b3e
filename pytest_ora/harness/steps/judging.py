"""The judges step: every judge of the panel answers each packet, under the capture's cassette."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from ...core.plan import JudgeSlot
from ...core.record import JudgeRecord
from ...judges.cassettes import CassetteLibrary
from ...judges.panel import CaptureCall, Judging, judge_packet
from .packets import ItemPackets

__all__ = ["Replies", "ask_judges"]


@dataclass(frozen=True)
class Replies:
    """Each packet's judges' records (packets order, then panel order), and how many calls replay served."""

    per_packet: list[list[JudgeRecord]]
    replayed: int


async def ask_judges(
    capture_id: str, item: ItemPackets, judging: Judging, cassettes: CassetteLibrary, client: httpx.AsyncClient,
) -> Replies:
    """Ask the panel; the cassette is saved once every reply is valid (each valid one kept as it comes)."""
    # Under the capture's lock when it may be recorded: another run on the same cassettes
    # directory waits here, then replays what this one recorded instead of paying again.
    async with cassettes.hold(capture_id):
        cassette = cassettes.open(capture_id)
        cassette.expect(item.fields())
        valid: list[str] = []

        def keep(judge: JudgeSlot) -> None:
            # Written as each judge's reply is found valid: a failure or an interrupt keeps it.
            valid.append(judge.label)
            cassette.save_partial(valid)

        # Each request carries this capture's cassette: concurrent captures keep their own.
        call = CaptureCall(cassette=cassette, on_valid=keep)
        replies = [
            list(await judge_packet(judging, client, packet, image, call, prompt))
            for (_, packet, image), prompt in zip(item.packets, item.prompts, strict=True)
        ]
        cassette.save()
    return Replies(replies, cassette.play_count)
