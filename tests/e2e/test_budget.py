"""Judge spend: prices, the shared spend log, the budget guard and the dry run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from support.bundle_factory import write_bundle

from pytest_ora.judges.budget import DEFAULT_PRICES, Price, SpendLog, cost, load_prices, price_for
from pytest_ora.testing.server import ReferenceJudge

EVAL_TEST = (Path(__file__).parents[2] / "evals" / "test_ora.py").read_text(encoding="utf-8")


def test_the_longest_model_prefix_sets_the_price() -> None:
    # Cache rates: Anthropic reads 0.1x and writes 1.25x the input price; OpenAI's GPT-5 family reads 0.1x.
    assert price_for("claude-opus-4-7", DEFAULT_PRICES) == Price(
        Decimal(5), Decimal(25), Decimal("0.5"), Decimal("6.25")
    )
    assert price_for("claude-opus-4-1-20250805", DEFAULT_PRICES) == Price(
        Decimal(15), Decimal(75), Decimal("1.5"), Decimal("18.75")
    )
    assert price_for("gpt-5-mini-2025-08-07", DEFAULT_PRICES) == Price(
        Decimal("0.25"), Decimal(2), Decimal("0.025"), Decimal("0.25")
    )
    assert price_for("my-local-model", DEFAULT_PRICES) is None


def test_cost_is_exact_per_million_tokens() -> None:
    assert cost(Price(Decimal(5), Decimal(25)), 2_000, 400) == Decimal("0.02")


def test_a_price_file_overrides_and_adds(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("gpt-5: {input: 2, output: 16}\nmy-local-model: {input: 0, output: 0}\n")

    prices = load_prices(path)

    assert prices["gpt-5"] == Price(Decimal(2), Decimal(16))
    assert price_for("my-local-model-7b", prices) == Price(Decimal(0), Decimal(0))


def test_a_bad_price_file_names_the_entry(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("gpt-5: {input: 2}\n")

    with pytest.raises(ValueError, match="entry 'gpt-5' must be"):
        load_prices(path)


def test_spend_is_shared_by_every_process_of_a_run(tmp_path: Path) -> None:
    first, second = SpendLog(tmp_path, "gw0"), SpendLog(tmp_path, "gw1")

    first.add(Decimal("0.25"))
    second.add(Decimal("0.5"))
    first.add(Decimal("0.25"))

    assert first.total() == second.total() == Decimal("1.00")


@pytest.fixture
def project(pytester: pytest.Pytester) -> Iterator[pytest.Pytester]:
    with ReferenceJudge() as judge:
        routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
        write_bundle(pytester.path / "bundle", routes=routes)
        pytester.makepyfile(test_ora=EVAL_TEST)
        pytester.makeini("[pytest]\nora_bundle = bundle\n")
        pytester.path.joinpath("prices.yaml").write_text(
            "claude-opus: {input: 1000, output: 1000}\ngpt-5: {input: 1000, output: 1000}\n"
        )
        yield pytester


def test_the_budget_guard_stops_starting_captures_and_says_so(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-budget-test-key-a")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-budget-test-key-b")

    # When the first capture alone costs more than the budget
    result = project.runpytest("--ora-record", "once", "--ora-budget-usd", "1", "--ora-prices", "prices.yaml", "-rs")

    # Then it is judged, no other capture is started, and the run says so
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed", 0) + outcomes.get("lowscore", 0) == 1
    result.stdout.fnmatch_lines(["*mode:argument-audit/big-1: not judged: judge spend $*reached --ora-budget-usd 1*"])
    assert result.ret == 0
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    assert "budget reached: judge spend hit --ora-budget-usd 1; 7 captures were not started" in methodology
    ledger = (project.path / "ora-results" / "ledger.jsonl").read_text().splitlines()
    assert [json.loads(row)["capture_id"] for row in ledger if json.loads(row)["status"] == "scored"] == [
        "mode:argument-audit/optimum"
    ]


def test_captures_stopped_by_the_budget_are_ledger_rows_counted_in_the_summary(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-budget-test-key-a")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-budget-test-key-b")

    result = project.runpytest("--ora-record", "once", "--ora-budget-usd", "1", "--ora-prices", "prices.yaml", "-rs")

    # Then the skip reason is the reason, without the exception's class path
    assert "BudgetReached" not in result.stdout.str() and "pytest_ora." not in result.stdout.str()
    rows = [json.loads(line) for line in (project.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    stopped = [row for row in rows if row["status"] == "budget"]
    assert len(stopped) == 7
    assert all(row["reason"].startswith("not judged: judge spend $") for row in stopped)
    summary = {
        row["configuration"]: row for row in json.loads((project.path / "ora-results" / "summary.json").read_text())
    }
    assert summary["optimum"]["budget"] == 3 and summary["big-1"]["budget"] == 4
    csv_lines = (project.path / "ora-results" / "summary.csv").read_text().splitlines()
    assert csv_lines[0].endswith(",minutes_per_run,rubric,rubric_digest,budget") and csv_lines[2].endswith(",4")
    header = (project.path / "ora-results" / "summary.md").read_text().split("| Configuration")[1].splitlines()[0]
    assert header.rstrip(" |").endswith("Minutes / run |   Budget")


def test_a_live_run_says_what_each_judge_cost(project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-budget-test-key-a")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-budget-test-key-b")

    live = project.runpytest("--ora-record", "once", "--ora-prices", "prices.yaml")

    # Then spend per judge (tokens x price) is on the terminal, in summary.md and in methodology.md
    # (the judges are the reference judge on this machine: the spend is labelled a price, not money paid)
    live.stdout.fnmatch_lines(
        [
            "ora: judges on this machine, nothing paid; at the named models' prices this run's calls would cost (tokens x price): Judge A "
            "claude-opus-4-7: $* (* input, * read from the prompt cache, * written to it / * output tokens); Judge B gpt-5.4: $*; total: $*"
        ]
    )
    summary_md = (project.path / "ora-results" / "summary.md").read_text()
    methodology = (project.path / "ora-results" / "methodology.md").read_text()
    for text in (summary_md, methodology):
        assert (
            "## Judge spend: nothing paid (every judge is on this machine); what these live calls would cost at the "
            "named models' prices (tokens x price)"
        ) in text
        assert "- Judge A claude-opus-4-7: $" in text and "- total: $" in text

    # And a replay pays nothing and says no spend
    replay = project.runpytest()
    assert "judge spend" not in replay.stdout.str()
    assert "Judge spend" not in (project.path / "ora-results" / "summary.md").read_text()


def test_a_budget_needs_a_price_for_each_judge(project: pytest.Pytester) -> None:
    project.path.joinpath("optimum-free.yaml")
    optimum = project.path / "bundle" / "optimum.yaml"
    optimum.write_text(optimum.read_text().replace("gpt-5.4", "house-judge-1"))

    result = project.runpytest("--ora-budget-usd", "5")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: --ora-budget-usd needs a price for Judge B (house-judge-1): add it with --ora-prices FILE"]
    )


def test_a_dry_run_builds_every_packet_and_estimates_without_calling(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-dry-run", "--ora-record", "all")

    outcomes = result.parseoutcomes()
    assert {k: v for k, v in outcomes.items() if k != "warnings"} == {"skipped": 12}
    result.stdout.fnmatch_lines(["Judge A*claude-opus-4-7*8*$*", "Judge B*gpt-5.4*8*$*"])
    estimate = json.loads((project.path / "ora-results" / "estimate.json").read_text())
    assert [judge["captures"] for judge in estimate["judges"]] == [8, 8]
    assert all(judge["input_tokens"] > 1000 * 8 for judge in estimate["judges"])
    assert len(list((project.path / "ora-results" / "dry-run" / "packets").rglob("*.json"))) == 8
    assert not (project.path / "cassettes").exists()
    assert not (project.path / "ora-results" / "ledger.jsonl").exists()
