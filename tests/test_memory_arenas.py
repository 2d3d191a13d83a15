"""`kgrag serve` caps glibc's malloc arenas (core/memory.py): threads that allocate at once share two."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import ctypes, sys, threading
    from kgrag.core.memory import cap_malloc_arenas
    print(cap_malloc_arenas(int(sys.argv[1])), flush=True)
    start = threading.Barrier(8)
    def churn():
        start.wait()
        for _ in range(20000):
            blocks = [bytearray(4096) for _ in range(8)]
            del blocks
    threads = [threading.Thread(target=churn) for _ in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    ctypes.CDLL(None).malloc_stats()  # one "Arena N:" block per arena, on stderr
""")


def _run(arenas: int, env: dict[str, str]) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", PROGRAM, str(arenas)], capture_output=True, text=True, env=env,
                         timeout=120, check=True)
    return out.stdout.strip(), out.stderr.count("Arena ")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt and malloc_stats")
def test_threads_share_the_capped_arenas_and_an_environment_setting_wins() -> None:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    said, arenas = _run(2, env)
    assert said == "True" and 1 <= arenas <= 2
    assert _run(2, {**env, "MALLOC_ARENA_MAX": "4"})[0] == "False"  # the operator's own setting is left alone
    assert _run(0, env)[0] == "False"
