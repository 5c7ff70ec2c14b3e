"""kind compare: pairs, neutral labels, both orders, a judge's winner only when both orders
agree, panel majority, the compare files, and a position-biased judge ending in ties."""

from __future__ import annotations

import json
import math
import shutil
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from support.example_runs import terminal_output

from pytest_ora.method.kinds import get_kind
from pytest_ora.method.kinds.compare.report import wilson
from pytest_ora.method.rubric import get_rubric

COMPARE = get_rubric("judge-compare-1.0")
EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "compare"
FILES = ("ledger.jsonl", "summary.json", "summary.md", "methodology.md", "compare.jsonl", "compare.json", "compare.md")


def copy_example(pytester: pytest.Pytester) -> None:
    for name in ("bundle", "cassettes", "conftest.py", "pytest.ini", "test_compare.py"):
        source = EXAMPLE / name
        if source.is_dir():
            shutil.copytree(source, pytester.path / name)
        else:
            shutil.copy(source, pytester.path / name)


def judge_record(label: str, shown: tuple[str, str]) -> dict[str, Any]:
    """A merged judge record whose two orders named `shown` (response-1, response-2 or tie)."""
    kind = get_kind("compare")
    scores = {name: "5" for name in COMPARE.names}
    replies = []
    for winner in shown:
        contestants = {
            label_: {"scores": dict(scores), "notes": {n: "" for n in COMPARE.names}}
            for label_ in ("response-1", "response-2")
        }
        replies.append(
            [
                {
                    "label": f"Judge {label}",
                    "model": "m",
                    "asks": 1,
                    "attempts": 1,
                    "usage": {"input_tokens": 1, "output_tokens": 1, "cached_input_tokens": 0, "reasoning_tokens": 0},
                    "answers": {"contestants": contestants, "winner": winner, "justification": "j"},
                }
            ]
        )
    (merged,) = kind.merge(replies, COMPARE)
    return dict(merged)


def result(*judges: tuple[str, str]) -> Any:
    record = {
        "configuration": "team-1+team-2",
        "judges": [judge_record(chr(ord("A") + i), shown) for i, shown in enumerate(judges)],
    }
    return get_kind("compare").panel(record, COMPARE).details  # type: ignore[arg-type]


def test_a_judges_winner_counts_only_when_both_orders_agree() -> None:
    # first-second shows team-1 as response-1; second-first shows it as response-2
    assert result(("response-1", "response-2"))["winner"] == "team-1"  # team-1 both times
    assert result(("response-2", "response-1"))["winner"] == "team-2"
    assert result(("response-1", "response-1"))["winner"] == "tie"  # position bias: the first shown, twice
    assert result(("response-1", "tie"))["winner"] == "tie"
    assert result(("response-1", "response-1"))["compare_judges"][0]["consistent"] is False


def test_the_pair_winner_is_the_panel_majority_else_a_tie() -> None:
    win, lose, biased = ("response-1", "response-2"), ("response-2", "response-1"), ("response-1", "response-1")
    assert result(win, win, lose)["winner"] == "team-1"
    assert result(win, biased, biased)["winner"] == "tie"  # one judge's winner is not a majority of three
    assert result(win, lose)["winner"] == "tie"
    assert result(win, win)["winner"] == "team-1"


def test_the_win_rate_interval_is_wilsons() -> None:
    # 4 wins and 1 tie of 5: 4.5 / 5; statsmodels' interval matches the Wilson score formula
    low, high = wilson(Fraction(9, 2), 5)
    z, p, n = 1.959963984540054, 0.9, 5
    centre, half = (
        (p + z * z / (2 * n)) / (1 + z * z / n),
        z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n),
    )
    assert low == pytest.approx(centre - half, abs=1e-12) and high == pytest.approx(centre + half, abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.4629, 0.9895)


def test_the_compare_example_replays_identically_with_its_compare_files(replayed: Callable[..., Path]) -> None:
    # Given the example replayed serially and under two xdist workers (the session's replays)
    serial, workers = replayed("compare"), replayed("compare", 2)
    terminal_output(workers).fnmatch_lines(["*= 15 passed in *"])
    for name in FILES:
        assert (serial / name).read_bytes() == (workers / name).read_bytes(), name
    pairs = json.loads((workers / "compare.json").read_text())
    first = pairs[0]
    assert (first["first"], first["second"], first["wins"], first["ties"], first["losses"]) == (
        "team-1",
        "team-2",
        4,
        1,
        0,
    )
    assert first["win_rate_exact"] == "9/10" and first["position_consistency"] == {"A": 1.0, "B": 1.0}
    rows = [json.loads(line) for line in (workers / "compare.jsonl").read_text().splitlines()]
    assert len(rows) == 15 and all(len(row["judges"]) == 2 and len(row["judges"][0]["orders"]) == 2 for row in rows)
    assert "| team-1 vs team-2 " in (workers / "compare.md").read_text()


def test_a_position_biased_judge_ends_in_ties_not_wins(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given the compare example routed to a reference judge that always prefers the first answer shown
    copy_example(pytester)
    shutil.rmtree(pytester.path / "cassettes")
    from pytest_ora.testing.server import ReferenceJudge

    with ReferenceJudge(prefer_first=True) as judge:
        optimum = pytester.path / "bundle" / "optimum.yaml"
        text = optimum.read_text().replace("http://127.0.0.1:8770/v1/messages", judge.route("anthropic"))
        optimum.write_text(text.replace("http://127.0.0.1:8770/v1/chat/completions", judge.route("openai")))
        monkeypatch.setenv("ANTHROPIC_API_KEY", "reference-judge-test-key")
        monkeypatch.setenv("OPENAI_API_KEY", "reference-judge-test-key")

        # When every pair is judged live, both orders per judge
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-record", "all", "-n", "0")
        posts = [r for r in judge.requests if r.method == "POST"]

    # Then each judge saw each pair twice under neutral labels only, and every pair is a tie, never a win
    result.assert_outcomes(passed=15)
    assert len(posts) == 15 * 2 * 2
    assert not any(name in r.body.decode() for r in posts for name in ("team-1", "team-2", "baseline"))
    pairs = json.loads((pytester.path / "ora-results" / "compare.json").read_text())
    assert [(p["wins"], p["ties"], p["losses"]) for p in pairs] == [(0, 5, 0)] * 3
    assert all(p["win_rate"] == 0.5 and p["position_consistency"] == {"A": 0.0, "B": 0.0} for p in pairs)
    assert (
        "| team-1 vs team-2         | 5       | 0      | 5      | 0        | 50%"
        in (pytester.path / "ora-results" / "compare.md").read_text()
    )


def test_ora_compare_names_the_pairs_and_items_are_entry_and_pair(pytester: pytest.Pytester) -> None:
    copy_example(pytester)
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--co", "-q", "--ora-compare", "baseline:team-2", "-k", "cache"
    )
    result.stdout.fnmatch_lines(["*test_pair?review:cache-stampede/baseline+team-2?"])
    assert "team-1" not in result.stdout.str()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--ora-compare", "team-1:nobody"],
            "*bundle.yaml*field 'compare'*compares a configuration that bundle.yaml does not list*",
        ),
        (["--ora-compare", "team-1"], "*--ora-compare takes two different configurations as A:B*"),
    ],
)
def test_a_bad_pair_stops_the_run(pytester: pytest.Pytester, args: list[str], message: str) -> None:
    copy_example(pytester)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", *args)
    assert result.ret == 4
    result.stderr.fnmatch_lines([message])


def test_pairs_with_a_rubric_of_another_kind_stop_the_run(pytester: pytest.Pytester) -> None:
    checklist = EXAMPLE.parent / "checklist"
    shutil.copytree(checklist / "bundle", pytester.path / "bundle")
    shutil.copy(checklist / "conftest.py", pytester.path / "conftest.py")
    pytester.makepyfile(test_x="def test_capture(ora_capture):\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-compare", "thorough:noisy")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["*field 'compare'*only a rubric of kind compare judges*"])
