"""report.html at 1x and 10x: page size, render time, and load and interaction times in headless Chromium.

    python benchmarks/report_page.py            # minutes: most of it judging the 10x bundle
    python benchmarks/report_page.py --repeat 5 --keep DIR

1x is the sample replayed from its cassettes (`pytest evals/ -n 2`). 10x is
`scripts/make_sample_bundle.py --scale 10` (11,850 lines, 11,730 captures in the scored set)
judged at -n 2 by the reference judge on loopback with no latency (`--ora-record all`): a real run's
ledger, judges' notes included. Then, for each, from the files that run wrote:

- size of report.html, raw and gzipped (what an attachment or a mail costs);
- render: median seconds to rebuild the page in-process from ledger.jsonl and summary.json
  (page data, charts, HTML);
- in Debian's Chromium (Playwright, network blocked, page opened from disk), medians over fresh
  pages: first contentful paint, DOMContentLoaded and load event (the capture table and the matrix
  show their first page by then); a filter (configuration) applied until the count changes; the
  matrix sorted by spread (the click until the sorted page is laid out); a capture opened from the
  matrix (the first opening parses the captures' texts); a capture's detail opened; JS heap.

    python benchmarks/report_page.py --reuse-10x DIR   # measure an existing 10x --ora-out instead of judging again

Needs the dev extra (matplotlib, playwright) and `chromium` (apt-get install chromium). Loopback only.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import live  # noqa: E402

PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2"]


def run(args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    subprocess.run(args, cwd=ROOT, env=env, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def sample_run(out: Path, env: dict[str, str]) -> float:
    return run([*PYTEST, "evals/", "--ora-out", str(out)], env)


def ten_x_run(scratch: Path, out: Path, env: dict[str, str]) -> float:
    bundle = scratch / "bundle-10x"
    subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "make_sample_bundle.py"), "--out", str(bundle), "--scale", "10"],
        cwd=ROOT,
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    with live.JudgeServer(0.0) as server:
        live.point_bundle_at(bundle, server)
        return run(
            [
                *PYTEST,
                "evals/",
                "--ora-bundle",
                str(bundle),
                "--ora-record",
                "all",
                "--ora-cassettes",
                str(scratch / "cassettes-10x"),
                "--ora-out",
                str(out),
            ],
            live.environment(env),
        )


def render_seconds(out: Path, repeat: int) -> tuple[float, int]:
    """Median seconds to rebuild report.html from the run's ledger and summary; the page's capture count."""
    from pytest_ora.method.rubric import get_rubric
    from pytest_ora.reports.html import render_html
    from pytest_ora.reports.page import compare_sections
    from pytest_ora.reports.pagedata import page_data
    from pytest_ora.reports.rows import ledger_model, summary_model

    summary_data = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    rubric = get_rubric(summary_data[0]["rubric"])  # the sample's built-in rubric
    with (out / "ledger.jsonl").open(encoding="utf-8") as stream:
        rows = [ledger_model(rubric).model_validate_json(line) for line in stream]
    summary = [summary_model(rubric).model_validate(row) for row in summary_data]
    table = [line.split(",")[:-2] for line in (out / "summary.csv").read_text(encoding="utf-8").splitlines()[1:]]
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        data = page_data(
            bundle="benchmark",
            rubric=rubric,
            judges=[],
            rows=rows,
            summary=summary,
            table=table,
            scoring_date="2026-06-21",
        )
        data.update(compare_sections(out))  # texts.json, runs.json, baseline.json: as the run's page has them
        render_html(data)
        times.append(time.perf_counter() - started)
    return statistics.median(times), len(rows)


def browser_figures(page_path: Path, repeat: int) -> dict[str, float]:
    """Medians over `repeat` fresh pages in headless Chromium, network blocked."""
    from playwright.sync_api import sync_playwright

    from pytest_ora.testing.browser import launch, offline_context

    samples: dict[str, list[float]] = {}
    blocked: list[str] = []
    with sync_playwright() as playwright:
        browser = launch(playwright, "--enable-precise-memory-info")
        for _ in range(repeat):
            context = offline_context(browser, blocked)
            page = context.new_page()
            page.goto(page_path.as_uri(), wait_until="load")
            page.wait_for_selector("#capture-rows tr")
            timing = page.evaluate("""() => {
                const n = performance.getEntriesByType('navigation')[0];
                const paint = performance.getEntriesByType('paint').find(e => e.name === 'first-contentful-paint');
                const shown = performance.getEntriesByName('ora-matrix-shown')[0];
                return {dom: n.domContentLoadedEventEnd, load: n.loadEventEnd, paint: paint ? paint.startTime : -1,
                        matrix: shown ? shown.startTime : -1,
                        heap: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : 0};
            }""")
            sort_ms = page.evaluate("""() => {
                const t = performance.now();
                document.querySelector('#matrix-head th[data-key="spread"]').click();
                void document.getElementById('matrix-rows').getBoundingClientRect().height;  // layout included
                return performance.now() - t;
            }""")
            open_ms = page.evaluate("""() => {
                const t = performance.now();
                document.querySelector('#matrix-rows td[data-index]').click();
                void document.getElementById('detail').getBoundingClientRect().height;
                return performance.now() - t;
            }""")
            page.keyboard.press("Escape")
            filter_ms = page.evaluate("""() => {
                const select = document.getElementById('f-configuration');
                const t = performance.now();
                select.value = select.options[1].value;
                select.dispatchEvent(new Event('change'));
                return performance.now() - t;
            }""")
            detail_ms = page.evaluate("""() => {
                const t = performance.now();
                document.querySelector('#capture-rows tr').click();
                return performance.now() - t;
            }""")
            for key, value in (
                ("first_paint_ms", timing["paint"]),
                ("matrix_ms", timing["matrix"]),
                ("domcontentloaded_ms", timing["dom"]),
                ("load_ms", timing["load"]),
                ("sort_ms", sort_ms),
                ("open_ms", open_ms),
                ("filter_ms", filter_ms),
                ("detail_ms", detail_ms),
                ("heap_mb", timing["heap"]),
            ):
                samples.setdefault(key, []).append(float(value))
            context.close()
        browser.close()
    if blocked:
        raise SystemExit(f"the page tried to fetch {blocked}")
    return {key: statistics.median(values) for key, values in samples.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="browser loads and renders per size (medians)")
    parser.add_argument("--keep", type=Path, help="copy the two report.html files here")
    parser.add_argument("--reuse-10x", type=Path, help="an existing 10x --ora-out to measure (the run is not repeated)")
    parser.add_argument("--keep-10x", type=Path, help="keep the 10x run's --ora-out here (to --reuse-10x it later)")
    args = parser.parse_args(argv)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    results = []
    with tempfile.TemporaryDirectory(prefix="ora-report-bench-") as temporary:
        scratch = Path(temporary)
        for name, make in (("1x", lambda out: sample_run(out, env)), ("10x", lambda out: ten_x_run(scratch, out, env))):
            out = scratch / f"out-{name}"
            if name == "10x" and args.reuse_10x:
                out, wall = args.reuse_10x, float("nan")
                from pytest_ora.reports.verify import RENDERERS

                # the page as this code renders it from that run's files (what `verify` renders)
                render = next(r.render for r in RENDERERS if r.report == "report.html")
                (out / "report.html").write_text(render(out), encoding="utf-8")
            elif name == "10x" and args.keep_10x:
                out = args.keep_10x
                wall = make(out)
            else:
                wall = make(out)
            page = out / "report.html"
            if not page.is_file():
                raise SystemExit(f"{name}: the run wrote no report.html (see {out})")
            raw = page.read_bytes()
            render, captures = render_seconds(out, args.repeat)
            figures = browser_figures(page, args.repeat)
            results.append(
                {
                    "size": name,
                    "captures": captures,
                    "run_s": wall,
                    "bytes": len(raw),
                    "gzip_bytes": len(gzip.compress(raw, 9)),
                    "render_s": render,
                    **figures,
                }
            )
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(page, args.keep / f"report-{name}.html")
    header = (
        "size",
        "captures",
        "page MB",
        "gzip MB",
        "render s",
        "first paint ms",
        "matrix shown ms",
        "DOMContentLoaded ms",
        "load ms",
        "sort by spread ms",
        "open from matrix ms",
        "filter ms",
        "detail ms",
        "JS heap MB",
        "whole run s",
    )
    print(" | ".join(header))
    for r in results:
        print(
            " | ".join(
                [
                    r["size"],
                    f"{r['captures']:,}",
                    f"{r['bytes'] / 1e6:.2f}",
                    f"{r['gzip_bytes'] / 1e6:.2f}",
                    f"{r['render_s']:.2f}",
                    f"{r['first_paint_ms']:.0f}",
                    f"{r['matrix_ms']:.0f}",
                    f"{r['domcontentloaded_ms']:.0f}",
                    f"{r['load_ms']:.0f}",
                    f"{r['sort_ms']:.1f}",
                    f"{r['open_ms']:.1f}",
                    f"{r['filter_ms']:.1f}",
                    f"{r['detail_ms']:.1f}",
                    f"{r['heap_mb']:.1f}",
                    f"{r['run_s']:.1f}",
                ]
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
