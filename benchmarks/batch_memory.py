"""Memory of --ora-batch in the controller: the batch step in-process, and a whole batch run.

    python benchmarks/batch_memory.py --tracemalloc              # 1x and 10x, the batch step in-process
    python benchmarks/batch_memory.py --parts step,run --scales 1  # and a whole `pytest --ora-batch -n 0` run

Each bundle is generated (`scripts/make_sample_bundle.py --scale N`) into a temporary directory and
its judges pointed at the loopback reference judge (its own process, batches ending at once), with
placeholder keys; nothing leaves the machine. Figures:

- step: intake, then `run_batches` (build the requests, split, upload, poll, write the answers
  into partial cassettes) in a fresh process; the process's peak RSS before and after the step,
  and, with --tracemalloc, the peak of Python allocations up to the last upload and over the whole
  step (a separate run: tracing slows the step and adds to RSS);
- run: `pytest evals/ --ora-record once --ora-batch -n 0` on the bundle: wall time, the controller's
  own peak RSS (RUSAGE_SELF, read by the benchmark's probe plugin at pytest_unconfigure; a child's
  figure would start from the controller's size at the fork before its exec), and the sha256 of
  its ledger.jsonl.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(Path(__file__).resolve().parent)]

import live  # noqa: E402
from scale import PROBE_DIR, run_pytest  # noqa: E402

STEP = r"""
import json, os, resource, sys, time, tracemalloc
from pathlib import Path
import httpx
from pytest_ora.bundle.intake import intake
from pytest_ora.judges.batch import job
from pytest_ora.judges.budget import SpendLog, load_prices
from pytest_ora.judges.cassettes import CassetteLibrary
from pytest_ora.judges.panel import Judging

bundle, scratch, traced = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3] == "1"
plan = intake(bundle)
judging = Judging(plan.panel, plan.rubric, environ=dict(os.environ))
library = CassetteLibrary(scratch / "cassettes", "once", secrets=judging.secrets())
job._SLEEP = lambda seconds: None
uploaded = {}
finish = job._finish

def first_finish(*args, **kwargs):
    # The first poll begins once every batch is uploaded: the build and upload step ends here.
    if "at" not in uploaded:
        uploaded["at"] = time.perf_counter()
        uploaded["peak"] = tracemalloc.get_traced_memory()[1] if traced else 0
    return finish(*args, **kwargs)

job._finish = first_finish
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
if traced:
    tracemalloc.start()
start = time.perf_counter()
with httpx.Client(timeout=600, trust_env=False) as client:
    summary = job.run_batches(plan.bundle.root, judging, library, plan.captures, load_prices(None),
                              SpendLog(scratch / "spend", "bench"), lambda line: None, client)
end = time.perf_counter()
whole = tracemalloc.get_traced_memory()[1] if traced else 0
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"requests": summary.requests, "batches": summary.batches, "answered": summary.answered,
                  "before_mb": before / 1024, "after_mb": after / 1024, "upload_s": uploaded["at"] - start,
                  "step_s": end - start, "upload_peak_mb": uploaded["peak"] / 2**20, "step_peak_mb": whole / 2**20}))
"""


def bundle_at(scale: int, scratch: Path, server: live.JudgeServer) -> Path:
    bundle = scratch / f"bundle-{scale}x"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_sample_bundle.py"), "--out", str(bundle), "--scale", str(scale)],
        cwd=ROOT,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    live.point_bundle_at(bundle, server)
    return bundle


def step(bundle: Path, scratch: Path, env: dict[str, str], traced: bool) -> dict[str, float]:
    import json

    work = Path(tempfile.mkdtemp(dir=scratch, prefix="step-"))
    try:
        done = subprocess.run(
            [sys.executable, "-c", STEP, str(bundle), str(work), "1" if traced else "0"],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-3000:])
        figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
        return figures
    finally:
        shutil.rmtree(work, ignore_errors=True)


def whole_run(bundle: Path, scratch: Path, env: dict[str, str], scale: int) -> None:
    import json

    out, probe = scratch / f"run-{scale}x", scratch / f"run-{scale}x-probe.json"
    probed = {
        **env,
        "ORA_BENCH_PROBE": str(probe),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(PROBE_DIR), env.get("PYTHONPATH")])),
    }
    result = run_pytest(
        [
            "evals/",
            "-n",
            "0",
            "-p",
            "ora_bench_probe",
            "--ora-bundle",
            str(bundle),
            "--ora-record",
            "once",
            "--ora-batch",
            "--ora-cassettes",
            str(scratch / f"run-{scale}x-cassettes"),
            "--ora-out",
            str(out),
        ],
        probed,
    )
    ledger = out / "ledger.jsonl"
    digest = hashlib.sha256(ledger.read_bytes()).hexdigest()[:16] if ledger.is_file() else "none"
    last = result.output.strip().splitlines()[-1] if result.output.strip() else ""
    figures = json.loads(probe.read_text()) if probe.is_file() else {}
    own = f"{figures['maxrss_bytes'] / 2**20:.0f}" if figures else "?"
    print(f"| {scale}x | exit {result.returncode} | {result.wall:.1f} | {own} | {digest} | {last} |", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,10", help="comma-separated bundle scales")
    parser.add_argument("--tracemalloc", action="store_true", help="also trace Python allocations (a second step run)")
    parser.add_argument("--parts", default="step", help="comma-separated: step (in-process), run (a whole pytest run)")
    args = parser.parse_args(argv)
    scales = [int(text) for text in args.scales.split(",")]
    scratch = Path(tempfile.mkdtemp(prefix="ora-batch-memory-"))
    env = live.environment({**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        with live.JudgeServer(0.0, batch_delay=0.0) as server:
            bundles = {scale: bundle_at(scale, scratch, server) for scale in scales}
            print(f"# --ora-batch memory in the controller ({os.cpu_count()} cores)")
            parts = set(args.parts.split(","))
            if "step" in parts:
                print("\n## The batch step in-process (intake, then build, split, upload, poll, write answers)")
                print(
                    "| bundle | requests | batches | RSS after intake MB | peak RSS after the step MB | growth MB "
                    "| upload done s | step s | traced peak at last upload MB | traced peak of the step MB |"
                )
                print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
                for scale in scales:
                    plain = step(bundles[scale], scratch, env, traced=False)
                    traced = step(bundles[scale], scratch, env, traced=True) if args.tracemalloc else None
                    peaks = f"{traced['upload_peak_mb']:.1f} | {traced['step_peak_mb']:.1f}" if traced else "- | -"
                    print(
                        f"| {scale}x | {plain['requests']:,} | {plain['batches']} | {plain['before_mb']:.0f} | "
                        f"{plain['after_mb']:.0f} | {plain['after_mb'] - plain['before_mb']:.0f} | "
                        f"{plain['upload_s']:.1f} | {plain['step_s']:.1f} | {peaks} |",
                        flush=True,
                    )
            if "run" in parts:
                print("\n## A whole batch run: pytest evals/ --ora-record once --ora-batch -n 0")
                print("| bundle | exit | wall s | controller peak RSS MB | ledger.jsonl sha256 | last line |")
                print("| --- | --- | --- | --- | --- | --- |")
                for scale in scales:
                    whole_run(bundles[scale], scratch, env, scale)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
