"""Typed records for everything that crosses a boundary: bundle files, judge replies, report rows."""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from decimal import Decimal
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    StrictBool,
    StrictInt,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_serializer,
    model_validator,
)

from .candidates import CandidateSpec, TranscriptError, Turn, transcript_of, transcript_text
from .vocabulary import Family, Provider

__all__ = [
    "CONFIGURATION_PATTERN",
    "MAX_CONFIGURATIONS",
    "REQUIRED_ENTRIES",
    "SLUG_PATTERN",
    "Acceptance",
    "BehaviorItem",
    "Behaviors",
    "BundleManifest",
    "Capture",
    "Chain",
    "Checklist",
    "ChecklistBonus",
    "ChecklistIssue",
    "ConfigurationName",
    "Family",
    "GoldStandard",
    "Hypothesis",
    "JudgeColumn",
    "JudgeReply",
    "OptimumSnapshot",
    "PanelJudge",
    "Provider",
    "RoleSpec",
    "Status",
    "VerdictRule",
    "capture_json_schema",
    "default_collisions",
    "default_scored_set",
]

SLUG_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
MAX_CONFIGURATIONS = 1000
"""Most configurations a bundle lists (its table's rows)."""

Slug = Annotated[str, Field(pattern=SLUG_PATTERN)]
EntryKey = Annotated[str, Field(pattern=r"^[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*$")]
"""family:technique."""
REQUIRED_ENTRIES = "required"
"""The scored_set key naming entries that must be in the scored set, whatever the counts."""

CONFIGURATION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$"
"""A configuration's name as its user gives it (gpt4_1106_preview, Qwen1.5-7B-Chat): a label, a file name and a
pytest id alike, so no spaces, slashes or colons."""

ConfigurationName = Annotated[str, Field(pattern=CONFIGURATION_PATTERN, max_length=200)]


MAX_EXPONENT = 100
"""Numbers whose magnitude is beyond 10**+-100 are refused before any exact arithmetic touches them."""
MAX_INTAKE_NUMBER = 1_000_000
"""Upper bound of a capture's cost (USD) and wall-clock minutes: a larger value is a typo, not a run."""


def _exact_number(value: Any) -> Any:
    """Numbers stay exact (Decimal); booleans, strings, non-finite and absurd values are refused cheaply."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise ValueError("must be a number")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        value = Decimal(repr(value))
    elif isinstance(value, int):
        if value.bit_length() > 4 * MAX_EXPONENT:
            raise ValueError(f"is out of range (beyond 10**{MAX_EXPONENT})")
        value = Decimal(value)
    if not value.is_finite():
        raise ValueError("must be a finite number")
    # adjusted() reads the exponent; comparing or converting 1e-99999999 exactly would not return.
    if value and abs(value.adjusted()) > MAX_EXPONENT:
        raise ValueError(f"is out of range (beyond 10**+-{MAX_EXPONENT})")
    return value


ExactNumber = Annotated[Decimal, BeforeValidator(_exact_number)]
NonNegative = Annotated[Decimal, BeforeValidator(_exact_number), Field(ge=0, le=MAX_INTAKE_NUMBER)]


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def default_scored_set() -> dict[str, int | list[str]]:
    """The Ora method's scored set (with ora-1.0 when bundle.yaml gives none): its counts and the two modes it names."""
    return {
        "mode": 60,
        "visual": 21,
        "lens": 115,
        REQUIRED_ENTRIES: ["mode:passion-exploration", "mode:structured-output"],
    }


def default_collisions() -> dict[str, str]:
    """The Ora judging method's collisions (with ora-1.0 when bundle.yaml gives none)."""
    return {"causal-dag": "mode", "fishbone-diagram": "visual"}


class Hypothesis(_Record):
    """A pre-registered comparison (the pilot): configuration `better` beats `worse` by at least `margin`."""

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    better: ConfigurationName
    worse: ConfigurationName
    margin: ExactNumber = Decimal(0)
    """On the overall score's scale; delta >= margin meets it."""
    label: Slug | None = None
    """A short name for the pilot summary's fields (`h2_delta_opus`: id H2, label opus)."""


class VerdictRule(_Record):
    """The pilot verdict: PASS when enough per-entry deltas point the right way."""

    directional_at_least: Annotated[int, Field(ge=0)] | None = None
    """Directional (entry, hypothesis) pairs needed, counted over every hypothesis and entry."""
    per_hypothesis_at_least: Annotated[int, Field(ge=0)] | None = None
    """Instead: entries in which every hypothesis must be directional (the pilot's ">= 2 of 3 tasks" per hypothesis)."""
    no_critical: bool = False
    """Also require that no capture has the rubric's `critical` vote."""

    @model_validator(mode="after")
    def _one_count(self) -> VerdictRule:
        if (self.directional_at_least is None) == (self.per_hypothesis_at_least is None):
            raise ValueError(
                "give exactly one of directional_at_least (over all hypotheses) and per_hypothesis_at_least"
            )
        return self


class PilotCell(_Record):
    """One cell of a pilot: the bundle's configuration that holds its answers, its model and its setting."""

    configuration: Slug
    model: str = Field(min_length=1)
    setting: str = Field(min_length=1)
    """What the cell varies (`solo`, `memory-harness`): the pilot records' `configuration`."""


class Pilot(_Record):
    """bundle.yaml `pilot:` (the trio pilot): its id, manifest anchor, cells and tasks; cells.jsonl and pilot-summary.json."""

    id: str = Field(min_length=1)
    manifest_anchor: str = Field(min_length=1)
    cells: dict[Annotated[str, Field(pattern=r"^[A-Za-z0-9]+$")], PilotCell] = Field(min_length=1)
    tasks: dict[Slug, list[EntryKey]] = Field(min_length=1)
    """Task id -> the entries it is judged on (one record per cell and task; several entries are averaged)."""

    @model_validator(mode="after")
    def _distinct(self) -> Pilot:
        configurations = [cell.configuration for cell in self.cells.values()]
        if len(set(configurations)) != len(configurations):
            raise ValueError("two pilot cells name the same configuration")
        if any(not entries for entries in self.tasks.values()):
            raise ValueError("every pilot task names at least one entry")
        return self


class BundleManifest(_Record):
    """bundle.yaml: the bundle's id and its lanes, in table order."""

    bundle: Slug
    created: dt.date | str
    configurations: list[ConfigurationName] = Field(min_length=1, max_length=MAX_CONFIGURATIONS)
    scored_set: dict[Slug, Annotated[StrictInt, Field(ge=0, le=100_000)] | list[Slug] | list[EntryKey]] | None = None
    """Entries expected in the scored set after collision resolution: per family a count (an integer, never
    true or 2.0) or the techniques; `required: [family:technique, ...]` names entries that must be there.
    Absent: the Ora method's counts and required modes with ora-1.0, no check with other rubrics."""
    collisions: dict[Slug, Slug] | None = None
    """Technique ids present in two families, and the family that keeps each (absent: the Ora judging method's with ora-1.0)."""

    @model_validator(mode="after")
    def _pilot_cells(self) -> BundleManifest:
        if self.pilot is not None:
            unknown = [c.configuration for c in self.pilot.cells.values() if c.configuration not in self.configurations]
            if unknown:
                raise ValueError(f"pilot cells name configurations not in configurations: {', '.join(unknown)}")
        return self

    @model_validator(mode="after")
    def _required_entries(self) -> BundleManifest:
        for family, expected in (self.scored_set or {}).items():
            keyed = isinstance(expected, list) and any(":" in name for name in expected)
            if family == REQUIRED_ENTRIES and not (isinstance(expected, list) and all(":" in n for n in expected)):
                raise ValueError(f"scored_set.{REQUIRED_ENTRIES} must list entry keys (family:technique)")
            if family != REQUIRED_ENTRIES and keyed:
                raise ValueError(f"scored_set.{family} lists techniques without their family (e.g. argument-audit)")
        return self

    rubric: str | None = None
    """The rubric (a built-in id or a path under the bundle) when --ora-rubric does not name one; default ora-1.0."""
    panel: list[str] | None = Field(default=None, min_length=1)
    """optimum.yaml roles judging each capture, in judge-label order A, B, C, ...; default [big-1, big-2]."""
    compare: list[Annotated[list[ConfigurationName], Field(min_length=2, max_length=2)]] | None = None
    """Configuration pairs [A, B] compared head to head (kind compare); --ora-compare overrides."""
    hypotheses: list[Hypothesis] | None = None
    """Pre-registered comparisons between configurations; hypotheses.json."""
    verdict: VerdictRule | None = None
    pilot: Pilot | None = None
    """The trio pilot's cells and tasks: cells.jsonl and pilot-summary.json are written when given."""
    labels: str | None = Field(default=None, min_length=1)
    """Human labels: a JSONL file inside the bundle; --ora-labels overrides."""
    cluster: str | None = Field(default=None, pattern=r"^(metadata\.)?[A-Za-z_][A-Za-z0-9_-]*$")
    """The capture field (or metadata.<key>) shared by related entries; their statistics are cluster-robust."""
    compare_pairs: list[Annotated[list[ConfigurationName], Field(min_length=2, max_length=2)]] | None = None
    """Configuration pairs [A, B] the statistics compare (default: every pair up to 8 configurations)."""
    judge_samples: int | None = Field(default=None, ge=1, le=100)
    """Judgments per judge and capture, each its own recorded exchange; --ora-judge-samples overrides. Default 1."""
    reducer: Literal["mean", "median"] | None = None
    """How a judge's samples become its score per criterion; default mean."""
    repeat: int | None = Field(default=None, ge=1, le=100)
    """Answers per candidate and entry, each recorded, capture ids `#1`..`#K`; --ora-repeat overrides. Default 1."""

    candidates: dict[ConfigurationName, CandidateSpec] | None = None
    """Configurations that answer the bundle's entries inside the run: a role, a Python function or a command."""

    @field_validator("candidates")
    @classmethod
    def _known_candidates(
        cls, value: dict[str, CandidateSpec] | None, info: ValidationInfo
    ) -> dict[str, CandidateSpec] | None:
        configurations = info.data.get("configurations") or []
        unknown = sorted(name for name in value or {} if name not in configurations)
        if unknown:
            raise ValueError(f"names {', '.join(unknown)}, not among the configurations ({', '.join(configurations)})")
        return value

    @field_validator("configurations")
    @classmethod
    def _unique(cls, value: list[str]) -> list[str]:
        repeated = sorted(name for name, seen in Counter(value).items() if seen > 1)  # linear, not quadratic
        if repeated:
            raise ValueError(f"lists {', '.join(repeated)} more than once")
        folded: dict[str, int] = {}
        for number, name in enumerate(value, start=1):  # cassettes and packets are files named by configuration
            first = folded.setdefault(name.casefold(), number)
            if first != number:
                raise ValueError(
                    f"names {first} and {number} differ only in case: each configuration needs files "
                    "of its own, and some file systems do not tell such names apart"
                )
        return value

    @field_validator("panel")
    @classmethod
    def _distinct(cls, value: list[str] | None) -> list[str] | None:
        repeated = sorted({name for name in value or [] if (value or []).count(name) > 1})
        if repeated:
            raise ValueError(f"names role {', '.join(repeated)} more than once: each judge is a different role")
        return value


class RoleSpec(_Record):
    """One role of the frozen Optimum configuration: which model, where, with which key."""

    model: str = Field(min_length=1)
    provider: Provider
    route: str = Field(pattern=r"^https?://[^\s]+$")
    """The full endpoint URL; always honoured, loopback included."""
    api_key_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """The environment variable holding the key; default by provider."""
    api_token_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """azure-openai and vertex: the variable holding a bearer token (Microsoft Entra ID, a Google access
    token), sent as `Authorization: Bearer` instead of an api-key header or Application Default Credentials."""
    thinking_budget: int | None = Field(default=None, ge=1024)
    """Claude's extended thinking (anthropic, Claude on vertex or bedrock): the thinking token budget, on top of the
    reply's own tokens; the reply schema then travels as structured output, not as a forced tool."""
    max_input_tokens: int | None = Field(default=None, gt=0)
    """The judge model's context window; larger packets are unscorable, never sent (default by model)."""

    @field_validator("route")
    @classmethod
    def _usable_url(cls, value: str) -> str:
        try:
            parts = urlsplit(value)
            port = parts.port  # raises for a port out of 0-65535 or not a number
        except ValueError as error:
            raise ValueError(f"is not a usable URL ({error})") from None
        if not parts.hostname or port == 0:
            raise ValueError("is not a usable URL (no host, or port 0)")
        return value


class OptimumSnapshot(_Record):
    """optimum.yaml: the frozen Optimum role map the judges are taken from."""

    model_config = ConfigDict(extra="allow", frozen=True)

    snapshot: str | None = Field(default=None, min_length=1)
    """Required by ora-1.0 (the Ora judging method's frozen Optimum); optional with any other rubric."""
    frozen_at: dt.datetime | dt.date | str | None = None
    """Required by ora-1.0, like snapshot."""
    roles: dict[str, RoleSpec]


class Acceptance(_Record):
    """The capture framework's acceptance gate for one capture."""

    model_config = ConfigDict(extra="allow", frozen=True)

    passed: StrictBool
    """true or false only: "no" or 1 is refused, never read as a boolean."""
    reason: str | None = None
    """Why a capture failed the gate: fallback, wrong-model, private-context, prompt-drift, ..."""
    notes: str = ""


class GoldStandard(_Record):
    """A capture's gold standard: an expert response, the score it earned, optional notes."""

    response: str = Field(min_length=1)
    score: ExactNumber
    notes: str | None = None


ItemId = Annotated[str, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.:-]*$")]


class ChecklistIssue(_Record):
    """An expected finding: its id, its severity (critical, high, medium, low or any category), what it is."""

    id: ItemId
    severity: Annotated[str, Field(pattern=r"^[a-z][a-z0-9_-]*$")]
    description: str = Field(min_length=1)


class ChecklistBonus(_Record):
    """An extra-credit item: answered per id like an issue, reported, outside recall."""

    id: ItemId
    description: str = Field(min_length=1)


class Checklist(_Record):
    """A capture's checklist of expected findings (checklist v2)."""

    issues: list[ChecklistIssue] = Field(min_length=1)
    bonus: list[ChecklistBonus] = Field(default_factory=list)

    @model_validator(mode="after")
    def _distinct(self) -> Checklist:
        ids = [item.id for item in self.issues] + [item.id for item in self.bonus]
        repeated = sorted({name for name in ids if ids.count(name) > 1})
        if repeated:
            raise ValueError(f"repeats the id {', '.join(repeated)}: every issue and bonus id must be unique")
        return self

    @property
    def ids(self) -> tuple[str, ...]:
        """Every listed id, issues first, in the order given."""
        return tuple(item.id for item in self.issues) + tuple(item.id for item in self.bonus)


class BehaviorItem(_Record):
    """A behaviour a good answer demonstrates (the judge skill's SM scenarios): its id, category, what it is."""

    id: ItemId
    category: str = ""
    description: str = Field(min_length=1)


class Behaviors(_Record):
    """A capture's behaviour checklist: baseline criteria and bonus behaviours (kind behavior)."""

    criteria: list[BehaviorItem] = Field(min_length=1)
    bonus: list[BehaviorItem] = Field(default_factory=list)

    @model_validator(mode="after")
    def _distinct(self) -> Behaviors:
        ids = [item.id for item in self.criteria] + [item.id for item in self.bonus]
        repeated = sorted({name for name in ids if ids.count(name) > 1})
        if repeated:
            raise ValueError(f"repeats the id {', '.join(repeated)}: every criterion and bonus id must be unique")
        return self


class Chain(_Record):
    """A relay chain's four answers (kind coherence, the judge skill): SM, TEA, Dev, Reviewer."""

    sm: str
    tea: str
    dev: str
    reviewer: str


class PhaseScores(_Record):
    """The chain's four phase scores (each phase rubric's overall, 0-100), when the bundle holds them."""

    sm: NonNegative
    tea: NonNegative
    dev: NonNegative
    reviewer: NonNegative


class Capture(_Record):
    """One line of captures.jsonl: one configuration's answer to one entry's prompt."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    entry_key: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*:[a-z0-9][a-z0-9-]*$")
    """family:technique (with ora-1.0 the family is mode, visual or lens)."""
    configuration: ConfigurationName
    prompt: str
    answer: Annotated[
        str,
        WithJsonSchema(
            {
                "anyOf": [
                    {"type": "string"},
                    {
                        "type": "array",
                        "minItems": 1,
                        "items": {
                            "type": "object",
                            "additionalProperties": False,
                            "required": ["role", "content"],
                            "properties": {
                                "role": {"enum": ["system", "user", "assistant", "tool"]},
                                "content": {"type": "string"},
                            },
                        },
                    },
                ],
                "description": "The answer: a text, or a transcript (a list of {role, content} turns).",
            }
        ),
    ]
    target: str | None = None
    """Intended mode, visual route or lens host."""
    spec: str | None = Field(default=None, min_length=1)
    """Path of the technique specification under the bundle; default specs/<family>/<technique>.md."""
    visual_artifact: str | None = Field(default=None, min_length=1)
    """Path of the visual artifact under the bundle; null means text-only."""
    model_snapshot: dict[str, str] = Field(default_factory=dict)
    """Role -> model id used by this configuration."""
    acceptance: Acceptance = Acceptance(passed=True)
    """Required by ora-1.0 (the Ora judging method's acceptance gate, checked at intake); {passed: true} otherwise."""
    cost_usd: NonNegative | None = None
    wall_clock_minutes: NonNegative | None = None
    context: str | None = None
    """Text shown to the judge beside the prompt: materials, code under review."""
    reference: str | None = None
    """A reference answer shown to the judge in its own section (what a good answer covers)."""
    gold_standard: GoldStandard | None = None
    """An expert response and its score: a calibration anchor in the packet (the judge skill)."""
    checklist: Checklist | None = None
    """Expected findings with severities (kind: checklist)."""
    behaviors: Behaviors | None = None
    """Behaviours to demonstrate (kind: behavior)."""
    chain: Chain | None = None
    """A relay chain's four answers (kind: coherence)."""
    phase_scores: PhaseScores | None = None
    """The chain's phase scores (0-100); kind coherence multiplies their mean by the chain's multiplier."""
    metadata: dict[str, Any] | None = None
    """Anything else an imported row carried (python -m pytest_ora init --from), or free-form facts about the capture
    (bundle.yaml `cluster: metadata.<key>` can name one): kept, never judged."""
    evidence: dict[str, Any] | None = None
    """Machine-written evidence (telemetry, closure metrics, ...) that scorecard axes grade."""
    messages: list[Turn] | None = None
    """The conversation a candidate answers instead of the prompt alone (entries.jsonl `messages`)."""
    candidate_model: str | None = None
    """The model (or function, or command) that made the answer inside the run."""
    candidate_latency_ms: Annotated[int, Field(ge=0)] | None = None
    candidate_tokens_in: Annotated[int, Field(ge=0)] | None = None
    candidate_tokens_out: Annotated[int, Field(ge=0)] | None = None
    candidate_cost_usd: NonNegative | None = None
    generated_at: str | None = None
    """When the answer was made (UTC, ISO 8601), as recorded."""
    repeat: Annotated[int, Field(ge=1)] | None = None
    """With repeated answers (--ora-repeat K, bundle.yaml `repeat:`): which of the candidate's K answers (1..K); the
    capture id ends in `#<repeat>`."""
    transcript: list[Turn] | None = None
    """The answer as a conversation (an agent's trace): the turns given as `answer`; `answer` then holds them as one
    text, turn by turn (written back as the list of turns)."""

    @model_validator(mode="before")
    @classmethod
    def _transcript_answer(cls, data: Any) -> Any:
        """An answer given as a list of {role, content} turns is a transcript (a bad turn is the answer's error)."""
        if isinstance(data, dict) and isinstance(data.get("answer"), list):
            try:
                turns = transcript_of(data["answer"])
            except TranscriptError:
                return data  # the answer's own validator names the turn and the field
            return {**data, "answer": transcript_text(turns), "transcript": turns}
        return data

    @field_validator("answer", mode="before")
    @classmethod
    def _answer_text(cls, value: Any) -> Any:
        if isinstance(value, list):
            transcript_of(value)  # raises, naming the turn: a valid list became a transcript before
        return value

    @model_validator(mode="after")
    def _transcript_is_answer(self) -> Capture:
        if self.transcript is not None and self.answer != transcript_text(self.transcript):
            raise ValueError("transcript is given as `answer` (a list of {role, content} turns), never beside it")
        return self

    @property
    def family(self) -> str:
        return self.entry_key.partition(":")[0]

    @property
    def technique(self) -> str:
        return self.entry_key.partition(":")[2]

    @property
    def capture_id(self) -> str:
        return f"{self.entry_key}/{self.configuration}" + ("" if self.repeat is None else f"#{self.repeat}")

    @property
    def spec_path(self) -> str:
        return self.spec or f"specs/{self.family}/{self.technique}.md"

    @property
    def host_spec_path(self) -> str | None:
        """A lens's host mode specification (its `target`, a mode slug), specs/mode/<target>.md; None otherwise."""
        if self.family != "lens" or self.target is None:
            return None
        return f"specs/mode/{self.target.removeprefix('mode:')}.md"


class JudgeReply(BaseModel):
    """A judge's reply object: the Ora judging method's reply schema, criteria taken from the rubric."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    entry_key: str
    configuration: str
    judge_model: str
    scores: dict[str, ExactNumber]
    notes: dict[str, str]
    impression: str
    rationale: str | None = None
    """Its lowest dimension in 1-2 sentences (a rubric with `judge_verdict: true`, the trio rubric 1.1)."""
    overall_verdict: str | None = None
    """The verdict band the judge states (a rubric with `judge_verdict: true`); pytest-ora computes its own."""

    @model_validator(mode="before")
    @classmethod
    def _object(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueError("the reply must be a JSON object")
        return value


def capture_json_schema() -> dict[str, Any]:
    """JSON Schema of one captures.jsonl line, for bundle producers."""
    return Capture.model_json_schema(mode="validation")


Status = Literal["scored", "excluded", "unscorable", "error", "budget"]
"""budget: not started because the run's judge spend reached --ora-budget-usd."""


class JudgeColumn(BaseModel):
    """One judge's part of a ledger row."""

    model_config = ConfigDict(frozen=True)

    role: str
    model: str
    """The model id the role names (the provider may report a dated snapshot: resolved_model)."""
    resolved_model: str | None = None
    scores: dict[str, float]
    notes: dict[str, str]
    impression: str
    asks: int = 1
    """How many times the judge was asked; more than 1 means re-asks after invalid replies."""


class PanelJudge(BaseModel):
    """One judge of the panel in a ledger row's `judges` list, panel order."""

    model_config = ConfigDict(frozen=True)

    label: str
    """A, B, C, ... in panel order."""
    role: str
    model: str
    scores: dict[str, float]
    notes: dict[str, str]
    impression: str
    overall: float
    """This judge's own overall: the rubric's formula over its scores alone (votes count these)."""
    samples: list[dict[str, float]] | None = None
    """With judge samples (K > 1): each sample's scores, sample order (`scores` is their reduction); absent otherwise."""

    @model_serializer(mode="wrap")
    def _without_absent_samples(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("samples") is None:
            data.pop("samples", None)  # a run without judge samples writes the ledger it always did
        return data
