"""Packet drift said once for the whole run: how many captures, which packet fields, the one command.

Each drifted capture fails with a short pointer; the ora summary carries the explanation and the
command that re-records exactly those captures (new_episodes: nothing else is sent again).
"""

from __future__ import annotations

import re
import shlex
from collections import Counter
from collections.abc import Iterable
from typing import Any

__all__ = ["DRIFT_MARK", "drift_lines", "short_drift"]

DRIFT_MARK = "was recorded for a different packet or judge request than"
CANDIDATE_DRIFT_MARK = "was recorded for a different candidate request than"
"""A candidate's recording (harness/candidates/recording.py) no longer matches what the capture asks it."""
_WHY = re.compile(r"than (?P<id>\S+) sends now \((?P<why>[^)]*)\)")
_FIELDS = re.compile(r"'([^']+)'")
_MAX_K = 8
"""Up to this many drifted captures are named in the command's -k; beyond, --lf selects them."""


def short_drift(capture_id: str, message: str) -> str:
    """The per-item failure text of a drifted capture: the changed fields, and where the fix is said."""
    found = _WHY.search(message)
    why = found.group("why") if found else "the judge request changed"
    what = "candidate request" if CANDIDATE_DRIFT_MARK in message else "judge request"
    return f"{capture_id}: recorded for a different {what} ({why})"  # what to do: once, in the ora summary


def drift_lines(records: Iterable[Any], config: Any) -> list[str]:
    """One summary line (and its command) for every capture whose recording no longer matches its request."""
    drifted: list[str] = []
    fields: Counter[str] = Counter()
    request_only = 0
    for record in records:
        reason = record["reason"] or ""
        if record["status"] != "error" or (DRIFT_MARK not in reason and CANDIDATE_DRIFT_MARK not in reason):
            continue
        drifted.append(record["capture_id"])
        found = _WHY.search(reason)
        why = found.group("why") if found else ""
        names = _FIELDS.findall(why) if "packet field" in why or "candidate field" in why else []
        if names:
            kind = "candidate field" if "candidate field" in why else "packet field"
            fields.update(f"{kind} {name!r}" for name in names)
        else:
            request_only += 1
    if not drifted:
        return []
    total = len(drifted)
    parts = [f"{name} changed" + (f" in {count}" if count != total else "") for name, count in sorted(fields.items())]
    if request_only:
        parts.append(
            "the judge request itself (rubric wording, judge, model or route) changed"
            + (f" in {request_only}" if request_only != total else "")
        )
    args: list[str] = []
    skip = False
    for arg in config.invocation_params.args:
        # The run's own record mode and selection give way to the command's.
        if skip:
            skip = False
        elif arg in ("--ora-record", "-k"):
            skip = True  # its value follows
        elif not arg.startswith(("--ora-record=", "-k=")) and not (arg.startswith("-k") and len(arg) > 2):
            args.append(arg)
    if len(drifted) <= _MAX_K:
        args += ["-k", " or ".join(drifted)]  # capture ids are valid -k expressions
    else:
        args += ["--lf"]
    command = shlex.join(["pytest", *args, "--ora-record", "new_episodes"])
    return [
        f"ora: {total} capture{'s' if total != 1 else ''}: {'; '.join(parts)} since recorded; "
        f"re-record only {'them' if total != 1 else 'it'} (the others replay free) with: {command}",
    ]
