"""The errors pytest-ora raises, each saying what is wrong and how to fix it.

Every exception class of the package is in this tree (tests/unit/core/test_error_tree.py walks the package
and holds it to this list). A class defined outside this module names its module in brackets;
`+ ValueError` marks a second base kept for callers that catch ValueError.

OraError
 ├── IntakeError            the bundle cannot be scored as given (every problem, listed together)
 ├── JudgeError             one capture could not be judged
 │    ├── TransportError    the judge's API failed past the retry bound, or refused the request
 │    ├── InvalidReplyError  the judge's reply broke the reply schema after every re-ask
 │    └── CassetteError     replay could not serve the judge call
 │         ├── MissingCassette  no recorded call for this capture
 │         ├── PacketDrift      a recording exists, but for a different request
 │         └── CorruptCassette  a cassette file is unreadable, or its responses were edited
 ├── UnreachableJudge       a judge failed the reachability check before judging started
 ├── OutputError            the output directory cannot hold the report
 ├── BundleChanged          a capture's line changed after intake (the bundle was edited mid-run)
 ├── RecordingsError (judges.recordings)      the cassettes directory cannot be used for this run as it stands
 ├── BatchResultsError (judges.batch.base)    a provider's batch results cannot be read
 ├── BatchStopped (judges.batch.http)         a batch call failed past the retry bound, or a batch did not end in time
 ├── ScorerError (method.kinds.python.kind)   a scorer that cannot be loaded, raised, or returned an invalid result
 ├── Unknown (method.kinds.advisory.observation)   an advisory reply's value is missing or malformed
 ├── _Missing (method.kinds.scorecard.grade)  a scorecard field is not measured
 ├── _Malformed (method.kinds.scorecard.grade)  a scorecard field has the wrong type
 ├── BaselineError (reports.baseline)         --ora-baseline's run cannot be read
 ├── BaselineDataError (reports.baselinedata)  baseline.json cannot be read as a baseline comparison
 ├── RunFileError (reports.runfile)           run.json cannot be read as a run's data
 ├── StatsFileError (reports.statsdata)       stats.json cannot be read as a run's statistics
 ├── HypothesesFileError (reports.hypothesesdata)  hypotheses.json cannot be read as the run's hypotheses
 ├── TextsFileError (reports.texts)           texts.json cannot be read as the captures' texts
 ├── BadRequest (testing.wire)                the reference judge refuses a request as its provider would
 ├── JudgmentFailed (harness.judgment.result)  one judgment (`judge` command, pytest_ora.judge) failed its validation
 ├── ScenarioError (method.swebench.scenario)  a SWE-bench scenarios or response file cannot be read as given
 ├── CandidateFailure (harness.candidates.answer)  a candidate made no answer (recorded, then skipped)
 ├── AnswerGiven (harness.steps.answer)        a candidate configuration's capture was given an answer to judge
 ├── _Corrupt (judges.cassettes) + ValueError  a cassette's text is not a cassette
 ├── InitError (harness.importrows) + ValueError  `init` cannot write the suite asked for
 ├── DataError (harness.judgment.data) + ValueError  a judgment's --data cannot be judged as given
 ├── VerifyError (reports.renderers) + ValueError  a results directory's data cannot be read
 ├── LabelPageError (reports.labelpage) + ValueError  the labelling page cannot be written as asked
 ├── TranscriptError (core.candidates) + ValueError  an answer given as turns is not a list of {role, content}
 ├── BundlePathError (core.paths) + ValueError  a path the bundle names leads outside it, or is not a regular file
 ├── RubricError (core.rubric) + ValueError     a rubric file is invalid
 ├── PngTextError (core.pngtext) + ValueError   a PNG's text chunks cannot be read
 ├── StrictJsonError (core.strictjson) + ValueError  JSON outside strict JSON (NaN, duplicate keys, ...)
 └── UnsafeWriteError (core.safewrite) + OSError  a file that cannot be written safely (a symbolic link on its way)

Outside the base, because a library's protocol needs its own base class:
 ├── CallTimeout (judges.transport)   an httpx.TimeoutException: the retry loop and httpx read it as one
 ├── ReplyTooLarge (judges.transport)  an httpx.TransportError: retried and reported as a transport failure
 └── NotJudged (harness.steps.spend)  pytest's skip: a capture not sent is a skipped item, not an error
     ├── BudgetReached (harness.steps.spend)  the run's judge spend reached --ora-budget-usd
     ├── OverContextWindow (harness.steps.packets)  the packet is larger than a judge's context window
     ├── CandidateFailed (harness.candidates.answer)  the capture's candidate made no answer: never judged
     ├── Generated (harness.steps.answer)  --ora-generate-only: the answer made and recorded, never judged
     └── NotGenerated (harness.steps.answer)  --ora-generate-only: the bundle's own answer, nothing to make
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from decimal import Decimal

__all__ = [
    "MAX_LISTED",
    "CassetteError",
    "CorruptCassette",
    "IntakeError",
    "InvalidReplyError",
    "JudgeError",
    "MissingCassette",
    "OraError",
    "OutputError",
    "PacketDrift",
    "Problem",
    "TransportError",
    "UnreachableJudge",
    "listed",
    "show_value",
    "utf8_error_at",
]

_VALUE_LIMIT = 160
_SHORT = reprlib.Repr()
# A bad value can be huge (an alias bomb's expansion, a 10**400 integer): its repr is built bounded.
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxtuple, _SHORT.maxset = 3, 8, 8, 8, 8
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 4 * _VALUE_LIMIT, 4 * _VALUE_LIMIT, 60


def show_value(value: object, limit: int = _VALUE_LIMIT) -> str:
    """A short repr of a bad value for a message, cut in the middle when long."""
    if isinstance(value, Decimal):
        text = str(value) if value.is_nan() or abs(value.adjusted()) < 1000 else f"{value:.3e}"
    elif isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 200:
        text = f"<an integer of {len(str(value)) if value.bit_length() < 10000 else 'thousands of'} digits>"
    elif isinstance(value, str) and len(value) > 4 * limit:
        text = repr(value[: 2 * limit]) + " ... " + repr(value[-2 * limit :])
    else:
        text = _SHORT.repr(value)
    if len(text) <= limit:
        return text
    half = (limit - 5) // 2
    return f"{text[:half]} ... {text[-half:]}"


@dataclass(frozen=True)
class Problem:
    """One bad input: where it is, what is wrong, what to do."""

    file: str
    message: str
    line: int | None = None
    capture_id: str | None = None
    field: str | None = None
    value: str | None = None
    fix: str | None = None

    def render(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        parts = [where]
        if self.capture_id:
            parts.append(self.capture_id)
        if self.field:
            parts.append(f"field '{self.field}'")
        head = ": ".join(parts)
        text = f"{head}: {self.message}"
        if self.value is not None:
            text += f" (got {self.value})"
        if self.fix:
            text += f"; {self.fix}"
        return text


class OraError(Exception):
    """Base of every pytest-ora error."""


class IntakeError(OraError):
    """The bundle failed intake; every problem found is listed."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda problem: (problem.file, problem.line or 0))
        count = len(self.problems)
        lines = [f"capture bundle failed intake ({count} problem{'s' if count != 1 else ''}):"]
        lines += listed([problem.render() for problem in self.problems[: MAX_LISTED + 1]], count)
        super().__init__("\n".join(lines))


MAX_LISTED = 50
"""Problems an error lists; the rest are counted (a million bad lines give a message one can read)."""


def listed(problems: list[str], count: int) -> list[str]:
    """The first MAX_LISTED of `count` problems as `  - ` lines, then how many more there are."""
    lines = [f"  - {problem}" for problem in problems[:MAX_LISTED]]
    if count > MAX_LISTED:
        lines.append(
            f"  ... and {count - MAX_LISTED} more problem{'s' if count - MAX_LISTED != 1 else ''} "
            f"(the first {MAX_LISTED} are listed; fix them and run again)"
        )
    return lines


def utf8_error_at(data: bytes, error: UnicodeDecodeError) -> str:
    """Where undecodable bytes are, as a person finds them: `line L, column C (byte B)`."""
    line = data.count(b"\n", 0, error.start) + 1
    column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
    return f"line {line}, column {column} (byte {error.start})"


class JudgeError(OraError):
    """One capture could not be judged; the item fails with this message."""

    def __init__(self, message: str, *, judge: str | None = None, capture_id: str | None = None) -> None:
        self.judge = judge
        self.capture_id = capture_id
        super().__init__(message)


class TransportError(JudgeError):
    """The judge's API failed past the retry bound, or refused the request outright."""

    def __init__(
        self,
        message: str,
        *,
        judge: str | None = None,
        status: int | None = None,
        provider_message: str | None = None,
        attempts: int = 1,
    ) -> None:
        self.status = status
        self.provider_message = provider_message
        self.attempts = attempts
        super().__init__(message, judge=judge)


class InvalidReplyError(JudgeError):
    """The judge's reply broke the reply schema; it is never estimated or clamped."""

    def __init__(self, *, judge: str, field: str, value: str, reason: str, raw: str, asks: int = 1) -> None:
        self.field = field
        self.value = value
        self.reason = reason
        self.raw = raw
        self.asks = asks
        message = (
            f"{judge} gave an invalid reply after {asks} ask{'s' if asks != 1 else ''}: "
            f"field '{field}' {reason} (got {value}). Raw reply: {show_value(raw, 600)}"
        )
        super().__init__(message, judge=judge)


class CassetteError(JudgeError):
    """Replay could not serve a judge call."""


class MissingCassette(CassetteError):
    """No recorded judge call exists for this capture."""


class PacketDrift(CassetteError):
    """A recording exists for this capture, but for a different request."""


class CorruptCassette(CassetteError):
    """A cassette file is not a readable cassette, or its recorded responses were edited."""


class UnreachableJudge(OraError):
    """A judge failed the reachability check; nothing was judged."""


class OutputError(OraError):
    """The output directory cannot hold the report."""


class BundleChanged(OraError):
    """A capture's line of captures.jsonl is no longer the one intake checked (the bundle was edited mid-run)."""
