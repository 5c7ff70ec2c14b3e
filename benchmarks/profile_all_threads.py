"""cProfile every thread of a program, not only the main one, into one pstats file.

    python benchmarks/profile_all_threads.py OUT.prof -m pytest evals/ -n 0 ...

`python -m cProfile` profiles the main thread only. pytest-ora judges on an event loop in a
thread of its own (runner._Loop), so under plain cProfile the main thread shows up as waiting
in `future.result()` and the judging itself is missing. Here every thread started after this
point gets its own profiler; the finished threads' statistics are merged with the main thread's.
"""

from __future__ import annotations

import cProfile
import pstats
import runpy
import sys
import threading


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "-m":
        print(__doc__, file=sys.stderr)
        return 2
    output, module = sys.argv[1], sys.argv[3]
    sys.argv = [module, *sys.argv[4:]]
    finished: list[cProfile.Profile] = []
    lock = threading.Lock()
    original_run = threading.Thread.run

    def profiled_run(self: threading.Thread) -> None:
        profile = cProfile.Profile()
        profile.enable()
        try:
            original_run(self)
        finally:
            profile.disable()
            with lock:
                finished.append(profile)

    threading.Thread.run = profiled_run  # type: ignore[method-assign]
    main_profile = cProfile.Profile()
    code: object = 0
    main_profile.enable()
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as exit:
        code = exit.code
    finally:
        main_profile.disable()
    stats = pstats.Stats(main_profile)
    with lock:
        threads = list(finished)  # threads still running (daemons) are left out: their profilers are live
    for profile in threads:
        stats.add(profile)
    stats.dump_stats(output)
    print(f"profile: main thread + {len(threads)} finished threads -> {output}", file=sys.stderr)
    return code if isinstance(code, int) else (0 if code is None else 1)


if __name__ == "__main__":
    raise SystemExit(main())
