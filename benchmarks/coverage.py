"""Coverage of the intervals the statistics tables show, by simulation; prints figures.

Usage: python benchmarks/coverage.py [--trials N] [--resamples R]

For each sample size n (3, 5, 20, 200) and population, draw n values, compute the interval the
tables would show (the Student t interval at every n; interval_method names it, exactly as
pytest_ora.stats computes them: clusters.mean_estimate and resampling.Resampler with its shared
draw), and count how often it holds the population mean. A paired difference is a mean of
differences, so the same figures hold for the paired tables. Nominal: 95%.

Populations: normal (mean 6, sd 2); skewed (10 x Beta(2, 5), skewness 0.6); and the sample's
own overall scores of configuration `local` and `optimum` (lumpy, bounded, skewed both ways),
drawn with replacement, whose mean is the truth.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT)]

from pytest_ora.stats.clusters import mean_estimate  # noqa: E402
from pytest_ora.stats.paired import interval_method  # noqa: E402
from pytest_ora.stats.resampling import Resampler  # noqa: E402

SIZES = (3, 5, 20, 200)


def coverage(draw: object, truth: float, n: int, trials: int, resamples: int) -> tuple[float, float, str]:
    """(share of shown intervals that hold the truth, share of trials where no interval is shown, method).

    Below 20 units no t interval is shown when the n values are all equal (a zero-width interval would
    claim a certainty they do not give): those trials are counted apart, not as hits or misses."""
    hits = shown = 0
    method = interval_method(n)
    for trial in range(trials):
        rng = np.random.default_rng([n, trial, 20_260_620])
        values = draw(rng, n)  # type: ignore[operator]
        interval = (
            mean_estimate(values).t_interval if method == "t" else Resampler(trial, resamples).mean_interval(values)
        )
        if interval is None:
            continue
        shown += 1
        if interval[0] <= truth <= interval[1]:
            hits += 1
    return hits / max(1, shown), 1 - shown / trials, method


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument(
        "--ledger", type=Path, default=None, help="a sample run's ledger.jsonl for the empirical populations"
    )
    args = parser.parse_args()
    populations: dict[str, tuple[object, float]] = {
        "normal(6, 2)": (lambda rng, n: rng.normal(6, 2, n), 6.0),
        "10 x Beta(2, 5)": (lambda rng, n: 10 * rng.beta(2, 5, n), 10 * 2 / 7),
    }
    if args.ledger is not None:
        rows = [json.loads(line) for line in args.ledger.read_text(encoding="utf-8").splitlines()]
        for name in ("local", "optimum"):
            values = np.array(
                [r["overall"] for r in rows if r.get("configuration") == name and r.get("status") == "scored"]
            )
            skew = float(((values - values.mean()) ** 3).mean() / values.std() ** 3)
            populations[f"sample {name} (skew {skew:+.2f})"] = (
                (lambda v: lambda rng, n: rng.choice(v, n))(values),
                float(values.mean()),
            )
    started = time.perf_counter()
    print(
        f"Coverage of the shown 95% interval ({args.trials:,} trials per cell; BCa with {args.resamples:,} resamples)"
    )
    print(f"{'population':34}" + "".join(f"{'n=' + str(n):>26}" for n in SIZES))
    for name, (draw, truth) in populations.items():
        cells = []
        for n in SIZES:
            share, withheld, method = coverage(draw, truth, n, args.trials, args.resamples)
            se = math.sqrt(share * (1 - share) / max(1, round(args.trials * (1 - withheld))))
            cells.append(
                f"{100 * share:5.1f}% {method:>3} ±{100 * se:.1f}"
                + (f" ({100 * withheld:.0f}% none)" if withheld else "")
            )
        print(f"{name:34}" + "".join(f"{cell:>26}" for cell in cells))
    print(
        f"(± one Monte Carlo standard error; 'none': trials whose n values were all equal, where no interval is "
        f"shown; {time.perf_counter() - started:.0f} s in all)"
    )


if __name__ == "__main__":
    main()
