"""A scorecard's axes as written in a `kind: scorecard` rubric: rules, bands, ratios, checklists.

Everything here is hashable data (a Rubric holds its axes and is a cache key).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

from ....core.rubric import Rubric
from ....core.strictjson import exact_number

__all__ = ["OPERATORS", "Axis", "Band", "Card", "Condition", "Rule", "card_of", "parse_axes"]

Grade = Literal["PASS", "PARTIAL", "FAIL"]
OPERATORS = ("eq", "ne", "lt", "le", "gt", "ge")
Path = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")]


@dataclass(frozen=True)
class Condition:
    """`field <op> value`: value a number (exact), a boolean, or another field (`other`)."""

    field: str
    op: str
    value: Fraction | bool | None = None
    other: str | None = None
    title: str = ""
    on_baseline: bool = True
    """False: the condition does not apply to the baseline configuration's captures."""

    def text(self) -> str:
        symbol = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[self.op]
        right = self.other if self.other is not None else _show(self.value)
        return self.title or f"{self.field} {symbol} {right}"


@dataclass(frozen=True)
class Rule:
    """Grade `grade` when every condition holds (no conditions: always)."""

    grade: str
    when: tuple[Condition, ...]


@dataclass(frozen=True)
class Band:
    """Grade `grade` when the value is at most `max` (no max: always)."""

    grade: str
    max: Fraction | None


@dataclass(frozen=True)
class Axis:
    """One axis: how it is graded, what its raw value is, why it may be N/A."""

    name: str
    title: str
    source: str
    how: str
    """rules, count, ratio or checklist."""
    rules: tuple[Rule, ...] = ()
    field: str | None = None
    """The field counted (count), compared with the baseline's (ratio), or shown raw (rules)."""
    bands: tuple[Band, ...] = ()
    checklist: tuple[Condition, ...] = ()
    unit: str = ""
    missing: str = ""
    """The N/A reason when a source is missing; default names the field."""
    also: tuple[str, ...] = ()
    """Fields recorded raw beside the grade, never graded."""

    def paths(self) -> tuple[str, ...]:
        """Every evidence field the axis reads."""
        found = [self.field] if self.field else []
        for condition in (*self.checklist, *(c for rule in self.rules for c in rule.when)):
            found += [condition.field] + ([condition.other] if condition.other else [])
        return tuple(dict.fromkeys([*found, *self.also]))


def _show(value: Fraction | bool | None) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Fraction) and value.denominator == 1:
        return str(value.numerator)
    return str(float(value)) if value is not None else "null"


def _exact(value: Any) -> Any:
    if isinstance(value, bool) or value is None or isinstance(value, dict):
        return value
    number = exact_number(value)
    if number is None:
        raise ValueError("must be a number, a boolean or {field: <dotted path>}")
    return number


Value = Annotated[Any, BeforeValidator(_exact)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)


class _FieldRef(_Model):
    field: Path


class _Condition(_Model):
    field: Path
    title: str = ""
    baseline: bool = True
    """False: not checked on the baseline configuration (the scorecard method's "ON condition only")."""
    eq: Value = None
    ne: Value = None
    lt: Value = None
    le: Value = None
    gt: Value = None
    ge: Value = None

    @model_validator(mode="after")
    def _one(self) -> _Condition:
        given = [op for op in OPERATORS if op in self.model_fields_set]
        if len(given) != 1:
            raise ValueError(f"give exactly one comparison of {', '.join(OPERATORS)}")
        value = getattr(self, given[0])
        if isinstance(value, dict):
            _FieldRef.model_validate(value)
        elif value is None:
            raise ValueError(f"{given[0]} needs a number, a boolean or {{field: <dotted path>}}")
        elif isinstance(value, bool) and given[0] not in ("eq", "ne"):
            raise ValueError(f"{given[0]} compares numbers; a boolean needs eq or ne")
        return self

    def build(self) -> Condition:
        op = next(op for op in OPERATORS if op in self.model_fields_set)
        value = getattr(self, op)
        if isinstance(value, dict):
            return Condition(self.field, op, other=str(value["field"]), title=self.title, on_baseline=self.baseline)
        return Condition(self.field, op, value=value, title=self.title, on_baseline=self.baseline)


class _Rule(_Model):
    grade: Grade
    when: list[_Condition] = Field(default_factory=list)


class _Band(_Model):
    grade: Grade
    max: Value = None


class _Count(_Model):
    field: Path


class AxisFile(_Model):
    """One axis as written."""

    name: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_]*$")]
    title: str
    source: str = ""
    rules: list[_Rule] | None = None
    count: _Count | None = None
    ratio: _Count | None = None
    bands: list[_Band] | None = None
    checklist: list[_Condition] | None = None
    raw: _Count | None = None
    """rules: the field shown raw beside the grade."""
    unit: str = ""
    missing: str = ""
    also: list[Path] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_way(self) -> AxisFile:
        ways = [way for way in ("rules", "count", "ratio", "checklist") if getattr(self, way) is not None]
        if len(ways) != 1:
            raise ValueError("grade by exactly one of rules, count (with bands), ratio (with bands) or checklist")
        if (ways[0] in ("count", "ratio")) != (self.bands is not None):
            raise ValueError("bands go with count or ratio, and count or ratio need bands")
        if self.rules is not None and (not self.rules or self.rules[-1].when):
            raise ValueError("the last rule grades everything else: give it no `when`")
        if self.bands is not None:
            if not self.bands or self.bands[-1].max is not None:
                raise ValueError("the last band grades everything else: give it no max")
            maxima = [band.max for band in self.bands[:-1]]
            if any(value is None or isinstance(value, (bool, dict)) for value in maxima):
                raise ValueError("every band but the last needs a numeric max")
            if maxima != sorted(maxima):
                raise ValueError("bands must be listed lowest max first")
            if any(value < 0 for value in maxima):
                raise ValueError("a band's max must not be negative: counts and ratios never are")
        if self.checklist is not None and not self.checklist:
            raise ValueError("a checklist needs at least one condition")
        return self

    def build(self) -> Axis:
        how = next(way for way in ("rules", "count", "ratio", "checklist") if getattr(self, way) is not None)
        field = self.count or self.ratio or self.raw
        return Axis(
            name=self.name,
            title=self.title,
            source=self.source,
            how=how,
            rules=tuple(Rule(rule.grade, tuple(c.build() for c in rule.when)) for rule in self.rules or ()),
            field=field.field if field else None,
            bands=tuple(Band(band.grade, band.max) for band in self.bands or ()),
            checklist=tuple(c.build() for c in self.checklist or ()),
            unit=self.unit,
            missing=self.missing,
            also=tuple(self.also),
        )


def parse_axes(axes: list[AxisFile]) -> tuple[Axis, ...]:
    """The axes, checked for repeated names."""
    names = [axis.name for axis in axes]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"axes repeat {', '.join(repeated)}")
    return tuple(axis.build() for axis in axes)


@dataclass(frozen=True)
class Card:
    """A scorecard rubric's own section (Rubric.options): its axes, and the configuration paired ratios compare against."""

    axes: tuple[Axis, ...]
    baseline: str | None


def card_of(rubric: Rubric) -> Card:
    """The scorecard section of a kind scorecard rubric."""
    options = rubric.options
    assert isinstance(options, Card), f"rubric {rubric.version} is not a scorecard"
    return options
