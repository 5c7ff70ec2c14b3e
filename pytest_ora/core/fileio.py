"""File permissions: what the user's umask asks for, also for files made with mkstemp."""

from __future__ import annotations

import functools
import os

__all__ = ["file_mode"]


@functools.lru_cache(maxsize=1)
def file_mode() -> int:
    """0o666 less the process umask: what open() would give a new file.

    mkstemp creates its file 0600 whatever the umask; reports and cassettes are shared files
    (a team's CI artifacts), so they get the mode an ordinary write would. Read once: reading
    the umask means setting it, which must not race the writer threads.
    """
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask
