"""verify's second half: the machine-written data files checked against each other.

Re-rendering a report from its data catches an edited report, not edited data: a forged
summary.json mean with summary.md re-rendered from it matches. So the data is checked too:

- summary.json from ledger.jsonl (each configuration's counts, means, failure rate, verdict and
  vote counts, recomputed from its rows);
- each scored ledger row's weighted and overall from its own judges' scores (the kind's
  combination), and those scores from the judges' replies kept under judges/ when present;
- scorecard.json's cells against the ledger's grades, its pairs and aggregate against its cells;
- compare.json from compare.jsonl, and compare.jsonl's items from ledger.jsonl's scored compare items.

Costs and minutes are not in the ledger, so they are not checked here.
"""

from __future__ import annotations

import glob
import json
import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..core.filenames import capture_relpath
from ..core.rubric import Rubric
from ..method.kinds import get_kind

__all__ = ["CHECKS", "cross_check"]

_REL = 1e-9
"""Floats compared with this relative tolerance: the data holds floats of exact values."""

Check = Callable[[Path, Rubric, list[dict[str, Any]]], Iterator[str]]
CHECKS: list[tuple[str, Check]] = []


def _check(name: str) -> Callable[[Check], Check]:
    def add(check: Check) -> Check:
        CHECKS.append((name, check))
        return check

    return add


def _close(left: Any, right: Any) -> bool:
    if left is None or right is None:
        return left is None and right is None
    return math.isclose(float(left), float(right), rel_tol=_REL, abs_tol=1e-12)


def _exact(value: Any) -> Fraction:
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


@_check("summary.json")
def _summary(directory: Path, rubric: Rubric, ledger: list[dict[str, Any]]) -> Iterator[str]:
    columns = get_kind(rubric.kind).summary_columns(rubric)
    by_lane: dict[str, list[dict[str, Any]]] = {}
    for row in ledger:
        by_lane.setdefault(str(row["configuration"]), []).append(row)
    summary = _load(directory / "summary.json")
    for data in summary:
        lane = data["configuration"]
        rows = by_lane.pop(lane, [])
        statuses = Counter(row["status"] for row in rows)
        for key, status in (
            ("judged", "scored"),
            ("unscorable", "unscorable"),
            ("excluded", "excluded"),
            ("errors", "error"),
            ("budget", "budget"),
        ):
            if key in data and data[key] != statuses[status]:
                yield f"{lane}: {key} is {data[key]}, but ledger.jsonl has {statuses[status]} rows {status}"
        scored = [row for row in rows if row["status"] == "scored" and row.get("judges")]
        n = len(scored)
        expected: dict[str, Any] = {
            "mean_overall": sum((_exact(row["overall"]) for row in scored), Fraction(0)) / n if n else None,
            **{f"mean_{c}": sum((_exact(row[c]) for row in scored), Fraction(0)) / n if n else None for c in columns},
            "failure_rate": Fraction(sum(bool(row["failure"]) for row in scored), n) if n else None,
            **{f"verdict_{b.name}": sum(row.get("verdict") == b.name for row in scored) for b in rubric.verdicts},
            **{vote: sum(bool(row.get(vote)) for row in scored) for vote in rubric.vote_names},
        }
        for key, value in expected.items():
            if key in data and not _close(data[key], value):
                shown = "none" if value is None else f"{float(value)!r}"
                yield f"{lane}: {key} is {data[key]!r}, but its ledger rows give {shown}"
    for lane in by_lane:
        yield f"ledger.jsonl has rows of configuration {lane!r}, which summary.json does not list"


@_check("ledger.jsonl")
def _ledger(directory: Path, rubric: Rubric, ledger: list[dict[str, Any]]) -> Iterator[str]:
    from ..method.kinds import combined

    for row in ledger:
        if row["status"] != "scored" or not row.get("judges"):
            continue
        kept = _kept_scores(directory, row)
        for judge in row["judges"]:
            replied = kept.get(str(judge.get("role")))
            if replied is not None and not all(_close(judge["scores"].get(k), v) for k, v in replied.items()):
                yield f"{row['capture_id']}: {judge['label']}'s scores differ from its reply in the judges/ directory"
        try:
            scores = combined(row, rubric)  # type: ignore[arg-type]  # a ledger row carries what combining reads
        except (KeyError, TypeError, ValueError, AttributeError):
            continue  # this kind combines per-item answers the ledger does not keep (checklist, compare, behavior)
        for key, value in (("overall", scores.overall), ("weighted", getattr(scores, "weighted", None))):
            if key in row and value is not None and not _close(row[key], value):
                yield f"{row['capture_id']}: {key} is {row[key]!r}, but its judges' scores give {float(value)!r}"


def _kept_scores(directory: Path, row: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Each judge role's scores as its reply under judges/ records them (empty when not kept)."""
    capture_id = str(row["capture_id"])
    stem = capture_relpath(capture_id, "")
    folder = directory / "judges" / stem.parent
    found: dict[str, dict[str, Any]] = {}
    if not folder.is_dir():
        return found
    for path in folder.glob(f"{glob.escape(stem.name)}.*.json"):
        try:
            data = _load(path)
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("scores"), dict) and data.get("scores"):
            found[str(data.get("role"))] = {
                k: _exact(v) if isinstance(v, (int, float)) else Fraction(str(v)) for k, v in data["scores"].items()
            }
    return found


@_check("scorecard.json")
# C901: each scorecard figure checked against its file in the order the mismatches are listed.
def _scorecard(directory: Path, rubric: Rubric, ledger: list[dict[str, Any]]) -> Iterator[str]:  # noqa: C901
    path = directory / "scorecard.json"
    if not path.is_file():
        return
    data = _load(path)
    grades = {row["capture_id"]: row.get("grades") or {} for row in ledger}
    counts: dict[str, dict[str, Counter[str]]] = {}
    for capture in data["captures"]:
        capture_id = capture["capture_id"]
        for axis, cell in capture["axes"].items():
            if not (cell["cell"] == cell["grade"] or cell["cell"].startswith(cell["grade"] + " (")):
                yield f"{capture_id}: axis {axis}: grade {cell['grade']} but cell {cell['cell']!r}"
            if capture["status"] != "scored":
                if cell["grade"] != "UNKNOWN":  # a secret-bearing capture is graded UNKNOWN on every axis
                    yield f"{capture_id} is {capture['status']} but axis {axis} grades it {cell['grade']}"
            elif capture_id in grades and grades[capture_id].get(axis) != cell["cell"]:
                yield (
                    f"{capture_id}: axis {axis} is {cell['cell']!r}, but ledger.jsonl grades it "
                    f"{grades[capture_id].get(axis)!r}"
                )
            counts.setdefault(capture["configuration"], {}).setdefault(axis, Counter())[cell["grade"]] += 1
    cells = {(c["capture_id"], axis): cell for c in data["captures"] for axis, cell in c["axes"].items()}
    for pair in data["pairs"]:
        for axis, by_lane in pair.get("axes", {}).items():
            for lane, cell in by_lane.items():
                if cells.get((pair["captures"].get(lane), axis)) != cell:
                    yield f"pair {pair['entry_key']}: axis {axis} of {lane} differs from its capture's cell"
    for lane, axes in data["aggregate"].items():
        for axis, tally in axes.items():
            seen = counts.get(lane, {}).get(axis, Counter())
            if any(tally.get(grade, 0) != seen[grade] for grade in ("PASS", "PARTIAL", "FAIL", "N/A", "UNKNOWN")):
                yield f"aggregate {lane} {axis} does not count its captures' cells"


@_check("advisory.json")
def _advisory(directory: Path, rubric: Rubric, ledger: list[dict[str, Any]]) -> Iterator[str]:
    data = _load(directory / "advisory.json")
    grades = {row["capture_id"]: (row.get("grades") or {}) for row in ledger}
    if data.get("advisory_only") is not True or data.get("gate") is not False:
        yield "it no longer says advisory only, never a gate"
    counts = Counter(result["result"] for result in data["results"])
    for grade in ("PASS", "FAIL", "UNKNOWN"):
        if data["counts"].get(grade) != counts[grade]:
            yield f"counts.{grade} is {data['counts'].get(grade)}, but its results hold {counts[grade]}"
    for result in data["results"]:
        cell = f"{result['result']} ({result['reason']})" if result["reason"] else result["result"]
        if result.get("advisory_only") is not True:
            yield f"{result['capture_id']} is no longer marked advisory only"
        if result["result"] in ("PASS", "FAIL") and result["cause"] is not None:
            yield f"{result['capture_id']}: {result['result']} with a cause of UNKNOWN"
        kept = grades.get(result["capture_id"], {}).get(data["threshold"])
        if kept is not None and kept != cell:
            yield f"{result['capture_id']} is {cell!r}, but ledger.jsonl has {kept!r}"
        if kept is None and result["result"] != "UNKNOWN":
            yield f"{result['capture_id']} is {result['result']}, but ledger.jsonl evaluated no record for it"


@_check("compare.json")
def _compare(directory: Path, rubric: Rubric, ledger: list[dict[str, Any]]) -> Iterator[str]:
    from ..method.kinds.compare.report import _pairs

    if not (directory / "compare.json").is_file():
        return
    if not (directory / "compare.jsonl").is_file():
        yield "compare.jsonl is missing"
        return
    rows = [json.loads(line) for line in (directory / "compare.jsonl").read_text(encoding="utf-8").splitlines() if line]
    if json.loads(json.dumps(_pairs(rows, rubric))) != _load(directory / "compare.json"):
        yield "its pairs differ from what compare.jsonl's rows give"


@_check("compare.jsonl")
def _compare_items(directory: Path, rubric: Rubric, ledger: list[dict[str, Any]]) -> Iterator[str]:
    """compare.jsonl holds this run's compare items, no other: one from an earlier run or another bundle is said."""
    rows = [json.loads(line) for line in (directory / "compare.jsonl").read_text(encoding="utf-8").splitlines() if line]
    if rubric.kind != "compare":
        yield f"this run's rubric {rubric.version} is not a compare rubric: the file is from another run"
        return
    scored = {row["capture_id"]: row for row in ledger if row.get("status") == "scored" and row.get("first")}
    held = {row.get("capture_id"): row for row in rows}
    foreign = [capture for capture in held if capture not in scored]
    if foreign:
        yield (
            f"{len(foreign)} of its {len(held)} items are no scored compare item of ledger.jsonl "
            f"(first: {foreign[0]}): it is from an earlier run or another bundle"
        )
    missing = [capture for capture in scored if capture not in held]
    if missing:
        yield f"{len(missing)} scored compare items of ledger.jsonl are not in it (first: {missing[0]})"
    changed = [
        capture
        for capture, row in held.items()
        if capture in scored
        and (row.get("first"), row.get("second")) != (scored[capture]["first"], scored[capture]["second"])
    ]
    if changed:
        yield f"{len(changed)} items compare other configurations than ledger.jsonl says (first: {changed[0]})"


def cross_check(directory: Path, rubric: Rubric, ledger: Sequence[dict[str, Any]]) -> list[str]:
    """Every disagreement between the directory's data files, each naming the file."""
    found = []
    for name, check in CHECKS:
        if (directory / name).is_file() or name == "ledger.jsonl":
            try:
                found += [
                    f"{name}: does not match the other data: {problem}"
                    for problem in check(directory, rubric, list(ledger))
                ]
            except (KeyError, TypeError, ValueError) as error:
                found.append(f"{name}: cannot be checked against the other data ({type(error).__name__}: {error})")
    return found


@_check("disagreements.csv")
def _disagreements(directory: Path, rubric: Rubric, ledger: list[dict[str, Any]]) -> Iterator[str]:
    """disagreements.csv as the ledger's scores give it, at the threshold stats.json says was used."""
    from ..stats.arrays import run_arrays, statistics_fields
    from ..stats.disagreements import disagreements, threshold
    from .statsfiles import disagreements_csv

    stats = _load(directory / "stats.json") if (directory / "stats.json").is_file() else {}
    given = (stats.get("disagreements") or {}).get("given_as") if isinstance(stats, dict) else None
    if given is None:
        yield "stats.json does not say the threshold it was listed at (disagreements.given_as)"
        return
    rows = [fields for fields in (statistics_fields(row) for row in ledger) if fields is not None]
    data = run_arrays(rows, rubric)
    rendered = disagreements_csv(disagreements(data, threshold(str(given), data.scale)), data.judges, rubric.version)
    written = (directory / "disagreements.csv").read_text(encoding="utf-8")
    if written != rendered:
        number = next(
            (n for n, (a, b) in enumerate(zip(written.splitlines(), rendered.splitlines()), start=1) if a != b),
            min(len(written.splitlines()), len(rendered.splitlines())) + 1,
        )
        yield f"edited by hand: line {number} differs from what the ledger's scores give"
