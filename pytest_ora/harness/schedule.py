"""Entry-grouped scheduling under xdist, so an entry's captures are judged close together (a warm prompt cache).

The captures of one entry share their judge requests' prefix (instructions, rubric, technique
specification, prompt; see judges.packet.judge_prompt); a provider's prompt cache lives minutes.
With -n and prompt caching on, xdist's default `load` scheduling hands out items in chunks that
cut entries across workers; this scheduler is xdist's own `loadscope` with the entry as the scope,
so each entry's captures run on one worker, one after another. Node ids are untouched (-k works as
ever) and outputs do not depend on scheduling. An explicit other --dist mode is left alone.
A replay (--ora-record none) sends no request, so it has no cache to warm: it keeps xdist's `load`,
which costs the controller less per report than `loadscope` (that one counts a worker's pending
items over every scope the worker was given, at each report).
"""

from __future__ import annotations

from typing import Any

from ..core.vocabulary import is_live
from .options import Options
from .xdist import scope_scheduler

__all__ = ["entry_scope", "make_scheduler"]


def entry_scope(nodeid: str) -> str:
    """The entry of a capture item's node id (`...[family:technique/configuration]`); else the node id."""
    if not nodeid.endswith("]") or "[" not in nodeid:
        return nodeid
    param = nodeid[nodeid.rindex("[") + 1 : -1]
    entry, slash, _ = param.rpartition("/")
    return f"{nodeid[: nodeid.rindex('[')]}[{entry}]" if slash else nodeid


def make_scheduler(config: Any, log: Any, options: Options) -> Any:
    """The entry scheduler when judges may be called, prompt caching is on and xdist would use `load`; None leaves xdist's choice."""
    if not options.prompt_cache or not is_live(options.record) or config.getvalue("dist") != "load":
        return None
    return scope_scheduler(config, log, entry_scope)
