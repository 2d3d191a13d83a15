"""Eight concurrent 39 MB chat bodies against a real `kgrag serve`: the server's RSS before, at peak, after.

    python bench/body_limits.py          # an embedded database under a temporary home

Issue 28 measured 855 MB -> 7,777 MB before api.max_request_bytes; each body is now refused with 413,
from Content-Length or, sent chunked, once 1 MiB has arrived. Not a test: prints the statuses and RSS.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from replicas import free_port, replica_env  # noqa: E402

BODY = json.dumps({"messages": [{"role": "user", "content": "word " * 200_000}] * 39}).encode()  # 39 MB


def _send(base: str, chunked: bool) -> int | str:
    def pieces() -> Iterator[bytes]:
        for i in range(0, len(BODY), 65536):
            yield BODY[i : i + 65536]

    try:
        return httpx.post(f"{base}/v1/chat/completions", content=pieces() if chunked else BODY,
                          headers={"content-type": "application/json"}, timeout=120).status_code
    except httpx.HTTPError as exc:
        return type(exc).__name__


def main() -> None:
    home = Path(tempfile.mkdtemp(prefix="kgrag-body-limits-"))
    env = {k: v for k, v in replica_env(home, "").items() if k != "KGRAG_DATABASE__URL"}  # embedded database
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "kgrag", "serve", "--port", str(port), "--log-level", "warning"],
                            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        while True:
            try:
                if httpx.get(f"{base}/readyz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.5)
        server = psutil.Process(proc.pid)
        before = peak = server.memory_info().rss
        done = threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, server.memory_info().rss)
                time.sleep(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        print(f"body {len(BODY) / 1e6:.1f} MB, 8 at once")
        for chunked in (False, True):
            with ThreadPoolExecutor(8) as pool:
                statuses = list(pool.map(lambda _, c=chunked: _send(base, c), range(8)))
            print("chunked" if chunked else "content-length", statuses)
        done.set()
        sampler.join()
        after = server.memory_info().rss
        print(f"RSS before {before / 2**20:.0f} MB, peak {peak / 2**20:.0f} MB, after {after / 2**20:.0f} MB")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(60)


if __name__ == "__main__":
    main()
