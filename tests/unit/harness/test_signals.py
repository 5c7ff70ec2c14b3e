"""harness/signals.py: SIGINT and SIGTERM interrupt like Ctrl-C, after the warm-up's imports have ended."""

from __future__ import annotations

import signal
import threading

import pytest

from pytest_ora.harness.signals import SignalGuard


def test_an_interrupt_waits_for_the_settle_step_before_it_is_raised() -> None:
    # Given a guard whose settle step is a thread still compiling (here: waiting on an event)
    compiling = threading.Event()
    order: list[str] = []

    def settle() -> None:
        order.append("settle")
        compiling.set()

    guard = SignalGuard(settle=settle)
    # When SIGTERM is handled
    with pytest.raises(KeyboardInterrupt, match="SIGTERM received"):
        guard._handle(signal.SIGTERM, None)
    # Then the settle step ran first, and the signal is the one the report names
    assert order == ["settle"] and compiling.is_set()
    assert guard.received == signal.SIGTERM


def test_a_held_signal_is_remembered_and_neither_settles_nor_raises() -> None:
    settled: list[int] = []
    guard = SignalGuard(settle=lambda: settled.append(1))
    guard.hold()
    guard._handle(signal.SIGINT, None)
    assert guard.held == signal.SIGINT and settled == []
