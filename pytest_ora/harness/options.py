"""The --ora- options: one group on the command line, ini equivalents, checked values."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from ..vocabulary import RECORD_MODES

__all__ = ["Options", "add_options", "read_options", "today"]

_OPTIONS: tuple[tuple[str, str, Any], ...] = (
    # name, help, default (ini values are strings, checked where they are read)
    ("bundle", "capture bundle directory to score", None),
    ("out", "directory for the ledger, tables and methodology note", "ora-results"),
    ("cassettes", "directory of recorded judge calls", "cassettes"),
    ("record", f"judge call recording: {', '.join(RECORD_MODES)}", "none"),
    ("reasks", "re-asks after an invalid judge reply", "1"),
    ("retries", "retries of a transport fault per judge call", "6"),
    ("timeout", "seconds to wait for a judge's reply", "120"),
    ("panel-label", "name of a substituted judging panel", None),
    ("scoring-date", "scoring date for the methodology note (default today, UTC)", None),
    ("budget-usd", "stop starting captures once live judge spend reaches this many USD", None),
    ("concurrency", "captures judged at once in one process (judging ahead; without xdist)", "1"),
    ("prices", "YAML file of model-prefix: {input, output} USD per million tokens", None),
    ("rubric", "rubric: a built-in id (python -m pytest_ora rubric list) or a rubric YAML file", None),
    ("seed", "seed of the statistics' resampling (bootstrap, permutation)", "0"),
    ("disagreement", "judge spread listed in disagreements.csv: points, or a share of the scale like 30%", "30%"),
)


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
    concurrency: int = 1
    rubric: tuple[str, Path] | None = None
    """--ora-rubric / ini ora_rubric and the directory a path in it is relative to."""
    seed: int = 0
    """Seed of the statistics' resampling; the same seed gives the same stats.json."""
    disagreement: str = "30%"
    """The spread that lists a judge disagreement: scale points ("3"), or a share of the scale's range ("30%")."""


def add_options(parser: pytest.Parser) -> None:
    """The --ora- option group and its ini keys."""
    group = parser.getgroup("ora", "pytest-ora: score a capture bundle with a panel of API judges")
    for name, help_text, default in _OPTIONS:
        dest = f"ora_{name.replace('-', '_')}"
        choices = RECORD_MODES if name == "record" else None
        group.addoption(f"--ora-{name}", dest=dest, default=None, choices=choices, help=help_text)
        parser.addini(dest, help_text, type="string", default=default)
    group.addoption(
        "--ora-dry-run", dest="ora_dry_run", action="store_true", default=False,
        help="build every packet and estimate tokens and cost without calling a judge",
    )
    group.addoption(
        "--ora-substitute", dest="ora_substitute", action="append", default=[], metavar="SLOT=ROLE",
        help="replace a judge: SLOT=ROLE or SLOT=provider:model@route, SLOT a panel role (needs --ora-panel-label)",
    )


def read_options(config: pytest.Config) -> Options:
    """Options from the command line, else the ini file, else the eval suite's hook, else defaults."""

    def get(name: str) -> Any:
        dest = f"ora_{name.replace('-', '_')}"
        value = config.getoption(dest)
        if value is not None:
            return value, config.invocation_params.dir
        return config.getini(dest), config.rootpath

    def path(name: str) -> Path | None:
        value, base = get(name)
        return None if not value else (base / str(value)).resolve()

    def number(name: str, kind: type) -> Any:
        value, _ = get(name)
        try:
            result = kind(value)
        except ValueError:
            raise pytest.UsageError(f"--ora-{name} takes a number, got {value!r}") from None
        if result < 0:
            raise pytest.UsageError(f"--ora-{name} cannot be negative, got {value!r}")
        return result

    bundle = path("bundle")
    if bundle is None:
        hooked = config.hook.pytest_ora_bundle(config=config)
        bundle = Path(hooked).resolve() if hooked else None
    budget, _ = get("budget-usd")
    try:
        budget_usd = None if budget in (None, "") else Decimal(str(budget))
    except ArithmeticError:
        raise pytest.UsageError(f"--ora-budget-usd takes an amount in USD, got {budget!r}") from None
    if budget_usd is not None and (not budget_usd.is_finite() or budget_usd <= 0):
        raise pytest.UsageError(f"--ora-budget-usd must be a positive amount, got {budget!r}")
    rubric_value, rubric_base = get("rubric")
    record, _ = get("record")
    if record not in RECORD_MODES:
        raise pytest.UsageError(f"ora_record must be one of {', '.join(RECORD_MODES)}, got {record!r}")
    return Options(
        bundle=bundle,
        out=path("out") or Path("ora-results").resolve(),
        cassettes=path("cassettes") or Path("cassettes").resolve(),
        record=record,
        reasks=number("reasks", int),
        concurrency=max(1, number("concurrency", int)),
        retries=number("retries", int),
        timeout=number("timeout", float),
        substitutes=tuple(config.getoption("ora_substitute") or ()),
        panel_label=get("panel-label")[0] or None,
        scoring_date=get("scoring-date")[0] or today(),
        budget_usd=budget_usd,
        prices=path("prices"),
        dry_run=bool(config.getoption("ora_dry_run")),
        rubric=(str(rubric_value), Path(rubric_base)) if rubric_value else None,
        seed=number("seed", int),
        disagreement=_disagreement(get("disagreement")[0]),
    )


def _disagreement(value: Any) -> str:
    """A spread as given: a non-negative number of scale points, or a percentage of the scale's range."""
    text = str(value).strip()
    try:
        amount = Decimal(text[:-1] if text.endswith("%") else text)
    except ArithmeticError:
        amount = Decimal(-1)
    if not amount.is_finite() or amount < 0:
        raise pytest.UsageError(f"--ora-disagreement takes scale points (3) or a share of the scale (30%), got {value!r}")
    return text


def today() -> str:
    """The scoring date: SOURCE_DATE_EPOCH when set (reproducible builds), else today in UTC."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    moment = dt.datetime.fromtimestamp(int(epoch), dt.timezone.utc) if epoch else dt.datetime.now(dt.timezone.utc)
    return moment.date().isoformat()
