"""Generation and judging together: candidates answer inside the run while judges score the answers made so far.

    python benchmarks/candidates.py                      # 200 prompts x 2 role candidates x 2 judges, 0.5 s a call
    python benchmarks/candidates.py --prompts 20         # a smoke run

Every call goes to the loopback reference judge (its own process, `python -m pytest_ora.testing.server
--latency S`): each capture's candidate answers, then its two judges score the answer, all through
pytest-ora's live path (provider clients, httpx, vcrpy recording). The process holds one limit of calls
in flight, `--ora-concurrency` x 2 (the judges' and the candidates' calls together), and keeps as many
captures in flight, each holding one call (its candidate's) or two (its judges'), so a capture is judged
as soon as its answer exists while the next ones are answered. The wall time is printed against the
ideal (the slowest stage, the judges' two calls per capture, sent at the limit of calls in flight) and
against the floor of one shared limit (every call, candidates' and judges', sent at that limit).
Figures need a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import live  # noqa: E402

from pytest_ora.method.rubric_file import digest_of  # noqa: E402

_RUBRIC = ROOT / "pytest_ora" / "method" / "rubrics" / "judge-solo-1.0.yaml"
_TEST = """
from typing import Any

from pytest_ora import PlannedCapture


def test_answer(ora_capture: PlannedCapture, ora: Any) -> None:
    ora.skip_unless_scorable(ora_capture)
    ora.record(ora.judge(ora_capture))
"""


def write_suite(directory: Path, prompts: int, server: live.JudgeServer) -> None:
    """A suite of `prompts` entries, answered by two role candidates and judged by two judges, all on the server."""
    bundle = directory / "bundle"
    bundle.mkdir(parents=True)
    # The built-in solo rubric with a panel of two, under a version of its own (its history line's digest is its content's).
    data = yaml.safe_load(_RUBRIC.read_text(encoding="utf-8"))
    data.update(rubric="bench-solo-2", panel_size=2)
    data["history"] = [
        {"version": "bench-solo-2", "date": "2026-12-06", "change": "two judges", "digest": digest_of(data)}
    ]
    rubric = yaml.safe_dump(data, sort_keys=False)
    (bundle / "rubric.yaml").write_text(rubric, encoding="utf-8")
    manifest = {
        "bundle": "candidates-benchmark",
        "created": "2026-12-06",
        "configurations": ["writer-a", "writer-b"],
        "rubric": "rubric.yaml",
        "panel": ["judge-a", "judge-b"],
        "candidates": {"writer-a": {"role": "model-a"}, "writer-b": {"role": "model-b", "params": {"temperature": 0}}},
    }
    (bundle / "bundle.yaml").write_text(yaml.safe_dump(manifest, sort_keys=False), encoding="utf-8")
    roles = {
        "judge-a": {"model": "claude-opus-4-7", "provider": "anthropic", "route": server.routes["anthropic"]},
        "judge-b": {"model": "gpt-5.4", "provider": "openai", "route": server.routes["openai"]},
        "model-a": {"model": "claude-sonnet-4-6", "provider": "anthropic", "route": server.routes["anthropic"]},
        "model-b": {"model": "gpt-4.1-mini", "provider": "openai", "route": server.routes["openai"]},
    }
    (bundle / "optimum.yaml").write_text(
        yaml.safe_dump({"snapshot": "bench", "roles": roles}, sort_keys=False), encoding="utf-8"
    )
    lines = [
        json.dumps(
            {
                "entry_key": f"task:p{number:04d}",
                "prompt": f"Question {number}: should the team move warehouse {number % 7} next year? Give reasons.",
            }
        )
        for number in range(1, prompts + 1)
    ]
    (bundle / "entries.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (directory / "test_bench.py").write_text(_TEST, encoding="utf-8")
    (directory / "pytest.ini").write_text("[pytest]\nora_bundle = bundle\n", encoding="utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=32, help="captures in flight (--ora-concurrency)")
    args = parser.parse_args()
    directory = Path(tempfile.mkdtemp(prefix="ora-candidates-bench-"))
    try:
        with live.JudgeServer(args.latency) as server:
            write_suite(directory, args.prompts, server)
            command = [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--rootdir",
                str(directory),
                "-c",
                str(directory / "pytest.ini"),
                "--ora-record",
                "once",
                "--ora-concurrency",
                str(args.concurrency),
                "--ora-out",
                str(directory / "out"),
                str(directory),
            ]
            started = time.perf_counter()
            result = subprocess.run(
                command,
                cwd=directory,
                env=live.environment(dict(os.environ)),
                capture_output=True,
                text=True,
                check=False,
            )
            wall = time.perf_counter() - started
        calls = next((line for line in result.stdout.splitlines() if line.startswith("ora: candidate calls")), None)
        if result.returncode not in (0, 1) or calls is None:
            print(result.stdout[-3000:] + result.stderr[-2000:])
            return 1
        captures = 2 * args.prompts
        in_flight = 2 * args.concurrency  # the calls-in-flight limit: candidates' and judges' calls together
        judge_stage = 2 * captures * args.latency / in_flight
        candidate_stage = captures * args.latency / in_flight
        chain = 2 * args.latency  # one capture's answer, then its judges: no run is shorter
        ideal = max(judge_stage, candidate_stage, chain)
        shared = max(judge_stage + candidate_stage, chain)  # both stages' calls through the one limit
        judged = next(
            (line for line in result.stdout.splitlines() if line.startswith("ora live:") and "done in" in line), ""
        )
        print(calls)
        print(
            f"{args.prompts} prompts x 2 role candidates x 2 judges, {args.latency:g} s a call, "
            f"{in_flight} calls (candidates' and judges') in flight at most"
        )
        print(
            f"wall time (pytest, start to end): {wall:.1f} s"
            + (f"; {judged.removeprefix('ora live: ')}" if judged else "")
        )
        print(
            f"ideal, the slowest stage at the calls-in-flight limit: {ideal:.1f} s (judges {judge_stage:.1f} s, "
            f"candidates {candidate_stage:.1f} s, one capture's answer and judges {chain:.1f} s)"
        )
        print(
            f"every call through the one limit (the floor when both stages share it): {shared:.1f} s; "
            f"the stages one after the other, each waiting for the other to end: {judge_stage + candidate_stage + chain:.1f} s"
        )
        print(f"wall time / ideal: {wall / ideal:.2f}; wall time / every call at the limit: {wall / shared:.2f}")
        return 0
    finally:
        shutil.rmtree(directory, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
