"""One judgment through a capture's own steps (harness/steps/): packets, judges, checked replies, record, scores, spend.

`judge_items` is the only glue: each item's packets are built and sized by the packet step (the
rubric kind's shape, a configured key refused, a packet over a judge's context window never sent),
the judges step asks the panel for every packet of the judgment under one cassette (the same
providers, reply validation, token-usage check and re-asks), and each item's record is made, scored
and charged by the steps a bundle run uses, under the run's budget and shared rate limiter when
there is one (the ora_judge fixture inside a run).
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

from ...core.errors import OraError
from ...core.plan import JudgeSlot
from ...core.record import CaptureRecord
from ...judges.calling import judge_of
from ...judges.cassettes import CassetteLibrary, CassetteTransport
from ...judges.panel import Judging
from ...judges.providers import client_for
from ...judges.providers.base import loads_body
from ...judges.ratelimit import PacedTransport, SharedLimiter
from ..steps.judging import Replies, ask_judges
from ..steps.packets import ItemPackets, item_packets
from ..steps.record import judged_record
from ..steps.replies import checked_replies
from ..steps.scores import score
from ..steps.spend import Budget, charge_judges, check_budget
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


def _network(limiter: SharedLimiter | None) -> httpx.AsyncBaseTransport:
    inner: httpx.AsyncBaseTransport = httpx.AsyncHTTPTransport(trust_env=False)
    # Below the cassette, as in a run: only calls that go to the network are paced, replay never is.
    return inner if limiter is None else PacedTransport(inner, limiter)


async def judge_items(
    judging: Judging,
    items: Sequence[Item],
    library: CassetteLibrary | None,
    budget: Budget | None = None,
    limiter: SharedLimiter | None = None,
) -> list[Judged]:
    """Judge every item with the panel through a capture's steps; judge, cassette and not-judged errors propagate."""
    rubric = judging.rubric
    check_budget(budget, CASSETTE_ID)
    with tempfile.TemporaryDirectory(prefix="ora-judgment-") as empty:
        root = Path(empty)  # no specification file: the judge skill's modes have none
        for item in items:  # in the judgment's words before the packet step's own check
            _refuse_secrets(judging, item.planned.capture.model_dump_json())
        built = [item_packets(item.planned, root, judging, None) for item in items]
    # One cassette holds the whole judgment: its packets are tagged by item (0/, 1/, ...), in order.
    tagged = ItemPackets(
        [(f"{n}/{tag}", packet, image) for n, shown in enumerate(built) for tag, packet, image in shown.packets],
        [prompt for shown in built for prompt in shown.prompts],
    )
    seen = _Seen(CassetteTransport(lambda: _network(limiter)))
    texts: dict[str, list[str]] = {}

    def keep_text(judge: JudgeSlot) -> None:
        # Told as the reply is found valid: the judge's last response so far is that reply.
        texts.setdefault(judge.label, []).append(_last_text(seen, judge))

    async with httpx.AsyncClient(transport=seen, timeout=judging.policy.timeout, trust_env=False) as client:
        replies = await ask_judges(CASSETTE_ID, tagged, judging, library, client, on_valid=keep_text)
    judged: list[Judged] = []
    first = 0
    for item, shown in zip(items, built, strict=True):
        count = len(shown.packets)
        judges = checked_replies(Replies(replies.per_packet[first : first + count], 0), rubric)
        record = judged_record(item.planned, shown, judges, rubric)
        score(record, rubric)
        own = {slot.label: texts[slot.label][first : first + count] for slot in judging.panel.judges}
        judged.append(Judged(item, record, own))
        first += count
    every = [judge for one in judged for judge in one.record["judges"]]
    charge_judges(budget, every, sum(judge["asks"] for judge in every) - replies.replayed)
    return judged


def _last_text(seen: _Seen, judge: JudgeSlot) -> str:
    """The judge's last successful response (the one found valid): its reply object as canonical JSON."""
    response = next(response for seen_label, response in reversed(seen.responses) if seen_label == judge.label)
    reply = client_for(judge.spec).parse_reply(response)
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
            raise OraError(
                "the data holds the value of a configured API key; it is neither sent to a judge nor written: "
                "remove the key from the data"
            )
