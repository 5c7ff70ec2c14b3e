"""The one adapter between a judgment and the judging code a bundle run uses.

`judge_items` is the only glue: it builds each item's packets with the rubric kind's own shape
(judges.packet.build_packet, kind.packets), sends them to the panel with judges.panel.judge_packet
(the same providers, reply validation, token-usage check and re-asks), records the exchanges in
one vcrpy cassette through judges.cassettes, merges the replies with the kind and recomputes the
panel's scores exactly with method.kinds.combined. It mirrors harness.runner.CaptureRunner._judge
step for step; when the runner is split into step modules (answer, packet, judges, checked
replies, scores, record), this function is the place to call those steps instead.
"""

from __future__ import annotations

import contextlib
import json
import re
import tempfile
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from ...core.errors import OraError
from ...core.plan import JudgeSlot
from ...core.record import CaptureRecord, base_record
from ...judges.calling import judge_of
from ...judges.cassettes import CaptureCassette, CassetteLibrary, CassetteTransport
from ...judges.packet import build_packet, packet_fields
from ...judges.panel import CaptureCall, Judging, judge_packet
from ...judges.providers import client_for
from ...judges.providers.base import loads_body
from ...method.kinds import combined, item_shape
from .items import Item

__all__ = ["Judged", "OneCassette", "judge_items"]

CASSETTE_ID = "judgment"
"""The id a judgment's exchanges are recorded under in its one cassette file."""


@dataclass(frozen=True)
class Judged:
    """One item judged: its record (the judges' validated replies, the panel's failure) and each reply's text."""

    item: Item
    record: CaptureRecord
    replies: dict[str, list[str]]
    """Judge label -> its valid reply to each packet (compare: both orders) as canonical JSON (sorted keys)."""


class OneCassette(CassetteLibrary):
    """A cassette library of one file: every exchange of the judgment is recorded in `path`."""

    def __init__(self, path: Path, mode: str, secrets: Sequence[str] = ()) -> None:
        super().__init__(path.parent, mode, secrets)
        self.file = path

    def path_for(self, capture_id: str) -> Path:
        return self.file


class _Seen(httpx.AsyncBaseTransport):
    """Keeps each judge's successful responses (live or replayed) so the reply text can be returned and checked."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.responses: list[tuple[str, httpx.Response]] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        judge = judge_of(request)
        if judge is not None and response.is_success:
            await response.aread()
            self.responses.append((judge.label, response))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _network() -> httpx.AsyncBaseTransport:
    return httpx.AsyncHTTPTransport(trust_env=False)


@contextlib.asynccontextmanager
async def _cassette(library: CassetteLibrary | None) -> AsyncIterator[CaptureCassette | None]:
    if library is None:
        yield None
        return
    async with library.hold(CASSETTE_ID):
        yield library.open(CASSETTE_ID)


async def judge_items(judging: Judging, items: Sequence[Item], library: CassetteLibrary | None) -> list[Judged]:
    """Judge every item with the panel, as a bundle run judges a capture; judge and cassette errors propagate."""
    rubric = judging.rubric
    kind = item_shape(rubric.kind)
    with tempfile.TemporaryDirectory(prefix="ora-judgment-") as empty:
        root = Path(empty)  # no specification file: the judge skill's modes have none
        packets = [kind.packets(item.planned, root, rubric, build_packet) for item in items]
    for shown in packets:
        for _, packet, _ in shown:
            _refuse_secrets(judging, packet.model_dump_json())
    seen = _Seen(CassetteTransport(_network))
    judged: list[Judged] = []
    async with (
        httpx.AsyncClient(transport=seen, timeout=judging.policy.timeout, trust_env=False) as client,
        _cassette(library) as cassette,
    ):
        if cassette is not None:
            cassette.expect({f"{n}/{tag}": packet_fields(packet) for n, shown in enumerate(packets) for tag, packet, _ in shown})
        valid: list[str] = []

        def keep(judge: JudgeSlot) -> None:
            # As the runner: each valid reply's exchanges are kept, so a failure or an interrupt pays only for the rest.
            if cassette is not None:
                valid.append(judge.label)
                cassette.save_partial(valid)

        call = CaptureCall(cassette=cassette, on_valid=keep)
        for item, shown in zip(items, packets):
            texts: dict[str, list[str]] = {}
            judge_records = []
            for _, packet, image in shown:
                seen.responses.clear()
                records = await judge_packet(judging, client, packet, image, call)
                judge_records.append(records)
                for slot in judging.panel.judges:
                    texts.setdefault(slot.label, []).append(_last_text(seen, slot.label, judging))
            record = base_record(item.planned, "scored")
            record["judges"] = kind.merge(judge_records, rubric)
            material = shown[0][1].material
            if material is not None:
                record["material"] = material
            record["failure"] = combined(record, rubric).failure
            judged.append(Judged(item, record, texts))
        if cassette is not None:
            cassette.save()
    return judged


def _last_text(seen: _Seen, label: str, judging: Judging) -> str:
    """The judge's last successful response to this packet (the one found valid): its reply object as canonical JSON."""
    slot = next(judge for judge in judging.panel.judges if judge.label == label)
    response = next(response for seen_label, response in reversed(seen.responses) if seen_label == label)
    reply = client_for(slot.spec).parse_reply(response)
    payload = reply.payload
    if payload is None:
        text = (reply.text or "").strip()
        fenced = re.match(r"\A```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n?```\Z", text, re.DOTALL)
        payload = loads_body(fenced.group("body") if fenced else text)
    # The reply object as canonical JSON: a cassette keeps the object, not the judge's spacing and key order,
    # so a replay prints the same text as the live call.
    return json.dumps(payload, ensure_ascii=False, sort_keys=True)


def _refuse_secrets(judging: Judging, text: str) -> None:
    """Nothing holding a configured key's value is sent or recorded (the runner's own check)."""
    for secret in judging.secrets():
        if str.__str__(secret) in text:
            raise OraError("the data holds the value of a configured API key; it is neither sent to a judge nor written: "
                           "remove the key from the data")
