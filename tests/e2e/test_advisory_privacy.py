"""An advisory capture's prompt, answer and any field outside its normalized record never reach an output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from support.example_runs import EXAMPLES, SCORING_EPOCH

from pytest_ora.reports.texts import WITHHELD_TEXT

PLANTED = {
    "prompt": "PLANTED-PROMPT-a41f07",
    "answer": "PLANTED-ANSWER-c9e215",
    "context": "PLANTED-CONTEXT-5d2b88",
    "metadata": "PLANTED-METADATA-e07c31",
    "top": "PLANTED-TOPLEVEL-81fa9d",
    "record": "PLANTED-RECORDFIELD-2b6e40",
}


def _hostile_project(tmp_path: Path) -> Path:
    """The advisory example with planted text in every place a capture can carry text beside its record."""
    project = tmp_path / "project"
    shutil.copytree(EXAMPLES / "advisory", project, ignore=shutil.ignore_patterns("ora-results", "__pycache__"))
    path = project / "bundle" / "captures.jsonl"
    lines = []
    for index, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        item = json.loads(line)
        if index in (0, 1):  # the PASS and the FAIL record, each given texts beside it
            item.update(
                prompt=PLANTED["prompt"],
                answer=PLANTED["answer"],
                context=PLANTED["context"],
                metadata={"note": PLANTED["metadata"]},
                raw_transcript=PLANTED["top"],
            )
        if index == 2:  # a record with a field outside the schema
            item["evidence"] = {**json.loads(lines[0])["evidence"], "raw_diagnostic": PLANTED["record"]}
        lines.append(json.dumps(item))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return project


def test_a_hostile_advisory_bundle_writes_none_of_its_planted_text_only_that_it_was_there(tmp_path: Path) -> None:
    project = _hostile_project(tmp_path)
    out = project / "out"
    environment = {**os.environ, "PYTEST_ORA_CACHE": "off", "SOURCE_DATE_EPOCH": SCORING_EPOCH}
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_TESTRUNUID", "PYTEST_ADDOPTS"):
        environment.pop(name, None)

    # When the run writes every output
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(project),
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(project),
            "-c",
            str(project / "pytest.ini"),
            "--ora-out",
            str(out),
        ],
        cwd=project,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode in (0, 1), result.stdout + result.stderr

    # Then no file under the output directory, and not the terminal, holds any planted text
    files = sorted(path for path in out.rglob("*") if path.is_file())
    assert {"texts.json", "report.html", "advisory.json", "ledger.jsonl"} <= {path.name for path in files}
    for path in files:
        content = path.read_bytes()
        for planted in PLANTED.values():
            assert planted.encode() not in content, f"{planted} in {path.relative_to(out)}"
    for planted in PLANTED.values():
        assert planted not in result.stdout + result.stderr
    # And the fact that they were there is said: those captures are UNKNOWN (malformed), naming fields only
    advisory = (out / "ADVISORY-RESULT.md").read_text(encoding="utf-8")
    assert "carries a prompt, an output, context or an artifact path" in advisory
    results = {r["capture_id"]: r for r in json.loads((out / "advisory.json").read_text(encoding="utf-8"))["results"]}
    assert results["observation:missing/candidate"]["reason"].startswith(
        "malformed: record holds 1 field(s) outside the schema"
    )
    texts = json.loads((out / "texts.json").read_text(encoding="utf-8"))
    row = next(r for r in texts["rows"] if r[0] == "observation:pass/candidate")
    assert [texts["strings"][i] if i >= 0 else None for i in row[1:]] == [
        WITHHELD_TEXT,
        WITHHELD_TEXT,
        WITHHELD_TEXT,
        None,
    ]
