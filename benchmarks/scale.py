"""Scale figures: live defaults, the shared rate limit, resume after an interrupt, a peer on the same work.

    python benchmarks/scale.py                       # all parts, about 6 minutes on 2 cores
    python benchmarks/scale.py --parts ratelimit     # throughput, ratelimit, headerless, resume, batch, peers, memory

Every part runs pytest on a generated copy of the sample whose judges are the loopback reference
judge (its own process, `python -m pytest_ora.testing.server`), with placeholder keys, in a
temporary directory removed at the end. Figures are printed as they are measured.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import live  # noqa: E402

LATENCY = 0.5
PROBE_DIR = Path(__file__).resolve().parent / "probe"
PARTS = ("throughput", "ratelimit", "headerless", "resume", "batch", "peers", "memory")


@dataclass
class Result:
    wall: float
    maxrss_mb: float
    returncode: int
    output: str


def run_pytest(args: list[str], env: dict[str, str], interrupt_after: float | None = None) -> Result:
    """pytest in the repository root; wall time and the largest process's peak RSS (itself or a worker)."""
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    start = time.perf_counter()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        if interrupt_after is not None:
            time.sleep(interrupt_after)
            process.send_signal(signal.SIGINT)
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        log.seek(0)
        output = log.read().decode(errors="replace")
    return Result(wall, usage.ru_maxrss / 1024, os.waitstatus_to_exitcode(status), output)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def served(server: live.JudgeServer) -> tuple[int, int]:
    """(judge calls served, answered 429) from the stopped server's last words."""
    for line in server.closing:
        if line.startswith("served "):
            words = line.split()
            return int(words[1]), int(words[4])
    raise RuntimeError("the reference judge did not report its calls: " + "\n".join(server.closing))


def pytest_args(ids: list[str], bundle: Path, scratch: Path, name: str, *extra: str) -> list[str]:
    return [
        *(f"evals/test_ora.py::test_capture[{capture_id}]" for capture_id in ids),
        "--ora-bundle",
        str(bundle),
        "--ora-record",
        "once",
        "--ora-cassettes",
        str(scratch / f"{name}-cassettes"),
        "--ora-out",
        str(scratch / f"{name}-out"),
        *extra,
    ]


def throughput(bundle: Path, scratch: Path, env: dict[str, str], captures: int, slow_captures: int) -> None:
    print(f"\n## Live throughput: {captures} captures x 2 judges, {LATENCY} s a judge call")
    print("| setting | captures | wall s | captures/s | peak RSS MB (largest process) |")
    print("| --- | --- | --- | --- | --- |")
    rows = [
        ("-n 0 (default: auto, 32 captures in flight)", captures, []),
        ("-n 8 (default: auto, 3 a worker)", captures, ["-n", "8"]),
        ("-n 8 --ora-concurrency 1 (the old README command)", captures, ["-n", "8", "--ora-concurrency", "1"]),
        ("-n 0 --ora-concurrency 1 (the old default)", slow_captures, ["--ora-concurrency", "1"]),
    ]
    with live.JudgeServer(LATENCY) as server:
        live.point_bundle_at(bundle, server)
        for index, (label, count, extra) in enumerate(rows):
            ids = live.judged_ids(bundle, count)
            result = run_pytest(pytest_args(ids, bundle, scratch, f"tp{index}", *extra), env)
            if result.returncode != 0:
                raise RuntimeError(f"{label}: exit {result.returncode}\n{result.output[-3000:]}")
            print(
                f"| {label} | {count} | {result.wall:.1f} | {count / result.wall:.2f} | {result.maxrss_mb:.0f} |",
                flush=True,
            )


def ratelimit(bundle: Path, scratch: Path, env: dict[str, str], captures: int, rpm: float) -> None:
    print(f"\n## Shared rate limit: -n 8, no option, judge allowing {rpm:g} requests/minute per key")
    ids = live.judged_ids(bundle, captures)
    with live.JudgeServer(LATENCY, rpm=rpm) as server:
        live.point_bundle_at(bundle, server)
        result = run_pytest(pytest_args(ids, bundle, scratch, "rl", "-n", "8"), env)
    calls, refused = served(server)
    print(
        f"pytest exit {result.returncode}, {result.wall:.1f} s wall; {calls} judge calls, {refused} answered 429 "
        f"({100 * refused / max(1, calls):.2f}%)"
    )
    for line in server.closing[1:]:
        print("  " + line)
    if result.returncode != 0:
        print(result.output[-3000:])


def headerless(
    bundle: Path, scratch: Path, env: dict[str, str], captures: int, rps: float, settings: list[str], repeat: int
) -> None:
    """Captures x 2 judges against a judge allowing `rps` calls a second per route that announces nothing."""
    floor = captures / rps
    print(
        f"\n## Header-less rate limit: {captures} captures x 2 judges, a judge allowing {rps:g} requests/s per route "
        f"(429 + retry-after only, no rate-limit header), {LATENCY} s a call; physical limit {floor:.0f} s"
    )
    print("| setting | run | wall s | wall / limit | judge calls | answered 429 | share of 429s | captures lost |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    ids = live.judged_ids(bundle, captures)
    for setting in settings:
        extra = setting.split()
        for run in range(repeat):
            name = f"hl{setting.replace(' ', '')}-{run}"
            probe = scratch / f"{name}-probe.json"
            probed = {
                **env,
                "ORA_BENCH_PROBE": str(probe),
                "PYTHONPATH": os.pathsep.join(filter(None, [str(PROBE_DIR), env.get("PYTHONPATH")])),
            }
            with live.JudgeServer(LATENCY, rpm=rps * 60, rate_headers=False) as server:
                live.point_bundle_at(bundle, server)
                started = time.time()
                result = run_pytest(pytest_args(ids, bundle, scratch, name, "-p", "ora_bench_probe", *extra), probed)
            calls, refused = served(server)
            ledger = scratch / f"{name}-out" / "ledger.jsonl"
            statuses = (
                [json.loads(line)["status"] for line in ledger.read_text().splitlines()] if ledger.exists() else []
            )
            lost = captures - statuses.count("scored")
            print(
                f"| {setting or '-n 0'} (defaults) | {run + 1} | {result.wall:.1f} | {result.wall / floor:.2f} | {calls} | "
                f"{refused} | {100 * refused / max(1, calls):.1f}% | {lost} |",
                flush=True,
            )
            if result.returncode not in (0, 1) or lost:
                print(result.output[-3000:])
            for line in server.closing[1:]:
                print("    " + line)
            if probe.is_file():
                times = json.loads(probe.read_text())
                print(
                    f"    start to the first item {times['t_first_start'] - started:.1f} s; items "
                    f"{times['t_last_end'] - times['t_first_start']:.1f} s; session end "
                    f"{times['t_unconfigure'] - times['t_finish_start']:.1f} s; exit "
                    f"{started + result.wall - times['t_unconfigure']:.1f} s"
                )


def resume(bundle: Path, scratch: Path, env: dict[str, str], captures: int, after: float) -> None:
    print(f"\n## Resume: a -n 0 live run of {captures} captures interrupted after {after:g} s, then run again")
    ids = live.judged_ids(bundle, captures)
    port = free_port()
    args = pytest_args(ids, bundle, scratch, "resume")
    with live.JudgeServer(LATENCY, port=port) as first_server:
        live.point_bundle_at(bundle, first_server)
        first = run_pytest(args, env, interrupt_after=after)
    first_calls, _ = served(first_server)
    cassettes = scratch / "resume-cassettes"
    kept = sum(len(json.loads(p.read_text())["interactions"]) for p in cassettes.rglob("*.json*"))
    whole = sum(1 for _ in cassettes.rglob("*.json"))
    partial = sum(1 for _ in cassettes.rglob("*.partial"))
    with live.JudgeServer(LATENCY, port=port) as second_server:
        second = run_pytest(args, env)
    second_calls, _ = served(second_server)
    needed = 2 * captures
    print(
        f"run 1: exit {first.returncode}, {first_calls} calls paid; kept {kept} exchanges "
        f"({whole} whole cassettes, {partial} partial); in flight at the interrupt: {first_calls - kept}"
    )
    print(
        f"run 2: exit {second.returncode}, {second_calls} calls paid; "
        f"re-paid = {first_calls + second_calls - needed} (calls of both runs less the {needed} needed)"
    )


def batch(bundle: Path, scratch: Path, env: dict[str, str], delay: float) -> None:
    print(
        f"\n## Batch: the whole sample with --ora-batch, interrupted while polling, then run again "
        f"(batches end {delay:g} s after submission)"
    )
    cassettes, states = scratch / "batch-cassettes", scratch / "batch-cassettes" / ".ora-batches"
    args = [
        "evals/",
        "--ora-bundle",
        str(bundle),
        "--ora-record",
        "once",
        "--ora-batch",
        "--ora-cassettes",
        str(cassettes),
        "--ora-out",
        str(scratch / "batch-out"),
    ]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    with live.JudgeServer(0.0, batch_delay=delay) as server:
        live.point_bundle_at(bundle, server)
        start = time.perf_counter()
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        while len(list(states.glob("*.json"))) < 2 and process.poll() is None:
            time.sleep(0.1)
        time.sleep(1.0)  # polling now
        process.send_signal(signal.SIGINT)
        first_output = process.communicate()[0].decode(errors="replace")
        first_wall = time.perf_counter() - start
        kept = sorted(p.name for p in states.glob("*.json"))
        second = run_pytest(args, env)
    calls, _ = served(server)
    created = server.closing[0].split("; ")[-1] if server.closing else "?"
    polls = [line for line in first_output.splitlines() if line.startswith("ora: batch")]
    print(f"run 1: exit {process.returncode} after {first_wall:.1f} s; batch ids kept: {len(kept)}; its last lines:")
    for line in polls[-3:]:
        print("  " + line)
    resumed = [line for line in second.output.splitlines() if line.startswith("ora: batch")]
    print(f"run 2: exit {second.returncode}, {second.wall:.1f} s; {second.output.strip().splitlines()[-1]}")
    for line in resumed[:4]:
        print("  " + line)
    print(f"judge: {calls} POST requests in all (uploads and batch creations included), {created}")
    whole = sum(1 for _ in cassettes.rglob("*.json")) - len(list(states.glob("*.json")))
    replay = run_pytest(
        [
            "evals/",
            "--ora-bundle",
            str(bundle),
            "--ora-cassettes",
            str(cassettes),
            "--ora-out",
            str(scratch / "batch-replay"),
        ],
        env,
    )
    print(
        f"cassettes written: {whole}; replay (--ora-record none): exit {replay.returncode}, "
        f"{replay.output.strip().splitlines()[-1]}"
    )


INTAKE = """
import resource, sys, time
from pathlib import Path
from pytest_ora.bundle.intake import intake
start = time.perf_counter()
plan = intake(Path(sys.argv[1]))
took = time.perf_counter() - start
print(f"{len(plan.captures)} {took:.2f} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f}")
"""


def memory(scratch: Path, env: dict[str, str], scales: list[int]) -> None:
    print("\n## Intake and collection by bundle size (one run each)")
    print("| bundle | captures | intake s | intake peak RSS MB | --collect-only s | --collect-only peak RSS MB |")
    print("| --- | --- | --- | --- | --- | --- |")
    for scale in scales:
        if scale == 1:
            bundle = ROOT / "evals" / "bundle"
        else:
            bundle = scratch / f"bundle-{scale}x"
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "scripts" / "make_sample_bundle.py"),
                    "--out",
                    str(bundle),
                    "--scale",
                    str(scale),
                ],
                cwd=ROOT,
                check=True,
                stdout=subprocess.DEVNULL,
            )
        read = subprocess.run(
            [sys.executable, "-c", INTAKE, str(bundle)], cwd=ROOT, env=env, capture_output=True, text=True, check=True
        )
        captures, took, rss = read.stdout.split()
        collected = run_pytest(
            ["evals/", "--collect-only", "--ora-bundle", str(bundle), "--ora-out", str(scratch / f"collect-{scale}")],
            env,
        )
        print(
            f"| {scale}x | {int(captures):,} | {took} | {rss} | {collected.wall:.1f} | {collected.maxrss_mb:.0f} |",
            flush=True,
        )
        if scale != 1:
            shutil.rmtree(bundle, ignore_errors=True)


INSPECT_TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, mean, scorer
from inspect_ai.solver import generate

PACKET = "entry_key: mode:sample-{i}\\nconfiguration: optimum\\nScore this answer for fidelity and soundness."


@scorer(metrics=[mean()])
def second_judge():
    async def score(state, target):
        await get_model("openai/gpt-5.4", responses_api=False).generate(state.input_text)
        return Score(value=1)
    return score


@task
def two_judges():
    samples = [Sample(input=PACKET.format(i=i), target="") for i in range({count})]
    return Task(dataset=samples, solver=[generate()], scorer=second_judge())
"""


def _inspect_wall(python: str, task: Path, environment: dict[str, str], logs: Path, extra: list[str]) -> float:
    """One `inspect eval` of the two-judge task: its wall time from the command to its exit (start-up included)."""
    command = [
        python,
        "-m",
        "inspect_ai",
        "eval",
        task.name,
        "--model",
        "openai/gpt-5.4-mini",
        "--display",
        "none",
        "--no-log-images",
        "-M",
        "responses_api=false",
        "--log-dir",
        str(logs),
        *extra,
    ]
    start = time.perf_counter()
    process = subprocess.run(command, env=environment, capture_output=True, text=True, cwd=task.parent)
    wall = time.perf_counter() - start
    if process.returncode != 0:
        raise RuntimeError(f"inspect eval {' '.join(extra)}: exit {process.returncode}: {process.stderr[-800:]}")
    return wall


def peers(
    bundle: Path, scratch: Path, env: dict[str, str], captures: int, python: str, repeat: int, calls: int
) -> None:
    """pytest-ora and Inspect AI on the same loopback judge, each at its defaults and at `calls` calls in flight,
    the four settings interleaved `repeat` times (so a busy moment hits every setting alike); medians printed."""
    print(
        f"\n## Peers: {captures} captures (samples) x 2 judge calls, {LATENCY} s a call, {repeat} runs of each setting"
    )
    if not Path(python).is_file():
        print(
            f"not measured: no Python with inspect-ai at {python} (install it in a throwaway venv, pass --inspect-python)"
        )
        return
    task = scratch / "inspect_task.py"
    task.write_text(INSPECT_TASK.replace("{count}", str(captures)), encoding="utf-8")
    # Inspect's --max-connections holds per model; its task asks two models (the answer's and the second judge's),
    # so M connections each is 2M calls in flight; pytest-ora's --ora-concurrency C judges C captures at once, each
    # asking its 2 judges together: 2C calls.
    settings = [
        ("pytest-ora, defaults (-n 0)", "ora", []),
        (
            f"pytest-ora, {calls} calls in flight (--ora-concurrency {calls // 2})",
            "ora",
            ["--ora-concurrency", str(calls // 2)],
        ),
        ("Inspect AI, defaults", "inspect", []),
        (
            f"Inspect AI, {calls} calls in flight (--max-connections {calls // 2})",
            "inspect",
            ["--max-connections", str(calls // 2)],
        ),
    ]
    walls: dict[str, list[float]] = {label: [] for label, _, _ in settings}
    load_before = os.getloadavg()
    with live.JudgeServer(LATENCY) as server:
        live.point_bundle_at(bundle, server)
        ids = live.judged_ids(bundle, captures)
        base = server.routes["anthropic"].removesuffix("/v1/messages")
        environment = {**env, "ANTHROPIC_BASE_URL": base, "OPENAI_BASE_URL": base + "/v1"}
        for run in range(repeat):
            for index, (label, tool, extra) in enumerate(settings):
                if tool == "ora":
                    name = f"peers-{run}-{index}"
                    probe = scratch / f"{name}-probe.json"
                    probed = {
                        **env,
                        "ORA_BENCH_PROBE": str(probe),
                        "PYTHONPATH": os.pathsep.join(filter(None, [str(PROBE_DIR), env.get("PYTHONPATH")])),
                    }
                    started = time.time()
                    result = run_pytest(
                        pytest_args(ids, bundle, scratch, name, "-p", "ora_bench_probe", *extra), probed
                    )
                    if result.returncode != 0:
                        raise RuntimeError(f"{label}: exit {result.returncode}\n{result.output[-3000:]}")
                    walls[label].append(result.wall)
                    times = json.loads(probe.read_text())
                    print(
                        f"  {label}, run {run + 1}: {result.wall:.1f} s = start to the first item "
                        f"{times['t_first_start'] - started:.1f} s, items {times['t_last_end'] - times['t_first_start']:.1f} s, "
                        f"session end {times['t_unconfigure'] - times['t_finish_start']:.1f} s, exit "
                        f"{started + result.wall - times['t_unconfigure']:.1f} s",
                        flush=True,
                    )
                else:
                    walls[label].append(
                        _inspect_wall(python, task, environment, scratch / f"peers-logs-{run}-{index}", extra)
                    )
    load_after = os.getloadavg()
    print(
        f"load average (1, 5, 15 min) before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
        f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}"
    )
    print("| setting | runs (wall s, start-up included) | median s |")
    print("| --- | --- | --- |")
    medians = {}
    for label, _, _ in settings:
        medians[label] = sorted(walls[label])[len(walls[label]) // 2]
        print(f"| {label} | {', '.join(f'{w:.1f}' for w in walls[label])} | {medians[label]:.1f} |")
    ora_default, ora_matched, inspect_default, inspect_matched = (medians[label] for label, _, _ in settings)
    print(
        f"at defaults: pytest-ora / Inspect AI = {ora_default / inspect_default:.2f}; "
        f"at {calls} calls in flight: {ora_matched / inspect_matched:.2f} (below 1: pytest-ora faster)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default=",".join(PARTS), help=f"comma-separated: {', '.join(PARTS)}")
    parser.add_argument("--captures", type=int, default=200, help="captures of the throughput rows")
    parser.add_argument("--slow-captures", type=int, default=40, help="captures of the old-default row (1 at a time)")
    parser.add_argument("--rpm", type=float, default=300, help="the judge's limit in the rate-limit part")
    parser.add_argument("--rpm-captures", type=int, default=150, help="captures of the rate-limit part")
    parser.add_argument(
        "--headerless-rps", type=float, default=2.0, help="the header-less judge's requests/s per route"
    )
    parser.add_argument("--headerless-captures", type=int, default=100)
    parser.add_argument("--headerless-settings", default=",-n 4", help="comma-separated pytest options, one run each")
    parser.add_argument("--headerless-repeat", type=int, default=1)
    parser.add_argument("--resume-captures", type=int, default=100)
    parser.add_argument("--interrupt-after", type=float, default=8.0, help="seconds before SIGINT in the resume part")
    parser.add_argument("--batch-delay", type=float, default=10.0, help="seconds until the judge ends a batch")
    parser.add_argument("--scales", default="1,10,100", help="bundle scales of the memory part")
    parser.add_argument("--peers-repeat", type=int, default=3, help="runs of each setting in the peers part")
    parser.add_argument("--peers-calls", type=int, default=32, help="calls in flight of the matched settings")
    parser.add_argument(
        "--inspect-python", default=str(Path(tempfile.gettempdir()) / "inspect-venv" / "bin" / "python")
    )
    args = parser.parse_args(argv)
    parts = set(args.parts.split(","))
    scratch = Path(tempfile.mkdtemp(prefix="ora-scale-"))
    try:
        bundle = scratch / "bundle"
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "make_sample_bundle.py"), "--out", str(bundle)],
            cwd=ROOT,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        env = live.environment({**os.environ, "PYTHONPATH": str(ROOT)})
        print(f"# pytest-ora scale figures ({os.cpu_count()} cores)")
        if "throughput" in parts:
            throughput(bundle, scratch, env, args.captures, args.slow_captures)
        if "ratelimit" in parts:
            ratelimit(bundle, scratch, env, args.rpm_captures, args.rpm)
        if "headerless" in parts:
            headerless(
                bundle,
                scratch,
                env,
                args.headerless_captures,
                args.headerless_rps,
                args.headerless_settings.split(","),
                args.headerless_repeat,
            )
        if "resume" in parts:
            resume(bundle, scratch, env, args.resume_captures, args.interrupt_after)
        if "batch" in parts:
            batch(bundle, scratch, env, args.batch_delay)
        if "peers" in parts:
            peers(bundle, scratch, env, args.captures, args.inspect_python, args.peers_repeat, args.peers_calls)
        if "memory" in parts:
            memory(scratch, env, [int(x) for x in args.scales.split(",")])
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
