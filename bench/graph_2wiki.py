"""Graph build cost and retrieval recall on 2WikiMultihopQA (HippoRAG's 1,000-question subset).

Not a test: it ingests 6,119 passages (one document each, titled), builds the graph, then measures
passage Recall@2/@5 for graph alone, dense, BM25, dense+BM25 and dense+BM25+graph (RRF), plus the
graph stage's latency. The data is read from /work/shared and never copied into the repository.

    HF_HUB_OFFLINE=1 python bench/graph_2wiki.py --home /tmp/kgrag_2wiki
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kgrag.core.nlp import load_spacy
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.core.types import Hit, LoadedDocument
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from kgrag.kg.build import build_graph
from kgrag.kg.store import GraphStore
from kgrag.retrieval.base import Query, Retriever
from kgrag.retrieval.bm25 import BM25Retriever
from kgrag.retrieval.dense import DenseRetriever
from kgrag.retrieval.fusion import reciprocal_rank_fusion
from kgrag.retrieval.graph import build_graph_retriever

DATA = Path("/work/shared/data/2wikimultihopqa")
COMBOS: dict[str, tuple[str, ...]] = {
    "graph": ("graph",), "dense": ("dense",), "bm25": ("bm25",),
    "dense+bm25": ("dense", "bm25"), "dense+bm25+graph": ("dense", "bm25", "graph"),
}


def passages(corpus: list[dict[str, str]]) -> Iterator[LoadedDocument]:
    for idx, p in enumerate(corpus):
        yield load_text(p["text"], source=f"2wiki:{idx}", title=p["title"])


def ingest(rt: Runtime, corpus: list[dict[str, str]]) -> dict[str, Any]:
    ingestor = Ingestor(rt.store, rt.checked_embedder(), rt.settings.chunking, rt.settings.embedding)
    t0 = time.perf_counter()
    report = ingestor.ingest_documents(passages(corpus))
    return {"seconds": round(time.perf_counter() - t0, 1), "added": len(report.added),
            "unchanged": len(report.unchanged), "failed": len(report.failed), "chunks_written": report.chunks_written}


def passage_ranking(hits: Sequence[int], passage_of: dict[int, int]) -> list[int]:
    """Chunk ranking → passage ranking (a passage split into chunks counts at its best chunk)."""
    seen: dict[int, None] = {}
    for cid in hits:
        if cid in passage_of:
            seen.setdefault(passage_of[cid], None)
    return list(seen)


def recall(ranked: list[int], gold: set[int], k: int) -> float:
    return len(set(ranked[:k]) & gold) / len(gold)


def evaluate(rt: Runtime, queries: list[dict[str, Any]], k_fuse: int) -> dict[str, Any]:
    s = rt.settings
    retrievers: dict[str, Retriever] = {
        "dense": DenseRetriever(rt.db, rt.checked_embedder, s.retrieval),
        "bm25": BM25Retriever(rt.store, s.retrieval, s.index_dir),
        "graph": build_graph_retriever(rt),
    }
    ks = {"dense": s.retrieval.dense_candidates, "bm25": s.retrieval.bm25_candidates, "graph": s.graph.candidates}
    passage_of = {c.id: int(c.source.split(":", 1)[1]) for c in rt.store.iter_chunks()}
    for name, r in retrievers.items():  # warm up: BM25 index build, spaCy and graph load
        r.retrieve(Query("warm up", k=ks[name]))
    sums = {name: {2: 0.0, 5: 0.0} for name in COMBOS}
    graph_seconds: list[float] = []
    linked = 0
    for q in queries:
        results: dict[str, tuple[Hit, ...]] = {}
        for name, r in retrievers.items():
            t0 = time.perf_counter()
            res = r.retrieve(Query(q["question"], k=ks[name]))
            if name == "graph":
                graph_seconds.append(time.perf_counter() - t0)
                linked += bool(res.explanation.get("linked_entities"))
            results[name] = res.hits
        gold = set(q["gold_passage_idx"])
        for combo, signals in COMBOS.items():
            if len(signals) == 1:
                chunk_ids = [h.chunk_id for h in results[signals[0]]]
            else:
                fused = reciprocal_rank_fusion({sig: results[sig] for sig in signals}, k=k_fuse)
                chunk_ids = [h.chunk_id for h in fused]
            ranked = passage_ranking(chunk_ids, passage_of)
            for k in (2, 5):
                sums[combo][k] += recall(ranked, gold, k)
    n = len(queries)
    graph_ms = sorted(x * 1000 for x in graph_seconds)
    return {
        "queries": n,
        "recall": {c: {"R@2": round(100 * v[2] / n, 1), "R@5": round(100 * v[5] / n, 1)} for c, v in sums.items()},
        "graph_stage_ms": {"p50": round(statistics.median(graph_ms), 2),
                           "p95": round(graph_ms[int(0.95 * (n - 1))], 2), "max": round(graph_ms[-1], 2)},
        "questions_with_linked_entities": linked,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, default=Path("/tmp/kgrag_2wiki"), help="data home (embedded Postgres)")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the graph from scratch")
    ap.add_argument("--queries", type=int, default=0, help="only the first N queries (0: all 1,000)")
    ap.add_argument("--traversal", choices=("ppr", "khop"), default="ppr")
    ap.add_argument("--out", type=Path, default=None, help="write the results as JSON here")
    args = ap.parse_args()

    base = Settings(_env_file=None, home=args.home)
    settings = base.model_copy(update={"graph": base.graph.model_copy(update={"traversal": args.traversal})})
    corpus = json.loads((DATA / "corpus.json").read_text())
    queries = [json.loads(line) for line in (DATA / "queries.jsonl").read_text().splitlines() if line.strip()]
    if args.queries:
        queries = queries[: args.queries]
    out: dict[str, Any] = {"corpus_passages": len(corpus), "traversal": args.traversal}
    with Runtime(settings) as rt:
        stored = len(rt.store.list_documents(limit=len(corpus) + 1))
        # The ingestor embeds before it can tell a document is unchanged: skip a complete corpus.
        out["ingest"] = ingest(rt, corpus) if stored != len(corpus) else {"skipped": f"{stored} documents stored"}
        print("ingest", out["ingest"], flush=True)
        nlp = load_spacy(settings.graph.spacy_model)
        report = build_graph(GraphStore(rt.db), settings.graph, settings.graph_path, nlp, rebuild=args.rebuild,
                             embedder=rt.embedder)
        out["build"] = {"seconds": round(report.seconds, 1), "chunks_processed": report.chunks_processed,
                        "chunks_covered": report.chunks_covered, "entities": report.entities,
                        "relations": report.relations, "edges": report.edges, "file_bytes": report.file_bytes,
                        "rebuilt": report.rebuilt}
        print("build", out["build"], flush=True)
        out["eval"] = evaluate(rt, queries, settings.retrieval.rrf_k)
    print(json.dumps(out, indent=2))
    if args.out:
        args.out.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
