"""`pytest_ora.judge(mode, data, ...)`: one judgment as a function call, the same one the command line makes."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import tempfile
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from ...core.errors import CassetteError, InvalidReplyError, JudgeError, MissingCassette, PacketDrift
from ...judges.panel import Judging
from ...judges.ratelimit import SharedLimiter
from ...method.rubric import get_rubric
from ...method.swebench.detail import detail_path, write_detail
from ...method.swebench.scenario import ScenarioError, find_scenario, read_response
from ...method.swebench.scorers import MODES as DETERMINISTIC
from ..steps.spend import Budget, NotJudged
from .call import Judged, OneCassette, judge_items
from .chosenpanel import panel_note, panel_of
from .data import CompareData, DataError, FileData, PhaseData, parse_data
from .evaluation import evaluate, number
from .items import Item, judgment_of
from .result import JudgmentFailed, JudgmentFailure, JudgmentResult, TokenUsage, timestamp, validate

__all__ = ["DataError", "JudgmentFailed", "JudgmentResult", "judge", "judge_in_run"]

_T = TypeVar("_T")
RECORD = ("none", "once", "all")


def judge(
    mode: str,
    data: Mapping[str, Any],
    judges: Sequence[str] = (),
    cassette: str | os.PathLike[str] | None = None,
    record: str = "once",
    scenarios: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> JudgmentResult:
    """Judge one response (or pair, teams, chain) in a mode of the judge skill; the validated result.

    judges: `LABEL=PROVIDER:MODEL[@ROUTE]` each (default: the rubric's panel_size, one per provider key set). cassette: a
    vcrpy cassette file every exchange is recorded in and replayed from (record none, once or all).
    scenarios: the SWE-bench JSONL file of the swebench and ground-truth modes. DataError for data
    that cannot be judged (a usage error); JudgmentFailed when the judgment fails (never an estimate).
    """
    return judge_in_run(mode, data, judges, cassette, record, scenarios, environ)


def judge_in_run(
    mode: str,
    data: Mapping[str, Any],
    judges: Sequence[str] = (),
    cassette: str | os.PathLike[str] | None = None,
    record: str = "once",
    scenarios: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
    budget: Budget | None = None,
    limiter: SharedLimiter | None = None,
) -> JudgmentResult:
    """`judge`, under a pytest run's judge budget and shared rate limiter (the ora_judge fixture's way)."""
    environ = os.environ if environ is None else environ
    parsed = parse_data(mode, dict(data) if isinstance(data, Mapping) else data)
    started = timestamp()
    if isinstance(parsed, FileData):
        return _deterministic(mode, parsed, scenarios, started)
    if record not in RECORD:
        raise DataError(f"--record takes none, once or all, got {record!r}")
    judgment = judgment_of(mode, parsed)
    rubric = get_rubric(judgment.rubric)
    judging = Judging(panel=panel_of(judges, environ, rubric.panel_size), rubric=rubric, environ=environ)
    library = None if cassette is None else OneCassette(Path(cassette), record, judging.secrets())
    try:
        judged = _paced(judging, judgment.items, library, budget, limiter, record)
    except NotJudged as error:  # the run's budget reached, or a packet over a judge's context window
        reason = error.reason.removeprefix("not judged: ")
        raise JudgmentFailed(JudgmentFailure(mode=mode, error=f"Judge not called: {reason}")) from None
    except InvalidReplyError as error:
        raise JudgmentFailed(JudgmentFailure(mode=mode, error=f"Judge validation failed: {error}")) from None
    except (MissingCassette, PacketDrift) as error:
        raise JudgmentFailed(
            JudgmentFailure(mode=mode, error=f"Judge not called: {_cassette_words(error, Path(str(cassette)))}")
        ) from None
    except CassetteError as error:
        raise JudgmentFailed(JudgmentFailure(mode=mode, error=f"Judge not called: {error}")) from None
    except JudgeError as error:
        raise JudgmentFailed(JudgmentFailure(mode=mode, error=f"Judge failed: {error}")) from None
    names: dict[str, Any] = {}
    if isinstance(parsed, CompareData):
        names["specs"] = tuple(c.spec for c in parsed.contestants)
    if isinstance(parsed, PhaseData):
        names["themes"] = {"team1": parsed.team1.theme, "team2": parsed.team2.theme}
    evaluation, scores, winner, rating = evaluate(mode, judged, rubric, names)
    replies = _replies(judged)
    first = next(iter(replies.values()))[0]
    usage = [judge["usage"] for item in judged for judge in item.record["judges"]]
    evaluation = {
        **evaluation,
        "rubric": {"version": rubric.version, "digest": rubric.digest},
        "items": {item.item.name: item.record["configuration"] for item in judged},
        "panel": panel_note(judging.panel, rubric),
        "replies": replies,
    }
    result = JudgmentResult(
        mode=mode,
        timestamp=started,
        scores={name: number(value) for name, value in scores.items()},
        winner=winner,
        rating=rating,
        token_usage=TokenUsage(
            input=sum(u["input_tokens"] for u in usage), output=sum(u["output_tokens"] for u in usage)
        ),
        response_text=first,
        evaluation=evaluation,
    )
    problem = validate(result, replies, judged=True)
    if problem is not None:
        raise JudgmentFailed(JudgmentFailure(mode=mode, error=f"Judge validation failed: {problem}"))
    return result


def _paced(
    judging: Judging,
    items: Sequence[Item],
    library: OneCassette | None,
    budget: Budget | None,
    limiter: SharedLimiter | None,
    record: str,
) -> list[Judged]:
    """The items judged under the run's limiter, or outside a run under one of the judgment's own (the same pacing
    transport as a live run's, learning from the providers' rate-limit headers and refusals for the call's length)."""
    if limiter is not None or record == "none":  # a replay sends nothing: nothing to pace
        return _run(judge_items(judging, items, library, budget, limiter))
    with tempfile.TemporaryDirectory(prefix="ora-limits-") as directory:
        return _run(judge_items(judging, items, library, budget, SharedLimiter(Path(directory), {})))


def _replies(judged: Sequence[Judged]) -> dict[str, list[str]]:
    """Each judge's reply texts over every item, panel order."""
    replies: dict[str, list[str]] = {}
    for item in judged:
        for label, texts in item.replies.items():
            replies.setdefault(label, []).extend(texts)
    return replies


def _cassette_words(error: MissingCassette | PacketDrift, path: Path) -> str:
    """The cassette error in this call's words (--record, not the pytest option)."""
    if isinstance(error, MissingCassette):
        return f"no recorded judge call in {path}: record it with --record once (the judges' API keys set)"
    return (
        f"the cassette {path} was recorded for other data, judges or rubric than this judgment sends: "
        "re-record with --record all, or judge with the data and judges it was recorded with"
    )


def _deterministic(mode: str, data: FileData, scenarios: str | os.PathLike[str] | None, started: str) -> JudgmentResult:
    if scenarios is None:
        raise DataError(f"mode {mode} needs --scenarios FILE: a JSONL file of SWE-bench instances")
    scorer, prefix = DETERMINISTIC[mode]
    try:
        scenario = find_scenario(Path(scenarios), data.scenario)
        response_file = Path(data.response_file)
        scored = scorer(scenario, read_response(response_file))
    except ScenarioError as error:
        raise DataError(str(error)) from None
    target = detail_path(response_file, prefix)
    detail = {**scored.detail(), "response_file": str(response_file), "scenarios": str(scenarios)}
    write_detail(target, detail)
    result = JudgmentResult(
        mode=mode,
        timestamp=started,
        scores={scenario.instance_id: number(scored.total)},
        token_usage=TokenUsage(input=0, output=0),
        response_text=None,
        evaluation={**detail, "detail_file": str(target)},
    )
    problem = validate(result, {}, judged=False)
    if problem is not None:
        raise JudgmentFailed(JudgmentFailure(mode=mode, error=f"Judge validation failed: {problem}"))
    return result


def _run(coroutine: Coroutine[Any, Any, _T]) -> _T:
    """Run to the end here, or in a thread of its own when this thread already runs an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def result_json(result: JudgmentResult | JudgmentFailure) -> str:
    """The object the command line prints: one JSON object."""
    return json.dumps(result.model_dump(mode="json"), ensure_ascii=False, indent=2)
