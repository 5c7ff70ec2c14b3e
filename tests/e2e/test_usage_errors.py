"""Misuse of the command line, the ini file or the plugin is one clear sentence, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from support.bundle_factory import write_bundle
from support.e2e import EVAL_TEST

from pytest_ora.testing.server import ReferenceJudge

REPO = Path(__file__).parents[2]


def no_traceback(result: pytest.RunResult) -> None:
    text = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in text and "INTERNALERROR" not in text and "_pytest" not in text, text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--ora-scoring-date", "2026-13-45"],
            "ERROR: --ora-scoring-date takes a date as YYYY-MM-DD, got '2026-13-45'",
        ),
        (["--ora-timeout", "0"], "ERROR: --ora-timeout must be greater than 0, got '0'"),
        (["--ora-timeout", "nan"], "ERROR: --ora-timeout takes a finite number, got 'nan'"),
        (["--ora-concurrency", "0"], "ERROR: --ora-concurrency must be at least 1, got '0'"),
        (["--ora-reasks", "-1"], "ERROR: --ora-reasks cannot be negative, got '-1'"),
        (["--ora-retries", "many"], "ERROR: --ora-retries takes a number, got 'many'"),
        (["--ora-budget-usd", "0"], "ERROR: --ora-budget-usd must be a positive number, got '0'"),
        (["--ora-fail-under", "ten"], "ERROR: --ora-fail-under takes a number, got 'ten'"),
    ],
)
def test_bad_option_values_are_usage_errors(project: pytest.Pytester, args: list[str], message: str) -> None:
    result = project.runpytest(*args)

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])
    no_traceback(result)


@pytest.mark.parametrize(
    ("ini", "message"),
    [
        ("ora_timeout = 0", "ERROR: ini key ora_timeout must be greater than 0, got '0'"),
        ("ora_concurrency = 0", "ERROR: ini key ora_concurrency must be at least 1, got '0'"),
        ("ora_scoring_date = June", "ERROR: ini key ora_scoring_date takes a date as YYYY-MM-DD, got 'June'"),
        (
            "ora_record = sometimes",
            "ERROR: ini key ora_record must be one of none, once, new_episodes, all, got 'sometimes'",
        ),
    ],
)
def test_ini_errors_name_the_ini_key(project: pytest.Pytester, ini: str, message: str) -> None:
    project.makeini(f"[pytest]\nora_bundle = bundle\n{ini}\n")

    result = project.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_help_shows_defaults_and_ini_keys(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--help")

    text = " ".join(result.stdout.str().split())
    for expected in (
        "(default: ora-results; ini ora_out)",
        "(default: none; ini ora_record)",
        "(default: 120; ini ora_timeout)",
        "(default: auto; ini ora_concurrency)",
        "(ini ora_fail_under)",
    ):
        assert expected in text


def test_a_test_needing_a_bundle_without_one_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # Given a project that installed pytest-ora and wrote a capture test, but set no bundle
    pytester.makepyfile(test_ora=EVAL_TEST)

    result = pytester.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(
        [
            "test_ora.py::test_capture scores a capture bundle, but none is set: pass --ora-bundle=PATH, set ora_bundle "
            "in the ini file, or implement pytest_ora_bundle in a conftest.py"
        ]
    )
    no_traceback(result)


def test_under_xdist_a_missing_bundle_is_a_usage_error_too(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_ora=EVAL_TEST)

    result = pytester.runpytest_subprocess("-n", "2", "-p", "no:cacheprovider")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*test_ora.py::test_capture scores a capture bundle, but none is set*"])
    no_traceback(result)


def test_the_sample_conftest_works_with_the_plugin_disabled(pytester: pytest.Pytester) -> None:
    shutil.copy(REPO / "evals" / "conftest.py", pytester.path / "conftest.py")
    pytester.makepyfile(test_other="def test_other():\n    pass\n")

    result = pytester.runpytest("-p", "no:ora")

    result.assert_outcomes(passed=1)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()


def test_a_dry_run_with_a_missing_price_file_is_one_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-dry-run", "--ora-prices", "missing.yaml")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --ora-prices: *missing.yaml does not exist"])
    no_traceback(result)


def test_the_shipped_suite_scores_a_bundle_without_a_test_module(
    pytester: pytest.Pytester, judge: ReferenceJudge
) -> None:
    # Given only a bundle (no test module, no conftest, no ini key)
    routes = {"big-1": judge.route("anthropic"), "big-2": judge.route("openai")}
    write_bundle(pytester.path / "my-bundle", routes=routes)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ANTHROPIC_API_KEY", "sk-ant-FAKE-KEY-never-written-4242")
        patch.setenv("OPENAI_API_KEY", "sk-FAKE-KEY-never-written-8484")
        result = pytester.runpytest_subprocess(
            "--pyargs", "pytest_ora.suite", "--ora-bundle=my-bundle", "--ora-record", "once", "-p", "no:cacheprovider"
        )

    assert result.ret == 0, result.stdout.str()
    assert result.parseoutcomes()["passed"] == 8
    assert (pytester.path / "ora-results" / "summary.md").is_file()


@pytest.mark.parametrize("spelling", [["--ora-bundle", "{bundle}"], ["--ora-bundle={bundle}"]])
def test_the_default_output_directory_does_not_depend_on_how_the_bundle_was_given(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, spelling: list[str]
) -> None:
    # Given a bundle elsewhere and pytest started in a project directory (pytest takes the value of
    # `--ora-bundle X` for a test path when it picks the rootdir, but not that of `--ora-bundle=X`)
    bundle = write_bundle(pytester.path / "elsewhere" / "bundle")
    work = pytester.mkdir("work")
    (work / "test_ora.py").write_text(EVAL_TEST)
    monkeypatch.chdir(work)

    result = pytester.run(
        "python",
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-q",
        "test_ora.py",
        "--ora-dry-run",
        *(arg.replace("{bundle}", str(bundle)) for arg in spelling),
    )

    # Then a dry run writes to ./ora-results of the directory pytest ran in, either way
    assert result.ret == 0, result.stdout.str()
    assert (work / "ora-results" / "estimate.json").is_file()
    assert not (pytester.path / "ora-results").exists() and not (pytester.path / "elsewhere" / "ora-results").exists()


# --- errors a newcomer meets name the fix ------------------------------------------------


def test_a_misspelt_option_suggests_the_nearest(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-recrod", "once")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: unknown option --ora-recrod; did you mean --ora-record?*"])
    no_traceback(result)


def test_a_bundle_that_does_not_exist_says_so(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-bundle=nowhere")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*nowhere: does not exist; point --ora-bundle at a capture bundle*"])


def test_a_tab_in_a_manifest_is_named_with_its_line(project: pytest.Pytester) -> None:
    manifest = project.path / "bundle" / "bundle.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "extra:\n\tkey: value\n", encoding="utf-8")

    result = project.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*bundle.yaml:*: has a tab character (column 1): YAML indents with spaces only*"])


def test_a_gate_threshold_outside_the_scale_is_a_usage_error(project: pytest.Pytester) -> None:
    result = project.runpytest("--ora-fail-under", "12")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --ora-fail-under 12 is outside rubric ora-1.0's overall range 0-10*"])


def test_an_option_check_stops_the_run_when_pytest_configures_before_any_collection(project: pytest.Pytester) -> None:
    # When a conftest notes the session's start (before any other plugin's) and every collection, and the run's gate threshold is outside the scale
    project.makeconftest(
        "import pytest\n"
        "def pytest_collectstart(collector):\n"
        "    print('ORA-COLLECTED', collector.nodeid)\n"
        "@pytest.hookimpl(tryfirst=True)\n"
        "def pytest_sessionstart(session):\n"
        "    print('ORA-SESSION-STARTED')\n"
    )

    result = project.runpytest("-s", "--ora-fail-under", "12")

    # Then the usage error comes from pytest_configure: no session starts and nothing is collected
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: --ora-fail-under 12 is outside rubric ora-1.0's overall range 0-10*"])
    assert "ORA-SESSION-STARTED" not in result.stdout.str() and "ORA-COLLECTED" not in result.stdout.str()
    no_traceback(result)


def test_help_is_shown_even_when_an_option_is_out_of_range(project: pytest.Pytester) -> None:
    result = project.runpytest("--help", "--ora-fail-under", "12")

    assert result.ret == pytest.ExitCode.OK
    assert "--ora-fail-under" in result.stdout.str()


def test_a_panel_role_that_is_missing_lists_the_roles(project: pytest.Pytester) -> None:
    manifest = project.path / "bundle" / "bundle.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "panel: [big-1, big-3]\n", encoding="utf-8")

    result = project.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*roles.big-3*roles defined: big-1, big-2; name one of them in bundle.yaml's panel*"])


def test_a_bundle_without_rubric_that_fails_ora_1_0_says_it_was_the_default(project: pytest.Pytester) -> None:
    captures = project.path / "bundle" / "captures.jsonl"
    lines = captures.read_text(encoding="utf-8").splitlines()
    captures.write_text("\n".join(lines[:3]) + "\n", encoding="utf-8")  # too few for ora-1.0's scored_set

    result = project.runpytest()

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*bundle.yaml: field 'rubric': names no rubric, so ora-1.0 (the Ora judging method*) was used by "
            "default; choose another with `rubric: ID` in bundle.yaml or --ora-rubric*"
        ]
    )
