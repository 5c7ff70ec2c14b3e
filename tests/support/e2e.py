"""What the end-to-end tests share: the eval suite, the fake keys, and running and reading a project."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

EVAL_TEST = (Path(__file__).parents[2] / "evals" / "test_ora.py").read_text(encoding="utf-8")
KEY_A = "sk-ant-FAKE-KEY-never-written-4242"
KEY_B = "sk-FAKE-KEY-never-written-8484"
EXPECTED = {"passed": 6, "skipped": 5, "lowscore": 1, "failed": 0, "errors": 0}
REPORT = ("ledger.jsonl", "ledger.csv", "summary.json", "summary.md", "summary.csv", "methodology.md", "report.html")
STATS = ("stats.json", "disagreements.csv")


def low_and_excluded(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for item in items:
        if item["entry_key"] == "mode:causal-dag" and item["configuration"] == "big-1":
            item["answer"] = ""
        if item["entry_key"] == "lens:historian" and item["configuration"] == "big-1":
            item["acceptance"] = {"passed": False, "reason": "fallback", "notes": "answered by a fallback model"}
    return items


def record(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    """Judge live (record mode once) with the keys set only for this run."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", KEY_A)
        patch.setenv("OPENAI_API_KEY", KEY_B)
        return project.runpytest("--ora-record", "once", *args)


def outcomes(result: pytest.RunResult) -> dict[str, int]:
    counts = result.parseoutcomes()
    return {kind: counts.get(kind, 0) for kind in ("passed", "skipped", "lowscore", "failed", "errors")}


def report(project: pytest.Pytester, out: str = "ora-results") -> dict[str, bytes]:
    return {name: (project.path / out / name).read_bytes() for name in REPORT + STATS}


def tables(files: dict[str, bytes]) -> dict[str, bytes]:
    """The report without what only a live run has: its methodology note and its judge spend."""
    kept = {name: data for name, data in files.items() if name != "methodology.md"}
    head, _, rest = kept["summary.md"].partition(b"\n## Judge spend")
    statistics = rest.partition(b"\n## Statistics")  # the Statistics section follows the spend: keep it
    kept["summary.md"] = head + (statistics[1] + statistics[2] if statistics[1] else b"")
    if "report.html" in kept:  # a later run into the same directory lists the earlier ones (runs/): by design
        page = kept["report.html"]
        start = page.find(b'<section id="earlier-runs">')
        if start >= 0:
            kept["report.html"] = page[:start] + page[page.index(b"</section>", start) :]
    return kept
