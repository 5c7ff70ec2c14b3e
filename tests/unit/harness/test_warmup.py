"""harness/warmup.py: a live run's session-end libraries imported on a thread of their own, waited for."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_ora.harness import warmup


@pytest.fixture
def probes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two importable modules: one that notes the thread importing it, one whose import fails."""
    (tmp_path / "ora_warm_probe.py").write_text(
        "import threading\nIMPORTED_ON = threading.current_thread().name\n", encoding="utf-8"
    )
    (tmp_path / "ora_warm_broken.py").write_text("raise RuntimeError('broken on purpose')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("ora_warm_probe", "ora_warm_broken"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return tmp_path


def test_the_libraries_are_imported_on_their_own_thread_and_waited_for(
    probes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(warmup, "WARMED", ("ora_warm_broken", "ora_warm_probe"))
    warm = warmup.WarmUp()
    warm.start(charts=False)
    warm.wait()
    # the failing import did not stop the next one, and left nothing half-imported behind
    assert sys.modules["ora_warm_probe"].IMPORTED_ON == "ora-warm-up"
    assert "ora_warm_broken" not in sys.modules
    # and it fails again, with its own message, where the session end imports it
    with pytest.raises(RuntimeError, match="broken on purpose"):
        __import__("ora_warm_broken")


def test_it_starts_once_and_waiting_without_a_start_returns(probes: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    warmup.WarmUp().wait()  # a replay never starts it: the session end does not wait on anything
    monkeypatch.setattr(warmup, "WARMED", ("ora_warm_probe",))
    warm = warmup.WarmUp()
    warm.start(charts=False)
    first = warm._thread
    warm.start(charts=True)
    assert warm._thread is first
    warm.wait()
    assert first is not None and not first.is_alive()


def test_the_charts_are_warmed_only_when_asked() -> None:
    assert not set(warmup._CHARTS) & set(warmup.WARMED)
    assert all(name.startswith("matplotlib.") for name in warmup._CHARTS)
