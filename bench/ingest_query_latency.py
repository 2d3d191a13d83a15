"""Query latency while a large document ingests: does one upload stall every other client?

    python bench/ingest_query_latency.py               # a 2 MB document (a minute or two on 2 cores)
    python bench/ingest_query_latency.py --size-mb 50  # the issue's case (long: ~70k chunks to embed)
    python bench/ingest_query_latency.py --one-line    # the text as one line (no paragraph breaks)
    python bench/ingest_query_latency.py --yield-s 0   # ingestion never waits for queries (core/priority.py off)
    python bench/ingest_query_latency.py --nice 0      # ingestion on the queries' model and priority
    python bench/ingest_query_latency.py --size-mb 50 --out bench/out/upload50.json  # also write the JSON
    python bench/harness.py --render bench/REPORT.json --report  # after copying it into REPORT.json's "upload_latency"

A fresh embedded database under a temporary data home gets examples/ (so queries have something
to find); then the same questions are asked in a loop, first with nothing else running (idle
p50/p95), then while one generated document of --size-mb ingests on another thread. Queries go out on a
fixed schedule (--interval) and are timed from when they were due. The target is
a busy p95 within 2x the idle p95; the verdict line says whether this run met it. Queries use the
dense and BM25 signals without rerank, in-process (the HTTP layer adds the same to both phases).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kgrag.core.runtime import Runtime  # noqa: E402
from kgrag.core.settings import IngestSettings, RerankSettings, RetrievalSettings, Settings  # noqa: E402
from kgrag.ingest.loaders import load_text  # noqa: E402
from kgrag.ingest.pipeline import Ingestor  # noqa: E402
from kgrag.retrieval.pipeline import build_pipeline  # noqa: E402

QUESTIONS = [
    "Who founded the company that acquired Lumen Robotics?",
    "Which shipyard built the Kelpie?",
    "Who designed the flight controller of the Skua drone?",
    "Where is the Bergen Marine Institute?",
    "What does Polar Cells make?",
    "Who is Marta Kask?",
]


def big_text(size_bytes: int, *, one_line: bool) -> str:
    """Example prose, numbered so no two paragraphs are equal, repeated to the size."""
    base = [p.strip() for f in sorted((REPO / "examples").glob("*.md")) for p in f.read_text().split("\n\n")
            if p.strip() and not p.startswith("#")]
    parts: list[str] = []
    total, i = 0, 0
    while total < size_bytes:
        para = f"Record {i}. {base[i % len(base)]}"
        parts.append(para)
        total += len(para) + 2
        i += 1
    return (" " if one_line else "\n\n").join(parts)


def open_loop(clients: ThreadPoolExecutor, ask: Callable[[str], object], interval: float,
              stop: Callable[[int], bool], so_far: list[float] | None = None) -> list[float]:
    """Queries sent on a fixed schedule, each timed from when it was due: a client that arrives while
    the model is busy waits, and that wait counts (a closed loop would just send fewer queries)."""
    futures: list[Future[float]] = []
    start = time.perf_counter()
    n = 0
    while not stop(n):
        due = start + n * interval
        time.sleep(max(0.0, due - time.perf_counter()))
        q = QUESTIONS[n % len(QUESTIONS)]
        futures.append(clients.submit(lambda q=q, due=due: (ask(q), time.perf_counter() - due)[1]))
        if so_far is not None:
            futures[-1].add_done_callback(lambda f: so_far.append(f.result()) if not f.exception() else None)
        n += 1
    return [f.result() for f in futures]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


class LoadSampler:
    """The 1-minute load average every ``every`` seconds: the machine is shared, so the figures say how busy it was."""

    def __init__(self, every: float = 30.0) -> None:
        self.every = every
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            self.samples.append((round(time.monotonic() - self._t0, 1), round(os.getloadavg()[0], 2)))
            if self._stop.wait(self.every):
                return

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def between(self, start: float, end: float) -> dict[str, float]:
        values = [v for t, v in self.samples if start <= t <= end] or [v for _t, v in self.samples[-1:]]
        return {"mean": round(sum(values) / len(values), 2), "max": max(values), "samples": len(values)}

    def now(self) -> float:
        return time.monotonic() - self._t0


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def summary(idle: list[float], busy: list[float], result: dict[str, object]) -> dict[str, object]:
    idle_p95, busy_p95 = pct(idle, 0.95), pct(busy, 0.95)
    ratio = busy_p95 / idle_p95 if idle_p95 else float("nan")
    return {
        **result,
        "idle": {"queries": len(idle), "p50_ms": round(pct(idle, 0.5) * 1000, 1), "p95_ms": round(idle_p95 * 1000, 1)},
        "during_ingest": {"queries": len(busy), "p50_ms": round(pct(busy, 0.5) * 1000, 1),
                          "p95_ms": round(busy_p95 * 1000, 1), "max_ms": round(max(busy, default=0) * 1000, 1)},
        "p95_ratio": round(ratio, 2),
        "verdict": "ok (busy p95 within 2x idle)" if ratio <= 2 else "over target (busy p95 above 2x idle)",
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "cores": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def run(size_mb: float, one_line: bool, idle_queries: int, interval: float, yield_s: float, nice: int,
        partial: Callable[[dict[str, object]], None] = lambda _r: None) -> dict[str, object]:
    """``partial`` gets the figures so far every 300 queries of the busy phase (a long run stopped early
    still leaves its numbers, marked incomplete)."""
    load_start = [round(x, 2) for x in os.getloadavg()]
    started = time.strftime("%Y-%m-%d %H:%M:%S %Z")
    with LoadSampler() as loads, tempfile.TemporaryDirectory() as home:
        settings = Settings(_env_file=None, home=Path(home), rerank=RerankSettings(enabled=False),
                            retrieval=RetrievalSettings(signals=("dense", "bm25")),
                            ingest=IngestSettings(yield_to_queries_s=yield_s, embed_nice=nice))
        with Runtime(settings) as rt:
            ingestor = Ingestor.from_runtime(rt)  # as the server's uploads: ingestion's own model instance
            ingestor.ingest_paths([REPO / "examples"])
            with build_pipeline(rt, builder=True) as pipeline, ThreadPoolExecutor(max_workers=4) as clients:
                ask = lambda q: pipeline.run(q, rerank=False)  # noqa: E731
                for q in QUESTIONS:
                    ask(q)  # warm: model, BM25 index
                log("idle phase")
                idle_t0 = loads.now()
                idle = open_loop(clients, ask, interval, lambda n: n >= idle_queries)
                idle_t1 = loads.now()

                busy_so_far: list[float] = []
                text = big_text(int(size_mb * 1024 * 1024), one_line=one_line)
                doc = load_text(text, source="bench:big", title="A large upload")
                done = threading.Event()
                result: dict[str, object] = {"document_mb": size_mb, "one_line": one_line,
                                             "yield_to_queries_s": yield_s, "embed_nice": nice}

                def ingest() -> None:
                    t0 = time.perf_counter()
                    try:
                        report = ingestor.ingest_documents([doc])
                        result.update(chunks=report.chunks_written, ingest_s=round(time.perf_counter() - t0, 1),
                                      stage_s={k: round(v, 2) for k, v in report.stage_seconds.items()})
                    except Exception as exc:  # reported in the JSON; the query loop must still stop
                        result["ingest_error"] = f"{type(exc).__name__}: {exc}"
                    finally:
                        done.set()

                def loads_so_far() -> dict[str, object]:
                    return {"load_average_start": load_start,
                            "load_average_end": [round(x, 2) for x in os.getloadavg()],
                            "load_1m_idle_phase": loads.between(idle_t0, idle_t1),
                            "load_1m_during_ingest": loads.between(idle_t1, loads.now()),
                            "started": started,
                            "command": "python bench/ingest_query_latency.py " + " ".join(sys.argv[1:])}

                worker = threading.Thread(target=ingest)
                log(f"ingesting {len(text) / 2**20:.1f} MB")
                worker.start()

                ingest_t0 = time.perf_counter()

                def busy_stop(n: int) -> bool:
                    if n and n % 300 == 0:
                        log(f"  {n} queries during the ingest")
                        partial({**summary(idle, list(busy_so_far), {**result, "ingest_s_so_far": round(
                            time.perf_counter() - ingest_t0, 1)}), "complete": False, **loads_so_far()})
                    return done.is_set()

                busy = open_loop(clients, ask, interval, busy_stop, busy_so_far)
                worker.join()
                final = {**summary(idle, busy, result), "complete": "ingest_error" not in result, **loads_so_far()}
    return final


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=2.0, help="size of the uploaded document (issue: 50)")
    parser.add_argument("--one-line", action="store_true", help="no paragraph breaks in the document")
    parser.add_argument("--idle-queries", type=int, default=60)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between queries (open loop)")
    parser.add_argument("--yield-s", type=float, default=IngestSettings().yield_to_queries_s,
                        help="KGRAG_INGEST__YIELD_TO_QUERIES_S for the upload (0: it never waits for queries)")
    parser.add_argument("--nice", type=int, default=IngestSettings().embed_nice,
                        help="KGRAG_INGEST__EMBED_NICE for the upload (0: the queries' model and priority)")
    parser.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    args = parser.parse_args()
    def write(result: dict[str, object]) -> None:
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps(result, indent=2) + "\n")

    result = run(args.size_mb, args.one_line, args.idle_queries, args.interval, args.yield_s, args.nice,
                 partial=write)
    print(json.dumps(result, indent=2))
    write(result)


if __name__ == "__main__":
    main()
