"""A dry run's step in place of the judges: the packets built and written, each judge's first requests sized."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...core.plan import PlannedCapture
from ...judges.budget import OUTPUT_TOKENS_ESTIMATE, Price, cost, estimate_input_tokens, price_for
from ...judges.packet import judge_prompt
from ...judges.panel import Judging
from ...judges.providers import client_for
from ...judges.providers.base import ImagePart
from .files import CaptureFiles, write_packets
from .packets import packets_for

__all__ = ["estimate"]


def estimate(planned: PlannedCapture, root: Path, judging: Judging, output: CaptureFiles,
             prices: dict[str, Price]) -> dict[str, Any]:
    """Nothing sent: each judge's input and output tokens and their price, for one item."""
    capture = planned.capture
    rubric = judging.rubric
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
        tokens *= judging.panel.samples  # each judge sample is a call of its own
        output_tokens = OUTPUT_TOKENS_ESTIMATE * len(sized) * judging.panel.samples
        price = price_for(judge.spec.model, prices)
        usd = None if price is None else str(cost(price, tokens, output_tokens))
        judges.append({"label": judge.label, "model": judge.spec.model, "input_tokens": tokens,
                       "output_tokens": output_tokens, "usd": usd})
    return {"capture_id": capture.capture_id, "configuration": capture.configuration, "judges": judges}
