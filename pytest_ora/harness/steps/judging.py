"""The judges step: every judge of the panel answers each packet, under the capture's cassette."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx

from ...core.plan import JudgeSlot
from ...core.record import JudgeRecord
from ...judges.cassettes import CaptureCassette, CassetteLibrary
from ...judges.panel import CaptureCall, Judging, judge_packet
from .packets import ItemPackets

__all__ = ["Replies", "ask_judges"]


@dataclass(frozen=True)
class Replies:
    """Each packet's judges' records (packets order, then panel order), and how many calls replay served."""

    per_packet: list[list[JudgeRecord]]
    replayed: int


@contextlib.asynccontextmanager
async def _cassette(capture_id: str, cassettes: CassetteLibrary | None) -> AsyncIterator[CaptureCassette | None]:
    """The capture's cassette, under its lock when it may be recorded; None records nothing (a judgment without one)."""
    if cassettes is None:
        yield None
        return
    # Under the capture's lock when it may be recorded: another run on the same cassettes
    # directory waits here, then replays what this one recorded instead of paying again.
    async with cassettes.hold(capture_id):
        yield cassettes.open(capture_id)


async def ask_judges(
    capture_id: str,
    item: ItemPackets,
    judging: Judging,
    cassettes: CassetteLibrary | None,
    client: httpx.AsyncClient,
    on_valid: Callable[[JudgeSlot], None] | None = None,
) -> Replies:
    """Ask the panel; the cassette is saved once every reply is valid (each valid one kept as it comes).

    `on_valid` is told of each judge's valid reply to each packet, in packet order per judge.
    """
    async with _cassette(capture_id, cassettes) as cassette:
        if cassette is not None:
            cassette.expect(item.fields())
        valid: list[str] = []

        def keep(judge: JudgeSlot) -> None:
            # Written as each judge's reply is found valid: a failure or an interrupt keeps it.
            if cassette is not None:
                valid.append(judge.label)
                cassette.save_partial(valid)
            if on_valid is not None:
                on_valid(judge)

        # Each request carries this capture's cassette: concurrent captures keep their own.
        call = CaptureCall(cassette=cassette, on_valid=keep)
        replies = [
            list(await judge_packet(judging, client, packet, image, call, prompt))
            for (_, packet, image), prompt in zip(item.packets, item.prompts, strict=True)
        ]
        if cassette is not None:
            cassette.save()
    return Replies(replies, 0 if cassette is None else cassette.play_count)
