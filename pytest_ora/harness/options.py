"""The --ora- options: one group on the command line, ini equivalents, checked values."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ..core.strictjson import bounded_fraction
from ..core.vocabulary import RECORD_MODES

__all__ = ["STEP_SUMMARY_ENV", "Options", "add_options", "check_spelling", "key_problems", "read_options", "today"]

_OPTIONS: tuple[tuple[str, str, Any], ...] = (
    # name, help, default (ini values are strings, checked where they are read)
    ("bundle", "capture bundle directory to score", None),
    ("out", "directory for the ledger, tables and methodology note", "ora-results"),
    ("cassettes", "directory of recorded judge calls", "cassettes"),
    ("record", f"judge call recording: {', '.join(RECORD_MODES)}", "none"),
    ("reasks", "re-asks after an invalid judge reply", "1"),
    ("retries", "retries of a transport fault per judge call", "6"),
    ("timeout", "seconds to wait for a judge's whole reply, body included", "120"),
    ("panel-label", "name of a substituted judging panel", None),
    ("scoring-date", "scoring date for the methodology note (default today, UTC)", None),
    ("budget-usd", "stop starting captures once live spend (judges and candidates) reaches this many USD", None),
    (
        "concurrency",
        "captures judged at once per process (auto: 32 live, split over xdist workers; 1 in replay)",
        "auto",
    ),
    ("prices", "YAML file of model-prefix: {input, output} USD per million tokens", None),
    ("fail-under", "exit non-zero when a selected configuration's mean overall is below this", None),
    ("fail-lowscore-pct", "exit non-zero when a selected configuration's LOWSCORE share exceeds this percentage", None),
    ("rubric", "rubric: a built-in id (python -m pytest_ora rubric list) or a rubric YAML file", None),
    ("seed", "seed of the statistics' resampling (bootstrap, permutation)", "0"),
    ("disagreement", "judge spread listed in disagreements.csv: points, or a share of the scale like 30%", "30%"),
    (
        "labels",
        "JSONL file of human labels (capture_id, rater, scores, notes; or capture_id, rater, winner for a "
        "compare rubric): calibrates the judges against people",
        None,
    ),
    (
        "fail-calibration",
        "exit non-zero when the panel's alpha vs the human labels on overall (its Cohen's kappa vs "
        "the preferences on a compare run) is below this (or fewer than 10 captures are labelled)",
        None,
    ),
    (
        "batch-max",
        "most requests in one provider batch with --ora-batch (batches also split at each provider's limits)",
        None,
    ),
    (
        "prompt-cache",
        "prompt caching: on (repeated prefix first, cache breakpoints, an entry's captures judged together) or off",
        "on",
    ),
    (
        "baseline",
        "an earlier --ora-out (or one of its runs/NNNN) to compare this run with: baseline.json, baseline.md",
        None,
    ),
    (
        "regression-min",
        "per-capture change of overall listed against --ora-baseline: points, or a share of the overall's range like 10%",
        "10%",
    ),
    ("cluster", "capture field (or metadata.KEY) shared by related entries: cluster-robust statistics", None),
    ("reference", "configuration every other one is compared with in the statistics", None),
    (
        "judge-samples",
        "judgments per judge and capture, each recorded, reduced per criterion (bundle.yaml judge_samples; default 1)",
        None,
    ),
    (
        "repeat",
        "answers per candidate and entry, each recorded, ids #1..#K, the entry the statistical unit "
        "(bundle.yaml repeat; default 1)",
        None,
    ),
)


STEP_SUMMARY_ENV = "GITHUB_STEP_SUMMARY"
"""The variable GitHub Actions sets to the file it shows as the job's summary."""

_PATHS = frozenset({"bundle", "out", "cassettes", "prices", "labels", "baseline"})
_DEFAULTS = {name: default for name, _, default in _OPTIONS}


@dataclass(frozen=True)
class Options:
    """The --ora- options after defaults and ini values are applied."""

    bundle: Path | None
    out: Path
    cassettes: Path
    record: str
    reasks: int
    retries: int
    timeout: float
    substitutes: tuple[str, ...]
    panel_label: str | None
    scoring_date: str
    budget_usd: Decimal | None = None
    prices: Path | None = None
    dry_run: bool = False
    concurrency: int = 0
    """Captures judged at once per process; 0 is auto (see harness.pace.lookahead)."""
    fail_under: Decimal | None = None
    fail_lowscore_pct: Decimal | None = None
    rubric: tuple[str, Path] | None = None
    """--ora-rubric / ini ora_rubric and the directory a path in it is relative to."""
    seed: int = 0
    """Seed of the statistics' resampling; the same seed gives the same stats.json."""
    disagreement: str = "30%"
    """The spread that lists a judge disagreement: scale points ("3"), or a share of the scale's range ("30%")."""
    rpm: tuple[tuple[str, float], ...] = ()
    """--ora-rpm ROLE=N: requests per minute per role (a judge's or a role candidate's), shared by every process of the run."""
    tpm: tuple[tuple[str, float], ...] = ()
    """--ora-tpm ROLE=N: input tokens per minute per role (a judge's or a role candidate's), shared likewise."""
    batch: bool = False
    """--ora-batch: first asks through the providers' batch APIs."""
    compare: tuple[tuple[str, str], ...] = ()
    """--ora-compare A:B pairs (kind compare), in the order given."""
    labels: tuple[str, Path] | None = None
    """--ora-labels / ini ora_labels as given and the directory a relative path in it is relative to."""
    fail_calibration: Decimal | None = None
    """--ora-fail-calibration A: the panel's alpha vs people on overall must reach A, over at least 10 labelled captures."""
    key_envs: tuple[str, ...] = ()
    """--ora-key-env NAME / ini ora_key_env: more environment variables a role's api_key_env may name."""
    batch_max: int | None = None
    """--ora-batch-max N: most requests in one provider batch (None: the providers' own limits only)."""
    prompt_cache: bool = True
    """--ora-prompt-cache on|off."""
    baseline: Path | None = None
    """--ora-baseline DIR: an earlier run to compare with."""
    regression_min: str = "10%"
    """Per-capture changes of overall listed against the baseline: points ("1") or a share of the overall's range ("10%")."""
    fail_regression: bool = False
    """--ora-fail-regression: exit 1 when a configuration's paired interval against the baseline lies below 0."""
    cluster: str | None = None
    """--ora-cluster FIELD: the statistics' clusters (overrides bundle.yaml `cluster:`)."""
    reference: str | None = None
    """--ora-reference CONFIG: the statistics compare every configuration with it."""
    pairs: tuple[tuple[str, str], ...] = ()
    """--ora-pairs A:B: the pairs the statistics compare, in the order given."""
    judge_samples: int | None = None
    """--ora-judge-samples K: judgments per judge and capture (overrides bundle.yaml `judge_samples:`)."""
    generate_only: bool = False
    """--ora-generate-only: the candidates make (and record) their answers; no judge is called."""
    repeat: int | None = None
    """--ora-repeat K: answers per candidate and entry (overrides bundle.yaml `repeat:`)."""
    step_summary: Path | None = None
    """--ora-step-summary: the file the run's short Markdown summary is appended to (None: none written)."""


def add_options(parser: pytest.Parser) -> None:
    """The --ora- option group and its ini keys."""
    group = parser.getgroup("ora", "pytest-ora: score a capture bundle with a panel of API judges")
    for name, help_text, default in _OPTIONS:
        dest = f"ora_{name.replace('-', '_')}"
        choices = RECORD_MODES if name == "record" else None
        shown = f" (default: {default}; ini {dest})" if default is not None else f" (ini {dest})"
        # argparse formats help with %: a literal one (the 30% default of --ora-disagreement) is doubled.
        group.addoption(
            f"--ora-{name}", dest=dest, default=None, choices=choices, help=(help_text + shown).replace("%", "%%")
        )
        # Path options get their default in read_options, relative to where pytest was started;
        # an empty ini default tells "not set in the ini file" apart from "set to the default".
        parser.addini(dest, help_text, type="string", default="" if name in _PATHS else default)
    group.addoption(
        "--ora-batch",
        dest="ora_batch",
        action="store_true",
        default=False,
        help="make first asks through the providers' batch APIs (half price, slower) before judging",
    )
    group.addoption(
        "--ora-fail-regression",
        dest="ora_fail_regression",
        action="store_true",
        default=False,
        help="exit non-zero when a configuration's paired interval against --ora-baseline lies entirely below 0",
    )
    group.addoption(
        "--ora-step-summary",
        dest="ora_step_summary",
        nargs="?",
        const="on",
        default=None,
        metavar="PATH",
        help=f"append a short Markdown summary of the run (table, gates, regressions) to {STEP_SUMMARY_ENV}'s file, "
        f"or to PATH (give it with =); off: none (default: on when {STEP_SUMMARY_ENV} is set; ini ora_step_summary)",
    )
    parser.addini(
        "ora_step_summary",
        f"on, off, or a file to append the run's Markdown summary to (empty: on when {STEP_SUMMARY_ENV} is set)",
        type="string",
        default="",
    )
    group.addoption(
        "--ora-dry-run",
        dest="ora_dry_run",
        action="store_true",
        default=False,
        help="build every packet and estimate tokens and cost without calling a judge",
    )
    group.addoption(
        "--ora-generate-only",
        dest="ora_generate_only",
        action="store_true",
        default=False,
        help="make and record the candidates' answers without judging; writes captures.jsonl under --ora-out",
    )
    for unit, what in (("rpm", "requests"), ("tpm", "input tokens")):
        help_text = f"{what} per minute for a role (a judge's or a role candidate's), shared by all processes (else learned from the provider)"
        group.addoption(
            f"--ora-{unit}", dest=f"ora_{unit}", action="append", default=[], metavar="ROLE=N", help=help_text
        )
        parser.addini(f"ora_{unit}", help_text, type="linelist", default=[])
    group.addoption(
        "--ora-substitute",
        dest="ora_substitute",
        action="append",
        default=[],
        metavar="SLOT=ROLE",
        help="replace a judge: SLOT=ROLE or SLOT=provider:model@route, SLOT a panel role (needs --ora-panel-label)",
    )
    group.addoption(
        "--ora-key-env",
        dest="ora_key_env",
        action="append",
        default=[],
        metavar="NAME",
        help="allow a role's api_key_env to name this variable (by default only the providers' key names and "
        "names ending in _API_KEY); repeatable",
    )
    parser.addini(
        "ora_key_env",
        "environment variables a role's api_key_env may name besides *_API_KEY",
        type="linelist",
        default=[],
    )
    group.addoption(
        "--ora-compare",
        dest="ora_compare",
        action="append",
        default=[],
        metavar="A:B",
        help="a configuration pair to compare head to head (kind compare); repeatable",
    )
    group.addoption(
        "--ora-pairs",
        dest="ora_pairs",
        action="append",
        default=[],
        metavar="A:B",
        help="a configuration pair the statistics compare (first - second); repeatable; Holm runs over these",
    )


def check_spelling(args: list[str], parser: pytest.Parser) -> None:
    """A misspelt --ora- option names the nearest real one (argparse would only call it unrecognized)."""
    import difflib

    known = sorted(
        {name for option in parser.getgroup("ora").options for name in option.names() if name.startswith("--ora-")}
    )
    for arg in args:
        if arg == "--":
            break
        name = arg.partition("=")[0]
        if name.startswith("--ora-") and name not in known:
            near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
            hint = f"; did you mean {near[0]}?" if near else f"; pytest-ora's options: {', '.join(known)}"
            raise pytest.UsageError(f"unknown option {name}{hint} (pytest --help lists them under pytest-ora)")


def read_options(config: pytest.Config) -> Options:
    """Options from the command line, else the ini file, else the eval suite's hook, else defaults."""
    source = _Source(config)
    bundle = source.path("bundle")
    if bundle is None:
        hooked = config.hook.pytest_ora_bundle(config=config)
        bundle = Path(hooked).resolve() if hooked else None
    rubric_value = source.value("rubric")
    record = source.value("record")
    if record not in RECORD_MODES:
        raise pytest.UsageError(f"{source.name('record')} must be one of {', '.join(RECORD_MODES)}, got {record!r}")
    return Options(
        bundle=bundle,
        out=source.path("out") or source.default_path("out"),
        cassettes=source.path("cassettes") or source.default_path("cassettes"),
        record=record,
        reasks=source.number("reasks", int),
        concurrency=_concurrency(source),
        retries=source.number("retries", int),
        timeout=source.number("timeout", float, positive=True),
        substitutes=tuple(config.getoption("ora_substitute") or ()),
        panel_label=source.value("panel-label") or None,
        scoring_date=_date(source) or today(),
        budget_usd=source.amount("budget-usd"),
        prices=source.path("prices"),
        dry_run=bool(config.getoption("ora_dry_run")),
        rpm=_role_numbers(config, "rpm"),
        tpm=_role_numbers(config, "tpm"),
        batch=bool(config.getoption("ora_batch")),
        fail_under=source.amount("fail-under", allow_zero=True),
        fail_lowscore_pct=source.amount("fail-lowscore-pct", allow_zero=True),
        rubric=(str(rubric_value), source.base("rubric")) if rubric_value else None,
        seed=source.number("seed", int),
        disagreement=_disagreement(source.value("disagreement")),
        compare=tuple(_pair(text) for text in config.getoption("ora_compare") or ()),
        labels=(str(source.value("labels")), source.base("labels")) if source.value("labels") else None,
        fail_calibration=_alpha_gate(source),
        key_envs=tuple(config.getoption("ora_key_env") or ()) + tuple(config.getini("ora_key_env") or ()),
        batch_max=None if source.value("batch-max") in (None, "") else int(source.number("batch-max", int, minimum=1)),
        prompt_cache=_on_off(source, "prompt-cache"),
        baseline=source.path("baseline"),
        regression_min=_share("regression-min", source.value("regression-min"), "1", "10%"),
        fail_regression=bool(config.getoption("ora_fail_regression")),
        cluster=source.value("cluster") or None,
        reference=source.value("reference") or None,
        pairs=tuple(_pair(text, "--ora-pairs") for text in config.getoption("ora_pairs") or ()),
        judge_samples=None
        if source.value("judge-samples") in (None, "")
        else int(source.number("judge-samples", int, minimum=1)),
        generate_only=bool(config.getoption("ora_generate_only")),
        repeat=None if source.value("repeat") in (None, "") else int(source.number("repeat", int, minimum=1)),
        step_summary=_step_summary(source),
    )


def key_problems(options: Options, keys: Sequence[str]) -> list[str]:
    """Options whose text holds a configured API key (a panel label, a cluster field, a labels path...).

    Such text is written to the report; the option is refused by name and the key never shown.
    """
    problems = []
    for item in dataclasses.fields(options):
        text = str(getattr(options, item.name))
        if any(key and key in text for key in keys):
            problems.append(
                f"--ora-{item.name.replace('_', '-')} holds the value of a configured API key, which would "
                "be written to the report; remove it (and rotate the key)"
            )
    return problems


def _step_summary(source: _Source) -> Path | None:
    """--ora-step-summary: off, on (GITHUB_STEP_SUMMARY's file, which must be set), a path; unset: on when it is set."""
    given = str(source.value("step-summary") or "").strip()
    named = os.environ.get(STEP_SUMMARY_ENV, "").strip()
    if given == "off":
        return None
    if given in ("", "on"):
        if named:
            return Path(named)
        if given == "on":
            raise pytest.UsageError(
                f"{source.name('step-summary')} appends to the file {STEP_SUMMARY_ENV} names, and it is not set: "
                f"give the file (--ora-step-summary=PATH) or run the step in GitHub Actions"
            )
        return None
    path = (source.base("step-summary") / given).resolve()
    if path.is_dir():
        raise pytest.UsageError(
            f"{source.name('step-summary')} takes a file to append to, got the directory {given!r} "
            "(give the file with =: --ora-step-summary=PATH)"
        )
    return path


def _alpha_gate(source: _Source) -> Decimal | None:
    """--ora-fail-calibration: an alpha between 0 and 1."""
    value = source.amount("fail-calibration", allow_zero=True)
    if value is not None and value > 1:
        raise pytest.UsageError(
            f"{source.name('fail-calibration')} takes a Krippendorff alpha (a Cohen's kappa on a "
            f"compare run) between 0 and 1, got {value}"
        )
    return value


def _on_off(source: _Source, name: str) -> bool:
    """An on/off option."""
    value = str(source.value(name)).strip().lower()
    if value not in ("on", "off"):
        raise pytest.UsageError(f"{source.name(name)} takes on or off, got {source.value(name)!r}")
    return value == "on"


def _concurrency(source: _Source) -> int:
    """--ora-concurrency: 'auto' (0) or a positive count."""
    if source.value("concurrency") in (None, "", "auto"):
        return 0
    return int(source.number("concurrency", int, minimum=1))


def _role_numbers(config: pytest.Config, unit: str) -> tuple[tuple[str, float], ...]:
    """ROLE=N pairs from --ora-rpm / --ora-tpm, else the ini lines; N a positive number."""
    given = list(config.getoption(f"ora_{unit}") or ()) or list(config.getini(f"ora_{unit}") or ())
    pairs = []
    for text in given:
        role, sep, value = str(text).partition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not role.strip() or not math.isfinite(number) or number <= 0:
            raise pytest.UsageError(f"--ora-{unit} takes ROLE=N with N a positive number, got {text!r}")
        pairs.append((role.strip(), number))
    return tuple(pairs)


def _pair(text: str, option: str = "--ora-compare") -> tuple[str, str]:
    first, sep, second = text.partition(":")
    if not sep or not first or not second or first == second:
        raise pytest.UsageError(f"{option} takes two different configurations as A:B, got {text!r}")
    return first, second


def _share(name: str, value: Any, points: str, share: str) -> str:
    """A threshold as given: a non-negative number of scale points, or a percentage (at most 100%) of the scale's range.

    Read by the same bounds as a file's number (bounded_fraction): `1e999999999` is refused here, at
    start-up, never expanded to 10**999999999 at the session end.
    """
    text = str(value).strip()
    percent = text.endswith("%")
    try:
        amount = bounded_fraction(text[:-1] if percent else text)
    except (ValueError, ZeroDivisionError):
        amount = Fraction(-1)
    if "/" in text or amount < 0 or (percent and amount > 100):
        raise pytest.UsageError(
            f"--ora-{name} takes scale points ({points}) or a share of the scale ({share}), "
            f"a finite number >= 0 (a share at most 100%), got {value!r}"
        )
    return text


def _disagreement(value: Any) -> str:
    """A spread as given: a non-negative number of scale points, or a percentage of the scale's range."""
    return _share("disagreement", value, "3", "30%")


class _Source:
    """Where each option's value came from, so a bad value is named as the user wrote it (flag or ini key)."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def _from_command_line(self, name: str) -> bool:
        return self.config.getoption(_dest(name)) is not None

    def name(self, name: str) -> str:
        return f"--ora-{name}" if self._from_command_line(name) else f"ini key {_dest(name)}"

    def value(self, name: str) -> Any:
        if self._from_command_line(name):
            return self.config.getoption(_dest(name))
        return self.config.getini(_dest(name))

    def path(self, name: str) -> Path | None:
        """A path option: relative to the current directory on the command line, to the ini file's directory in it."""
        value = self.value(name)
        if not value:
            return None
        return (self.base(name) / str(value)).resolve()

    def base(self, name: str) -> Path:
        """The directory a relative path in the option is relative to: the current one, or the ini file's."""
        if self._from_command_line(name):
            return Path(self.config.invocation_params.dir)
        return self.config.inipath.parent if self.config.inipath is not None else Path(self.config.rootpath)

    def default_path(self, name: str) -> Path:
        """A default directory, relative to the rootdir an ini file fixed, so the same command from any
        subdirectory of a suite reads and writes the same places.

        Without an ini file pytest picks the rootdir from the arguments before it knows pytest-ora's
        options (`--ora-bundle X`, X taken for a test path, and `--ora-bundle=X` could differ), so the
        default is then relative to where pytest was started.
        """
        base = (
            Path(self.config.rootpath) if self.config.inipath is not None else Path(self.config.invocation_params.dir)
        )
        return (base / str(_DEFAULTS[name])).resolve()

    def number(self, name: str, kind: type, *, minimum: int = 0, positive: bool = False) -> Any:
        value = self.value(name)
        try:
            result = kind(value)
        except (TypeError, ValueError):
            raise pytest.UsageError(f"{self.name(name)} takes a number, got {value!r}") from None
        if result != result or result in (float("inf"), float("-inf")):
            raise pytest.UsageError(f"{self.name(name)} takes a finite number, got {value!r}")
        if positive and result <= 0:
            raise pytest.UsageError(f"{self.name(name)} must be greater than 0, got {value!r}")
        if result < minimum:
            limit = "cannot be negative" if minimum == 0 else f"must be at least {minimum}"
            raise pytest.UsageError(f"{self.name(name)} {limit}, got {value!r}")
        return result

    def amount(self, name: str, *, allow_zero: bool = False) -> Decimal | None:
        value = self.value(name)
        if value in (None, ""):
            return None
        try:
            result = Decimal(str(value))
        except ArithmeticError:
            raise pytest.UsageError(f"{self.name(name)} takes a number, got {value!r}") from None
        if not result.is_finite() or result < 0 or (result == 0 and not allow_zero):
            raise pytest.UsageError(f"{self.name(name)} must be a positive number, got {value!r}")
        return result


def _dest(name: str) -> str:
    return f"ora_{name.replace('-', '_')}"


def _date(source: _Source) -> str | None:
    value = source.value("scoring-date")
    if not value:
        return None
    try:
        return dt.date.fromisoformat(str(value)).isoformat()
    except ValueError:
        raise pytest.UsageError(f"{source.name('scoring-date')} takes a date as YYYY-MM-DD, got {value!r}") from None


def today() -> str:
    """The scoring date: SOURCE_DATE_EPOCH when set (reproducible builds), else today in UTC."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch else dt.datetime.now(dt.timezone.utc)
    return moment.date().isoformat()
