"""Tune and check the graph signal quickly: dense and BM25 lists cached once, graph variants re-run.

`kgrag eval run` is the record (every signal subset, stamped results, README tables). This script
is the workbench behind it: it asks the real dense and BM25 retrievers once per question and caches
their lists, then for each graph variant (settings overrides) runs the real graph retriever and the
real fusion, and prints R@2/R@5 on question ranges (tune on one, report the other), per question
type, and nDCG@10. Nothing here reads passage ids or corpus order: ids only score the result.

    python bench/graph_signal.py --dataset ../shared/data/2wikimultihopqa \\
        --variant base --variant 'title_fusion_weight=2' --split 500
    python bench/graph_signal.py --dataset ../shared/data/scifact --variant base

The dataset must already be ingested and its graph built in KGRAG_HOME/eval/<name> (run
`kgrag eval run --dataset … --limit 1` once).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


def parse_variant(text: str) -> dict[str, Any]:
    """'name' or 'k=v,k=v' over GraphSettings fields (values parsed as JSON where they parse)."""
    if text == "base":
        return {}
    out: dict[str, Any] = {}
    for part in text.split(","):
        key, _, value = part.partition("=")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value.strip()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", type=Path, required=True)
    ap.add_argument("--variant", action="append", default=[], help="'base' or k=v,... over graph settings")
    ap.add_argument("--split", type=int, default=0, help="Report questions [0, split) and [split, end) apart.")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--out", type=Path, default=None, help="Append one JSON line per variant here.")
    args = ap.parse_args()

    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import DatabaseSettings, Settings
    from kgrag.eval.datasets import load_dataset, unit_of_source
    from kgrag.eval.metrics import dedupe, ndcg_at, recall_at
    from kgrag.retrieval.base import Query
    from kgrag.retrieval.bm25 import BM25Retriever
    from kgrag.retrieval.dense import DenseRetriever
    from kgrag.retrieval.fusion import reciprocal_rank_fusion
    from kgrag.retrieval.graph import build_graph_retriever
    from kgrag.retrieval.pipeline import fusion_weights

    ds = load_dataset(args.dataset).subset(args.limit)
    base = Settings()
    settings = base.model_copy(update={"home": base.home / "eval" / ds.name, "database": DatabaseSettings()})
    cache_path = settings.home / "signal_cache.json"
    with Runtime(settings) as rt:
        cache: dict[str, dict[str, list[list[float]]]] = {}
        if cache_path.exists():
            cache = json.loads(cache_path.read_text())
        if cache.get("corpus_version") != rt.store.corpus_version() or len(cache.get("q", {})) < len(ds.questions):
            dense = DenseRetriever(rt.db, rt.checked_embedder, settings.retrieval)
            bm25 = BM25Retriever(rt.store, settings.retrieval, settings.index_dir)
            q: dict[str, Any] = {}
            for item in ds.questions:
                d = dense.retrieve(Query(item.text, k=settings.retrieval.dense_candidates))
                b = bm25.retrieve(Query(item.text, k=settings.retrieval.bm25_candidates))
                q[item.id] = {"dense": [[h.chunk_id, h.score] for h in d.hits],
                              "bm25": [[h.chunk_id, h.score] for h in b.hits]}
            cache = {"corpus_version": rt.store.corpus_version(), "q": q}
            cache_path.write_text(json.dumps(cache))
        unit_of: dict[int, str] = {}
        with rt.db.connection() as conn:
            for cid, source in conn.execute("SELECT c.id, d.source FROM chunks c JOIN documents d "
                                            "ON d.id = c.document_id").fetchall():
                unit_of[int(cid)] = unit_of_source(source)
        from kgrag.core.types import Hit

        for text in args.variant or ["base"]:
            overrides = parse_variant(text)
            graph_settings = settings.graph.model_copy(update=overrides)
            variant_rt_settings = settings.model_copy(update={"graph": graph_settings})
            rt_view = _RuntimeView(rt, variant_rt_settings)
            graph = build_graph_retriever(rt_view)
            rows: dict[str, list[dict[str, float]]] = defaultdict(list)
            t0 = time.perf_counter()
            graph_ms: list[float] = []
            stage_ms: dict[str, list[float]] = defaultdict(list)
            for i, item in enumerate(ds.questions):
                lists: dict[str, list[Hit]] = {
                    s: [Hit(int(c), s, r, float(sc)) for r, (c, sc) in enumerate(cache["q"][item.id][s], 1)]
                    for s in ("dense", "bm25")
                }
                g0 = time.perf_counter()
                res = graph.retrieve(Query(item.text, k=graph_settings.candidates))
                graph_ms.append((time.perf_counter() - g0) * 1000)
                for stage, secs in res.timings.items():
                    stage_ms[stage].append(secs * 1000)
                results = {"graph": res}
                weights = fusion_weights(settings.retrieval.weights, results)
                configs = {"graph": {"graph": list(res.hits)}, "dense+bm25": lists,
                           "dense+bm25+graph": {**lists, "graph": list(res.hits)}}
                part = "all" if not args.split else ("tune" if i < args.split else "held-out")
                for name, ranked in configs.items():
                    fused = reciprocal_rank_fusion(ranked, k=settings.retrieval.rrf_k, weights=weights)
                    units = dedupe(unit_of[h.chunk_id] for h in fused)[:10]
                    rel = set(item.relevant)
                    m = {"R@2": recall_at(units, rel, 2), "R@5": recall_at(units, rel, 5),
                         "nDCG@10": ndcg_at(units, rel, 10)}
                    rows[(name, part)].append(m)
                    if item.kind:
                        rows[(name, f"{part}/{item.kind}")].append(m)
            graph_ms.sort()
            summary = {"variant": text, "overrides": overrides, "dataset": ds.name,
                       "graph_p50_ms": round(graph_ms[len(graph_ms) // 2], 2),
                       "seconds": round(time.perf_counter() - t0, 1), "results": {},
                       "graph_stage_p50_ms": {k: round(sorted(v)[len(v) // 2], 2) for k, v in stage_ms.items()}}
            print(f"== {text}  (graph p50 {summary['graph_p50_ms']} ms {summary['graph_stage_p50_ms']}, "
                  f"{summary['seconds']} s)")
            for (name, part), ms in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
                agg = {k: round(sum(m[k] for m in ms) / len(ms), 4) for k in ms[0]}
                summary["results"][f"{name} | {part}"] = {**agg, "n": len(ms)}
                print(f"  {part:32s} {name:18s} n={len(ms):4d}  R@2 {agg['R@2']:.3f}  R@5 {agg['R@5']:.3f}  "
                      f"nDCG@10 {agg['nDCG@10']:.3f}")
            if args.out:
                with open(args.out, "a") as fh:
                    fh.write(json.dumps(summary) + "\n")


class _RuntimeView:
    """The runtime's resources with another settings object (a variant's graph settings)."""

    def __init__(self, rt: Any, settings: Any) -> None:
        self._rt = rt
        self.settings = settings

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rt, name)


if __name__ == "__main__":
    main()
