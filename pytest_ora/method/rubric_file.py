"""Reading a rubric file (YAML): its fields checked, its digest checked against its history."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import re
from fractions import Fraction
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from ..core.rubric import (
    Anchor,
    Criterion,
    HistoryEntry,
    RecordedCalibration,
    Rounding,
    Rubric,
    RubricError,
    VerdictBand,
    VoteRule,
)
from ..core.strictjson import exact_number
from .kinds import get_kind, graded, rubric_options, rubric_problem
from .kinds.scorecard.axes import AxisFile

__all__ = ["parse_rubric"]

_OUTSIDE_DIGEST = ("history", "calibration")
"""Records about the definition, not the definition: the history, and the panel's agreement as once measured (a new
measurement changes no score, so it needs no new version)."""


def digest_of(data: dict[str, Any]) -> str:
    """sha256 over the canonical JSON (sorted keys, `,` `:`, UTF-8) of the content without history or calibration."""
    content = {key: value for key, value in data.items() if key not in _OUTSIDE_DIGEST}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


_BAND = re.compile(r"^(?P<low>\d+)(?:-(?P<high>\d+))?$")
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _fraction(value: Any) -> Fraction:
    """A number or a fraction string ("1/6"), exactly; floats through their decimal text."""
    number = exact_number(value)
    if number is None:
        raise ValueError("must be a number or a fraction string such as 1/6")
    return number


Exact = Annotated[Fraction, BeforeValidator(_fraction)]
Name = Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class _Scale(_Model):
    min: Exact
    max: Exact
    step: Exact | None = None

    @model_validator(mode="after")
    def _ordered(self) -> _Scale:
        if self.min >= self.max:
            raise ValueError("min must be below max")
        if self.step is not None and self.step <= 0:
            raise ValueError("step must be positive")
        return self


class _Criterion(_Model):
    name: Name
    title: str
    weight: Exact
    question: str
    anchors: dict[str, str] = Field(default_factory=dict)


class _Failure(_Model):
    below: Exact | None = None
    vote: str | None = None

    @model_validator(mode="after")
    def _one(self) -> _Failure:
        if (self.below is None) == (self.vote is None):
            raise ValueError("give exactly one of below (a threshold on overall) or vote (a vote's name)")
        return self


class _Verdict(_Model):
    name: Annotated[str, Field(pattern=r"^[A-Za-z][A-Za-z0-9_]*$")]
    min: Exact | None = None


class _Vote(_Model):
    judges: int | Literal["majority", "all"]
    min: Exact | None = None
    below: Exact | None = None

    @model_validator(mode="after")
    def _one(self) -> _Vote:
        if (self.min is None) == (self.below is None):
            raise ValueError("give exactly one of min (overall at least) or below (overall under)")
        if isinstance(self.judges, int) and self.judges < 1:
            raise ValueError("judges must be at least 1")
        return self


class _History(_Model):
    version: str
    date: dt.date | str
    change: str
    digest: Annotated[str, Field(pattern=r"^sha256:[0-9a-f]{64}$")]


class _Calibration(_Model):
    statistic: Literal["fleiss_kappa"]
    value: Annotated[float, Field(ge=-1, le=1)]
    date: dt.date | str
    scope: Annotated[str, Field(min_length=1)]


class _Rounding(_Model):
    rating_places: int = 1
    percent_places: int = 0
    dollar_places: int = 0
    minute_places: int = 1


class RubricFile(_Model):
    """A rubric file as written."""

    rubric: Annotated[str, Field(min_length=1)]
    title: str
    kind: str = "scores"
    scale: _Scale | None = None
    """Required, except by kind scorecard (grades, no scale)."""
    criteria: list[_Criterion] = Field(default_factory=list)
    """At least one, except for kind scorecard (axes instead)."""
    anchors: dict[str, str] = Field(default_factory=dict)
    """Rubric-wide bands ("9-10": meaning) shown to the judges."""
    cap: str | None = None
    failure: _Failure | None = None
    verdicts: list[_Verdict] = Field(default_factory=list)
    votes: dict[Name, _Vote] = Field(default_factory=dict)
    panel_size: Annotated[int, Field(ge=1, le=26)] = 2
    blind: bool | Literal["strict"] = False
    """true: packets withhold configuration and model fields; strict: names in the texts too."""
    requires_spec: bool = False
    families: list[str] | None = None
    task: str = "You are an independent judge scoring one answer. You see one packet; no other judge's scores or notes."
    scoring_note: str | None = None
    rounding: _Rounding = Field(default_factory=_Rounding)
    compare: list[Annotated[list[str], Field(min_length=2, max_length=2)]] = Field(default_factory=list)
    """Configuration pairs [A, B] (kind compare)."""
    params: dict[Name, dict[str, Exact]] = Field(default_factory=dict)
    """The kind's own numbers by group (checklist: severity_weights, detection)."""
    history: list[_History] = Field(min_length=1)
    axes: list[AxisFile] | None = None
    """kind scorecard: the axes."""
    baseline: str | None = None
    """kind scorecard: the configuration paired ratios compare against."""
    scorer: Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*:[A-Za-z_][A-Za-z0-9_]*$")] | None = None
    """kind python: module:function, imported from the eval suite's directory."""
    judge_verdict: bool = False
    """kind scores with verdict bands: the judge also returns a rationale and its overall_verdict."""
    panel_models: list[Annotated[str, Field(min_length=1)]] | None = None
    """The locked judge ensemble: a panel judge on another model is a substitution (named, never silent)."""
    calibration: _Calibration | None = None
    """The panel's agreement as once measured: a run states its own beside it."""

    @model_validator(mode="after")
    def _by_kind(self) -> RubricFile:
        if self.kind == "advisory":
            if self.criteria or self.scale is not None or self.failure is not None or self.axes is not None:
                raise ValueError(
                    "an advisory rubric evaluates records against its fixed threshold: it has no scale, "
                    "criteria, failure or axes"
                )
            return self
        if self.kind == "scorecard":
            if not self.axes:
                raise ValueError("a scorecard rubric lists its axes")
            if self.criteria or self.scale is not None or self.failure is not None:
                raise ValueError("a scorecard rubric grades axes: it has no scale, criteria or failure")
            return self
        if self.axes is not None or self.baseline is not None:
            raise ValueError("axes and baseline belong to kind scorecard")
        if self.scale is None or not self.criteria or self.failure is None:
            missing = [name for name in ("scale", "criteria", "failure") if not getattr(self, name)]
            raise ValueError(f"kind {self.kind} needs {', '.join(missing)}")
        if (self.kind == "python") != (self.scorer is not None):
            raise ValueError("scorer (module:function) goes with kind python, and kind python needs one")
        return self

    @model_validator(mode="after")
    def _verdict_reply(self) -> RubricFile:
        if self.judge_verdict and (self.kind != "scores" or not self.verdicts):
            raise ValueError("judge_verdict needs kind scores and verdict bands (the judge names one of them)")
        return self

    @model_validator(mode="after")
    def _consistent(self) -> RubricFile:
        names = [c.name for c in self.criteria]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"criteria repeat {', '.join(repeated)}")
        if self.cap is not None and self.cap not in names:
            raise ValueError(f"cap names {self.cap!r}, which is not a criterion")
        if self.failure is not None and self.failure.vote is not None and self.failure.vote not in self.votes:
            raise ValueError(f"failure.vote names {self.failure.vote!r}, which is not one of the votes")
        for band in self.verdicts[:-1]:
            if band.min is None:
                raise ValueError(f"verdict {band.name} needs a min (only the last band may omit it)")
        minimums = [band.min for band in self.verdicts if band.min is not None]
        if minimums != sorted(minimums, reverse=True):
            raise ValueError("verdicts must be listed highest first")
        return self


def _bands(anchors: dict[str, str], where: str) -> tuple[tuple[str, str], ...]:
    for key in anchors:
        if not _BAND.match(str(key)):
            raise RubricError(where, f"anchors key {key!r} must be a score (5) or a band (9-10)")
    return tuple((str(key), text) for key, text in anchors.items())


def parse_rubric(text: str, source: str, where: str) -> Rubric:
    """A Rubric from a file's text; RubricError names the file, the field and the fix."""
    try:
        repeated = _repeated_key(yaml.compose(text, Loader=_Loader))
        data = yaml.load(text, Loader=_Loader)
    except yaml.YAMLError as error:
        raise RubricError(where, f"not valid YAML ({error})") from None
    if repeated is not None:
        key, line, first_line = repeated
        raise RubricError(
            where,
            f"line {line}: key {key!r} appears twice in one mapping (first on line {first_line}); YAML "
            "would keep the last silently: give each key once",
        )
    if not isinstance(data, dict):
        raise RubricError(where, "a rubric file is a YAML mapping (rubric, title, scale, criteria, ...)")
    try:
        parsed = RubricFile.model_validate(data)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        field = ".".join(str(part) for part in first["loc"]) or "(file)"
        message = str(first["msg"]).removeprefix("Value error, ")
        raise RubricError(where, f"field '{field}': {message}") from None
    try:
        get_kind(parsed.kind)
    except ValueError as error:
        raise RubricError(where, f"field 'kind': {error}") from None
    digest = digest_of(data)
    last = parsed.history[-1]
    if last.version != parsed.rubric:
        raise RubricError(
            where,
            f"the last history entry is version {last.version!r} but the file says rubric {parsed.rubric!r}: "
            "a changed rubric needs a new version and a new history line naming it",
        )
    if last.digest != digest:
        raise RubricError(
            where,
            f"rubric {parsed.rubric} changed without a new version: its content digest is {digest}, "
            f"but its last history line records {last.digest}. A changed number needs a new version and a new "
            "history line (python -m pytest_ora rubric digest FILE prints the digest to record)",
        )
    versions = [entry.version for entry in parsed.history]
    if len(set(versions)) != len(versions):
        raise RubricError(where, "history repeats a version; the history is append-only, one line per version")
    _in_range(parsed, where)
    wide = tuple(_anchor(key, meaning, where) for key, meaning in _bands(parsed.anchors, where))
    criteria = tuple(
        Criterion(c.name, c.title, c.weight, c.question, _bands(c.anchors, where)) for c in parsed.criteria
    )
    try:  # the kind's own section (scorecard: axes and baseline; python: scorer), parsed by the kind
        options = rubric_options(
            parsed.kind, {"axes": parsed.axes, "baseline": parsed.baseline, "scorer": parsed.scorer}
        )
    except ValueError as error:
        raise RubricError(where, str(error)) from None
    scale = parsed.scale or _Scale.model_validate({"min": 0, "max": 1})  # scorecards grade, they have no scale
    failure = parsed.failure
    rubric = Rubric(
        version=parsed.rubric,
        title=parsed.title,
        criteria=criteria,
        anchors=wide,
        scale_min=scale.min,
        scale_max=scale.max,
        cap_criterion=parsed.cap,
        failure_below=failure.below if failure else None,
        rounding=Rounding(**parsed.rounding.model_dump()),
        history=tuple(HistoryEntry(h.version, str(h.date), h.change, h.digest).line() for h in parsed.history),
        kind=parsed.kind,
        scale_step=scale.step,
        failure_vote=failure.vote if failure else None,
        verdicts=tuple(VerdictBand(v.name, v.min) for v in parsed.verdicts),
        votes=tuple(VoteRule(name, v.judges, v.min, v.below) for name, v in parsed.votes.items()),
        panel_size=0 if graded(parsed.kind) is not None else parsed.panel_size,  # grades: no judge columns
        blind=parsed.blind is not False,
        blind_strict=parsed.blind == "strict",
        requires_spec=parsed.requires_spec,
        families=tuple(parsed.families) if parsed.families is not None else None,
        task=parsed.task.strip(),
        scoring_note=parsed.scoring_note,
        params=tuple((group, tuple(values.items())) for group, values in parsed.params.items()),
        compare=tuple((pair[0], pair[1]) for pair in parsed.compare),
        digest=digest,
        source=source,
        options=options,
        judge_verdict=parsed.judge_verdict,
        panel_models=None if parsed.panel_models is None else tuple(parsed.panel_models),
        calibration=None
        if parsed.calibration is None
        else RecordedCalibration(
            parsed.calibration.statistic,
            parsed.calibration.value,
            str(parsed.calibration.date),
            parsed.calibration.scope,
        ),
    )
    problem = rubric_problem(rubric)
    if problem is not None:
        raise RubricError(where, problem)
    return rubric


def _anchor(key: str, meaning: str, where: str) -> Anchor:
    match = _BAND.match(key)
    assert match is not None
    low = int(match.group("low"))
    high = int(match.group("high") or low)
    return Anchor(low, high, meaning)


def _repeated_key(node: yaml.Node | None) -> tuple[str, int, int] | None:
    """(key, its line, the line it first appeared on) of the first key given twice in one mapping, or None."""
    pending = [node] if node is not None else []
    seen_nodes: set[int] = set()
    while pending:
        current = pending.pop()
        if id(current) in seen_nodes:
            continue  # an alias: its anchor's node was walked already
        seen_nodes.add(id(current))
        if isinstance(current, yaml.MappingNode):
            lines: dict[str, int] = {}
            for key, value in current.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in lines:
                        return key.value, key.start_mark.line + 1, lines[key.value]
                    lines[key.value] = key.start_mark.line + 1
                pending.append(value)
        elif isinstance(current, yaml.SequenceNode):
            pending.extend(current.value)
    return None


def _in_range(parsed: RubricFile, where: str) -> None:
    """Weights never negative; thresholds and verdict bands inside what overall can be on the rubric's scale."""
    for criterion in parsed.criteria:
        if criterion.weight < 0:
            raise RubricError(where, f"field 'criteria.{criterion.name}.weight': is negative ({criterion.weight})")
    for group, values in parsed.params.items():
        for name, value in values.items():
            if value < 0:
                raise RubricError(where, f"field 'params.{group}.{name}': is negative ({value})")
    low: Fraction = Fraction(0)
    high: Fraction | None = None  # other kinds define overall their own way: only its sign is known
    if parsed.scale is not None and parsed.kind in ("scores", "python"):
        total = sum((c.weight for c in parsed.criteria), Fraction(0))
        low, high = total * parsed.scale.min, total * parsed.scale.max
        if parsed.cap is not None:  # overall = min(weighted, the cap criterion's mean on the scale)
            low, high = min(low, parsed.scale.min), min(high, parsed.scale.max)
    thresholds: list[tuple[str, Fraction | None]] = [
        ("failure.below", parsed.failure.below if parsed.failure else None)
    ]
    thresholds += [(f"verdicts.{band.name}.min", band.min) for band in parsed.verdicts]
    thresholds += [
        (f"votes.{name}.{'min' if vote.min is not None else 'below'}", vote.min if vote.min is not None else vote.below)
        for name, vote in parsed.votes.items()
    ]
    for field, threshold in thresholds:
        if threshold is None:
            continue
        if threshold < low or (high is not None and threshold > high):
            span = f"{float(low):g} to {float(high):g}" if high is not None else f"at least {float(low):g}"
            raise RubricError(
                where,
                f"field '{field}': {float(threshold):g} is outside what overall can be ({span} on this "
                "rubric's scale and weights)",
            )
