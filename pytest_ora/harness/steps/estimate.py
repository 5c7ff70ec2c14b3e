"""A dry run's step in place of the candidate and the judges: the packets built and written, each call sized.

A candidate's answer does not exist yet: its length is taken as CANDIDATE_ANSWER_TOKENS_ESTIMATE (at most its
max_tokens), both as the candidate's output and as input each judge reads beside the packet.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.candidates import DEFAULT_MAX_TOKENS, CandidateSpec
from ...core.models import RoleSpec
from ...core.plan import PlannedCapture
from ...judges.budget import (
    CANDIDATE_ANSWER_TOKENS_ESTIMATE,
    OUTPUT_TOKENS_ESTIMATE,
    Price,
    cost,
    estimate_input_tokens,
    price_for,
)
from ...judges.packet import judge_prompt
from ...judges.panel import Judging
from ...judges.providers import client_for
from ...judges.providers.base import ImagePart
from ..candidates.role import candidate_prompt
from .files import CaptureFiles, write_packets
from .packets import packets_for

__all__ = ["estimate"]


def estimate(
    planned: PlannedCapture,
    root: Path,
    judging: Judging,
    output: CaptureFiles,
    prices: dict[str, Price],
    candidate: CandidateSpec | None = None,
    role: RoleSpec | None = None,
) -> dict[str, Any]:
    """Nothing sent: the candidate's and each judge's input and output tokens and their price, for one item."""
    capture = planned.capture
    rubric = judging.rubric
    answer_tokens = 0
    made: dict[str, Any] | None = None
    if candidate is not None:
        made = _candidate_estimate(planned, candidate, role, prices, judging.prompt_cache)
        answer_tokens = made["output_tokens"] or CANDIDATE_ANSWER_TOKENS_ESTIMATE
    packets = packets_for(planned, root, judging)
    sized = []
    for tag, packet, image in packets:
        write_packets(output, capture.capture_id, [(tag, packet)])
        prompt = judge_prompt(packet, image, rubric, cache=judging.prompt_cache)
        sized.append((prompt, sum(isinstance(part, ImagePart) for part in prompt.parts)))
    judges = []
    for judge in judging.panel.judges:
        # one call per packet (compare: both orders)
        tokens = sum(
            estimate_input_tokens(len(client_for(judge.spec).build_request(judge.spec, prompt, None).content), images)
            for prompt, images in sized
        )
        tokens += answer_tokens * len(sized)  # the answer the candidate will write, in every packet
        tokens *= judging.panel.samples  # each judge sample is a call of its own
        output_tokens = OUTPUT_TOKENS_ESTIMATE * len(sized) * judging.panel.samples
        price = price_for(judge.spec.model, prices)
        usd = None if price is None else str(cost(price, tokens, output_tokens))
        judges.append(
            {
                "label": judge.label,
                "model": judge.spec.model,
                "input_tokens": tokens,
                "output_tokens": output_tokens,
                "usd": usd,
            }
        )
    estimated: dict[str, Any] = {
        "capture_id": capture.capture_id,
        "configuration": capture.configuration,
        "judges": judges,
    }
    if made is not None:
        estimated["candidate"] = made
    return estimated


def _candidate_estimate(
    planned: PlannedCapture, spec: CandidateSpec, role: RoleSpec | None, prices: dict[str, Price], cache: bool
) -> dict[str, Any]:
    """A role candidate's call sized as a judge's is; a Python or command candidate's cost is its own (not estimated)."""
    limit = (
        spec.params.max_tokens if spec.params is not None and spec.params.max_tokens is not None else DEFAULT_MAX_TOKENS
    )
    output_tokens = min(CANDIDATE_ANSWER_TOKENS_ESTIMATE, limit)
    if spec.role is None or role is None:
        way = f"python:{spec.python}" if spec.python is not None else f"command:{(spec.command or ['?'])[0]}"
        return {"model": way, "input_tokens": None, "output_tokens": output_tokens, "usd": None}
    request = client_for(role).build_request(role, candidate_prompt(planned.capture, spec, cache), None)
    tokens = estimate_input_tokens(len(request.content), 0)
    price = price_for(role.model, prices)
    usd = None if price is None else str(cost(price, tokens, output_tokens))
    return {"model": role.model, "input_tokens": tokens, "output_tokens": output_tokens, "usd": usd}
