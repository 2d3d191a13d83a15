"""Memory under distinct answered questions, in-process: a leak, or allocator growth?

    python bench/answer_memory.py --requests 400 --threads 8
    python bench/answer_memory.py --requests 500 --threads 1

Ingests examples/ into a temporary embedded database, warms up, then answers distinct questions
(bench/soak.py's distinct_question; extractive answers, dense + BM25) on --threads threads. It
reports RSS after the warm-up, every fifth of the run, at the end, and after glibc's
malloc_trim(0), plus the Python heap's growth (tracemalloc). Growth that malloc_trim gives back
while the Python heap stays flat is allocator retention (per-thread arenas), not a leak.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

import psutil  # noqa: E402
from kgrag.core.runtime import Runtime  # noqa: E402
from kgrag.core.settings import AnswerSettings, RerankSettings, RetrievalSettings, Settings  # noqa: E402
from kgrag.ingest.pipeline import Ingestor  # noqa: E402
from kgrag.retrieval.answer import make_answerer  # noqa: E402
from kgrag.retrieval.answer.grounded import gate, grounded_answer  # noqa: E402
from kgrag.retrieval.pipeline import build_pipeline  # noqa: E402
from soak import distinct_question  # noqa: E402


def run(requests: int, threads: int) -> dict[str, object]:
    proc = psutil.Process()

    def rss() -> float:
        return round(proc.memory_info().rss / 2**20, 1)

    with tempfile.TemporaryDirectory() as home:
        s = Settings(_env_file=None, home=Path(home), rerank=RerankSettings(enabled=False),
                     retrieval=RetrievalSettings(signals=("dense", "bm25")),
                     answer=AnswerSettings(backend="extractive"))
        with Runtime(s) as rt:
            embedder = rt.checked_embedder()
            Ingestor(rt.store, embedder, s.chunking, s.embedding).ingest_paths([REPO / "examples"])
            answerer = make_answerer(s.answer, embedder=embedder)
            with build_pipeline(rt, builder=True) as pipeline, ThreadPoolExecutor(threads) as pool:
                def one(i: int) -> None:
                    result = pipeline.run(distinct_question(i), rerank=False)
                    grounded_answer(result, gate(result, s), answerer, s)

                list(pool.map(one, range(10 * threads)))  # warm every thread
                gc.collect()
                base = rss()
                tracemalloc.start()
                before = tracemalloc.take_snapshot()
                t0 = time.perf_counter()
                samples = []
                first = 10 * threads
                for k in range(5):
                    list(pool.map(one, range(first + k * requests // 5, first + (k + 1) * requests // 5)))
                    samples.append(((k + 1) * requests // 5, rss()))
                gc.collect()
                end = rss()
                after = tracemalloc.take_snapshot()
                python_growth = sum(st.size_diff for st in after.compare_to(before, "filename")) / 2**20
                try:
                    ctypes.CDLL("libc.so.6").malloc_trim(0)
                    trimmed: float | None = rss()
                except (OSError, AttributeError):
                    trimmed = None
    return {"requests": requests, "threads": threads, "seconds": round(time.perf_counter() - t0),
            "rss_after_warmup_mb": base, "rss_end_mb": end, "rss_after_malloc_trim_mb": trimmed,
            "python_heap_growth_mb": round(python_growth, 2), "samples": samples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args()
    print(json.dumps(run(args.requests, args.threads), indent=1))


if __name__ == "__main__":
    main()
