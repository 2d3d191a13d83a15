"""Soak: concurrent queries and uploads against a real uvicorn server on 127.0.0.1, for a while.

Reports request counts, errors (any 5xx, transport error, or unexpected status) and the server
process's RSS after a warm-up and at the end, so a leak shows as growth. CI runs a short form
(tests/test_api_soak.py); the long form is

    HF_HUB_OFFLINE=1 python bench/soak.py --minutes 5

which serves the API in this process on a free loopback port, over the data home in KGRAG_HOME
(default .kgrag/soak, embedded Postgres) with the settings from the environment.
Every loop is bounded by a deadline and a request cap, and only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

LOOPBACK = "127.0.0.1"
QUESTIONS = [
    "Who designed the flight controller of the Skua drone?",
    "Where is Polar Cells headquartered?",
    "What is the capital of Estonia?",
    "At what temperature does the soak kiln fire glass?",
    "What is the boiling point of mercury?",
]
_SUBJECTS = ["the Skua drone", "Polar Cells", "Tomas Berg", "Lumen Robotics", "Aalto Shipyards", "Marta Kask",
             "the Bergen Marine Institute", "Northwind Dynamics", "Tallinn", "Ingrid Halvorsen", "Samuel Okafor",
             "warehouse automation", "the Kelpie", "the soak kiln"]
_ASKS = ["Who designed {s}, per report {n}?", "Where is {s} based, according to note {n}?",
         "What did {s} do in {y}, item {n}?", "How is {s} connected to {t} in file {n}?",
         "Which company worked with {s} on project {n}?",
         "Tell me about {s} and {t} (case {n})", "When did {s} first appear in record {n} from {y}?"]


def distinct_question(n: int) -> str:
    """The n-th of an effectively endless set of different questions (lengths and words vary).

    Five fixed questions could not show growth that depends on what is asked: every input shape,
    token and cache key repeats after the first round."""
    s, t = _SUBJECTS[n % len(_SUBJECTS)], _SUBJECTS[(n // len(_SUBJECTS) + 3) % len(_SUBJECTS)]
    return _ASKS[(n // 7) % len(_ASKS)].format(s=s, t=t, n=n, y=1900 + n % 120)


UPLOAD_SOURCES = 8
"""Uploads cycle over this many sources, so the corpus stays bounded however long the soak runs."""


@dataclass
class SoakReport:
    seconds: float
    requests: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    rss_after_warmup: int = 0
    rss_end: int = 0
    latencies: dict[str, list[float]] = field(default_factory=dict)

    @property
    def rss_growth(self) -> int:
        return self.rss_end - self.rss_after_warmup

    def summary(self) -> dict[str, Any]:
        def p(values: list[float], q: float) -> float:
            return round(sorted(values)[int(q * (len(values) - 1))], 4) if values else 0.0

        return {
            "seconds": round(self.seconds, 1), "requests": dict(self.requests), "total": sum(self.requests.values()),
            "errors": len(self.errors), "first_errors": self.errors[:5],
            "rss_after_warmup_mb": round(self.rss_after_warmup / 2**20, 1),
            "rss_end_mb": round(self.rss_end / 2**20, 1),
            "rss_growth_mb": round(self.rss_growth / 2**20, 1),
            "p50_s": {k: p(v, 0.5) for k, v in self.latencies.items()},
            "p99_s": {k: p(v, 0.99) for k, v in self.latencies.items()},
        }


def _loopback_only(base_url: str) -> None:
    host = httpx.URL(base_url).host
    if host not in (LOOPBACK, "localhost"):
        raise SystemExit(f"soak targets only {LOOPBACK}, not {host}")


def run_load(base_url: str, *, seconds: float, pid: int, warmup_seconds: float = 5.0, query_threads: int = 4,
             upload_threads: int = 1, max_requests: int = 100_000, api_key: str | None = None) -> SoakReport:
    """Warm up (same mix), sample RSS, then load for ``seconds``; every thread stops at the deadline
    or once ``max_requests`` have been sent in all."""
    _loopback_only(base_url)
    proc = psutil.Process(pid)
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    report = SoakReport(seconds=seconds)
    lock = threading.Lock()
    sent = 0

    def record(kind: str, r: httpx.Response | None, elapsed: float, ok: set[int], error: str = "") -> None:
        nonlocal sent
        with lock:
            sent += 1
            report.requests[kind] += 1
            report.latencies.setdefault(kind, []).append(elapsed)
            if r is None or r.status_code not in ok:
                detail = error or (f"{r.status_code} {r.text[:200]}" if r is not None else "no response")
                report.errors.append(f"{kind}: {detail}")

    def send(client: httpx.Client, kind: str, ok: set[int], method: str, path: str, **kwargs: Any) -> None:
        t0 = time.perf_counter()
        try:
            r = client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            record(kind, None, time.perf_counter() - t0, ok, f"{type(exc).__name__}: {exc}")
            return
        record(kind, r, time.perf_counter() - t0, ok)

    def querier(i: int, deadline: float) -> None:
        with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
            n = i
            while time.monotonic() < deadline and sent < max_requests:
                # Mostly distinct questions with answers on: what real clients send, and what grew RSS.
                q = QUESTIONS[n % len(QUESTIONS)] if n % 10 == 0 else distinct_question(n)
                if n % 5 == 4:
                    t0 = time.perf_counter()
                    try:
                        with client.stream("POST", "/v1/query/stream", json={"question": q}) as r:
                            body = r.read()
                    except httpx.HTTPError as exc:
                        record("stream", None, time.perf_counter() - t0, {200}, f"{type(exc).__name__}: {exc}")
                    else:
                        ok = r.status_code == 200 and b"event: done" in body
                        record("stream", r if ok else None, time.perf_counter() - t0, {200},
                               "" if ok else f"{r.status_code} {body[-200:]!r}")
                else:
                    send(client, "query", {200}, "POST", "/v1/query",
                         json={"question": q, "top_k": 3 + n % 5, "answer": n % 4 != 1})
                if n % 7 == 0:
                    send(client, "list", {200}, "GET", "/v1/documents", params={"limit": 20})
                n += query_threads

    def uploader(i: int, deadline: float) -> None:
        with httpx.Client(base_url=base_url, headers=headers, timeout=60) as client:
            n = i
            while time.monotonic() < deadline and sent < max_requests:
                slot = n % UPLOAD_SOURCES
                text = (f"# Soak note {slot}\n\nThe soak kiln number {slot} fires glass at {1000 + n} degrees. "
                        f"Revision {n} of the note lists the ferry times for harbour {slot}.\n")
                if n % 2:
                    send(client, "upload", {201}, "POST", "/v1/documents",
                          files={"file": (f"soak-{slot}.md", text.encode(), "text/markdown")})
                else:
                    send(client, "upload", {201}, "POST", "/v1/documents",
                         json={"text": text, "title": f"Soak {slot}", "source": f"soak/{slot}"})
                n += upload_threads

    def phase(duration: float) -> None:
        deadline = time.monotonic() + duration
        threads = [threading.Thread(target=querier, args=(i, deadline)) for i in range(query_threads)]
        threads += [threading.Thread(target=uploader, args=(i, deadline)) for i in range(upload_threads)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=duration + 120)
        if any(t.is_alive() for t in threads):
            report.errors.append("a load thread did not stop within two minutes of its deadline")

    phase(warmup_seconds)
    report.requests.clear()
    report.latencies.clear()
    warmup_errors = list(report.errors)
    report.rss_after_warmup = proc.memory_info().rss
    t0 = time.monotonic()
    phase(seconds)
    report.seconds = time.monotonic() - t0
    report.rss_end = proc.memory_info().rss
    report.errors = warmup_errors + report.errors
    return report


def free_port() -> int:
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return int(s.getsockname()[1])


@contextmanager
def serve_in_thread(app: Any, port: int | None = None) -> Iterator[str]:
    """uvicorn on 127.0.0.1 in a daemon thread (lifespan included); yields the base URL."""
    import uvicorn

    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(app, host=LOOPBACK, port=port, log_level="warning", access_log=False,
                                           lifespan="on"))
    thread = threading.Thread(target=server.run, name="soak-uvicorn", daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the soak server did not start")
        time.sleep(0.05)
    try:
        yield f"http://{LOOPBACK}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=60)


def seed(base_url: str, examples: Path, api_key: str | None = None) -> None:
    """The example corpus, uploaded through the API (so the soak needs nothing already stored)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    with httpx.Client(base_url=base_url, headers=headers, timeout=120) as client:
        for path in sorted(examples.iterdir()):
            if path.is_file():
                r = client.post("/v1/documents", files={"file": (path.name, path.read_bytes())})
                if r.status_code != 201:
                    raise RuntimeError(f"seeding {path.name}: {r.status_code} {r.text[:200]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=5.0, help="How long to load after the warm-up.")
    parser.add_argument("--warmup", type=float, default=15.0, help="Seconds of load before RSS is sampled.")
    parser.add_argument("--query-threads", type=int, default=4)
    parser.add_argument("--upload-threads", type=int, default=1)
    parser.add_argument("--max-requests", type=int, default=1_000_000)
    parser.add_argument("--max-growth-mb", type=float, default=100.0, help="Fail when RSS grows more than this.")
    args = parser.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("KGRAG_HOME", ".kgrag/soak")

    from kgrag.api.app import create_app
    from kgrag.core.settings import Settings

    app = create_app(Settings())
    with serve_in_thread(app) as url:
        seed(url, Path(__file__).resolve().parent.parent / "examples")
        report = run_load(url, seconds=args.minutes * 60, pid=os.getpid(), warmup_seconds=args.warmup,
                          query_threads=args.query_threads, upload_threads=args.upload_threads,
                          max_requests=args.max_requests)
    print(json.dumps(report.summary(), indent=2))
    return 0 if not report.errors and report.rss_growth < args.max_growth_mb * 2**20 else 1


if __name__ == "__main__":
    raise SystemExit(main())
