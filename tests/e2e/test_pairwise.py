"""Pairwise evaluation: the generic pairwise rubric, preference labels and the judges measured against them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from pytest_ora.method.rubric import builtin_ids, builtin_text, get_rubric

EXAMPLE = Path(__file__).parents[2] / "evals" / "examples" / "compare"
PAIRS = [  # (entry, prompt, answer of model-a, answer of model-b): pairs this test writes
    (
        f"qa:item-{i:02d}",
        f"Question {i}: explain step {i} of the procedure in a short list.",
        "\n".join(
            f"- Step {i}.{k}: check the input, then the output, because each stage depends on it."
            for k in range(1 + i % 4)
        ),
        "Not sure."
        if i % 3
        else "\n".join(f"- Step {i}.{k}: verify the result carefully." for k in range(1 + (i + 1) % 4)),
    )
    for i in range(12)
]


def test_the_generic_pairwise_rubric_is_built_in_versioned_and_persona_free() -> None:
    rubric = get_rubric("pairwise-1.0")
    data = yaml.safe_load(builtin_text("pairwise-1.0"))
    assert "pairwise-1.0" in builtin_ids()
    assert rubric.kind == "compare" and rubric.blind
    assert rubric.names == ("instruction_following", "helpfulness", "accuracy", "harmlessness")
    assert not any("persona" in (c.name + c.question).lower() for c in rubric.criteria)
    assert data["history"][-1]["version"] == "pairwise-1.0"


def write_project(path: Path, routes: dict[str, str], rubric: str = "pairwise-1.0") -> None:
    """A compare project over PAIRS: two configurations, the compare example's suite, the reference judge's routes."""
    for name in ("conftest.py", "pytest.ini", "test_compare.py"):
        shutil.copy(EXAMPLE / name, path / name)
    bundle = path / "bundle"
    bundle.mkdir(exist_ok=True)
    (bundle / "bundle.yaml").write_text(
        "bundle: pairwise-test\ncreated: 2026-12-06\nconfigurations: [model-a, model-b]\n"
        f"rubric: {rubric}\npanel: [judge-opus, judge-gpt]\ncompare: [[model-a, model-b]]\n",
        encoding="utf-8",
    )
    lines = []
    for entry, prompt, first, second in PAIRS:
        for configuration, answer in (("model-a", first), ("model-b", second)):
            lines.append(
                json.dumps(
                    {
                        "entry_key": entry,
                        "configuration": configuration,
                        "prompt": prompt,
                        "answer": answer,
                        "acceptance": {"passed": True, "reason": None, "notes": ""},
                    }
                )
            )
    (bundle / "captures.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    optimum = (EXAMPLE / "bundle" / "optimum.yaml").read_text(encoding="utf-8")
    optimum = optimum.replace("http://127.0.0.1:8770/v1/messages", routes["anthropic"])
    (bundle / "optimum.yaml").write_text(
        optimum.replace("http://127.0.0.1:8770/v1/chat/completions", routes["openai"]), encoding="utf-8"
    )


def judged_live(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str, **judge: Any
) -> pytest.RunResult:
    from pytest_ora.testing.server import ReferenceJudge

    with ReferenceJudge(**judge) as server:
        write_project(pytester.path, {"anthropic": server.route("anthropic"), "openai": server.route("openai")})
        monkeypatch.setenv("ANTHROPIC_API_KEY", "reference-judge-test-key")
        monkeypatch.setenv("OPENAI_API_KEY", "reference-judge-test-key")
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-record", "all", "-n", "0", *args)


def test_the_reference_judge_answers_the_generic_pairwise_rubric(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = judged_live(pytester, monkeypatch)
    result.assert_outcomes(passed=len(PAIRS))
    rows = [json.loads(line) for line in (pytester.path / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    assert {row["rubric"] for row in rows} == {"pairwise-1.0"}
    assert {row["winner"] for row in rows} >= {"model-a"}


def gold(i: int) -> str:
    """The test's gold preference for PAIRS[i]: model-a where model-b said nothing useful, else tie or second."""
    return "model-a" if i % 3 else ("tie" if i % 2 else "second")


def write_labels(path: Path) -> Path:
    lines = [
        {"capture_id": f"{entry}/model-a+model-b", "rater": "ann", "winner": gold(i)}
        for i, (entry, *_) in enumerate(PAIRS)
    ]
    lines += [
        {"entry_key": entry, "pair": "model-a:model-b", "rater": "bob", "winner": "first" if i == 3 else gold(i)}
        for i, (entry, *_) in enumerate(PAIRS[:6])
    ]
    target = path / "labels.jsonl"
    target.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return target


def test_cohen_kappa_and_accuracy_equal_scikit_learns_on_the_same_vectors() -> None:
    from sklearn.metrics import accuracy_score, cohen_kappa_score

    from pytest_ora.stats.preference import agreement_figures

    judge = ["first", "second", "tie", "first", "first", "second", "tie", "second", "first", "tie"]
    human = ["first", "second", "first", "first", "second", "second", "tie", "first", "first", "second"]
    figures = agreement_figures(judge, human)
    untied = [(a, b) for a, b in zip(judge, human) if "tie" not in (a, b)]
    assert figures["accuracy_with_ties"] == pytest.approx(accuracy_score(human, judge))
    assert figures["kappa_with_ties"] == pytest.approx(cohen_kappa_score(human, judge))
    assert figures["n_without_ties"] == len(untied)
    assert figures["accuracy_without_ties"] == pytest.approx(accuracy_score(*zip(*untied)))
    assert figures["kappa_without_ties"] == pytest.approx(cohen_kappa_score(*zip(*untied)))
    assert agreement_figures(["tie"] * 3, ["tie"] * 3)["kappa_with_ties"] is None  # one class: undefined, not 1


def test_a_split_human_vote_is_a_tie_and_a_majority_wins() -> None:
    from pytest_ora.stats.preference import human_majority

    assert human_majority(["first", "second"]) == "tie"
    assert human_majority(["first", "first", "tie"]) == "first"
    assert human_majority(["second"]) == "second"


def test_preference_labels_calibrate_the_judges_with_and_without_ties(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sklearn.metrics import accuracy_score, cohen_kappa_score

    # Given pairs written by this test, judged live by the reference judge, and two raters' preference labels
    labels = write_labels(pytester.path)
    result = judged_live(pytester, monkeypatch, "--ora-labels", str(labels))
    result.assert_outcomes(passed=len(PAIRS))
    out = pytester.path / "ora-results"
    stats = json.loads((out / "stats.json").read_text())["calibration"]
    rows = {row["capture_id"]: row for row in map(json.loads, (out / "ledger.jsonl").read_text().splitlines())}

    # Then every judge's and the panel's accuracy and kappa equal scikit-learn's on the vectors rebuilt from the ledger
    side = {"model-a": "first", "model-b": "second", "tie": "tie", "first": "first", "second": "second"}
    bob = {i: "first" if i == 3 else gold(i) for i in range(6)}
    human = [side[gold(i)] if i not in bob or side[bob[i]] == side[gold(i)] else "tie" for i in range(len(PAIRS))]
    assert stats["kind"] == "preference" and stats["captures"] == len(PAIRS) and stats["raters"] == ["ann", "bob"]
    for judge in stats["judges"]:
        verdicts = [
            side[
                rows[f"{entry}/model-a+model-b"]["winner"]
                if judge["judge"] == "panel"
                else next(
                    j["winner"]
                    for j in rows[f"{entry}/model-a+model-b"]["compare_judges"]
                    if j["label"] == judge["judge"]
                )
            ]
            for entry, *_ in PAIRS
        ]
        untied = [(h, v) for h, v in zip(human, verdicts) if "tie" not in (h, v)]
        assert judge["n"] == len(PAIRS)
        assert judge["accuracy_with_ties"] == pytest.approx(accuracy_score(human, verdicts))
        assert judge["kappa_with_ties"] == pytest.approx(cohen_kappa_score(human, verdicts))
        assert judge["n_without_ties"] == len(untied)
        assert judge["accuracy_without_ties"] == pytest.approx(accuracy_score(*zip(*untied)))
        assert judge["kappa_without_ties"] == pytest.approx(cohen_kappa_score(*zip(*untied)))
        if judge["judge"] != "panel":
            flips = [
                j
                for row in rows.values()
                for j in row["compare_judges"]
                if j["label"] == judge["judge"] and not j["consistent"]
            ]
            assert judge["position_disagreement"]["count"] == len(flips)
    # and the two raters' agreement over the six pairs both labelled (one disagreement)
    (between,) = stats["human_vs_human"]
    assert (
        between["raters"] == ["ann", "bob"]
        and between["n"] == 6
        and between["accuracy_with_ties"] == pytest.approx(5 / 6)
    )
    assert "## Calibration against human preferences" in (out / "summary.md").read_text()
    assert "Calibration against human preferences" in (out / "report.html").read_text()
    # and the terminal says the same figures, a line a judge
    terminal = result.stdout.str()
    assert (
        f"ora: calibration against human preferences: {len(PAIRS)} labelled pairs judged (raters: ann, bob)" in terminal
    )
    panel = next(judge for judge in stats["judges"] if judge["judge"] == "panel")
    assert (
        f"  panel: accuracy {panel['accuracy_with_ties'] * 100:.0f}% with ties (Cohen's kappa "
        f"{panel['kappa_with_ties']:.3f})"
    ) in terminal
    assert "  people ann & bob: agreement 83% with ties" in terminal


def test_a_position_biased_judge_disagrees_with_itself_on_every_pair(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    labels = write_labels(pytester.path)
    result = judged_live(
        pytester, monkeypatch, "--ora-labels", str(labels), "--ora-fail-calibration", "0.2", prefer_first=True
    )
    stats = json.loads((pytester.path / "ora-results" / "stats.json").read_text())["calibration"]
    judges = [row for row in stats["judges"] if row["judge"] != "panel"]
    assert all(
        row["position_disagreement"] == {"items": len(PAIRS), "count": len(PAIRS), "share": 1.0} for row in judges
    )
    # every verdict is a tie: chance agreement only (kappa 0), and --ora-fail-calibration fails the run saying so
    assert result.ret != 0
    result.stdout.fnmatch_lines(
        [
            "--ora-fail-calibration 0.2: the panel's Cohen's kappa vs the human preferences is 0.000 < 0.2 over 12 labelled pairs"
        ]
    )


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"capture_id": "qa:item-00/model-a+model-b", "rater": "ann", "winner": "model-c"}, "winner"),
        ({"entry_key": "qa:item-00", "pair": "model-b:model-a", "rater": "ann", "winner": "tie"}, "pair"),
        ({"capture_id": "qa:item-00/model-a+model-b", "rater": "ann", "winner": "tie", "score": 3}, "score"),
    ],
)
def test_a_bad_preference_line_stops_the_run_naming_file_line_and_field(
    pytester: pytest.Pytester,
    line: dict[str, Any],
    field: str,
) -> None:
    write_project(
        pytester.path,
        {"anthropic": "http://127.0.0.1:9/v1/messages", "openai": "http://127.0.0.1:9/v1/chat/completions"},
    )
    good = {"capture_id": "qa:item-01/model-a+model-b", "rater": "ann", "winner": "first"}
    (pytester.path / "prefs.jsonl").write_text(json.dumps(good) + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-labels", "prefs.jsonl", "--co")
    assert result.ret == 4
    assert "Traceback" not in result.stderr.str()
    text = result.stderr.str() + result.stdout.str()
    assert f"prefs.jsonl:2: field {field!r}" in text


def test_a_compare_run_reports_wins_ties_losses_and_agreement_not_scores(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result = judged_live(pytester, monkeypatch)
    result.assert_outcomes(passed=len(PAIRS))
    out = pytester.path / "ora-results"
    (pair,) = json.loads((out / "compare.json").read_text())
    assert pair["judge_agreement"]["judges"] == 2 and pair["judge_agreement"]["items"] == len(PAIRS)
    summary = (out / "summary.md").read_text()
    table = summary.split("## ")[0]
    assert "Overall" not in table and "Failure rate" not in table and "Judges agree on the winner" not in table
    assert "a compare run has no overall score" in table
    assert "## Per family" not in summary and "### Judge agreement" not in summary and "Mean overall" not in summary
    assert "## Head to head" in summary and "Judges agree on the winner" in summary
    page = (out / "report.html").read_text()
    summary_section = page.split('<section id="summary">')[1].split("</section>")[0]
    assert "Judges agree on the winner" in summary_section and "Overall" not in summary_section
    assert "No judge agreement to chart" not in page
    assert (
        'data-chart="heatmap"' not in page
        and 'data-chart="failures"' not in page
        and 'data-chart="overall"' not in page
    )
    statistics = page.split('<section id="statistics">')[1].split("</section>")[0]
    assert "<h3>Judges</h3>" not in statistics and "<h3>Agreement</h3>" not in statistics
    terminal = result.stdout.str()
    assert "Fail %" not in terminal and "Overall" not in terminal
    assert "Judges agree on the winner" in terminal
    # The terminal's table is the pair's head to head, not a configuration row named `model-a+model-b`
    assert "model-a+model-b" not in terminal and "Configuration" not in terminal
    result.stdout.fnmatch_lines(["Pair (first vs second)*Items*Wins*Ties*Losses*", "model-a vs model-b*12*"])
    assert "not in the head to head" not in terminal  # nothing left out: no line for it


def test_when_a_compare_item_is_left_out_then_the_terminal_says_so_beside_the_head_to_head(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_ora.testing.server import ReferenceJudge

    with ReferenceJudge() as server:
        write_project(pytester.path, {"anthropic": server.route("anthropic"), "openai": server.route("openai")})
        captures = pytester.path / "bundle" / "captures.jsonl"
        lines = [json.loads(line) for line in captures.read_text(encoding="utf-8").splitlines()]
        lines[0]["acceptance"] = {"passed": False, "reason": "the harness timed out", "notes": ""}
        captures.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-FAKE-KEY-never-written-4242")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-FAKE-KEY-never-written-4242")
        result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--ora-record", "once", "-n", "0")
    result.stdout.fnmatch_lines(
        [
            f"ora: pair model-a vs model-b: {len(PAIRS) - 1} items judged; not in the head to head: 1 *",
            "Pair (first vs second)*",
            f"model-a vs model-b*{len(PAIRS) - 1}*",
        ]
    )


def test_when_the_labelling_page_holds_pairs_then_the_label_command_counts_pairs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from pytest_ora.__main__ import main

    write_project(
        tmp_path, {"anthropic": "http://127.0.0.1:9/v1/messages", "openai": "http://127.0.0.1:9/v1/chat/completions"}
    )
    assert main(["label", str(tmp_path / "bundle"), "--sample", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"label: 5 pairs on {tmp_path / 'bundle' / 'label.html'};"), out
    assert "captures" not in out


def _page_data(page: str) -> dict[str, Any]:
    raw = page.split('id="ora-data">')[1].split("</script>")[0]
    return cast(dict[str, Any], json.loads(raw.replace("\\u003c", "<").replace("\\u003e", ">").replace("\\u0026", "&")))


def test_when_a_compare_run_writes_its_page_then_no_item_carries_an_overall_a_failure_or_a_mean(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Given a compare run of PAIRS judged by the reference judge
    judged_live(pytester, monkeypatch).assert_outcomes(passed=len(PAIRS))
    out = pytester.path / "ora-results"
    page = (out / "report.html").read_text(encoding="utf-8")
    data = _page_data(page)
    # Then the matrix and the captures table get winners and verdicts, never an overall or a failure
    rows = data["captures"]["rows"]
    assert len(rows) == len(PAIRS)
    assert all(row[5] is None and row[6] is None and row[7] is None for row in rows)  # overall, failure, means
    assert all(
        mean["overall"] is None and mean["failure_rate"] is None and mean["criteria"] == {}
        for mean in data["means"].values()
    )
    assert data["by_family"] == {}
    ledger = {row["capture_id"]: row for row in map(json.loads, (out / "ledger.jsonl").read_text().splitlines())}
    for index, row in enumerate(rows):
        extra = data["extras"][str(index)]["compare"]
        kept = ledger[data["captures"]["strings"][row[0]]]
        assert extra["winner"] == kept["winner"]
        assert extra["judges"] == [
            [f"Judge {j['label']}", j["winner"], j["consistent"]] for j in kept["compare_judges"]
        ]
    matrix = page.split('<section id="matrix">')[1].split("</section>")[0]
    assert "each cell names the pair's winner" in matrix and "Spread" not in matrix and "overall below" not in matrix
    captures = page.split('<section id="captures">')[1].split("</section>")[0]
    assert ">Winner</th>" in captures and ">Overall</th>" not in captures and "a failure" not in captures
    assert "has no mean overall" in page.split('<section id="earlier-runs">')[1]


def test_when_compare_files_are_another_runs_then_verify_and_the_page_say_so(
    pytester: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from pytest_ora.__main__ import main
    from pytest_ora.reports.renderers import _report_html

    judged_live(pytester, monkeypatch).assert_outcomes(passed=len(PAIRS))
    out = pytester.path / "ora-results"
    # Given compare.jsonl and compare.json of another bundle (its items renamed, one item fewer)
    rows = [json.loads(line) for line in (out / "compare.jsonl").read_text().splitlines()][1:]
    (out / "compare.jsonl").write_text(
        "".join(json.dumps({**row, "capture_id": "other:" + row["capture_id"]}) + "\n" for row in rows),
        encoding="utf-8",
    )
    (pair,) = json.loads((out / "compare.json").read_text())
    (out / "compare.json").write_text(json.dumps([{**pair, "wins": pair["wins"] + 5}]), encoding="utf-8")
    # Then verify names the stale data file
    assert main(["verify", str(out)]) == 1
    said = capsys.readouterr().out
    assert (
        f"compare.jsonl: does not match the other data: {len(PAIRS) - 1} of its {len(PAIRS) - 1} items are no scored "
        "compare item of ledger.jsonl"
    ) in said
    assert f"{len(PAIRS)} scored compare items of ledger.jsonl are not in it" in said
    # And the page, rendered from those files, shows no head-to-head of another run and says why
    page = _report_html(out)
    summary = page.split('<section id="summary">')[1].split("</section>")[0]
    assert "compare.json is not shown: its pair model-a vs model-b" in summary and "is not this run" in summary
    assert "<th>Wins</th>" not in summary


def test_a_preference_line_holding_a_configured_key_is_refused_without_showing_it(tmp_path: Path) -> None:
    from pytest_ora.bundle.preferences import read_preferences
    from pytest_ora.core.errors import IntakeError
    from pytest_ora.core.plan import Pair

    key = "sk-preference-test-key-0123456789"
    path = tmp_path / "labels.jsonl"
    lines = [
        {"capture_id": "mode:x/a+b", "rater": "ann", "winner": "first"},
        {"capture_id": "mode:x/a+b", "rater": key, "winner": "tie"},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with pytest.raises(IntakeError) as raised:
        read_preferences(path, "labels.jsonl", [("mode:x/a+b", Pair("a", "b"))], [key])
    message = str(raised.value)
    assert "labels.jsonl:2" in message and "rater" in message and "configured API key" in message
    assert key not in message
