"""Bring your own eval end to end through pytest: a stranger's suite made by init, judged by the reference judge."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml
from support.e2e import KEY_A, KEY_B

from pytest_ora.harness.scaffold import init_suite
from pytest_ora.method.rubric_file import digest_of
from pytest_ora.testing.server import ReferenceJudge

CONFIGURATIONS = ("terse", "plain", "thorough")


def csv_text(entries: int = 8) -> str:
    """3 configurations x `entries` prompts; 'thorough' covers the reference best, 'terse' least."""
    lines = ["id,configuration,prompt,answer,reference,cost_usd,team"]
    for index in range(entries):
        topic = f"topic{index:02d}"
        reference = (
            f"Photosynthesis converts sunlight carbon dioxide water into glucose oxygen inside chloroplasts {topic}"
        )
        answers = {
            "terse": "It makes food.",
            "plain": f"Plants use sunlight to make glucose because chloroplasts capture light ({topic}).",
            "thorough": (
                f"Photosynthesis converts sunlight, carbon dioxide and water into glucose and oxygen inside "
                f"chloroplasts; therefore plants store energy ({topic}). It is likely the main source of oxygen."
            ),
        }
        for configuration, answer in answers.items():
            lines.append(
                f'q{index},{configuration},"How do plants make food? ({topic})","{answer}","{reference}",0.01,bio'
            )
    return "\n".join(lines) + "\n"


@pytest.fixture
def suite(pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A suite made by init from a 24-row CSV, its judges routed to the loopback reference judge."""
    source = pytester.path / "answers.csv"
    source.write_text(csv_text(), encoding="utf-8")
    judges = (
        f"judge-a=anthropic:claude-opus-4-7@{judge.route('anthropic')}",
        f"judge-b=openai:gpt-5.4@{judge.route('openai')}",
    )
    directory = pytester.path / "mine"
    init_suite(directory, source=source, judges=judges, today="2026-12-01")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)
    return directory


def overalls(directory: Path) -> dict[str, float]:
    rows = json.loads((directory / "ora-results" / "summary.json").read_text(encoding="utf-8"))
    return {row["configuration"]: row["mean_overall"] for row in rows}


def new_version(directory: Path, change: dict[str, object], version: str = "my-eval-1.1", forge: bool = False) -> None:
    """Edit the suite's rubric: a new version with its history line, or (forge) the old id with the new digest."""
    path = directory / "bundle" / "rubric.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data.update(change)
    if not forge:
        data["rubric"] = version
    digest = digest_of(data)
    if forge:
        data["history"][-1]["digest"] = digest  # the forgery: the old line made to match the new content
    else:
        data["history"].append({"version": version, "date": "2026-12-02", "change": "reweighted", "digest": digest})
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_init_suite_runs_dry_live_replay_and_k(pytester: pytest.Pytester, suite: Path, judge: ReferenceJudge) -> None:
    # A dry run works at once: nothing sent
    dry = pytester.runpytest(str(suite), "--ora-dry-run")
    assert dry.ret == 0
    assert judge.calls == 0
    assert (suite / "ora-results" / "dry-run" / "estimate.md").is_file() or list(
        (suite / "ora-results").rglob("estimate.md")
    )

    # Live against the reference judge: every capture judged, the best answers score highest
    live = pytester.runpytest(str(suite), "--ora-record", "once")
    assert live.ret == 0, live.stdout.str()
    scores = overalls(suite)
    assert scores["thorough"] > scores["plain"] > scores["terse"]
    calls = judge.calls
    assert (suite / "cassettes" / ".ora-bundle").read_text(encoding="utf-8").strip() == "mine"

    # Replay: offline, the same tables
    first = (suite / "ora-results" / "ledger.jsonl").read_bytes()
    replay = pytester.runpytest(str(suite))
    assert replay.ret == 0
    assert judge.calls == calls
    assert (suite / "ora-results" / "ledger.jsonl").read_bytes() == first

    # -k one configuration
    one = pytester.runpytest(str(suite), "-k", "thorough")
    assert one.ret == 0
    assert set(overalls(suite)) == {"thorough"} or json.loads((suite / "ora-results" / "summary.json").read_text())[0]
    assert judge.calls == calls


def test_imported_rows_keep_other_columns_under_metadata(suite: Path) -> None:
    first = json.loads((suite / "bundle" / "captures.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["entry_key"] == "eval:q0"
    assert first["metadata"] == {"team": "bio"}
    assert first["cost_usd"] == 0.01
    assert "acceptance" not in first  # defaults to {passed: true} with any rubric but ora-1.0


def test_failing_gate_is_a_failed_junit_testcase_and_a_holding_one_says_so(
    pytester: pytest.Pytester, suite: Path
) -> None:
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    junit = suite / "junit.xml"
    result = pytester.runpytest(
        str(suite), "--ora-fail-under", "9", "--ora-fail-lowscore-pct", "100", f"--junitxml={junit}"
    )
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "ora: FAIL --ora-fail-under 9: terse mean overall * < 9",
            "ora: gate --ora-fail-lowscore-pct 100 holds: *",
        ]
    )
    root = ET.parse(junit).getroot()
    suite_node = root if root.tag == "testsuite" else root[0]
    assert int(suite_node.get("failures", "0")) == 1
    gates = {case.get("name"): case for case in suite_node.iter("testcase") if case.get("classname") == "ora-gate"}
    assert list(gates) == ["--ora-fail-under", "--ora-fail-lowscore-pct"]  # the held gate a passed testcase
    failure = gates["--ora-fail-under"].find("failure")
    assert failure is not None and "terse mean overall" in (failure.get("message") or "") + (failure.text or "")
    held = gates["--ora-fail-lowscore-pct"]
    assert held.find("failure") is None and held.find("skipped") is None and held.find("error") is None
    assert int(suite_node.get("tests", "0")) == 24 + 2
    # A low-scoring capture says so where JUnit viewers look: its system-out, beside the ora_outcome property
    low = [
        case for case in suite_node.iter("testcase") if any(p.get("value") == "LOWSCORE" for p in case.iter("property"))
    ]
    assert low and all(
        re.fullmatch(r"LOWSCORE: overall \d+\.\d < 5\.0", case.findtext("system-out") or "") for case in low
    )
    result.stdout.fnmatch_lines(["* 1 failed, * passed*"])  # the terminal counts the tests and the failing gate only


def test_weights_only_change_rescores_offline_without_a_judge_call(
    pytester: pytest.Pytester, suite: Path, judge: ReferenceJudge
) -> None:
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    before, calls = overalls(suite), judge.calls
    rubric = yaml.safe_load((suite / "bundle" / "rubric.yaml").read_text(encoding="utf-8"))
    old_digest = rubric["history"][-1]["digest"]
    criteria = rubric["criteria"]
    criteria[0]["weight"], criteria[1]["weight"], criteria[2]["weight"] = "0.1", "0.1", "0.8"
    new_version(suite, {"criteria": criteria})

    result = pytester.runpytest(str(suite))  # replay only: no network

    assert result.ret == 0, result.stdout.str()
    assert judge.calls == calls
    after = overalls(suite)
    assert after != before
    rows = [json.loads(line) for line in (suite / "ora-results" / "ledger.jsonl").read_text().splitlines()]
    assert {row["recorded_under"] for row in rows} == {f"my-eval-1.0 ({old_digest})"}
    assert {row["rubric"] for row in rows} == {"my-eval-1.1"}
    methodology = (suite / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert f"rescored from recordings made under my-eval-1.0 ({old_digest})" in methodology


def test_a_change_the_judge_sees_fails_with_one_summary_line(pytester: pytest.Pytester, suite: Path) -> None:
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    rubric = yaml.safe_load((suite / "bundle" / "rubric.yaml").read_text(encoding="utf-8"))
    rubric["criteria"][0]["question"] = "Is it right?"
    new_version(suite, {"criteria": rubric["criteria"]})

    result = pytester.runpytest(str(suite))

    assert result.ret == 1
    text = result.stdout.str()
    assert len(re.findall(r"re-record", text)) == 1  # said once for the run, not once a capture
    result.stdout.fnmatch_lines(
        [
            "ora: 24 captures: the judge request itself (*) changed since recorded; re-record only them*"
            "--ora-record new_episodes"
        ]
    )


def test_history_forgery_is_refused(pytester: pytest.Pytester, suite: Path) -> None:
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    recorded = yaml.safe_load((suite / "bundle" / "rubric.yaml").read_text())["history"][-1]["digest"]
    new_version(suite, {"failure": {"below": 7.0}}, forge=True)
    forged = yaml.safe_load((suite / "bundle" / "rubric.yaml").read_text())["history"][-1]["digest"]

    result = pytester.runpytest(str(suite))

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            f"ERROR: rubric my-eval-1.0 was recorded with {recorded}; this file is {forged}: give the change a new version*"
        ]
    )


def test_a_cassette_directory_takes_one_bundle(pytester: pytest.Pytester, suite: Path) -> None:
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    manifest = suite / "bundle" / "bundle.yaml"
    manifest.write_text(manifest.read_text().replace("bundle: mine", "bundle: theirs"), encoding="utf-8")

    result = pytester.runpytest(str(suite), "--ora-record", "new_episodes")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*belongs to bundle 'mine' (its .ora-bundle); this run would record bundle 'theirs'*--ora-cassettes DIR*"]
    )


def test_the_same_command_from_a_subdirectory_reads_and_writes_the_same_places(
    pytester: pytest.Pytester, suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    first = (suite / "ora-results" / "ledger.jsonl").read_bytes()
    (suite / "ora-results" / "ledger.jsonl").unlink()
    sub = suite / "notes"
    sub.mkdir()
    monkeypatch.chdir(sub)

    result = pytester.runpytest("--rootdir", str(suite), "-c", str(suite / "pytest.ini"), str(suite))

    assert result.ret == 0, result.stdout.str()
    assert (suite / "ora-results" / "ledger.jsonl").read_bytes() == first
    assert not (sub / "ora-results").exists() and not (sub / "cassettes").exists()


def test_an_interrupted_run_says_so_everywhere(pytester: pytest.Pytester, suite: Path) -> None:
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    for cassette in sorted((suite / "cassettes").rglob("terse.json"))[:1]:
        cassette.unlink()  # that capture now fails in replay, and -x stops the run there

    result = pytester.runpytest(str(suite), "-x", "-p", "no:randomly")

    assert result.ret == 1
    out = suite / "ora-results"
    summary = (out / "summary.md").read_text(encoding="utf-8")
    head = summary.split("\n\n")[1]
    assert head.startswith("**Incomplete run: ") and "of 24 selected captures judged; re-run to complete" in head
    rows = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert {(row["complete"], row["stopped_by"]) for row in rows} == {(False, "maxfail (-x / --maxfail)")}
    run = json.loads((out / "run.json").read_text(encoding="utf-8"))["methodology"]
    assert run["complete"] is False and run["stopped_by"] == "maxfail (-x / --maxfail)"
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.index("Incomplete run: ") < page.index("<table")


def test_a_judge_on_this_machine_is_said_in_header_summary_and_report(pytester: pytest.Pytester, suite: Path) -> None:
    result = pytester.runpytest(str(suite), "--ora-record", "once")
    result.stdout.fnmatch_lines(["ora: Scores from a judge on this machine: Judge A at http://127.0.0.1:*"])
    out = suite / "ora-results"
    assert "a judge on this machine" in (out / "report.html").read_text(encoding="utf-8")
    assert "on this machine" in (out / "summary.md").read_text(encoding="utf-8")


def test_k_with_a_configuration_name_as_given_selects_its_captures(
    pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A user's names are labels: kept as given, so `-k gpt4_1106_preview` selects that configuration."""
    source = pytester.path / "answers.csv"
    source.write_text(
        "id,configuration,prompt,answer\n"
        "q1,gpt4_1106_preview,Why is the sky blue?,Rayleigh scattering favours short wavelengths.\n"
        "q1,Qwen1.5-7B-Chat,Why is the sky blue?,Because of scattering.\n",
        encoding="utf-8",
    )
    judges = (
        f"judge-a=anthropic:claude-opus-4-7@{judge.route('anthropic')}",
        f"judge-b=openai:gpt-5.4@{judge.route('openai')}",
    )
    init_suite(pytester.path / "mine", source=source, judges=judges, today="2026-12-01")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)
    assert pytester.runpytest(str(pytester.path / "mine"), "--ora-record", "once").ret == 0
    for name in ("gpt4_1106_preview", "Qwen1.5-7B-Chat"):
        result = pytester.runpytest(str(pytester.path / "mine"), "-k", name, "-q")
        assert result.ret == 0
        result.stdout.fnmatch_lines([f"ora: selection: 1 of 2 captures, -k '{name}'", "1 deselected, 1 *"])
        ledger = (pytester.path / "mine" / "ora-results" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
        assert [json.loads(line)["configuration"] for line in ledger] == [name]


def test_a_blind_run_judges_answers_as_written_and_reports_those_that_name_themselves(
    pytester: pytest.Pytester, judge: ReferenceJudge, monkeypatch: pytest.MonkeyPatch
) -> None:
    """init's starter rubric is blind; an answer using its configuration's name (`base`) is sent as written and
    reported (ledger, methodology, terminal); `blind: strict` replaces such names and counts the replacements."""
    source = pytester.path / "answers.csv"
    source.write_text(
        "id,configuration,prompt,answer\n"
        "q1,base,What is a base in chemistry?,A base accepts protons; the base of a triangle is another thing.\n"
        "q1,solo,What is a base in chemistry?,A base accepts protons and turns litmus blue.\n",
        encoding="utf-8",
    )
    judges = (
        f"judge-a=anthropic:claude-opus-4-7@{judge.route('anthropic')}",
        f"judge-b=openai:gpt-5.4@{judge.route('openai')}",
    )
    suite = pytester.path / "mine"
    init_suite(suite, source=source, judges=judges, today="2026-12-01")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY_A)
    monkeypatch.setenv("OPENAI_API_KEY", KEY_B)
    assert "blind: true" in (suite / "bundle" / "rubric.yaml").read_text(encoding="utf-8")

    live = pytester.runpytest(str(suite), "--ora-record", "once")
    assert live.ret == 0, live.stdout.str()
    live.stdout.fnmatch_lines(
        [
            "ora: rubric digest sha256:* (*); blind packets (texts as written)",
            "ora: blind: 1 of 2 judged captures name their own configuration or model in their text; judged as written *",
        ]
    )
    ledger = [
        json.loads(line) for line in (suite / "ora-results" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert {row["configuration"]: row["names_itself"] for row in ledger} == {"base": ["base"], "solo": []}
    methodology = (suite / "ora-results" / "methodology.md").read_text(encoding="utf-8")
    assert "- Blind texts: judged as written; 1 judged capture names its own configuration or model" in methodology
    assert "sample bundle" not in (suite / "ora-results" / "summary.md").read_text(encoding="utf-8")  # a user's bundle
    sent = json.loads((suite / "ora-results" / "packets" / "eval" / "q1" / "base.json").read_text(encoding="utf-8"))
    assert sent["answer"] == "A base accepts protons; the base of a triangle is another thing."
    assert sent["configuration"] is None

    new_version(suite, {"blind": "strict"})
    strict = pytester.runpytest(str(suite), "--ora-record", "new_episodes")
    assert strict.ret == 0, strict.stdout.str()
    strict.stdout.fnmatch_lines(
        [
            "ora: rubric digest sha256:* (*); blind packets (strict: names in the texts withheld)",
            "ora: blind (strict): 3 names replaced by [withheld] in 1 of 2 judged captures' texts (ledger field withheld)",
        ]
    )
    ledger = [
        json.loads(line) for line in (suite / "ora-results" / "ledger.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    assert {row["configuration"]: row["withheld"] for row in ledger} == {"base": 3, "solo": 0}  # prompt 1, answer 2
    sent = json.loads((suite / "ora-results" / "packets" / "eval" / "q1" / "base.json").read_text(encoding="utf-8"))
    assert sent["answer"] == "A [withheld] accepts protons; the [withheld] of a triangle is another thing."
    assert "- Blind texts (strict): 3 configuration or model names replaced by [withheld]" in (
        suite / "ora-results" / "methodology.md"
    ).read_text(encoding="utf-8")


def test_a_replay_after_answers_changed_fails_fast_and_says_it_once(pytester: pytest.Pytester, suite: Path) -> None:
    """Drifted captures fail with their own line and no traceback: pytest never formats one (it cost ~2 s each)."""
    assert pytester.runpytest(str(suite), "--ora-record", "once").ret == 0
    captures = suite / "bundle" / "captures.jsonl"
    rows = [json.loads(line) for line in captures.read_text(encoding="utf-8").splitlines()]
    for row in rows[:10]:
        row["answer"] += " (edited)"
    captures.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")

    result = pytester.runpytest(str(suite), "--tb=long")

    assert result.parseoutcomes()["failed"] == 10
    text = result.stdout.str()
    assert "Traceback" not in text and "site-packages" not in text and "raise " not in text
    assert len(re.findall(r"re-record", text)) == 1
    result.stdout.fnmatch_lines(
        [
            "eval:q0/terse: recorded for a different judge request (packet field 'answer' changed)",
            "ora: 10 captures: packet field 'answer' changed since recorded; re-record only them (the others replay free) "
            "with: pytest * --lf --ora-record new_episodes",
        ]
    )
