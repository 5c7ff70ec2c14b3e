"""Time the statistics on the sample and on a 10x bundle, in-process, and print the figures.

Usage: python benchmarks/stats.py [--repeat N] [--seed S]

Records are synthetic, as in benchmarks/inprocess.py (two judges, half-point scores from a hash),
so the 10x bundle needs no judging. Timed: ledger rows -> arrays (the adapter), and the whole
run_statistics (agreement with alpha's bootstrap interval, ordinal alpha, Fleiss, ICC; BCa and t
intervals, Wilson; the default pairs (all up to 8 configurations, beyond that each against the
first: 59 at 10x) with sign-flip and t p-values, McNemar, power; the judges section; Holm;
disagreements), with 10,000 resamples. CPU seconds are printed beside wall seconds: on a shared
machine the wall time depends on the load. With --memory, tracemalloc's peak during one more run of
run_statistics (numpy reports its buffers to tracemalloc; tracing slows that run several-fold).
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import tempfile
import time
import tracemalloc
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from inprocess import synthetic_records, timed  # noqa: E402

from pytest_ora.bundle.intake import intake  # noqa: E402
from pytest_ora.reports.aggregation import ledger_row  # noqa: E402
from pytest_ora.stats.arrays import run_arrays  # noqa: E402
from pytest_ora.stats.statistics import LIBRARIES, run_statistics  # noqa: E402


def measure(bundle: Path, repeat: int, seed: int, memory: bool) -> dict[str, Any]:
    """Seconds (median) and peak MB of the statistics for one bundle's plan with synthetic records."""
    plan = intake(bundle)
    rows = [ledger_row(record, plan.rubric).model_dump() for record in synthetic_records(plan)]
    configurations = plan.bundle.manifest.configurations

    def arrays() -> Any:
        return run_arrays(rows, plan.rubric)

    data = arrays()

    def statistics() -> Any:
        return run_statistics(data, configurations, plan.bundle.manifest, seed=seed, disagreement="30%")

    arrays_s, _ = timed(arrays, repeat)
    cpu_started = time.process_time()
    stats_s, result = timed(statistics, repeat)
    cpu_s = (time.process_time() - cpu_started) / repeat
    peak = None
    if memory:
        tracemalloc.start()
        statistics()
        peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return {
        "rows": len(rows),
        "scored": len(data.capture_ids),
        "configurations": len(configurations),
        "pairs": len(result.data["comparisons"]),
        "arrays_s": arrays_s,
        "stats_s": stats_s,
        "cpu_s": cpu_s,
        "peak_mb": peak,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory", action="store_true", help="also trace the peak memory of one more run")
    args = parser.parse_args()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="ora-stats-bench-") as scratch:
        tenfold = Path(scratch) / "bundle-10x"
        subprocess.run(
            [sys.executable, str(ROOT / "scripts" / "make_sample_bundle.py"), "--scale", "10", "--out", str(tenfold)],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        figures = {
            "sample": measure(ROOT / "evals" / "bundle", args.repeat, args.seed, args.memory),
            "10x": measure(tenfold, args.repeat, args.seed, args.memory),
        }
    print(f"pytest-ora statistics benchmark (medians of {args.repeat} runs; seed {args.seed}; 10,000 resamples)")
    print(
        f"machine: Python {platform.python_version()}, {platform.machine()}; "
        + ", ".join(f"{name} {version(name)}" for name in LIBRARIES)
    )
    print(f"{'':34}{'sample':>14}{'10x':>14}")
    rows = (
        ("ledger rows / scored captures", lambda f: f"{f['rows']:,}/{f['scored']:,}"),
        ("configurations / pairs", lambda f: f"{f['configurations']}/{f['pairs']}"),
        ("rows -> arrays (adapter) [s]", lambda f: f"{f['arrays_s']:.3f}"),
        ("run_statistics [s]", lambda f: f"{f['stats_s']:.3f}"),
        ("run_statistics CPU [s] (mean)", lambda f: f"{f['cpu_s']:.3f}"),
        ("run_statistics peak memory [MB]", lambda f: "-" if f["peak_mb"] is None else f"{f['peak_mb']:.0f}"),
    )
    for label, cell in rows:
        print(f"  {label:32}{cell(figures['sample']):>14}{cell(figures['10x']):>14}")
    print(f"({time.perf_counter() - started:.0f} s in all)")


if __name__ == "__main__":
    main()
