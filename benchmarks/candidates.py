"""Generation and judging together: candidates answer inside the run while judges score the answers made so far.

    python benchmarks/candidates.py                      # 200 prompts x 2 role candidates x 2 judges, 0.5 s a call
    python benchmarks/candidates.py --prompts 20         # a smoke run

Every call goes to the loopback reference judge (its own process, `python -m pytest_ora.testing.server
--latency S`): each capture's candidate answers, then its two judges score the answer, all through
pytest-ora's live path (provider clients, httpx, vcrpy recording). The process holds one limit of calls
in flight, `--ora-concurrency` x 3: the judges' stage's worth (x 2, two judges a capture) and the
candidates' (x 1), both stages drawing from it; it keeps as many captures in flight, each holding one
call (its candidate's) or two (its judges'), so a capture is judged as soon as its answer exists while
the next ones are answered. The wall time is printed against the ideal: the slowest stage at its share
of the limit (every call through the one limit takes as long), or one capture's answer then its judges
if that is longer. The reference judge announces its limits as Anthropic and OpenAI do (4,000 and
10,000 requests a minute, and tokens), so the run's first calls also wait for the rate limit to learn
them (each role's first call goes alone; bursts grow with each round of successes). Figures need a
quiet machine.
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


def run_pytest(directory: Path, concurrency: int, *extra: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    """One pytest run of the suite in `directory` (recording what its cassettes lack): its wall time and result."""
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
        str(concurrency),
        "--ora-out",
        str(directory / "out"),
        *extra,
        str(directory),
    ]
    started = time.perf_counter()
    result = subprocess.run(
        command, cwd=directory, env=live.environment(dict(os.environ)), capture_output=True, text=True, check=False
    )
    return time.perf_counter() - started, result


def _failed(result: subprocess.CompletedProcess[str]) -> bool:
    if result.returncode in (0, 1) and any(line.startswith("ora: ") for line in result.stdout.splitlines()):
        return False
    print(result.stdout[-3000:] + result.stderr[-2000:])
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=32, help="captures in flight (--ora-concurrency)")
    args = parser.parse_args()
    together = Path(tempfile.mkdtemp(prefix="ora-candidates-bench-"))
    apart = Path(tempfile.mkdtemp(prefix="ora-candidates-bench-"))
    try:
        with live.JudgeServer(args.latency) as server:
            write_suite(together, args.prompts, server)
            wall, result = run_pytest(together, args.concurrency)
            # The same suite in two runs, as without overlap: every answer first, then every judgment.
            write_suite(apart, args.prompts, server)
            generating, generated = run_pytest(apart, args.concurrency, "--ora-generate-only")
            judging, judged_apart = run_pytest(apart, args.concurrency)
        if _failed(result) or _failed(generated) or _failed(judged_apart):
            return 1
        calls = next(line for line in result.stdout.splitlines() if line.startswith("ora: candidate calls"))
        captures = 2 * args.prompts
        judges_share, candidates_share = 2 * args.concurrency, args.concurrency
        in_flight = judges_share + candidates_share  # the one calls-in-flight limit both stages draw from
        judge_stage = 2 * captures * args.latency / judges_share
        candidate_stage = captures * args.latency / candidates_share
        chain = 2 * args.latency  # one capture's answer, then its judges: no run is shorter
        ideal = max(judge_stage, candidate_stage, chain)
        shared = max(3 * captures * args.latency / in_flight, chain)  # every call through the one limit
        print(calls)
        print(
            f"{args.prompts} prompts x 2 role candidates x 2 judges, {args.latency:g} s a call, "
            f"{in_flight} calls (candidates' and judges') in flight at most"
        )
        print(f"wall time, answers and judgments in one run (pytest, start to end): {wall:.1f} s")
        print(
            f"the stages in two runs, one after the other: --ora-generate-only {generating:.1f} s, then judging "
            f"{judging:.1f} s: {generating + judging:.1f} s"
        )
        print(
            f"ideal, the slowest stage at its share of the limit: {ideal:.1f} s (judges {judge_stage:.1f} s at "
            f"{judges_share} calls, candidates {candidate_stage:.1f} s at {candidates_share}, one capture's answer "
            f"and judges {chain:.1f} s); every call through the one limit: {shared:.1f} s"
        )
        print(
            f"one run / ideal: {wall / ideal:.2f}; one run / the two runs: {wall / (generating + judging):.2f}; "
            f"one run / the slower of the two runs: {wall / max(generating, judging):.2f}"
        )
        return 0
    finally:
        shutil.rmtree(together, ignore_errors=True)
        shutil.rmtree(apart, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
