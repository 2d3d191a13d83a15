"""Query latency while a large document ingests: does one upload stall every other client?

    python bench/ingest_query_latency.py               # a 2 MB document (a minute or two on 2 cores)
    python bench/ingest_query_latency.py --size-mb 50  # the issue's case (long: ~70k chunks to embed)
    python bench/ingest_query_latency.py --one-line    # the text as one line (no paragraph breaks)

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
from kgrag.core.settings import RerankSettings, RetrievalSettings, Settings  # noqa: E402
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
              stop: Callable[[int], bool]) -> list[float]:
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
        n += 1
    return [f.result() for f in futures]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def run(size_mb: float, one_line: bool, idle_queries: int, interval: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(_env_file=None, home=Path(home), rerank=RerankSettings(enabled=False),
                            retrieval=RetrievalSettings(signals=("dense", "bm25")))
        with Runtime(settings) as rt:
            ingestor = Ingestor(rt.store, rt.checked_embedder(), settings.chunking, settings.embedding)
            ingestor.ingest_paths([REPO / "examples"])
            with build_pipeline(rt, builder=True) as pipeline, ThreadPoolExecutor(max_workers=4) as clients:
                ask = lambda q: pipeline.run(q, rerank=False)  # noqa: E731
                for q in QUESTIONS:
                    ask(q)  # warm: model, BM25 index
                idle = open_loop(clients, ask, interval, lambda n: n >= idle_queries)

                text = big_text(int(size_mb * 1024 * 1024), one_line=one_line)
                doc = load_text(text, source="bench:big", title="A large upload")
                done = threading.Event()
                result: dict[str, object] = {}

                def ingest() -> None:
                    t0 = time.perf_counter()
                    report = ingestor.ingest_documents([doc])
                    result.update(chunks=report.chunks_written, ingest_s=round(time.perf_counter() - t0, 1),
                                  stage_s={k: round(v, 2) for k, v in report.stage_seconds.items()})
                    done.set()

                worker = threading.Thread(target=ingest)
                worker.start()
                busy = open_loop(clients, ask, interval, lambda _n: done.is_set())
                worker.join()
    idle_p95, busy_p95 = pct(idle, 0.95), pct(busy, 0.95)
    ratio = busy_p95 / idle_p95 if idle_p95 else float("nan")
    return {
        "document_mb": size_mb, "one_line": one_line, **result,
        "idle": {"queries": len(idle), "p50_ms": round(pct(idle, 0.5) * 1000, 1), "p95_ms": round(idle_p95 * 1000, 1)},
        "during_ingest": {"queries": len(busy), "p50_ms": round(pct(busy, 0.5) * 1000, 1),
                          "p95_ms": round(busy_p95 * 1000, 1), "max_ms": round(max(busy, default=0) * 1000, 1)},
        "p95_ratio": round(ratio, 2),
        "verdict": "ok (busy p95 within 2x idle)" if ratio <= 2 else "over target (busy p95 above 2x idle)",
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        "cores": os.cpu_count(),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-mb", type=float, default=2.0, help="size of the uploaded document (issue: 50)")
    parser.add_argument("--one-line", action="store_true", help="no paragraph breaks in the document")
    parser.add_argument("--idle-queries", type=int, default=60)
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between queries (open loop)")
    args = parser.parse_args()
    print(json.dumps(run(args.size_mb, args.one_line, args.idle_queries, args.interval), indent=2))


if __name__ == "__main__":
    main()
