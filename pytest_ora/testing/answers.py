"""The reference judge as a candidate model: a request without a reply schema or tools gets a plain-text answer.

The answer is built from the prompt alone (its question, its longer words) and the model's name, so
equal requests get equal answers and two models answer the same prompt differently; the wire formats
(wire.py, cloud.py) carry it as each provider carries a model's text.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

__all__ = ["asks_plain_text", "plain_answer"]

_JSON_MIME = ("application/json", "text/x.enum")
_SCHEMA_KEYS = ("responseSchema", "responseJsonSchema", "response_schema", "response_json_schema")
_WORD = re.compile(r"[A-Za-z][A-Za-z-]{4,}")
_OPENINGS = (
    "In short: {question}",
    "The question is {question}",
    "Here is how I would approach it: {question}",
)
_STEPS = ("Weigh", "Check", "Compare", "Prioritise", "Test", "Sequence")


def asks_plain_text(body: Any) -> bool:
    """Whether a request body asks for text: no tool, no structured output (JSON mode or a schema) in any wire format."""
    if not isinstance(body, dict):
        return False
    if any(body.get(key) for key in ("tools", "toolConfig", "tool_config", "output_config", "functions")):
        return False
    response_format = body.get("response_format")
    if isinstance(response_format, dict) and response_format.get("type") != "text":
        return False
    text = body.get("text")
    fmt = text.get("format") if isinstance(text, dict) else None
    if isinstance(fmt, dict) and fmt.get("type") != "text":
        return False
    config = body.get("generationConfig", body.get("generation_config"))
    if isinstance(config, dict):
        mime = config.get("responseMimeType", config.get("response_mime_type"))
        if mime in _JSON_MIME or any(key in config for key in _SCHEMA_KEYS):
            return False
    return True


def plain_answer(prompt: str, model: str) -> str:
    """A deterministic answer to `prompt` as `model` gives it: the question restated, then a short plan."""
    digest = hashlib.sha256(f"{model}\n{prompt}".encode("utf-8", "surrogatepass")).digest()
    lines = [line.strip() for line in prompt.splitlines() if line.strip()]
    question = next((line for line in reversed(lines) if line.endswith("?")), lines[-1] if lines else "(no prompt)")
    question = question if len(question) <= 240 else question[:237] + "..."
    words = list(dict.fromkeys(word.lower() for word in _WORD.findall(prompt)))
    # The model's digest picks how many points it makes and which words it picks up, so models differ.
    points = 2 + digest[0] % 4
    start = digest[1] % max(1, len(words)) if words else 0
    chosen = (words[start:] + words[:start])[:points]
    opening = _OPENINGS[digest[2] % len(_OPENINGS)].format(question=question)
    body = [
        f"{number}. {_STEPS[(digest[3] + number) % len(_STEPS)]} the {word}." for number, word in enumerate(chosen, 1)
    ]
    return "\n".join([opening, "", *body, "", f"({model}, reference answer)"])
