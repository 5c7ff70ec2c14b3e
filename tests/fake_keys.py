"""Recognisable fake API keys, and the loopback reference judge that accepts only them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pytest_ora.testing.server import ReferenceJudge

FAKE_A = "sk-ant-FAKE-KEY-do-not-log-1234"
FAKE_B = "sk-proj-FAKE-KEY-do-not-log-5678"
KEYS = {"ANTHROPIC_API_KEY": FAKE_A, "OPENAI_API_KEY": FAKE_B}
"""The environment a live judge run needs for the fake keys."""


@contextmanager
def keyed_judge() -> Iterator[ReferenceJudge]:
    """A loopback reference judge accepting only the fake keys."""
    with ReferenceJudge(keys={"anthropic": FAKE_A, "openai": FAKE_B}) as server:
        yield server
