"""How far a BM25 delta's borrowed statistics move rankings from a whole build: SciFact, in process.

Not a test. The corpus (one chunk per abstract, title and text as kgrag indexes them) is split by a seeded
shuffle into a base and a delta of each share; the delta is scored with the base's statistics
(retrieval/bm25_delta.py) and searched beside it. Against a whole build of the same corpus it reports,
per share: nDCG@10 on the test qrels for both, and the mean overlap of their top 10. The default
``retrieval.bm25_delta_max_share`` (compaction past it) bounds the share a replica ever serves.

    python bench/bm25_delta.py --data ../shared/data/scifact --out bench/BM25_DELTA.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from kgrag.core.settings import RetrievalSettings
from kgrag.eval.metrics import ndcg_at
from kgrag.retrieval.bm25 import index_from_tokens, index_text, tokenize
from kgrag.retrieval.bm25_delta import base_statistics, delta_from_tokens

SHARES = (0.01, 0.05, 0.1, 0.2)
SEED = 7


def load(data: Path) -> tuple[list[str], list[list[str]], dict[str, str], dict[str, set[str]]]:
    ids, corpus = [], []
    for part in sorted(data.glob("corpus*.jsonl")):
        for line in part.open(encoding="utf-8"):
            doc = json.loads(line)
            ids.append(doc["_id"])
            corpus.append(tokenize(index_text(doc.get("title", ""), doc["text"])))
    qrels: dict[str, set[str]] = defaultdict(set)
    for line in (data / "qrels" / "test.tsv").read_text().splitlines()[1:]:
        qid, did, score = line.split("\t")
        if int(score) > 0:
            qrels[qid].add(did)
    queries = {q["_id"]: q["text"] for q in map(json.loads, (data / "queries.jsonl").open()) if q["_id"] in qrels}
    return ids, corpus, queries, qrels


def run(data: Path) -> dict[str, Any]:
    ids, corpus, queries, qrels = load(data)
    settings = RetrievalSettings()
    rows = np.arange(len(ids))
    whole = index_from_tokens(corpus, rows, rows, version=1, settings=settings)
    tokens = {q: tokenize(text) for q, text in queries.items()}

    def ranked(index: Any, q: str) -> list[str]:
        return [ids[c] for c, _ in index.search(tokens[q], 10)]

    whole_ranked = {q: ranked(whole, q) for q in queries}
    out: dict[str, Any] = {"documents": len(ids), "queries": len(queries), "seed": SEED, "shares": {},
                           "whole_ndcg10": round(float(np.mean([ndcg_at(whole_ranked[q], qrels[q])
                                                                for q in queries])), 4)}
    order = list(rows)
    random.Random(SEED).shuffle(order)
    for share in SHARES:
        cut = len(order) - round(share * len(order))
        base_rows, delta_rows = sorted(order[:cut]), sorted(order[cut:])
        base = index_from_tokens([corpus[r] for r in base_rows], base_rows, base_rows, version=1, settings=settings)
        t0 = time.perf_counter()
        stats = base_statistics(base)
        assert stats is not None
        delta = delta_from_tokens([corpus[r] for r in delta_rows], delta_rows, delta_rows, base=base, stats=stats,
                                  version=2, dropped=np.zeros(0, dtype=np.int64))
        built = time.perf_counter() - t0
        served = base.with_delta(delta)
        got = {q: ranked(served, q) for q in queries}
        out["shares"][str(share)] = {
            "delta_documents": len(delta_rows), "delta_build_s": round(built, 3),
            "ndcg10": round(float(np.mean([ndcg_at(got[q], qrels[q]) for q in queries])), 4),
            "top10_overlap": round(float(np.mean([len(set(got[q]) & set(whole_ranked[q])) / max(1, len(
                whole_ranked[q])) for q in queries])), 4),
            "identical_top10": round(float(np.mean([got[q] == whole_ranked[q] for q in queries])), 4),
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "BM25_DELTA.json")
    args = ap.parse_args()
    result = run(args.data)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
