"""The output directory: per-capture files from any process, the report from the controller only."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path
from typing import Any, TextIO

from pydantic import BaseModel

from ..core.errors import OutputError
from ..core.fileio import file_mode
from ..core.plan import Plan
from ..core.record import CaptureRecord, RecordStore, answered_plan, in_plan_order
from ..core.rubric import Rubric
from ..judges.budget import CANDIDATE_ANSWER_TOKENS_ESTIMATE, OUTPUT_TOKENS_ESTIMATE, PRICES_AS_OF
from ..method.kinds import kind_files, report_files
from ..method.markdowntable import tabulated
from .aggregation import SummaryRow, ledger_row, summarize, summary_json
from .archive import archive_report
from .baseline import BASELINE_FILES, BaselineRun
from .capturesfile import CAPTURES_NAME, captures_jsonl
from .filewriter import DRY_RUN_DIR, PROGRESS_DIR, SPEND_DIR
from .filewriter import write_all as _write_all
from .methodology import RunFacts, methodology_data
from .notes import scored_share, summary_appendix, summary_preface
from .pilot import CELLS, cells_jsonl, pilot_run
from .renderers import ALWAYS_WRITTEN, RUN_DATA, VerifyError, ledger_rows, render_reports, run_data
from .resultcache import cached
from .runs import RUNS_NAME, earlier_runs, runs_json
from .statsdata import parse_stats_file
from .statsfiles import disagreements_csv, hypotheses_file, stats_file
from .texts import TEXTS_NAME, capture_texts, texts_json

__all__ = ["ESTIMATE_FILES", "EXTRA_FILES", "LOCK_NAME", "REPORT_FILES", "STATS_FILES", "OutputDir", "estimate_table"]

REPORT_FILES = ALWAYS_WRITTEN
"""What every run writes (reports/renderers.py names them, for verify too)."""
STATS_FILES = ("stats.json", "disagreements.csv", "hypotheses.json")
PAGE_FILES = (TEXTS_NAME, RUNS_NAME, *BASELINE_FILES)
"""What the report page shows beyond the ledger: the captures' texts, the earlier runs, the baseline."""
ESTIMATE_FILES = ("estimate.json", "estimate.md")
EXTRA_FILES = ("run.json", CAPTURES_NAME)
"""run.json (what `verify` re-renders the tables with), archived with the rest of the last run's report
(and the files the rubric kinds add: method/kinds, kind_files)."""
JOURNAL_SECONDS = 0.5
"""Rows that come faster than this after the journal's last write wait to be written with the next (OutputDir.append)."""
CHILD_ROWS = 5_000
"""From this many ledger rows, the statistics and report.html are made in a child process: the
scientific stack (numpy, scipy, statsmodels, matplotlib) and the page's data never
load into the controller, which holds the run's records. Smaller runs make them in-process. The
child computes from the same inputs with the same code: the same bytes either way."""
LOCK_NAME = ".ora-run.lock"
PREVIOUS_DIR = ".ora-previous"
"""The last run's packets/ and judges/ while this run writes its own; removed when the run releases the directory.

Moved aside (a rename), they are deleted once this run's files exist: files created just after thousands were
deleted cost more on some file systems (docs/performance.md has the figures)."""


@contextmanager
def atomic_stream(path: Path) -> Iterator[TextIO]:
    """A text stream whose file appears whole at `path` when the block ends, or not at all."""
    try:
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except FileNotFoundError:  # the directory is made on its first file: a capture's files share it
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(handle, file_mode())  # mkstemp's 0600 would ignore the user's umask
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            yield stream
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def write_atomic(path: Path, text: str) -> None:
    """Write a whole file or nothing: a reader never sees half a report."""
    with atomic_stream(path) as stream:
        stream.write(text)


def _dump(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


class OutputDir:
    """--ora-out: packets/ and judges/ per capture, the ledger as results arrive, the tables at the end."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._journal: Any = None
        self._waiting: list[bytes] = []
        self._written_at = float("-inf")
        self._clock = time.monotonic
        self.baseline: BaselineRun | None = None
        """--ora-baseline's run, read before this directory was claimed; compared at the end."""
        self.regression_min = "10%"
        self._archived: Path | None = None

    def claim(self, estimate: bool = False) -> None:
        """Take the directory for this run: refuse a live concurrent run, move the last report to runs/.

        A dry run (`estimate`) writes only the estimate files and its packets under dry-run/: the
        last report stays where it is.
        """
        locked = False
        try:
            self.path.mkdir(parents=True, exist_ok=True)
            lock = self.path / LOCK_NAME
            self._take_lock(lock)
            locked = True
            for name in ESTIMATE_FILES:
                (self.path / name).unlink(missing_ok=True)
            if estimate:
                shutil.rmtree(self.path / DRY_RUN_DIR, ignore_errors=True)
                return
            self._archived = archive_report(
                self.path, REPORT_FILES + kind_files() + EXTRA_FILES + STATS_FILES + PAGE_FILES
            )
            self._set_aside(("packets", "judges"))
            for name in (SPEND_DIR, PROGRESS_DIR):
                shutil.rmtree(self.path / name, ignore_errors=True)
            self._journal = (self.path / "ledger.jsonl").open("ab", buffering=0)
        except OSError as error:
            if locked:  # a run that could not claim the directory leaves no lock behind
                (self.path / LOCK_NAME).unlink(missing_ok=True)
            raise OutputError(
                f"cannot write the report to {self.path}: {error.strerror or error}; "
                "choose a writable directory with --ora-out"
            ) from None

    def _take_lock(self, lock: Path) -> None:
        try:
            descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = lock.read_text(encoding="utf-8").strip()
            if holder.isdigit() and _alive(int(holder)):
                raise OutputError(
                    f"another pytest-ora run (pid {holder}) is writing to {self.path}; wait for it or "
                    "use a different --ora-out"
                ) from None
            lock.unlink(missing_ok=True)
            descriptor = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        with os.fdopen(descriptor, "w") as stream:
            stream.write(str(os.getpid()))

    def _set_aside(self, names: tuple[str, ...]) -> None:
        """Move the last run's per-capture directories out of the way, into PREVIOUS_DIR (deleted by release())."""
        aside = self.path / PREVIOUS_DIR
        _remove(aside)  # left by a run that stopped before releasing the directory
        for name in names:
            if not (self.path / name).exists():
                continue
            try:
                aside.mkdir(exist_ok=True)
                os.rename(self.path / name, aside / name)
            except OSError:
                shutil.rmtree(self.path / name, ignore_errors=True)

    def keep_last_report(self) -> None:
        """A run that scored nothing: the last report back where it was, as it was (claim() had moved it aside)."""
        self._close_journal()
        (self.path / "ledger.jsonl").unlink(missing_ok=True)
        aside = self.path / PREVIOUS_DIR
        for name in ("packets", "judges"):
            if (aside / name).exists():
                shutil.rmtree(self.path / name, ignore_errors=True)
                os.rename(aside / name, self.path / name)
        if self._archived is not None:
            for path in sorted(self._archived.iterdir()):
                os.replace(path, self.path / path.name)
            self._archived.rmdir()
            if not any(self._archived.parent.iterdir()):
                self._archived.parent.rmdir()  # runs/ made by claim() for this one archive
            self._archived = None

    def release(self) -> None:
        """The journal closed, the last run's per-capture files deleted, the directory unlocked."""
        with contextlib.suppress(OutputError):  # said when the report was written, or the run already stopped on it
            self._close_journal()
        _remove(self.path / PREVIOUS_DIR)
        (self.path / LOCK_NAME).unlink(missing_ok=True)

    def append(self, row: BaseModel | str) -> None:
        """Journal a ledger row (or its line, newline included) as it arrives, so an interrupted run keeps what was judged.

        A row is written at once when the journal was last written JOURNAL_SECONDS ago or more (a
        live run's rows, seconds apart); rows that come faster (a replay: an append costs the file
        system about as much as judging a capture from its cassette) wait and are written together
        with the first row after that, and whenever the journal closes: at the session end, on an
        interrupt, on an error. A process killed outright loses at most the rows of its last half
        second, whose judge calls its cassettes hold.
        A row is whole or absent: a write that fails part-way (a full disk) is cut back to the
        previous row's end, and OutputError says what happened.
        """
        if self._journal is None:
            return
        self._waiting.append((row if isinstance(row, str) else row.model_dump_json() + "\n").encode("utf-8"))
        if self._clock() - self._written_at >= JOURNAL_SECONDS:
            self.flush_journal()

    def _close_journal(self) -> None:
        """Write the waiting rows and close the journal (OutputError if they cannot be written; closed anyway)."""
        try:
            self.flush_journal()
        finally:
            if self._journal is not None:
                self._journal.close()
                self._journal = None

    def flush_journal(self) -> None:
        """Write the rows waiting for the journal; OutputError when they cannot be."""
        if self._journal is None or not self._waiting:
            return
        data = b"".join(self._waiting)
        self._waiting = []
        self._written_at = self._clock()
        descriptor = self._journal.fileno()
        start = os.lseek(descriptor, 0, os.SEEK_END)
        try:
            _write_all(descriptor, data)
        except OSError as error:
            # If the torn tail cannot be cut, the next read of the journal skips a line without its newline.
            with contextlib.suppress(OSError):
                os.ftruncate(descriptor, start)
            self._journal.close()
            self._journal = None
            raise OutputError(
                f"could not append to the ledger journal {self.path / 'ledger.jsonl'}: {error.strerror or error}; "
                "every row before it is whole; judging stopped: free space or choose another --ora-out and "
                "re-run (recorded judge calls replay without cost)"
            ) from None

    def write_report(
        self, plan: Plan, records: Sequence[CaptureRecord], facts: RunFacts, summary: Sequence[SummaryRow] | None = None
    ) -> None:
        """The ledger in plan order, the summary tables, the methodology note, the statistics, the page.

        Each pass reads the records one at a time (the controller keeps a large run's compressed),
        and the ledger streams to its files: a 10x run never holds all its ledger rows at once.
        `summary`: summarize() of these records when the caller has it already.
        """
        rubric = plan.rubric
        plan = answered_plan(plan, records)  # the answers candidates made in the run, for the texts and the pilot
        ordered = in_plan_order(records, [planned.capture.capture_id for planned in plan.captures])
        if summary is None:
            summary = summarize(ordered, plan.lanes, rubric)
        self._close_journal()  # the journal whole first: what follows says it keeps every judged capture
        notes = {
            "preface": summary_preface(plan, facts) + scored_share(ordered),
            "appendix": summary_appendix(plan, ordered, facts),
        }
        # The data files first; every report is then rendered from them by the registry `verify` runs.
        data = {
            "summary.json": summary_json([row for row, _ in summary], facts.selection, facts.complete, facts.stopped_by)
        }
        methodology = methodology_data(plan, ordered, facts)
        run: dict[str, Any] = dict(facts.run)
        if plan.bundle.manifest.pilot is not None:
            data[CELLS] = cells_jsonl(plan, ordered, facts.run.get("suite_commit"))
            run["pilot"] = pilot_run(plan, ordered, facts.run)
        data[RUN_DATA] = run_data(plan.bundle.manifest.bundle, rubric, methodology, notes, run)
        data[TEXTS_NAME] = texts_json(capture_texts(plan, (record["capture_id"] for record in ordered)))
        data[RUNS_NAME] = runs_json(earlier_runs(self.path))
        if plan.bundle.manifest.candidates:
            data[CAPTURES_NAME] = captures_jsonl(plan, ordered)
        data.update(report_files(plan, ordered))
        try:
            self._write_ledger(ordered, rubric)
            for name, text in data.items():
                write_atomic(self.path / name, text)
            _write_reports(self.path, rubric, statistics=False)
            # The statistics follow once the ledger and tables are on disk: a fault in them never costs those.
            finish = functools.partial(
                _finish_report,
                self.path,
                rubric,
                plan.bundle.manifest,
                _design(plan, facts),
                self.baseline,
                self.regression_min,
            )
            if len(ordered) >= CHILD_ROWS:
                _in_child(finish)
            else:
                finish()
        except OSError as error:
            raise OutputError(
                f"could not finish the report in {self.path}: {error.strerror or error}; the ledger "
                "journal there keeps every judged capture; free space or choose another --ora-out and re-run "
                "(recorded judge calls replay without cost)"
            ) from None
        except VerifyError as error:
            # A report reads a file this run could not write (a per-capture file under judges/: said above it).
            raise OutputError(
                f"could not finish the report in {self.path}: {error}; the ledger journal there keeps every "
                "judged capture; re-run (recorded judge calls replay without cost)"
            ) from None

    def _write_ledger(self, records: Iterable[CaptureRecord], rubric: Rubric) -> None:
        """ledger.jsonl, a row at a time (ledger.csv is rendered from it).

        The controller's store keeps each row as it was journaled (same record, same rubric): those
        lines are written as they are, not built again.
        """
        kept = records.ledger_lines() if isinstance(records, RecordStore) else None
        with atomic_stream(self.path / "ledger.jsonl") as ledger:
            if kept is not None:
                ledger.writelines(kept)
                return
            for record in records:
                ledger.write(ledger_row(record, rubric).model_dump_json() + "\n")

    def write_generated(self, plan: Plan, records: Sequence[CaptureRecord]) -> None:
        """--ora-generate-only: captures.jsonl with the answers made; the last report stays as it was."""
        try:
            write_atomic(self.path / CAPTURES_NAME, captures_jsonl(plan, records))
        except OSError as error:
            raise OutputError(
                f"could not write {self.path / CAPTURES_NAME}: {error.strerror or error}; the answers "
                "are recorded under --ora-cassettes: run again to write it"
            ) from None

    def write_estimate(self, plan: Plan, estimates: Sequence[dict[str, Any]]) -> None:
        """estimate.json and estimate.md for a dry run: tokens and cost per judge, nothing sent."""
        order = {planned.capture.capture_id: index for index, planned in enumerate(plan.captures)}
        ordered = sorted(estimates, key=lambda e: order.get(e["capture_id"], len(order)))
        totals = _estimate_totals(ordered)
        data: dict[str, Any] = {"rubric": plan.rubric.version, "prices_as_of": PRICES_AS_OF, "judges": totals}
        candidates = _candidate_totals(ordered)
        answers = ""
        if candidates:
            data["candidates"] = candidates
            answers = (
                f" No candidate was called either: each answer is assumed {CANDIDATE_ANSWER_TOKENS_ESTIMATE} tokens long "
                "(at most the candidate's max_tokens), the candidate's output and input to every judge; a role "
                "candidate's input is sized from its request as a judge's is; a Python or command candidate's cost "
                "is its own and not estimated."
            )
        data["captures"] = ordered
        text = (
            f"# Dry-run estimate: {plan.bundle.manifest.bundle}\n\n"
            f"Rubric {plan.rubric.version}. No judge was called. Input tokens are estimated from each "
            "judge's request size (about four bytes a token, plus a fixed amount per image); output "
            f"tokens assume {OUTPUT_TOKENS_ESTIMATE} per reply, one ask each (re-asks add more). Prices: "
            f"defaults as of {PRICES_AS_OF}, per million tokens, overridable with --ora-prices.{answers}\n\n"
            f"{estimate_table(ordered, 'github')}\n"
        )
        write_atomic(self.path / "estimate.json", _dump(data))
        write_atomic(self.path / "estimate.md", text)


def _design(plan: Plan, facts: RunFacts) -> RunFacts:
    """The facts with what the statistics need of the captures: cluster labels and model snapshots."""
    from ..bundle.design import cluster_labels, snapshots

    captures = [planned.capture for planned in plan.captures]
    field = facts.cluster or plan.bundle.manifest.cluster
    if field is None and any(capture.repeat is not None for capture in captures):
        field = "entry_key"  # repeated answers: an entry's K captures are one cluster, the entry the unit
    labels = cluster_labels(captures, field) if field else {}
    return dataclasses.replace(facts, cluster=field, design={"clusters": labels, "snapshots": snapshots(captures)})


def _finish_report(
    directory: Path,
    rubric: Rubric,
    manifest: Any,
    facts: RunFacts,
    baseline: BaselineRun | None = None,
    regression_min: str = "10%",
) -> None:
    """The statistics files from the ledger just written (as `verify` reads it), the comparison with
    --ora-baseline's run, then the reports that read them (summary.md and methodology.md with their
    Statistics sections, baseline.md, report.html last)."""
    for name, text in _statistics_files(directory, rubric, manifest, facts).items():
        write_atomic(directory / name, text)
    if baseline is not None:
        from .baseline import BASELINE_JSON, compare_with_baseline

        compared = compare_with_baseline(baseline, directory, rubric, regression_min, facts.seed)
        write_atomic(directory / BASELINE_JSON, compared.dumps())
    _write_reports(directory, rubric, statistics=True)


def _write_reports(directory: Path, rubric: Rubric, statistics: bool) -> None:
    """The registry's reports (reports/renderers.py), rendered first and then written, each whole or not at all."""
    chosen = render_reports(directory, rubric, statistics)
    # The whole ones are rendered before any is written: one that cannot be rendered leaves the others as they were.
    whole = {renderer.report: renderer.render(directory) for renderer in chosen if renderer.pieces is None}
    for renderer in chosen:
        if renderer.pieces is None:
            write_atomic(directory / renderer.report, whole[renderer.report])
        else:
            with atomic_stream(directory / renderer.report) as stream:
                for piece in renderer.stream(directory):
                    stream.write(piece)


def _in_child(finish: Callable[[], None]) -> None:
    """Run the session end's heavy half in a fresh process (see CHILD_ROWS); in this one if that process dies."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("spawn")  # never fork a process that runs threads
    try:
        with ProcessPoolExecutor(max_workers=1, mp_context=context, initializer=_ignore_interrupts) as pool:
            pool.submit(finish).result()
    except BrokenProcessPool:
        finish()  # the child was killed (out of memory, a signal): the same work here, nothing lost


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the controller holds it until the report is written.
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _statistics_files(directory: Path, rubric: Rubric, manifest: Any, facts: RunFacts) -> dict[str, str]:
    """stats.json, disagreements.csv and hypotheses.json: the statistics' data files, from the ledger just
    written (as `verify` reads it)."""
    # A replay of unchanged cassettes writes the same ledger: its statistics are not computed (nor
    # numpy, scipy and statsmodels imported) again; see resultcache.py for why a hit is the same bytes.
    ledger = directory / "ledger.jsonl"
    # summary.md and methodology.md as rendered before the statistics: what the run says of itself.
    files = {name: (directory / name).read_text(encoding="utf-8") for name in ("summary.md", "methodology.md")}
    inputs = {
        "ledger": _file_digest(ledger),
        "rubric": repr(rubric),
        "manifest": manifest.model_dump(mode="json"),
        "seed": facts.seed,
        "disagreement": facts.disagreement,
        "files": files,
        # the design the statistics read (--ora-cluster, --ora-reference, --ora-pairs, the captures' clusters)
        "cluster": facts.cluster,
        "reference": facts.reference,
        "pairs": [list(pair) for pair in facts.pairs],
        "design": facts.design,
        # the human labels the calibration reads (the same file name may hold other labels next time)
        "labels": None if facts.labels is None else repr(facts.labels),
    }

    def compute() -> dict[str, str]:
        from ..stats.arrays import statistics_fields

        dumped = [row.model_dump() for row in ledger_rows(ledger, rubric)]
        rows = (statistics_fields(row) for row in dumped)
        written = _computed_statistics(rubric, manifest, [fields for fields in rows if fields is not None], facts)
        if rubric.kind == "compare" and facts.labels is not None:  # preference labels: stats/preference.py
            written["stats.json"] = _with_preferences(written["stats.json"], dumped, facts.labels, rubric)
        return written

    return cached("statistics", inputs, compute)


def _file_digest(path: Path) -> str:
    hasher = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(1 << 20):
            hasher.update(chunk)
    return hasher.hexdigest()


def _computed_statistics(
    rubric: Rubric, manifest: Any, rows: Sequence[dict[str, Any]], facts: RunFacts
) -> dict[str, str]:
    # numpy, scipy and statsmodels load here, in the controller at the end, not in every worker at start-up.
    from ..stats.arrays import run_arrays
    from ..stats.statistics import Design, run_statistics

    data = run_arrays(rows, rubric)
    human = None
    if facts.labels is not None and rubric.kind != "compare":
        from ..stats.calibration import human_arrays

        human = human_arrays(facts.labels, rubric)
    design = Design(
        cluster=facts.cluster,
        clusters=facts.design.get("clusters", {}),
        snapshots=facts.design.get("snapshots", {}),
        pairs=facts.pairs,
        reference=facts.reference,
    )
    stats = run_statistics(
        data,
        manifest.configurations,
        manifest,
        seed=facts.seed,
        disagreement=facts.disagreement,
        design=design,
        labels=human,
        recorded=rubric.calibration,
    )
    written = {
        "stats.json": stats_file(stats.data, rubric.version).dumps(),
        "disagreements.csv": disagreements_csv(stats.disagreements, data.judges, rubric.version),
    }
    if stats.hypotheses is not None:
        written["hypotheses.json"] = hypotheses_file(stats.hypotheses, rubric.version).dumps()
    return written


def _with_preferences(text: str, rows: Sequence[dict[str, Any]], labels: Any, rubric: Rubric) -> str:
    """stats.json with its `calibration` against the people's preferences (kind compare)."""
    from ..stats.preference import preference_calibration, preference_items

    data = parse_stats_file(text).model_dump(exclude_unset=True)
    data["calibration"] = preference_calibration(preference_items(rows), labels)
    return stats_file(data, rubric.version).dumps()


def _estimate_totals(estimates: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    totals: dict[str, dict[str, Any]] = {}
    for estimate in estimates:
        for judge in estimate["judges"]:
            total = totals.setdefault(
                judge["label"],
                {
                    "label": judge["label"],
                    "model": judge["model"],
                    "captures": 0,
                    "input_tokens": 0,
                    "output_tokens": 0,
                    "usd": Decimal(0),
                    "priced": True,
                },
            )
            total["captures"] += 1
            total["input_tokens"] += judge["input_tokens"]
            total["output_tokens"] += judge["output_tokens"]
            if judge["usd"] is None:
                total["priced"] = False
            else:
                total["usd"] += Decimal(judge["usd"])
    return [{**t, "usd": str(t["usd"].quantize(Decimal("0.01"))) if t["priced"] else None} for t in totals.values()]


def _candidate_totals(estimates: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per candidate configuration: answers, estimated tokens and cost (None: not estimated, or no price)."""
    totals: dict[str, dict[str, Any]] = {}
    for estimate in estimates:
        made = estimate.get("candidate")
        if made is None:
            continue
        total = totals.setdefault(
            estimate["configuration"],
            {
                "configuration": estimate["configuration"],
                "model": made["model"],
                "captures": 0,
                "input_tokens": 0,
                "output_tokens": 0,
                "usd": Decimal(0),
                "priced": True,
                "sized": True,
            },
        )
        total["captures"] += 1
        total["output_tokens"] += made["output_tokens"]
        if made["input_tokens"] is None:
            total["sized"] = False
        else:
            total["input_tokens"] += made["input_tokens"]
        if made["usd"] is None:
            total["priced"] = False
        else:
            total["usd"] += Decimal(made["usd"])
    return [
        {
            **t,
            "input_tokens": t["input_tokens"] if t["sized"] else None,
            "usd": str(t["usd"].quantize(Decimal("0.01"))) if t["priced"] else None,
        }
        for t in (totals[name] for name in sorted(totals))
    ]


def estimate_table(estimates: Sequence[dict[str, Any]], fmt: str = "simple") -> str:
    """Per judge: captures, estimated tokens and cost; with candidates, their own table below, and both together."""
    rows = []
    for total in _estimate_totals(estimates):
        usd = f"${total['usd']}" if total["usd"] is not None else "no price (use --ora-prices)"
        rows.append(
            [total["label"], total["model"], total["captures"], total["input_tokens"], total["output_tokens"], usd]
        )
    table = tabulated(
        rows, headers=["Judge", "Model", "Captures", "Input tokens", "Output tokens", "Estimated cost"], tablefmt=fmt
    )
    candidates = _candidate_totals(estimates)
    if not candidates:
        return table
    made = []
    for total in candidates:
        sized = total["input_tokens"] is not None
        usd = (
            f"${total['usd']}"
            if total["usd"] is not None
            else ("no price (use --ora-prices)" if sized else "not estimated (the candidate reports its own cost)")
        )
        made.append(
            [
                total["configuration"],
                total["model"],
                total["captures"],
                total["input_tokens"] if sized else "-",
                total["output_tokens"],
                usd,
            ]
        )
    both = [Decimal(t["usd"]) for t in (*_estimate_totals(estimates), *candidates) if t["usd"] is not None]
    every = len(both) == len(_estimate_totals(estimates)) + len(candidates)
    return (
        f"{table}\n\n"
        + tabulated(
            made,
            headers=["Candidate", "Model", "Answers", "Input tokens", "Output tokens", "Estimated cost"],
            tablefmt=fmt,
        )
        + f"\n\nJudges and candidates together: ${sum(both, Decimal(0)):.2f}"
        + ("" if every else " (rows without a price or an estimate not included)")
    )


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove(path: Path) -> None:
    """Delete a directory tree; a symbolic link or a file in its place is unlinked, never followed."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    else:
        shutil.rmtree(path, ignore_errors=True)
