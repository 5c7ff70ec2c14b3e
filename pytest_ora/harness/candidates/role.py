"""Role candidates: a role of optimum.yaml answers through the judges' provider clients, transports and retries.

The request is the candidate's optional system prompt, then the entry's context and prompt as one
user turn; no reply schema and no tool is sent, so the model answers in plain text. The call goes
through the process's HTTP client as a judge's does: paced in its role's rate-limit slot, recorded
in the capture's candidate cassette, retried within the run's retry policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

import httpx

from ...core.candidates import DEFAULT_MAX_TOKENS, CandidateSpec
from ...core.errors import TransportError
from ...core.models import Capture, RoleSpec
from ...core.plan import JudgeSlot
from ...judges.budget import Price, cost, price_for
from ...judges.calling import CASSETTE_EXTENSION, JUDGE_EXTENSION
from ...judges.cassettes import CaptureCassette
from ...judges.providers import api_key_for, client_for, secrets_for
from ...judges.providers.base import JudgePrompt, Part, Sampling, TextPart
from ...judges.providers.vertex import is_claude_route
from ...judges.transport import RetryPolicy, send
from .answer import CandidateAnswer, CandidateFailure

__all__ = [
    "RoleCall",
    "call_role",
    "candidate_prompt",
    "candidate_roles",
    "candidate_secrets",
    "candidate_slot",
    "sampling_refused",
]


def candidate_roles(
    candidates: Mapping[str, CandidateSpec] | None, roles: Mapping[str, RoleSpec]
) -> tuple[JudgeSlot, ...]:
    """Every role candidate as a caller, in configuration order (a role that optimum.yaml lacks is intake's to refuse)."""
    return tuple(
        candidate_slot(name, spec.role, roles[spec.role])
        for name, spec in (candidates or {}).items()
        if spec.role is not None and spec.role in roles
    )


def candidate_secrets(
    candidates: Mapping[str, CandidateSpec] | None,
    roles: Mapping[str, RoleSpec],
    environ: Mapping[str, str],
    *,
    live: bool,
) -> tuple[str, ...]:
    """Every credential the role candidates' calls carry, each to be redacted wherever text is written."""
    return tuple(
        secret for slot in candidate_roles(candidates, roles) for secret in secrets_for(slot.spec, environ, chains=live)
    )


def sampling_refused(role: RoleSpec, spec: CandidateSpec) -> str | None:
    """Why the role's model would refuse the candidate's temperature or top_p (as judges send none to it), else None."""
    params = spec.params
    if params is None or (params.temperature is None and params.top_p is None):
        return None
    if role.provider == "anthropic" or (role.provider == "vertex" and is_claude_route(role.route)):
        from ...judges.providers.anthropic import takes_temperature as claude

        takes = claude(role.model.partition("@")[0])
    elif role.provider == "bedrock":
        from ...judges.providers.bedrock import takes_temperature as bedrock

        takes = bedrock(role.model)
    elif role.provider in ("openai", "azure-openai", "openai-compatible"):
        from ...judges.providers.openai import takes_temperature as openai

        takes = openai(role.model)
    else:
        takes = True
    if takes:
        return None
    return (
        f"model {role.model} ({role.provider}) takes no temperature or top_p (its API refuses them): "
        "remove them from params, or answer with a model that takes them"
    )


def candidate_slot(configuration: str, role: str, spec: RoleSpec) -> JudgeSlot:
    """The candidate as the transports see a caller: paced in its role's slot, named by its configuration."""
    return JudgeSlot(label=f"candidate {configuration}", slot="candidate", role=role, spec=spec)


def candidate_prompt(capture: Capture, spec: CandidateSpec, cache: bool) -> JudgePrompt:
    """The candidate's request: its system prompt, the context (a cache breakpoint after it), the prompt; no schema."""
    parts: list[Part] = []
    if capture.context:
        parts.append(TextPart(capture.context, cache_break=cache))
    parts.append(TextPart(capture.prompt))
    params = spec.params
    sampling = Sampling(None if params is None else params.temperature, None if params is None else params.top_p)
    max_tokens = params.max_tokens if params is not None and params.max_tokens is not None else DEFAULT_MAX_TOKENS
    return JudgePrompt(
        system=spec.system or "",
        parts=tuple(parts),
        reply_schema=None,
        max_tokens=max_tokens,
        cache_key=f"ora-candidate-{capture.configuration}" if cache else None,
        sampling=sampling,
    )


@dataclass(frozen=True)
class RoleCall:
    """How this process calls role candidates: the judges' retry policy, keys and prices."""

    policy: RetryPolicy
    environ: Mapping[str, str]
    prices: Mapping[str, Price]
    secrets: tuple[str, ...]
    live: bool
    prompt_cache: bool


async def call_role(
    how: RoleCall,
    slot: JudgeSlot,
    capture: Capture,
    spec: CandidateSpec,
    client: httpx.AsyncClient,
    cassette: CaptureCassette,
) -> CandidateAnswer:
    """The role's plain-text answer, priced like a judge call; CandidateFailure past the retry bound, on a refusal or no text."""
    role = slot.spec
    provider = client_for(role)
    prompt = candidate_prompt(capture, spec, how.prompt_cache)
    request = provider.build_request(role, prompt, api_key_for(role, how.environ, chains=how.live))
    request.extensions[JUDGE_EXTENSION] = slot
    request.extensions[CASSETTE_EXTENSION] = cassette
    name = f"{slot.label} (role {slot.role}, {role.model})"
    try:
        sent = await send(
            client, request, policy=how.policy, judge=name, error_message=provider.error_message, secrets=how.secrets
        )
    except TransportError as error:
        raise CandidateFailure(str(error)) from None
    try:
        reply = provider.parse_reply(sent.response)
    except ValueError as error:
        raise CandidateFailure(
            f"{name} answered with a body that is not a {provider.name} response ({error})"
        ) from None
    if reply.stop == "refused":
        raise CandidateFailure(f"{name} refused to answer ({reply.detail or 'no reason given'})")
    if not reply.text or not reply.text.strip():
        raise CandidateFailure(f"{name} gave an empty answer" + (f" (stop: {reply.detail})" if reply.detail else ""))
    usage = reply.usage
    price = price_for(role.model, how.prices)
    usd: Decimal | None = None
    if price is not None:
        usd = cost(
            price,
            usage["input_tokens"],
            usage["output_tokens"],
            usage.get("cached_input_tokens", 0),
            usage.get("cache_write_input_tokens", 0),
        )
    return CandidateAnswer(
        answer=reply.text,
        model=reply.model or role.model,
        tokens_in=usage["input_tokens"],
        tokens_out=usage["output_tokens"],
        cost_usd=None if usd is None else str(usd),
    )
