"""The GitHub Actions workflow of the CI how-to runs as written: its steps, one by one, in a clean copy of the
repository, after the how-to's own step that makes the baseline.

`act` (which runs a workflow in containers) is not used: each `run:` step runs with bash as the runner does
(`bash --noprofile --norc -eo pipefail`), GITHUB_STEP_SUMMARY set to a file, no API key in the environment; the
`uses:` steps are done by the test (checkout: the clean copy; setup-python: this interpreter; upload-artifact: each
of its paths must match a file). Installing runs pip with no package index: pytest-ora and its extra must already
be installed, so the step is run, never downloads.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.docblocks import ROOT, blocks, clean_copy, offline_env

WORKFLOW = ROOT / "docs" / "how-to" / "github-actions.yml"
HOW_TO = ROOT / "docs" / "how-to" / "ci.md"
STEP_SECONDS = 900


def _steps() -> list[dict[str, Any]]:
    workflow = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    (job,) = workflow["jobs"].values()
    steps: list[dict[str, Any]] = job["steps"]
    return steps


def _step_summary_option() -> bool:
    """Whether this build has --ora-step-summary (the option that writes GITHUB_STEP_SUMMARY)."""
    parser = pytest.Parser(_ispytest=True)
    from pytest_ora.harness.options import add_options

    add_options(parser)
    return any("--ora-step-summary" in option.names() for option in parser.getgroup("ora").options)


def _env(summary: Path) -> dict[str, str]:
    return offline_env(
        PATH=str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        CI="true",
        GITHUB_ACTIONS="true",
        GITHUB_STEP_SUMMARY=str(summary),
        PIP_NO_INDEX="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )


def _bash(script: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=STEP_SECONDS,
    )


def test_when_the_how_to_shows_the_workflow_then_it_is_the_shipped_file() -> None:
    shown = [b.code for b in blocks(HOW_TO.read_text(encoding="utf-8"), "ci.md") if b.language in ("yaml", "yml")]
    assert shown == [WORKFLOW.read_text(encoding="utf-8")]


def test_when_the_workflow_runs_step_by_step_in_a_clean_copy_then_it_passes_and_writes_the_step_summary(
    tmp_path: Path,
) -> None:
    repo = clean_copy(tmp_path / "repo")
    summary = tmp_path / "step-summary.md"
    summary.write_text("", encoding="utf-8")  # the runner gives an empty file
    env = _env(summary)
    baseline = next(
        b for b in blocks(HOW_TO.read_text(encoding="utf-8"), "ci.md") if b.language == "bash" and b.not_run is None
    )
    made = _bash(baseline.code, repo, env)
    assert made.returncode == 0, f"the how-to's baseline step failed:\n{made.stdout[-3000:]}{made.stderr[-3000:]}"
    assert sorted(p.name for p in (repo / "evals" / "baseline").iterdir()) == ["ledger.jsonl", "run.json", "texts.json"]

    for step in _steps():  # every step must pass, so an `if: always()` step runs like the others
        name = step.get("name") or step.get("uses") or step["run"]
        if "uses" in step:
            action = step["uses"].split("@")[0]
            if action == "actions/upload-artifact":
                for pattern in str(step["with"]["path"]).split():
                    assert glob.glob(pattern, root_dir=repo), f"{name}: {pattern} matches no file"
            else:
                assert action in ("actions/checkout", "actions/setup-python"), f"{name}: an action this test cannot do"
            continue
        assert "${{" not in step["run"], f"{name}: an expression this test cannot evaluate"
        done = _bash(step["run"], repo, env)
        assert done.returncode == 0, (
            f"step {name!r} exited {done.returncode}:\n{done.stdout[-4000:]}{done.stderr[-2000:]}"
        )

    assert (repo / "ora-results" / "baseline.md").is_file()
    assert (repo / "ora-results" / "junit.xml").is_file()
    if not _step_summary_option():
        pytest.skip("every step passed; this build has no --ora-step-summary, so GITHUB_STEP_SUMMARY is not written")
    text = summary.read_text(encoding="utf-8")
    assert "optimum" in text and "fail-under" in text and "fail-regression" in text, text
