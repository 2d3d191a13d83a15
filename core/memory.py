"""The C allocator's arenas for a long-lived server process.

glibc gives each thread that contends for malloc an arena of its own, up to 8 per core; memory freed in one
arena is not reused by threads of another, so a server answering from many threads keeps more resident
than it uses. Capping the arenas trades a little contention for a lower, steadier RSS
(bench/soak.py measures both). Only `kgrag serve` calls this: short CLI commands gain nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os

log = logging.getLogger(__name__)

M_ARENA_MAX = -8
"""mallopt's parameter number for the arena cap (glibc malloc.h)."""


def cap_malloc_arenas(arenas: int) -> bool:
    """Caps glibc's malloc arenas for threads started from now on; False when nothing was changed (0 asked,
    MALLOC_ARENA_MAX already set in the environment, or a C library without mallopt)."""
    if arenas <= 0 or "MALLOC_ARENA_MAX" in os.environ:
        return False
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        mallopt = getattr(libc, "mallopt", None)
    except OSError:
        mallopt = None
    if mallopt is None:
        return False
    ok = bool(mallopt(M_ARENA_MAX, arenas))
    if not ok:
        log.warning("mallopt(M_ARENA_MAX, %d) was refused; the allocator keeps its default arenas", arenas)
    return ok
