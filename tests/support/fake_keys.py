"""Recognisable fake API keys (the `judge` fixture of a module that uses them accepts only them)."""

from __future__ import annotations

FAKE_A = "sk-ant-FAKE-KEY-do-not-log-1234"
FAKE_B = "sk-proj-FAKE-KEY-do-not-log-5678"
KEYS = {"ANTHROPIC_API_KEY": FAKE_A, "OPENAI_API_KEY": FAKE_B}
"""The environment a live judge run needs for the fake keys."""
