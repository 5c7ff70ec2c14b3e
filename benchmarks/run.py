"""pytest-ora benchmarks: replay against its floor, intake and collection, live throughput, reports.

    python benchmarks/run.py               # default: --repeat 3, about 8 minutes on 2 cores
    python benchmarks/run.py --quick       # one run per figure, fewer live captures, no full 10x run: ~2 minutes
    python benchmarks/run.py --profile     # also profile the full-sample replay at -n 0 (cProfile)

Every figure is measured in this one invocation, side by side, against the checkout this file
sits in (its pytest_ora is put first on the import path of this process and of every pytest it
starts). Each measurement is repeated --repeat times and the median is reported; the replay
table reports ratios, which survive a noisy machine better than absolute seconds. Everything
runs on loopback, in one temporary directory that is removed at the end, and every server or
pytest process started here is stopped here. See docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PROBE_DIR = HERE / "probe"
sys.path.insert(0, str(ROOT))  # measure this checkout's pytest_ora, in-process too

import inprocess  # noqa: E402
import live  # noqa: E402
import suites  # noqa: E402

WORKERS = (0, 2, 8)
LIVE_WORKERS = (0, 4, 8)
LIVE_LATENCY = 0.5
LIVE_CONCURRENCY = 8
"""The extra live row: -n 0 --ora-concurrency 8 (one process judging ahead), when the option exists."""
TARGETS = {
    "c/b": 1.3,
    "intake_sample": 1.0,
    "intake_10x": 5.0,
    "rss_10x_mb": 300.0,
    "worker_rss_10x_mb": 200.0,
    "live": 0.85,
}
RUN_TIMEOUT = 600.0
"""Seconds one pytest run may take before it is stopped (and the benchmark fails)."""
SETTLE_SECONDS = 360.0
"""How long after a benchmark deleted its scratch directory the next one waits before it measures.

On an ext4 without a journal, allocating an inode skips every inode freed in the last 60 seconds, or
360 while the inode's table block is dirty (fs/ext4/ialloc.c, recently_deleted()); creating files
re-dirties those blocks. Creating 3,600 files after deleting 28,800 and a sync took 1.2 s of kernel
time 5 s later, 0.7-0.8 s 65-95 s later, 0.5 s 125-185 s later, 0.2 s 245 s later and 0.1-0.17 s from 305 s
on, as with no deletion before. A c run creates 3,500 files and the floor none, so a benchmark started within
minutes of the last one's cleanup (about 31,000 files) measured that cost on c alone."""
DELETED_STAMP = Path(tempfile.gettempdir()) / "pytest-ora-benchmark.deleted"
"""When the last benchmark deleted its scratch directory (seconds since the epoch)."""


# --- running pytest ----------------------------------------------------------------------------


@dataclass
class Run:
    """One pytest process: wall seconds start to exit, CPU seconds of it and its children, probe data."""

    wall: float
    cpu: float
    returncode: int
    probe: dict[str, Any] = field(default_factory=dict)
    start: float = 0.0

    def phase(self, begin: str, end: str) -> float | None:
        a, b = self.probe.get(f"t_{begin}"), self.probe.get(f"t_{end}")
        return None if a is None or b is None else b - a

    @property
    def rss_mb(self) -> float | None:
        value = self.probe.get("maxrss_bytes")
        return None if value is None else value / 2**20

    @property
    def children_rss_mb(self) -> float | None:
        value = self.probe.get("children_maxrss_bytes")
        return None if value is None else value / 2**20

    @property
    def worker_rss_mb(self) -> float | None:
        value = self.probe.get("worker_maxrss_bytes")
        return None if value is None else value / 2**20


class Runner:
    """Starts pytest processes with a clean environment and collects wall time, CPU and probe data."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.count = 0
        self.current: subprocess.Popen[bytes] | None = None
        base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ORA_BENCH_"))}
        for key in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
            base.pop(key, None)
        # Python as a user runs it keeps its bytecode caches (and pytest its rewritten test modules);
        # without them every process compiles every module again and start-up is measured, not replay.
        base.pop("PYTHONDONTWRITEBYTECODE", None)
        paths = [str(PROBE_DIR), str(ROOT), *filter(None, [base.get("PYTHONPATH")])]
        base["PYTHONPATH"] = os.pathsep.join(paths)
        self.env = base
        self.disabled = foreign_plugins()

    def pytest(
        self, args: list[str], cwd: Path, *, env: dict[str, str] | None = None, expect_items: int | None = None
    ) -> Run:
        self.count += 1
        probe = self.scratch / f"probe-{self.count}.json"
        log = self.scratch / f"log-{self.count}.txt"
        environment = {**(env or self.env), "ORA_BENCH_PROBE": str(probe)}
        disable = [arg for name in self.disabled for arg in ("-p", f"no:{name}")]
        command = [sys.executable, "-m", "pytest", "-p", "ora_bench_probe", *disable, *args]
        with open(log, "wb") as output:
            start_wall = time.time()
            start = time.perf_counter()
            process = subprocess.Popen(
                command, cwd=cwd, env=environment, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
            )
            self.current = process
            timer = threading.Timer(RUN_TIMEOUT, self.stop_current)
            timer.start()
            try:
                _, status, usage = os.wait4(process.pid, 0)
            except BaseException:  # interrupted: take the run (and its xdist workers) down with us
                self.stop_current()
                raise
            finally:
                timer.cancel()
                self.current = None
            wall = time.perf_counter() - start
            process.returncode = os.waitstatus_to_exitcode(status)
        data = json.loads(probe.read_text()) if probe.is_file() else {}
        probe.unlink(missing_ok=True)
        workers = sorted(self.scratch.glob(f"{probe.name}.*"))
        if workers:
            each = [json.loads(path.read_text()) for path in workers]
            data["worker_maxrss_bytes"] = max(worker["maxrss_bytes"] for worker in each)
            data["workers_cpu"] = sum(worker["cpu_self"] for worker in each)
            data["workers_children_cpu"] = sum(worker["cpu_children"] for worker in each)
        for path in workers:
            path.unlink()
        run = Run(
            wall=wall, cpu=usage.ru_utime + usage.ru_stime, returncode=process.returncode, probe=data, start=start_wall
        )
        problem = None
        if run.returncode != 0 and wall >= RUN_TIMEOUT:
            problem = f"stopped after {RUN_TIMEOUT:.0f} s"
        elif run.returncode != 0:
            problem = f"exit code {run.returncode}"
        elif expect_items is not None and data.get("items_done") != expect_items:
            problem = f"{data.get('items_done')} items ran, expected {expect_items}"
        if problem:
            tail = log.read_text(errors="replace").splitlines()[-30:]
            raise RuntimeError(f"pytest {' '.join(args)} (in {cwd.name}): {problem}\n" + "\n".join(tail))
        log.unlink(missing_ok=True)
        return run

    def stop_current(self) -> None:
        """Stop the running pytest and its workers: its own process group, started by us."""
        process = self.current
        if process is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)


def foreign_plugins() -> list[str]:
    """pytest plugins installed here that a fresh `pip install -e ".[dev]"` would not bring.

    They are disabled (-p no:NAME, which xdist forwards to its workers) so the figures match
    a fresh environment: e.g. hypothesis' plugin alone adds about a second to every session end.
    """
    from importlib.metadata import PackageNotFoundError, distribution, entry_points

    def norm(name: str) -> str:
        return re.sub(r"[-_.]+", "-", name).lower()

    wanted: set[str] = set()
    stack: list[tuple[str, set[str]]] = [("pytest-ora", {"dev"})]
    while stack:
        name, extras = stack.pop()
        if norm(name) in wanted:
            continue
        wanted.add(norm(name))
        try:
            requires = distribution(name).requires or []
        except PackageNotFoundError:
            continue
        for requirement in requires:
            spec, _, marker = requirement.partition(";")
            match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", spec)
            if match is None:
                continue
            if "extra" in marker and not any(f'"{e}"' in marker or f"'{e}'" in marker for e in extras):
                continue
            stack.append((match.group(1), set()))
    names = {ep.name for ep in entry_points(group="pytest11") if ep.dist is None or norm(ep.dist.name) not in wanted}
    return sorted(names)


def median(values: list[float]) -> float:
    return statistics.median(values)


def cpu_split(runs: list[Run]) -> tuple[float | None, ...]:
    """Median CPU seconds of the controller, the xdist workers, their children, and the rest of the process tree."""
    if not all("cpu_self" in run.probe for run in runs):
        return (None, None, None, None)
    controller = median([run.probe["cpu_self"] for run in runs])
    workers = median([run.probe.get("workers_cpu", 0.0) for run in runs])
    helpers = median([run.probe.get("workers_children_cpu", 0.0) for run in runs])
    rest = median(
        [
            run.cpu
            - run.probe["cpu_self"]
            - run.probe.get("workers_cpu", 0.0)
            - run.probe.get("workers_children_cpu", 0.0)
            for run in runs
        ]
    )
    return controller, workers, helpers, rest


# --- the measurements --------------------------------------------------------------------------


def measure_replay(runner: Runner, dirs: dict[str, Path], out: Path, repeat: int, log: Any) -> dict[str, Any]:
    """(a) bare, (b) design floor, (c) pytest-ora on the sample, each at -n 0, 2, 8, interleaved."""
    variants = {
        "a": (dirs["bare"], ["-q", "-p", "no:cacheprovider", "."], suites.TESTS),
        "b": (dirs["floor"], ["-q", "-p", "no:cacheprovider", "."], suites.TESTS),
        "c": (ROOT, ["-q", "-p", "no:cacheprovider", "evals/"], None),
    }
    runs: dict[tuple[str, int], list[Run]] = {(v, n): [] for v in variants for n in WORKERS}
    order = list(variants)
    for r in range(repeat):
        for n in WORKERS:
            rotated = order[r % len(order) :] + order[: r % len(order)]  # no variant always goes first
            for name in rotated:
                cwd, args, expected = variants[name]
                extra = ["--ora-out", str(out / f"replay-{name}-{n}-{r}")] if name == "c" else []
                run = runner.pytest([*args, "-n", str(n), *extra], cwd, expect_items=expected)
                runs[(name, n)].append(run)
                log(f"  replay {name} -n {n} run {r + 1}/{repeat}: {run.wall:.2f} s wall, {run.cpu:.2f} s CPU")
    # Each c run's output (about 3,500 small files, 27 MB) stays until the scratch directory goes. Deleted
    # here, it made the next runs' files slow to create on a file system without a journal: ext4 then
    # skips every inode freed in the last minute when it allocates one (fs/ext4/ialloc.c,
    # recently_deleted()), about 1 ms a file after 3,500 deletions against 0.05 ms. The floor creates
    # no file, so that cost, the benchmark's own, fell on c alone.
    return {"runs": runs}


def measure_collection(runner: Runner, bundles: dict[str, Path], out: Path, repeat: int, log: Any) -> dict[str, Any]:
    """Intake in-process, and `pytest evals/ --collect-only` with its controller's peak RSS."""
    result: dict[str, Any] = {}
    for name, bundle in bundles.items():
        seconds, plan = inprocess.time_intake(bundle, repeat)
        result[f"intake_{name}"] = seconds
        result[f"lines_{name}"] = len(plan.captures)
        result[f"scored_set_{name}"] = plan.scored_set_captures
        del plan
        log(f"  intake {name}: {seconds:.3f} s")
        runs = []
        for r in range(repeat):
            target = out / f"collect-{name}-{r}"
            runs.append(
                runner.pytest(
                    [
                        "evals/",
                        "--collect-only",
                        "-q",
                        "-p",
                        "no:cacheprovider",
                        "--ora-bundle",
                        str(bundle),
                        "--ora-out",
                        str(target),
                    ],
                    ROOT,
                )
            )
            shutil.rmtree(target, ignore_errors=True)
            log(f"  collect-only {name} run {r + 1}/{repeat}: {runs[-1].wall:.2f} s, peak RSS {runs[-1].rss_mb:.0f} MB")
        result[f"collect_{name}"] = runs
    return result


def live_settings() -> list[tuple[int, int]]:
    """(-n, --ora-concurrency) pairs: the targets' -n 0, 4, 8, plus -n 0 judging ahead when available."""
    settings = [(n, 1) for n in LIVE_WORKERS]
    try:
        from pytest_ora import plugin

        if any(option[0] == "concurrency" for option in getattr(plugin, "_OPTIONS", ())):
            settings.append((0, LIVE_CONCURRENCY))
    except ImportError:
        pass
    return settings


def measure_live(runner: Runner, bundle: Path, out: Path, repeat: int, per_process: int, log: Any) -> dict[str, Any]:
    """Record mode `all` against the reference judge with a fixed latency, at -n 0, 4, 8."""
    result: dict[tuple[int, int], list[tuple[int, Run]]] = {}
    env = live.environment(runner.env)
    with live.JudgeServer(LIVE_LATENCY) as server:
        live.point_bundle_at(bundle, server)
        for r in range(repeat):
            for n, concurrency in live_settings():
                count = per_process * max(1, n) * concurrency
                ids = live.judged_ids(bundle, count)
                target, cassettes = out / f"live-{n}-{concurrency}-{r}", out / f"live-cassettes-{n}-{concurrency}-{r}"
                # Always explicit: the default (auto) would judge ahead, and these rows measure N processes.
                extra = ["--ora-concurrency", str(concurrency)]
                args = [
                    *(f"evals/test_ora.py::test_capture[{capture_id}]" for capture_id in ids),
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "-n",
                    str(n),
                    "--ora-bundle",
                    str(bundle),
                    "--ora-record",
                    "all",
                    "--ora-cassettes",
                    str(cassettes),
                    "--ora-out",
                    str(target),
                    *extra,
                ]
                run = runner.pytest(args, ROOT, env=env, expect_items=count)
                recorded = sum(1 for _ in cassettes.rglob("*.json"))
                shutil.rmtree(target, ignore_errors=True)
                shutil.rmtree(cassettes, ignore_errors=True)
                if recorded != count:
                    raise RuntimeError(f"live -n {n}: {recorded} cassettes recorded for {count} captures")
                result.setdefault((n, concurrency), []).append((count, run))
                phase = run.phase("first_start", "last_end") or float("nan")
                log(
                    f"  live -n {n}{' --ora-concurrency ' + str(concurrency) if concurrency > 1 else ''} run {r + 1}/{repeat}: "
                    f"{count} captures, {run.wall:.2f} s wall, {phase:.2f} s from first item to last"
                )
    return result


def measure_full_10x(runner: Runner, bundle: Path, out: Path, log: Any) -> Run:
    """One whole run over the 10x bundle at -n 2, so the controller holds 11,850 records.

    The 10x bundle has no cassettes: its judge calls are recorded (--ora-record all) against the
    reference judge with zero latency, which costs the controller exactly what a replay would.
    """
    with live.JudgeServer(0.0) as server:
        live.point_bundle_at(bundle, server)
        args = [
            "evals/",
            "-q",
            "-p",
            "no:cacheprovider",
            "-n",
            "2",
            "--ora-bundle",
            str(bundle),
            "--ora-record",
            "all",
            "--ora-cassettes",
            str(out / "full-10x-cassettes"),
            "--ora-out",
            str(out / "full-10x-out"),
        ]
        try:
            run = runner.pytest(args, ROOT, env=live.environment(runner.env))
        finally:
            shutil.rmtree(out / "full-10x-cassettes", ignore_errors=True)
            shutil.rmtree(out / "full-10x-out", ignore_errors=True)
    log(
        f"  full 10x run -n 2: {run.probe.get('items_done')} items, {run.wall:.1f} s, controller peak RSS "
        f"{run.rss_mb:.0f} MB, worker peak RSS {fmt(run.worker_rss_mb, '.0f')} MB"
    )
    return run


def measure_reports(bundles: dict[str, Path], out: Path, repeat: int, log: Any) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for name, bundle in bundles.items():
        seconds, records, scored = inprocess.time_report(bundle, out / f"report-{name}", repeat)
        shutil.rmtree(out / f"report-{name}", ignore_errors=True)
        result[name] = (seconds, records, scored)
        log(f"  write_report {name}: {records} records ({scored} scored): {seconds:.3f} s")
    return result


# --- the report --------------------------------------------------------------------------------


def verdict(ok: bool) -> str:
    return "holds" if ok else "MISSED"


def machine() -> dict[str, str]:
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        model = platform.processor() or "unknown"
    versions = {}
    from importlib.metadata import PackageNotFoundError, version

    for package in ("pytest", "pytest-xdist", "vcrpy", "httpx", "pydantic", "pluggy"):
        try:
            versions[package] = version(package)
        except PackageNotFoundError:
            versions[package] = "-"
    return {
        "nproc": str(os.cpu_count()),
        "cpu": model,
        "python": platform.python_version(),
        "os": f"{platform.system()} {platform.release()}",
        "packages": ", ".join(f"{k} {v}" for k, v in versions.items()),
    }


def tree_state() -> str:
    """The commit and whether pytest_ora differs from it, so a figure names what it measured."""
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--", "pytest_ora", "evals", "cassettes"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        return f"commit {commit}" + (
            f", {len(dirty)} uncommitted changes in pytest_ora/evals/cassettes" if dirty else ", clean"
        )
    except (OSError, subprocess.CalledProcessError):
        return "not a git checkout"


def source_digest() -> str:
    digest = hashlib.sha256()
    for path in sorted((ROOT / "pytest_ora").rglob("*.py")):
        digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:12]


def fmt(value: float | None, spec: str = ".2f") -> str:
    return "-" if value is None else format(value, spec)


# C901: the table's rows in the order they are printed, one branch per row kind.
def render(results: dict[str, Any], args: argparse.Namespace, info: dict[str, str], elapsed: float) -> str:  # noqa: C901
    lines: list[str] = []
    add = lines.append
    add(f"pytest-ora benchmarks ({'quick' if args.quick else 'default'}; medians of {args.repeat} run(s) per figure)")
    add(f"machine: {info['nproc']} CPUs, {info['cpu']}, Python {info['python']}, {info['os']}")
    add(f"packages: {info['packages']}")
    add(f"pytest plugins disabled (not brought by pip install -e .[dev]): {info.get('disabled') or 'none'}")
    add(f"measured: {info['tree']}; pytest_ora sources {info['digest']}")
    if info.get("settled"):
        add(f"before measuring, after the last benchmark's cleanup: {info['settled']}")
    if info.get("changed"):
        add("WARNING: pytest_ora changed while the benchmark ran; the figures mix two versions of it")
    add("")

    replay = results["replay"]["runs"]

    def med(name: str, n: int, value: Any) -> float:
        return median([value(run) for run in replay[(name, n)]])

    wall = {(v, n): med(v, n, lambda r: r.wall) for v in "abc" for n in WORKERS}
    cpu = {(v, n): med(v, n, lambda r: r.cpu) for v in "abc" for n in WORKERS}
    items = {(v, n): med(v, n, lambda r: r.phase("first_start", "last_end") or 0.0) for v in "abc" for n in WORKERS}
    header = f"{'':44}" + "".join(f"{f'-n {n}':>12}" for n in WORKERS)
    add("1. Replay against its floor (pytest as a subprocess, wall time start to exit)")
    add("   a = 1,173 trivial parametrized tests; b = design floor: 1,173 tests each replaying a")
    add("   two-interaction vcrpy cassette through httpx.AsyncClient; c = pytest evals/ on the sample")
    add("   (1,185 items: 1,159 replayed from cassettes, 26 skipped)")
    add(header)

    def row(label: str, values: list[float | None], spec: str = ".2f", note: str = "") -> None:
        add(f"   {label:<41}" + "".join(f"{fmt(v, spec):>12}" for v in values) + (f"   {note}" if note else ""))

    cb = [wall[("c", n)] / wall[("b", n)] for n in WORKERS]
    row(
        "c/b  wall, pytest-ora / design floor",
        cb,
        note=f"target <= {TARGETS['c/b']}: {verdict(all(x <= TARGETS['c/b'] for x in cb))}"
        + (
            ""
            if all(x <= TARGETS["c/b"] for x in cb)
            else " (missed at " + ", ".join(f"-n {n}" for n, x in zip(WORKERS, cb) if x > TARGETS["c/b"]) + ")"
        ),
    )
    if len(replay[("c", 0)]) > 1:
        paired = {n: [c.wall / b.wall for c, b in zip(replay[("c", n)], replay[("b", n)])] for n in WORKERS}
        add(
            f"   {'c/b  wall, paired per repeat, min-max':<41}"
            + "".join(f"{f'{min(paired[n]):.2f}-{max(paired[n]):.2f}':>12}" for n in WORKERS)
        )
    row("b/a  wall, design floor / bare pytest", [wall[("b", n)] / wall[("a", n)] for n in WORKERS])
    row("c/a  wall, pytest-ora / bare pytest", [wall[("c", n)] / wall[("a", n)] for n in WORKERS])
    row("c/b  CPU (all processes, user+sys)", [cpu[("c", n)] / cpu[("b", n)] for n in WORKERS])
    row(
        "c/b  items phase (first item to last)",
        [items[("c", n)] / items[("b", n)] if items[("b", n)] else None for n in WORKERS],
    )
    row("wall(-n N) / wall(-n 0), pytest-ora", [wall[("c", n)] / wall[("c", 0)] for n in WORKERS])
    row("wall(-n N) / wall(-n 0), design floor", [wall[("b", n)] / wall[("b", 0)] for n in WORKERS])
    add("   medians behind the ratios, seconds (wall / CPU):")
    for name, label in (("a", "a bare"), ("b", "b design floor"), ("c", "c pytest-ora")):
        add(
            f"   {label:<41}"
            + "".join(f"{fmt(wall[(name, n)], '.1f') + '/' + fmt(cpu[(name, n)], '.1f'):>12}" for n in WORKERS)
        )
    add("   CPU by process, seconds (medians), each read at its pytest_unconfigure: controller / xdist workers /")
    add("   the workers' children (pytest-ora's file-writing helpers) / the rest (every process's exit after")
    add("   unconfigure; without -n also the helper and, for a large run, the session end's child process)")
    for name in "bc":
        add(
            f"   {name}: controller / workers / helpers / rest{'':<8}"
            + "".join(f"{'/'.join(fmt(v, '.1f') for v in cpu_split(replay[(name, n)])):>20}" for n in WORKERS)
        )
    add("   where the wall time goes, seconds (medians): start = process start to first item; items =")
    add("   first item start to last item end; end = sessionfinish to unconfigure (report, summary, workers)")
    for name in "abc":
        start = [med(name, n, lambda r: (r.probe.get("t_first_start") or r.start) - r.start) for n in WORKERS]
        end = [med(name, n, lambda r: r.phase("finish_start", "unconfigure") or 0.0) for n in WORKERS]
        add(
            f"   {name}: start / items / end{'':<22}"
            + "".join(
                f"{f' {s:.1f}/{i:.1f}/{e:.1f}':>12}" for s, i, e in zip(start, [items[(name, n)] for n in WORKERS], end)
            )
        )
    add("")

    if "collection" not in results:  # --replay-only
        add(f"(part 1 only; {results['pytest_runs']} pytest runs in {elapsed / 60:.1f} min)")
        return "\n".join(lines)
    col = results["collection"]
    add("2. Intake and collection                      sample     10x      target")
    add(f"   bundle lines / scored-set captures       {col['lines_sample']:>7,}  {col['lines_10x']:>7,}")
    add(f"   {'':41}{col['scored_set_sample']:>7,}  {col['scored_set_10x']:>7,}")
    ok_intake = col["intake_sample"] < TARGETS["intake_sample"] and col["intake_10x"] < TARGETS["intake_10x"]
    add(
        f"   intake() in-process [s]                  {col['intake_sample']:>7.3f}  {col['intake_10x']:>7.3f}"
        f"    < 1 s / < 5 s: {verdict(ok_intake)}"
    )
    cs, cx = col["collect_sample"], col["collect_10x"]
    add(
        f"   --collect-only wall [s]                  {median([r.wall for r in cs]):>7.2f}  "
        f"{median([r.wall for r in cx]):>7.2f}"
    )
    add(
        f"   --collect-only collection phase [s]      {median([r.phase('configure', 'collected') or 0 for r in cs]):>7.2f}  "
        f"{median([r.phase('configure', 'collected') or 0 for r in cx]):>7.2f}"
    )
    add(
        f"   --collect-only session end [s]           {median([r.phase('finish_start', 'unconfigure') or 0 for r in cs]):>7.2f}  "
        f"{median([r.phase('finish_start', 'unconfigure') or 0 for r in cx]):>7.2f}"
    )
    rss_10x = median([r.rss_mb or 0 for r in cx])
    add(
        f"   controller peak RSS, --collect-only [MB] {median([r.rss_mb or 0 for r in cs]):>7.0f}  {rss_10x:>7.0f}"
        f"    < 300 MB at 10x: {verdict(rss_10x < TARGETS['rss_10x_mb'])}"
    )
    for n in WORKERS:
        rss = median([r.rss_mb or 0 for r in replay[("c", n)]])
        worker = median([r.worker_rss_mb or 0 for r in replay[("c", n)]]) if n else None
        add(
            f"   controller peak RSS, replay -n {n} [MB]     {rss:>7.0f}        -"
            + (f"    (largest worker: {worker:.0f} MB)" if worker else "")
        )
    full = results.get("full_10x")
    if full is None:
        add("   full 10x run: skipped (--quick or --no-full-10x)")
    else:
        ok = (full.rss_mb or 0) < TARGETS["rss_10x_mb"]
        add(f"   full 10x run, -n 2, {full.probe.get('items_done', 0):,} items (recorded at zero latency):")
        add(
            f"     controller peak RSS [MB]                          {fmt(full.rss_mb, '>7.0f')}"
            f"    < 300 MB at 10x: {verdict(ok)}"
        )
        add(
            f"     largest worker peak RSS [MB]                      {fmt(full.worker_rss_mb, '>7.0f')}"
            "    < 200 MB at 10x: " + verdict((full.worker_rss_mb or 0) < TARGETS["worker_rss_10x_mb"])
        )
        add(
            f"     largest child peak RSS [MB]                       {fmt(full.children_rss_mb, '>7.0f')}"
            "    (a worker, or the child making statistics and report.html)"
        )
        add(
            f"     wall [s] / session end (report, summary) [s]      {full.wall:>7.1f} / "
            f"{fmt(full.phase('finish_start', 'unconfigure'), '.1f')}"
        )
    add("")

    add(f"3. Live judging, reference judge on loopback, {LIVE_LATENCY} s per call, --ora-record all")
    add("   ideal = max(1, N) processes x captures in flight per process / 0.5 s (both judges of a capture")
    add("   are in flight at once); run = first item start to last item end, excluding pytest and worker")
    add("   start-up; e2e = captures / wall time of the whole pytest process")
    add(
        f"   {'':22}{'captures':>9}{'ideal/s':>9}{'run/s':>9}{'ratio':>8}{'e2e/s':>9}{'ratio':>8}   target >= "
        f"{TARGETS['live']} of ideal (run)"
    )
    for (n, concurrency), samples in results["live"].items():
        count = samples[0][0]
        ideal = max(1, n) * concurrency / LIVE_LATENCY
        phase_rate = median([c / (r.phase("first_start", "last_end") or float("inf")) for c, r in samples])
        e2e_rate = median([c / r.wall for c, r in samples])
        ok = phase_rate / ideal >= TARGETS["live"]
        name = f"-n {n}" + (f" --ora-concurrency {concurrency}" if concurrency > 1 else "")
        note = verdict(ok) if concurrency == 1 else f"({'above' if ok else 'below'} {TARGETS['live']}; not a target)"
        add(
            f"   {name:<22}{count:>9}{ideal:>9.1f}{phase_rate:>9.2f}{phase_rate / ideal:>8.2f}{e2e_rate:>9.2f}"
            f"{e2e_rate / ideal:>8.2f}   {note}"
        )
    add("")

    reports = results["reports"]
    (s_sec, s_rec, s_scored), (x_sec, x_rec, x_scored) = reports["sample"], reports["10x"]
    add("4. Session-end report, OutputDir.write_report in-process, synthetic records (two judges each)")
    add(
        f"   sample: {s_rec:,} records ({s_scored:,} scored): {s_sec:.3f} s   "
        f"10x: {x_rec:,} records ({x_scored:,} scored): {x_sec:.3f} s   10x / sample = {x_sec / s_sec:.1f}"
    )
    add("")
    add(f"({runner_count(results)} pytest runs in {elapsed / 60:.1f} min)")
    return "\n".join(lines)


def runner_count(results: dict[str, Any]) -> int:
    return int(results.get("pytest_runs", 0))


# --- main --------------------------------------------------------------------------------------


def settle(log: Any, seconds: float = SETTLE_SECONDS) -> float:
    """Wait until `seconds` have passed since the last benchmark deleted its scratch directory; the wait."""
    try:
        deleted = float(DELETED_STAMP.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return 0.0
    wait = min(deleted + seconds - time.time(), seconds)
    if wait <= 0:
        return 0.0
    log(
        f"waiting {wait:.0f} s: the last benchmark deleted its scratch directory {time.time() - deleted:.0f} s ago "
        "(files created within minutes of many deletions cost more on some file systems; --no-settle skips this)"
    )
    time.sleep(wait)
    return wait


def _note_deleted() -> None:
    os.sync()  # the freed inodes' table blocks on disk: the window is the shorter one from now
    with contextlib.suppress(OSError):
        DELETED_STAMP.write_text(f"{time.time():.3f}\n", encoding="utf-8")


def _interrupt(signum: int, frame: Any) -> None:
    """A SIGTERM unwinds like Ctrl-C, so the temp directory, the judge and any pytest get cleaned up."""
    raise KeyboardInterrupt


# C901: the benchmark's options and its run order in one place; split, the order of the runs would be harder to see.
def main(argv: list[str] | None = None) -> int:  # noqa: C901
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick", action="store_true", help="one run per figure, fewer live captures, no whole-10x run (~2 min)"
    )
    parser.add_argument(
        "--repeat", type=int, default=None, help="runs per measurement, medians reported (default 3; 1 with --quick)"
    )
    parser.add_argument(
        "--live-per-process",
        type=int,
        default=None,
        help="live captures per pytest process (default 12; 6 with --quick)",
    )
    parser.add_argument(
        "--no-full-10x",
        action="store_true",
        help="skip the whole 10x run (about 1.5 min) that measures the controller's memory at 10x",
    )
    parser.add_argument("--profile", action="store_true", help="also cProfile the full-sample replay at -n 0")
    parser.add_argument("--json", type=Path, default=None, help="also write the raw figures to this file")
    parser.add_argument("--replay-only", action="store_true", help="part 1 only (replay against its floor)")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="no report cache: every run computes its statistics and charts (as the first run after a change)",
    )
    parser.add_argument(
        "--no-settle",
        action="store_true",
        help="measure at once, even within minutes of the last benchmark deleting its files (see SETTLE_SECONDS)",
    )
    args = parser.parse_args(argv)
    args.repeat = args.repeat if args.repeat is not None else (1 if args.quick else 3)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    per_process = args.live_per_process or (6 if args.quick else 12)

    def log(text: str) -> None:
        print(text, file=sys.stderr, flush=True)

    signal.signal(signal.SIGTERM, _interrupt)
    started = time.perf_counter()
    info = {**machine(), "tree": tree_state(), "digest": source_digest()}
    import pytest_ora

    if Path(pytest_ora.__file__).resolve().parent != ROOT / "pytest_ora":
        log(f"warning: pytest_ora imports from {Path(pytest_ora.__file__).parent}, not this checkout")
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="ora-bench-") as temporary:
        scratch = Path(temporary)
        runner = Runner(scratch)
        info["disabled"] = ", ".join(runner.disabled)
        try:
            log("preparing: floor suites (recording the floor's cassettes), 10x bundle, live bundle")
            dirs = {"bare": suites.write_bare(scratch / "bare"), "floor": suites.write_floor(scratch / "floor")}
            make = [sys.executable, str(ROOT / "scripts" / "make_sample_bundle.py")]
            for out, extra in ((scratch / "bundle-10x", ["--scale", "10"]), (scratch / "bundle-live", [])):
                subprocess.run(
                    [*make, "--out", str(out), *extra], cwd=ROOT, env=runner.env, check=True, stdout=subprocess.DEVNULL
                )
            bundles = {"sample": ROOT / "evals" / "bundle", "10x": scratch / "bundle-10x"}
            # One untimed collection writes pytest_ora's bytecode caches and warms the page cache; one untimed
            # replay fills the report cache of this benchmark's own (as any earlier run of the same cassettes
            # would), unless --cold turns the cache off.
            runner.env["PYTEST_ORA_CACHE"] = "off" if args.cold else str(scratch / "report-cache")
            runner.pytest(["-q", "-p", "no:cacheprovider", "--co", "evals/", "--ora-out", str(scratch / "warm")], ROOT)
            if not args.cold:
                runner.pytest(
                    ["-q", "-p", "no:cacheprovider", "evals/", "--ora-out", str(scratch / "warm-replay")], ROOT
                )

            info["settled"] = "no (--no-settle)" if args.no_settle else f"waited {settle(log):.0f} s"
            log("1. replay against its floor")
            results["replay"] = measure_replay(runner, dirs, scratch, args.repeat, log)
            if args.replay_only:
                if args.profile:
                    results["profile"] = _profile(runner, scratch, log)
                raise _PartOne
            log("2. intake and collection")
            results["collection"] = measure_collection(runner, bundles, scratch, args.repeat, log)
            if not (args.quick or args.no_full_10x):
                results["full_10x"] = measure_full_10x(runner, scratch / "bundle-10x", scratch, log)
            log("3. live throughput")
            results["live"] = measure_live(runner, scratch / "bundle-live", scratch, args.repeat, per_process, log)
            log("4. report writing")
            results["reports"] = measure_reports(bundles, scratch, args.repeat, log)
            if args.profile:
                results["profile"] = _profile(runner, scratch, log)
        except _PartOne:
            pass
        finally:
            runner.stop_current()
        results["pytest_runs"] = runner.count
    _note_deleted()
    info["changed"] = "yes" if source_digest() != info["digest"] else ""
    text = render(results, args, info, time.perf_counter() - started)
    print(text)
    if args.profile:
        print()
        print(results["profile"]["text"])
    if args.json is not None and ("collection" in results or "replay" in results):
        args.json.write_text(json.dumps(to_json(results, info), indent=1, default=str) + "\n")
    return 0


def _profile(runner: Any, scratch: Path, log: Any) -> dict[str, Any]:
    import hotspots

    log("profile: full-sample replay at -n 0 under cProfile")
    return hotspots.profile_replay(
        ROOT, runner.env, scratch, [arg for name in runner.disabled for arg in ("-p", f"no:{name}")]
    )


class _PartOne(Exception):
    """--replay-only: the measurements stop after part 1."""


def to_json(results: dict[str, Any], info: dict[str, str]) -> dict[str, Any]:
    def run(r: Run) -> dict[str, Any]:
        return {
            "wall": r.wall,
            "cpu": r.cpu,
            "rss_mb": r.rss_mb,
            "items_phase": r.phase("first_start", "last_end"),
            "session_end": r.phase("finish_start", "unconfigure"),
        }

    data: dict[str, Any] = {"machine": info}
    data["replay"] = {f"{v}-n{n}": [run(r) for r in runs] for (v, n), runs in results["replay"]["runs"].items()}
    if "collection" in results:  # not with --replay-only
        collection = results["collection"]
        data["collection"] = {k: ([run(r) for r in v] if isinstance(v, list) else v) for k, v in collection.items()}
        data["live"] = {
            f"n{n}-c{c}": [{"captures": k, **run(r)} for k, r in samples] for (n, c), samples in results["live"].items()
        }
    if "full_10x" in results:
        data["full_10x"] = {**run(results["full_10x"]), "worker_rss_mb": results["full_10x"].worker_rss_mb}
    if "reports" in results:
        data["reports"] = {k: {"seconds": s, "records": n, "scored": m} for k, (s, n, m) in results["reports"].items()}
    if "profile" in results:
        data["profile"] = {k: v for k, v in results["profile"].items() if k != "text"}
    return data


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        print("interrupted: temporary files removed, every process started here stopped", file=sys.stderr)
        raise SystemExit(130) from None
