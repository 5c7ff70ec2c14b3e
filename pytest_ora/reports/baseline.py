"""--ora-baseline DIR: this run compared with an earlier one.

DIR is an earlier --ora-out, or one of its runs/NNNN. It is read once, when the run starts (before
this run's output directory is claimed, which may move DIR's report to runs/), and only these
files inside it: ledger.jsonl, run.json, and texts.json when present. The comparison is made at the
session end from the files this run just wrote, so it is the same whatever -n was:

- per configuration, the paired difference of mean overall over the captures both runs scored, with
  the t interval of the mean difference (the one shown) beside the BCa bootstrap;
- per capture, every change of overall of at least --ora-regression-min (default 10% of the overall's
  range), and every capture whose failure flag or status changed;
- what changed between the runs: rubric version and digest, the judges, the bundle (its id, its
  Optimum snapshot, and, where both runs kept texts.json, how many prompts, contexts and answers differ).

baseline.json holds all of it (machine-written); baseline.md and report.html's "Since baseline"
section are rendered from it alone.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.errors import OraError
from ..core.rubric import Rubric
from ..core.strictjson import StrictJsonError, bounded_fraction, unique_pairs
from .baselinedata import (
    BaselineComparison,
    CaptureChange,
    Change,
    ConfigurationDifference,
    Flip,
    RunSide,
    State,
    TextChanges,
)
from .methodologydata import MethodologyFacts
from .runfile import RunFileError, parse_run_file, read_run_file

if TYPE_CHECKING:
    from .texts import TextsFile

__all__ = [
    "BASELINE_FILES",
    "BASELINE_JSON",
    "BASELINE_MD",
    "DEFAULT_REGRESSION_MIN",
    "BaselineError",
    "BaselineRun",
    "baseline_markdown",
    "compare_with_baseline",
    "load_baseline",
    "regressed",
    "regression_min",
]

BASELINE_JSON = "baseline.json"
BASELINE_MD = "baseline.md"
BASELINE_FILES = (BASELINE_JSON, BASELINE_MD)
BASELINE_SCHEMA = "ora-baseline-1"
DEFAULT_REGRESSION_MIN = "10%"


class BaselineError(OraError):
    """The baseline directory cannot be used: its path and what is wrong."""


@dataclass(frozen=True)
class Capture:
    configuration: str
    status: str
    overall: float | None
    failure: bool | None


@dataclass
class BaselineRun:
    """What the comparison needs from a run directory; texts as digests, so a 10x baseline stays small."""

    path: str
    bundle: str
    rubric: str
    rubric_digest: str
    facts: MethodologyFacts
    captures: dict[str, Capture] = field(default_factory=dict)
    texts: dict[str, tuple[str | None, ...]] | None = None
    """capture id -> digests of (prompt, context, answer, second answer); None without texts.json."""


def _inside(root: Path, name: str) -> Path:
    """root/name, refusing a file that resolves outside root (a symbolic link elsewhere)."""
    path = root / name
    if path.exists() and not path.resolve().is_relative_to(root.resolve()):
        raise BaselineError(f"--ora-baseline {root}: {name} points outside the directory; nothing outside it is read")
    return path


def _lines(path: Path, label: str) -> Iterator[tuple[int, dict[str, Any]]]:
    try:
        with path.open(encoding="utf-8") as stream:
            for number, line in enumerate(stream, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line, object_pairs_hook=unique_pairs)
                except StrictJsonError as error:
                    raise BaselineError(
                        f"--ora-baseline {label}: {path.name} line {number}: field {error.field}: "
                        "given twice (never last-wins)"
                    ) from None
                except ValueError as error:
                    raise BaselineError(
                        f"--ora-baseline {label}: {path.name} line {number}: not JSON ({error})"
                    ) from None
                if not isinstance(value, dict):
                    raise BaselineError(f"--ora-baseline {label}: {path.name} line {number}: not an object")
                yield number, value
    except (OSError, UnicodeDecodeError) as error:
        raise BaselineError(f"--ora-baseline {label}: cannot read {path.name} ({error})") from None


def _digest(text: str | None) -> str | None:
    return None if text is None else hashlib.sha256(text.encode("utf-8")).hexdigest()


def _number(value: Any, where: str, scale: tuple[float, float] | None) -> float | None:
    """A baseline overall: null, or a finite number on the rubric's scale (a forged -1000 never passes a gate)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise BaselineError(f"{where}: overall must be a number or null (a finite one), got {value!r}")
    if scale is not None and not scale[0] <= value <= scale[1]:
        raise BaselineError(
            f"{where}: overall {value!r} is outside the range of the rubric's overall ({scale[0]:g} to {scale[1]:g})"
        )
    return float(value)


def load_baseline(directory: Path, scale: tuple[float, float] | None = None) -> BaselineRun:
    """The baseline run in `directory`; BaselineError naming the path, line and field when it is missing,
    unreadable, or forged (a capture twice, an overall that is not finite or off the rubric's `scale`)."""
    label = str(directory)
    if not directory.is_dir():
        raise BaselineError(
            f"--ora-baseline {label}: does not exist or is not a directory (give an earlier --ora-out "
            "or one of its runs/NNNN)"
        )
    for name in ("ledger.jsonl", "run.json"):
        if not _inside(directory, name).is_file():
            raise BaselineError(
                f"--ora-baseline {label}: no {name}: not a pytest-ora output directory (give an "
                "earlier --ora-out or one of its runs/NNNN)"
            )
    try:
        run = parse_run_file(json.loads(_inside(directory, "run.json").read_text(encoding="utf-8")))
    except RunFileError as error:
        raise BaselineError(f"--ora-baseline {label}: run.json is unreadable ({error})") from None
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise BaselineError(
            f"--ora-baseline {label}: run.json is unreadable ({type(error).__name__}: {error})"
        ) from None
    if run.methodology is None:
        raise BaselineError(
            f"--ora-baseline {label}: run.json is unreadable (not a run's data: field methodology: Field required)"
        )
    result = BaselineRun(label, run.bundle, run.rubric, run.rubric_digest, run.methodology)
    lines: dict[str, int] = {}
    for number, row in _lines(_inside(directory, "ledger.jsonl"), label):
        where = f"--ora-baseline {label}: ledger.jsonl line {number}"
        try:
            capture_id, configuration, status = str(row["capture_id"]), str(row["configuration"]), str(row["status"])
        except KeyError as error:
            raise BaselineError(f"{where}: no field {error}") from None
        if capture_id in lines:
            raise BaselineError(
                f"{where}: field capture_id: {capture_id} is already on line {lines[capture_id]} "
                "(a capture given twice; never last-wins)"
            )
        lines[capture_id] = number
        failure = row.get("failure")
        result.captures[capture_id] = Capture(
            configuration, status, _number(row.get("overall"), where, scale), None if failure is None else bool(failure)
        )
    texts = _inside(directory, "texts.json")
    if texts.is_file():
        from .texts import TextsFileError, parse_texts_file

        try:
            data = parse_texts_file(texts.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, TextsFileError) as error:
            raise BaselineError(f"--ora-baseline {label}: texts.json: {error}") from None
        result.texts = _text_digests(data)
    return result


def regression_min(text: str, scale: tuple[float, float]) -> Fraction:
    """--ora-regression-min as scale points: "1.5" is 1.5 points, "10%" is 10% of the overall's range."""
    text = text.strip()
    if text.endswith("%"):
        return bounded_fraction(text[:-1]) / 100 * (Fraction(repr(scale[1])) - Fraction(repr(scale[0])))
    return bounded_fraction(text)


def _interval(value: tuple[float, float] | None) -> list[float] | None:
    return None if value is None else [value[0], value[1]]


def _run_facts(bundle: str, rubric: str, digest: str, facts: MethodologyFacts | None, path: str | None) -> RunSide:
    if facts is None:  # a run.json without its methodology block: only what the run itself names
        return RunSide(
            path=path,
            bundle=bundle,
            rubric=rubric,
            rubric_digest=digest,
            scoring_date=None,
            record_mode=None,
            snapshot=None,
            panel=None,
            judges=[],
            selected=None,
        )
    return RunSide(
        path=path,
        bundle=bundle,
        rubric=rubric,
        rubric_digest=digest,
        scoring_date=facts.scoring_date,
        record_mode=facts.record_mode,
        snapshot=facts.snapshot,
        panel=facts.panel,
        judges=[f"{j.label}: {j.provider}:{j.model}" for j in facts.judges],
        selected=facts.selected,
    )


def _changes(before: RunSide, after: RunSide) -> list[Change]:
    named = (
        ("rubric", "rubric version"),
        ("rubric_digest", "rubric digest"),
        ("judges", "judges"),
        ("panel", "panel"),
        ("bundle", "bundle"),
        ("snapshot", "Optimum snapshot"),
        ("record_mode", "record mode"),
    )
    return [
        Change(what=label, baseline=getattr(before, key), current=getattr(after, key))
        for key, label in named
        if getattr(before, key) != getattr(after, key)
    ]


def _text_digests(texts: TextsFile) -> dict[str, tuple[str | None, ...]]:
    """capture id -> digests of (prompt, context, answer, second answer)."""
    digests = [_digest(s) for s in texts.strings]
    return {row[0]: tuple(None if i < 0 else digests[i] for i in row[1:]) for row in texts.rows}


def _text_changes(baseline: BaselineRun, texts: TextsFile | None, shared: Sequence[str]) -> TextChanges | None:
    if baseline.texts is None or texts is None:
        return None
    current = _text_digests(texts)
    counts = {"compared": 0, "prompt": 0, "context": 0, "answer": 0}
    answers: list[str] = []
    for capture_id in shared:
        left, right = baseline.texts.get(capture_id), current.get(capture_id)
        if left is None or right is None:
            continue
        counts["compared"] += 1
        for index, name in enumerate(("prompt", "context")):
            counts[name] += left[index] != right[index]
        if left[2:] != right[2:]:
            counts["answer"] += 1
            answers.append(capture_id)
    return TextChanges(**counts, answer_changed=answers)


def compare_with_baseline(
    baseline: BaselineRun,
    directory: Path,
    rubric: Rubric,
    minimum_text: str,
    seed: int,
) -> BaselineComparison:
    """baseline.json's data: this run (the files just written in `directory`) against the baseline."""
    import numpy as np

    from ..stats.baseline import SMALL_N, baseline_difference
    from .texts import read_texts

    run = read_run_file(directory / "run.json")
    current: dict[str, Capture] = {}
    order: list[str] = []
    for _, row in _lines(directory / "ledger.jsonl", str(directory)):
        failure = row.get("failure")
        current[row["capture_id"]] = Capture(
            row["configuration"], row["status"], row.get("overall"), None if failure is None else bool(failure)
        )
        order.append(row["capture_id"])
    shared = [cid for cid in order if cid in baseline.captures]
    low, high = rubric.overall_span()
    minimum = regression_min(minimum_text, (float(low), float(high)))
    configurations: dict[str, list[tuple[float, float]]] = {}
    changes: list[CaptureChange] = []
    flips: list[Flip] = []
    for capture_id in shared:
        now, then = current[capture_id], baseline.captures[capture_id]
        if now.status == "scored" and then.status == "scored" and now.overall is not None and then.overall is not None:
            configurations.setdefault(now.configuration, []).append((now.overall, then.overall))
            change = Fraction(repr(now.overall)) - Fraction(repr(then.overall))
            if abs(change) >= minimum:
                changes.append(
                    CaptureChange(
                        capture_id=capture_id,
                        configuration=now.configuration,
                        baseline=then.overall,
                        current=now.overall,
                        change=float(change),
                    )
                )
        if now.status != then.status or now.failure != then.failure:
            flips.append(
                Flip(
                    capture_id=capture_id,
                    configuration=now.configuration,
                    baseline=State(status=then.status, failure=then.failure),
                    current=State(status=now.status, failure=now.failure),
                )
            )
    position = {capture_id: index for index, capture_id in enumerate(shared)}
    changes.sort(key=lambda c: (c.change, position[c.capture_id]))  # the largest drop first
    rows = []
    names = list(dict.fromkeys(current[cid].configuration for cid in order))
    for name in names:
        pairs = configurations.get(name, [])
        now_values = np.array([p[0] for p in pairs], dtype=np.float64)
        then_values = np.array([p[1] for p in pairs], dtype=np.float64)
        result = baseline_difference(now_values, then_values, seed, name)
        interval = result.interval
        rows.append(
            ConfigurationDifference(
                configuration=name,
                n=result.n,
                baseline_mean=float(then_values.mean()) if result.n else None,
                current_mean=float(now_values.mean()) if result.n else None,
                mean_difference=result.mean_difference,
                t_interval=_interval(result.t_interval),
                bootstrap_interval=_interval(result.bootstrap_interval),
                interval_method=result.interval_method,
                interval=_interval(interval),
                p_value=result.p_value,
                p_floor=result.p_floor,
                p_min=result.p_min,
                regressed=interval is not None and interval[1] < 0,
                improved=interval is not None and interval[0] > 0,
            )
        )
    before = _run_facts(baseline.bundle, baseline.rubric, baseline.rubric_digest, baseline.facts, baseline.path)
    after = _run_facts(run.bundle, run.rubric, run.rubric_digest, run.methodology, None)
    texts, _ = read_texts(directory)
    return BaselineComparison(
        schema=BASELINE_SCHEMA,
        rubric=rubric.version,
        baseline=before,
        current=after,
        changed=_changes(before, after),
        texts=_text_changes(baseline, texts, shared),
        shared=len(shared),
        only_in_baseline=sum(1 for cid in baseline.captures if cid not in current),
        only_in_current=len(order) - len(shared),
        regression_min=float(minimum),
        regression_min_given=minimum_text,
        interval_rule=f"t at every n (the BCa bootstrap beside it); fewer than {SMALL_N} shared captures is small n",
        configurations=rows,
        changes=changes,
        flips=flips,
    )


def regressed(data: BaselineComparison) -> list[str]:
    """The --ora-fail-regression messages: one per configuration whose paired interval lies below 0."""
    messages = []
    rubric = [c for c in data.changed if c.what in ("rubric version", "rubric digest")]
    caveat = (
        f"; the rubric changed between the runs ({rubric[0].what} {rubric[0].baseline} -> "
        f"{rubric[0].current}): the difference may be the rubric's"
        if rubric
        else ""
    )
    for row in data.configurations:
        if row.regressed and row.interval is not None and row.mean_difference is not None:
            low, high = row.interval
            messages.append(
                f"--ora-fail-regression: {row.configuration} mean overall fell by {_amount(-row.mean_difference)} "
                f"since the baseline over {row.n} shared captures (95% {row.interval_method} interval "
                f"[{_amount(low)}, {_amount(high)}] lies below 0{caveat})"
            )
    return messages


def _amount(value: float) -> str:
    """Two decimals, or two significant digits for a difference smaller than 0.01 (never a bare 0.00)."""
    return f"{value:.2f}" if value == 0 or abs(value) >= 0.01 else f"{value:.2g}"


def _num(value: float | None, digits: int = 2) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _p(row: ConfigurationDifference) -> str:
    if row.p_floor and row.p_min is not None:
        return f"< {row.p_min:.2g}"
    return _num(row.p_value, 4)


def _range(value: Sequence[float] | None) -> str:
    return "" if not value else f"[{_amount(value[0])}, {_amount(value[1])}]"


def _cell(value: str | list[str] | None) -> str:
    text = ", ".join(value) if isinstance(value, list) else str(value)
    return text.replace("|", "\\|").replace("\n", " ")


def baseline_markdown(data: BaselineComparison) -> str:
    """baseline.md, rendered from baseline.json's data alone."""
    before, after = data.baseline, data.current
    lines = [
        f"# Since baseline: {after.bundle}",
        "",
        f"Machine-written by pytest-ora from {BASELINE_JSON}; rubric {data.rubric}. Baseline "
        f"`{before.path}` (scored {before.scoring_date}, rubric {before.rubric}) against this run (scored "
        f"{after.scoring_date}, rubric {after.rubric}).",
        "",
        f"{data.shared} capture ids in both runs; {data.only_in_baseline} only in the baseline, "
        f"{data.only_in_current} only in this run.",
        "",
        "## What changed between the runs",
        "",
    ]
    if data.changed:
        lines += ["| what | baseline | this run |", "| --- | --- | --- |"]
        lines += [f"| {c.what} | {_cell(c.baseline)} | {_cell(c.current)} |" for c in data.changed]
    else:
        lines.append("Nothing: the same rubric version and digest, judges, panel, bundle and snapshot.")
    texts = data.texts
    if texts is None:
        lines += ["", "Prompts and answers were not compared: a run without texts.json is one of the two."]
    else:
        lines += [
            "",
            f"Of {texts.compared} shared captures, {texts.prompt} have a different prompt, "
            f"{texts.context} a different context and {texts.answer} a different answer.",
        ]
    lines += [
        "",
        "## Per configuration",
        "",
        f"Paired difference of mean overall (this run minus the baseline) over the captures both runs scored; "
        f"interval: {data.interval_rule}. A configuration regressed when its interval lies below 0.",
        "",
        "| configuration | n | baseline | this run | difference | 95% interval | method | p | regressed |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- | ---: | --- |",
    ]
    for row in data.configurations:
        flag = "yes" if row.regressed else ("improved" if row.improved else "no")
        lines.append(
            f"| {row.configuration} | {row.n} | {_num(row.baseline_mean)} | {_num(row.current_mean)} | "
            f"{'' if row.mean_difference is None else _amount(row.mean_difference)} | {_range(row.interval)} | {row.interval_method} | "
            f"{_p(row)} | {flag} |"
        )
    lines += [
        "",
        f"## Captures whose overall changed by at least {data.regression_min:g} "
        f"(--ora-regression-min {data.regression_min_given})",
        "",
    ]
    if data.changes:
        lines += ["| capture | baseline | this run | change |", "| --- | ---: | ---: | ---: |"]
        lines += [
            f"| {c.capture_id} | {_num(c.baseline)} | {_num(c.current)} | {c.change:+.2f} |" for c in data.changes
        ]
    else:
        lines.append("None.")
    if data.flips:
        lines += [
            "",
            "## Captures whose status or failure flag changed",
            "",
            "| capture | baseline | this run |",
            "| --- | --- | --- |",
        ]
        for flip in data.flips:
            lines.append(f"| {flip.capture_id} | {_state(flip.baseline)} | {_state(flip.current)} |")
    return "\n".join(lines) + "\n"


def _state(value: State) -> str:
    if value.status != "scored":
        return str(value.status)
    return "scored, a failure" if value.failure else "scored, not a failure"
