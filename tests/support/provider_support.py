"""Helpers shared by the provider client tests: recorded fixtures, prompts, valid replies."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from pytest_ora.judges.providers.base import ImagePart, JudgePrompt, TextPart
from pytest_ora.judges.reply import reply_schema
from pytest_ora.method.rubric import ORA_V1

FIXTURES = Path(__file__).parents[1] / "fixtures" / "providers"
PNG = b"\x89PNG\r\n\x1a\n fake image bytes"


def fixture_response(name: str) -> httpx.Response:
    """A recorded response: decoded body, recorded headers without the transport framing."""
    recorded = json.loads((FIXTURES / name).read_text(encoding="utf-8"))["response"]
    framing = ("content-encoding", "content-length")
    headers = {k: v for k, v in recorded["headers"].items() if k.lower() not in framing}
    return httpx.Response(recorded["status"], headers=headers, content=recorded["body"].encode("utf-8"))


def fixture_body(name: str) -> Any:
    """A recorded response body, parsed."""
    return json.loads(json.loads((FIXTURES / name).read_text(encoding="utf-8"))["response"]["body"])


def make_prompt(answer: str = "The answer under review.", image: bytes | None = None) -> JudgePrompt:
    """A judge prompt as packet.judge_prompt builds one: text, an optional image, the reply schema."""
    parts: list[TextPart | ImagePart] = [TextPart(f"<<<BEGIN ANSWER>>>\n{answer}\n<<<END ANSWER>>>")]
    if image is not None:
        parts.append(ImagePart("image/png", image))
    return JudgePrompt(system="You are an independent judge.", parts=tuple(parts), reply_schema=reply_schema(ORA_V1))


def valid_reply(judge_model: str) -> dict[str, Any]:
    """A reply object that passes validation for mode:argument-audit/optimum."""
    return {
        "entry_key": "mode:argument-audit",
        "configuration": "optimum",
        "judge_model": judge_model,
        "scores": {"fidelity": 7.5, "soundness": 7, "completeness": 6.5, "relevance": 8, "calibration": 6},
        "notes": {name: f"{name} note" for name in ORA_V1.names},
        "impression": "Solid execution of the technique.",
    }


def sent_body(request: httpx.Request) -> Any:
    """The JSON body a client sent."""
    return json.loads(request.content)
