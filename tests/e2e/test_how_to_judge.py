"""The how-to's example test, run as written: recorded against the reference judge, then replayed with it stopped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.e2e import KEY_A

from pytest_ora.testing.server import ReferenceJudge

HOW_TO = Path(__file__).parents[2] / "docs" / "how-to" / "judge-one-response.md"


def test_the_how_to_s_example_test_records_then_replays(
    pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    (example,) = re.findall(r"```python\n(.*?)```", HOW_TO.read_text(encoding="utf-8"), re.DOTALL)
    assert "http://127.0.0.1:8765" in example
    pytester.makepyfile(test_review=example.replace("http://127.0.0.1:8765", judge.url))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    pytester.runpytest_subprocess("--ora-record", "once", "-p", "no:cacheprovider").assert_outcomes(passed=1)
    judge.stop()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    pytester.runpytest_subprocess("-p", "no:cacheprovider").assert_outcomes(passed=1)
