"""Profile the full-sample replay at -n 0 with cProfile and attribute the time to components.

Every thread is profiled (profile_all_threads.py): pytest-ora judges on an event loop in a
thread of its own. Time a thread spends blocked (a lock acquire, an idle epoll/select, sleep)
is counted as waiting and left out of the shares, so they are shares of busy time.

Attribution: every function's own time (tottime) is credited to the function itself when it
belongs to a component (pytest-ora, vcrpy, pytest, httpx, pydantic, ...). Time spent in the
standard library or in builtins is credited to the component functions that called it (split
by the callers' cumulative time along the call graph), so `json.loads` under vcrpy counts as
vcrpy's. cProfile inflates call-heavy code, so read shares, not seconds.
"""

from __future__ import annotations

import pstats
import subprocess
import sys
import sysconfig
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

Func = tuple[str, int, str]

_COMPONENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("pytest-ora", ("/pytest_ora/", "/evals/")),
    ("vcrpy", ("/vcr/",)),
    ("pytest", ("/_pytest/", "/pytest/", "/pluggy/", "/xdist/", "/execnet/", "/iniconfig/")),
    ("httpx", ("/httpx/", "/httpcore/", "/h11/", "/anyio/", "/sniffio/", "/certifi/", "/idna/")),
    ("pydantic", ("/pydantic/", "/pydantic_core/")),
    ("pyyaml", ("/yaml/",)),
    ("tabulate", ("/tabulate",)),
)
_STDLIB = (sysconfig.get_paths()["stdlib"].replace("\\", "/").rstrip("/") + "/",)


_WAITING = (
    "<method 'acquire' of '_thread.lock' objects>",
    "<method 'acquire' of '_thread.RLock' objects>",
    "<method 'poll' of 'select.epoll' objects>",
    "<method 'poll' of 'select.poll' objects>",
    "<method 'control' of 'select.kqueue' objects>",
    "<built-in method select.select>",
    "<built-in method time.sleep>",
)
"""Builtins in which a thread waits rather than works."""


def component(func: Func) -> str | None:
    """The component a function belongs to; None for the standard library and builtins."""
    filename = func[0].replace("\\", "/")
    if filename == "~" and func[2] in _WAITING:
        return "waiting"
    for name, markers in _COMPONENTS:
        if any(marker in filename for marker in markers):
            return name
    if filename.startswith(("~", "<")) or (filename.startswith(_STDLIB) and "site-packages" not in filename):
        return None
    return "other" if "site-packages" in filename else None


def attribute(stats: dict[Func, Any]) -> dict[Func, float]:
    """Own time per component function, standard library and builtins beneath it included.

    A non-component function's time goes to its callers in proportion to the cumulative time
    along each call edge, recursively until a component function is reached (call-graph cycles
    are cut where they close). Each function's split is computed once.
    """
    unattributed: Func = ("~", 0, "(no component caller)")
    memo: dict[Func, dict[Func, float]] = {}
    in_progress: set[Func] = set()

    def owners(func: Func) -> dict[Func, float]:
        if component(func) is not None:
            return {func: 1.0}
        if func in memo:
            return memo[func]
        in_progress.add(func)
        callers = stats[func][4] if func in stats else {}
        weights = {caller: edge[3] for caller, edge in callers.items() if caller not in in_progress and edge[3] > 0}
        total = sum(weights.values())
        result: dict[Func, float] = defaultdict(float)
        if total <= 0:
            result[unattributed] = 1.0
        else:
            for caller, weight in weights.items():
                for owner, share in owners(caller).items():
                    result[owner] += share * weight / total
        in_progress.discard(func)
        memo[func] = dict(result)
        return memo[func]

    credit: dict[Func, float] = defaultdict(float)
    for func, (_, _, tottime, _, _) in stats.items():
        if tottime <= 0:
            continue
        for owner, share in owners(func).items():
            credit[owner] += tottime * share
    return credit


def label(func: Func, root: Path) -> str:
    filename, line, name = func
    path = filename.replace("\\", "/")
    for marker in ("/site-packages/", str(root).replace("\\", "/") + "/"):
        if marker in path:
            path = path.split(marker, 1)[1]
            break
    return f"{path}:{line}({name})"


def analyse(profile: Path, root: Path, top: int = 10) -> dict[str, Any]:
    loaded = pstats.Stats(str(profile))
    stats: dict[Func, Any] = loaded.stats  # type: ignore[attr-defined]
    profiled = sum(entry[2] for entry in stats.values())
    credit = attribute(stats)
    by_component: dict[str, float] = defaultdict(float)
    for func, seconds in credit.items():
        by_component[component(func) or "unattributed"] += seconds
    waiting = by_component.pop("waiting", 0.0)
    total = profiled - waiting
    lines = [
        f"Profile of the full-sample replay at -n 0 (cProfile, all threads): {profiled:.1f} s profiled, "
        f"{waiting:.1f} s of it waiting (blocked on a lock or an idle poll), {total:.1f} s busy",
        "",
    ]
    lines.append("Busy time by component (standard library and builtins credited to their component caller):")
    for name, seconds in sorted(by_component.items(), key=lambda item: -item[1]):
        lines.append(f"  {name:<14}{seconds / total:>7.1%}")
    hot: dict[str, list[dict[str, Any]]] = {}
    for name in ("pytest-ora", "vcrpy", "pytest", "httpx", "pydantic"):
        ranked = sorted((f for f in credit if component(f) == name), key=lambda f: -credit[f])[:top]
        hot[name] = [
            {
                "function": label(f, root),
                "own": credit[f] / total,
                "cumulative": stats[f][3] / total,
                "calls": stats[f][1],
            }
            for f in ranked
        ]
        lines += ["", f"{name}: top functions by own time (share of busy time; cumulative share; calls)"]
        lines += [
            f"  {h['own']:>6.1%}  cum {h['cumulative']:>6.1%}  {h['calls']:>8}  {h['function']}" for h in hot[name]
        ]
    cumulative = sorted((f for f in stats if component(f) in ("pytest-ora", "vcrpy")), key=lambda f: -stats[f][3])[
        : top * 2
    ]
    lines += [
        "",
        "pytest-ora and vcrpy functions by cumulative time (share of busy time; calls; includes waits beneath)",
    ]
    lines += [f"  {stats[f][3] / total:>6.1%}  {stats[f][1]:>8}  {label(f, root)}" for f in cumulative]
    return {
        "total": total,
        "waiting": waiting,
        "components": {k: v / total for k, v in by_component.items()},
        "hot": hot,
        "cumulative": [{"function": label(f, root), "cumulative": stats[f][3] / total} for f in cumulative],
        "text": "\n".join(lines),
    }


def profile_replay(root: Path, env: dict[str, str], scratch: Path, extra: list[str] = ()) -> dict[str, Any]:  # type: ignore[assignment]
    """Run `pytest evals/ -n 0` on the sample under cProfile and analyse it."""
    output = scratch / "replay.prof"
    wrapper = Path(__file__).resolve().parent / "profile_all_threads.py"
    command = [
        sys.executable,
        str(wrapper),
        str(output),
        "-m",
        "pytest",
        "evals/",
        "-q",
        "-p",
        "no:cacheprovider",
        *extra,
        "-n",
        "0",
        "--ora-out",
        str(scratch / "profile-out"),
    ]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=False)
    wall = time.perf_counter() - start
    if result.returncode != 0:
        tail = result.stdout.decode(errors="replace").splitlines()[-20:]
        raise RuntimeError("profiled replay failed:\n" + "\n".join(tail))
    analysis = analyse(output, root)
    analysis["wall"] = wall
    analysis["text"] = f"(profiled run: {wall:.1f} s wall)\n" + analysis["text"]
    return analysis


if __name__ == "__main__":
    # python benchmarks/hotspots.py PROFILE: analyse an existing cProfile output
    print(analyse(Path(sys.argv[1]), Path(__file__).resolve().parent.parent)["text"])
