"""Ingestion throughput (chunks/s) and time per stage, on the examples or a slice of a shared corpus.

    python bench/ingest_throughput.py examples
    python bench/ingest_throughput.py scifact --limit 1000
    python bench/ingest_throughput.py 2wiki --limit 1000

Each run uses a fresh embedded database under a temporary data home, so numbers include COPY
into a real PostgreSQL + pgvector with its HNSW index.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.core.types import LoadedDocument
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor, IngestReport

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"


def scifact_docs(limit: int) -> Iterator[LoadedDocument]:
    n = 0
    for part in ("corpus.part1.jsonl", "corpus.part2.jsonl"):
        with open(SHARED / "scifact" / part) as fh:
            for line in fh:
                if n >= limit:
                    return
                row = json.loads(line)
                yield load_text(row["text"], source=f"scifact:{row['_id']}", title=row["title"])
                n += 1


def twowiki_docs(limit: int) -> Iterator[LoadedDocument]:
    rows = json.loads((SHARED / "2wikimultihopqa" / "corpus.json").read_text())
    for i, row in enumerate(rows[:limit]):
        yield load_text(row["text"], source=f"2wiki:{i}", title=row["title"])


def run(dataset: str, limit: int) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(_env_file=None, home=Path(home))
        with Runtime(settings) as rt:
            ingestor = Ingestor(rt.store, rt.checked_embedder(), settings.chunking, settings.embedding)
            t0 = time.perf_counter()
            report: IngestReport
            if dataset == "examples":
                report = ingestor.ingest_paths([REPO / "examples"])
            elif dataset == "scifact":
                report = ingestor.ingest_documents(scifact_docs(limit))
            else:
                report = ingestor.ingest_documents(twowiki_docs(limit))
            wall = time.perf_counter() - t0
    stages = {k: round(v, 3) for k, v in report.stage_seconds.items()}
    return {
        "dataset": dataset, "documents": len(report.added), "chunks": report.chunks_written,
        "failed": len(report.failed), "wall_s": round(wall, 2),
        "chunks_per_s": round(report.chunks_written / wall, 1), "stage_s": stages,
        "share_outside_embedding": round(1 - report.stage_seconds["embed"] / wall, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dataset", choices=["examples", "scifact", "2wiki"])
    parser.add_argument("--limit", type=int, default=1000, help="passages to ingest (shared sets)")
    args = parser.parse_args()
    print(json.dumps(run(args.dataset, args.limit), indent=2))


if __name__ == "__main__":
    main()
