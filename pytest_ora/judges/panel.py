"""Judging one capture (the Ora judging method): every judge of the panel, concurrently, each reply validated.

An invalid reply is asked again a bounded number of times, then fails the capture; it is never
estimated, clamped or defaulted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..core.credentials import redact
from ..core.errors import InvalidReplyError, JudgeError
from ..core.plan import JudgeSlot, Panel
from ..core.record import JudgeRecord
from ..core.rubric import Rubric
from ..core.usage import Usage, add_usage, reported_usage
from ..method.kinds import judged_kind
from .calling import CASSETTE_EXTENSION, JUDGE_EXTENSION
from .cassettes import CaptureCassette
from .packet import Packet, judge_prompt
from .providers import api_key_for, client_for, secrets_for
from .providers.base import JudgePrompt, ProviderReply
from .reply import CheckedReply, ReplyProblem, check_reply, check_usage
from .samples import reduce_scores
from .transport import RetryPolicy, send

__all__ = ["CaptureCall", "Judging", "combine_samples", "judge_packet"]


@dataclass(frozen=True)
class CaptureCall:
    """What the harness hands the panel for one capture: its cassette, and whom to tell of a valid reply."""

    cassette: CaptureCassette | None = None
    """Every request of the capture carries it to the cassette transport; None sends straight through."""
    on_valid: Callable[[JudgeSlot], None] | None = None
    """Called as each judge's reply is found valid (its exchanges may then be kept)."""


@dataclass(frozen=True)
class Judging:
    """How judge calls are made in this process."""

    panel: Panel
    rubric: Rubric
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    reasks: int = 1
    """Re-asks allowed after an invalid reply, per judge and capture."""
    environ: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Where API keys are read from; never shown in a repr."""
    prompt_cache: bool = True
    """--ora-prompt-cache: the repeated prefix first, with cache breakpoints (see packet.judge_prompt)."""
    live: bool = True
    """Whether calls may be sent; a replay (False) reads no cloud credential chain (botocore's, ADC), which could
    refresh a token over the network."""

    def secrets(self) -> tuple[str, ...]:
        """Every configured key value, for redaction."""
        judges = self.panel.judges
        return tuple(secret for judge in judges for secret in secrets_for(judge.spec, self.environ, chains=self.live))


async def judge_packet(
    judging: Judging,
    client: httpx.AsyncClient,
    packet: Packet,
    image: bytes | None,
    call: CaptureCall | None = None,
    prompt: JudgePrompt | None = None,
) -> list[JudgeRecord]:
    """Every panel judge's validated reply, judged concurrently; all calls finish before any error is raised (a failed capture records nothing).

    `prompt` is the packet's first ask, `judge_prompt(packet, image, judging.rubric, cache=judging.prompt_cache)`,
    when the caller has it already; every judge's first ask is that one prompt, built once.
    """
    capture_call = call if call is not None else CaptureCall()
    first = prompt if prompt is not None else judge_prompt(packet, image, judging.rubric, cache=judging.prompt_cache)
    samples = judging.panel.samples
    prompts = [
        first,
        *(
            judge_prompt(packet, image, judging.rubric, cache=judging.prompt_cache, sample=k)
            for k in range(2, samples + 1)
        ),
    ]
    calls = [
        _judge(judging, client, judge, packet, image, capture_call, prompts[k - 1], k)
        for judge in judging.panel.judges
        for k in range(1, samples + 1)
    ]
    results = await asyncio.gather(*calls, return_exceptions=True)
    for result in results:
        if isinstance(result, BaseException):
            raise result
    records = [result for result in results if not isinstance(result, BaseException)]
    if samples == 1:
        return records
    return [combine_samples(records[i : i + samples], judging.panel.reducer) for i in range(0, len(records), samples)]


async def _judge(
    judging: Judging,
    client: httpx.AsyncClient,
    judge: JudgeSlot,
    packet: Packet,
    image: bytes | None,
    call: CaptureCall,
    first: JudgePrompt,
    sample: int = 1,
) -> JudgeRecord:
    provider = client_for(judge.spec)
    key = api_key_for(judge.spec, judging.environ, chains=judging.live)
    name = f"{judge.label} ({judge.spec.model})"
    secrets = judging.secrets()
    usage = reported_usage()
    if judging.prompt_cache:
        usage["cache_write_input_tokens"] = 0  # the record says caching was on, even when nothing was written
    attempts = 0
    correction: str | None = None
    problem = ReplyProblem("(reply)", "nothing", "was never received")
    raw = ""
    for ask in range(1, judging.reasks + 2):
        prompt = (
            first
            if correction is None
            else judge_prompt(
                packet,
                image,
                judging.rubric,
                correction,
                judging.prompt_cache,
                sample,
            )
        )
        request = provider.build_request(judge.spec, prompt, key)
        # The transports below read these: the call is paced and recorded as this judge's, in this capture's cassette.
        request.extensions[JUDGE_EXTENSION] = judge
        if call.cassette is not None:
            request.extensions[CASSETTE_EXTENSION] = call.cassette
        sent = await send(
            client, request, policy=judging.policy, judge=name, error_message=provider.error_message, secrets=secrets
        )
        attempts += sent.attempts
        try:
            reply = provider.parse_reply(sent.response)
        except ValueError as error:
            raw = _body_text(sent.response)
            problem = ReplyProblem("(reply)", "the response body", f"is not a {provider.name} response ({error})")
            correction = _redacted(problem, secrets).sentence()
            continue
        usage = add_usage(usage, reply.usage)
        raw = reply.raw
        checked = check_reply(reply, judging.rubric, packet.entry_key, packet.configuration, packet.material)
        if not isinstance(checked, ReplyProblem):
            checked = check_usage(reply) or checked
        if not isinstance(checked, ReplyProblem):
            if call.on_valid is not None:
                call.on_valid(judge)
            return _record(judge, judging.rubric, reply, checked, ask, attempts, usage, secrets)
        problem = checked
        correction = _redacted(problem, secrets).sentence()
    # Judge text reaches the item's reason, the ledger, the methodology note and junit: redacted
    # whole before show_value cuts it, so no part of a key survives at either end.
    shown = _redacted(problem, secrets)
    raise InvalidReplyError(
        judge=name,
        field=shown.field,
        value=shown.value,
        reason=shown.reason,
        raw=redact(raw, secrets),
        asks=judging.reasks + 1,
    )


def combine_samples(records: list[JudgeRecord], reducer: str) -> JudgeRecord:
    """One judge's K sampled records as one: scores reduced per criterion, each sample's scores kept in `samples`.

    Notes, impression and models are the first sample's; asks, attempts and usage add up over the samples.
    """
    combined = JudgeRecord(**records[0])
    combined["scores"] = reduce_scores([record["scores"] for record in records], reducer)
    combined["asks"] = sum(record["asks"] for record in records)
    combined["attempts"] = sum(record["attempts"] for record in records)
    usage = records[0]["usage"]
    for record in records[1:]:
        usage = add_usage(usage, record["usage"])
    combined["usage"] = usage
    combined["samples"] = [dict(record["scores"]) for record in records]
    return combined


def _redacted(problem: ReplyProblem, secrets: tuple[str, ...]) -> ReplyProblem:
    """The problem with every configured key removed from what the judge sent."""
    return ReplyProblem(redact(problem.field, secrets), redact(problem.value, secrets), redact(problem.reason, secrets))


def _body_text(response: httpx.Response) -> str:
    """A 2xx body as text for a message; bytes that are not UTF-8 are shown escaped, never raised on."""
    return response.content.decode("utf-8", errors="backslashreplace")


def _record(
    judge: JudgeSlot,
    rubric: Rubric,
    reply: ProviderReply,
    parsed: CheckedReply,
    asks: int,
    attempts: int,
    usage: Usage,
    secrets: tuple[str, ...],
) -> JudgeRecord:
    fields = judged_kind(rubric.kind).record_fields(parsed, rubric)
    record = JudgeRecord(
        label=judge.label,
        slot=judge.slot,
        role=judge.role,
        provider=judge.spec.provider,
        model=judge.spec.model,
        resolved_model=reply.model,
        judge_model=redact(parsed.judge_model, secrets),
        scores=fields["scores"],
        notes={name: redact(text, secrets) for name, text in fields["notes"].items()},
        impression=redact(fields["impression"], secrets),
        asks=asks,
        attempts=attempts,
        usage=usage,
    )
    if "answers" in fields:
        record["answers"] = _redact_all(fields["answers"], secrets)
    if "overall_verdict" in fields:  # a judge_verdict rubric (the trio rubric 1.1)
        record["rationale"] = redact(fields["rationale"], secrets)
        record["overall_verdict"] = fields["overall_verdict"]
        record["computed_verdict"] = fields["computed_verdict"]
    return record


def _redact_all(value: Any, secrets: tuple[str, ...]) -> Any:
    """Every text inside a kind's per-item answers, redacted like notes."""
    if isinstance(value, str):
        return redact(value, secrets)
    if isinstance(value, dict):
        return {key: _redact_all(item, secrets) for key, item in value.items()}
    if isinstance(value, list):
        return [_redact_all(item, secrets) for item in value]
    return value


def describe(error: BaseException) -> str:
    """A one-paragraph reason for a failed capture."""
    if isinstance(error, JudgeError):
        return str(error)
    return f"{type(error).__name__}: {error}"
