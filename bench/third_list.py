"""Can any third list lift dense+bm25 on this corpus? Graph-shaped candidates, each fused with the real lists.

Not a test. The evidence behind a negative result: on SciFact (single-hop claims, one or two gold
abstracts each, few named entities) the issue asks the graph for +0.01 nDCG@10 over dense+bm25. This
asks the real dense, BM25 and graph retrievers once per question (the configured candidate depths, as
`kgrag eval run` does), then builds each candidate list from the stored chunks with the packaged
models, and fuses it with dense and BM25 by the pipeline's own RRF at several weights:

* ``graph``: the graph retriever's own list (entity links), whatever weight it reported.
* ``sentences``: each chunk's best sentence by cosine to the question (LinearRAG's sentence layer,
  every sentence embedded, not only those naming two entities).
* ``phrases``: noun phrases (spaCy noun chunks, content-word lemmas, their word pairs and head noun)
  the chunk shares with the question, by idf (a concept layer for text without named entities, as
  LazyGraphRAG's noun-phrase graph).
* ``phrase-ppr-dense`` / ``phrase-ppr-fused``: personalized PageRank over the chunk-phrase graph
  whose reset is the dense scores (HippoRAG 2), or the dense+bm25 fused scores, plus the question's
  phrases.
* ``titles``: the document's title embedded, against the question (a document node's own vector).
* ``documents``: documents by the summed fused score of their chunks (home scoring over dense+bm25).

Nothing reads passage ids or corpus order: ids only score the result. Writes one JSON file;
``--report`` renders it as Markdown.

    python bench/third_list.py --dataset ../shared/data/scifact --out bench/THIRD_LIST-scifact.json
    python bench/third_list.py --dataset ../shared/data/2wikimultihopqa --drop-titles --split 500 \\
        --out bench/THIRD_LIST-2wikimultihopqa-no-titles.json
    python bench/third_list.py --report bench/THIRD_LIST-scifact.json \\
        bench/THIRD_LIST-2wikimultihopqa-no-titles.json > bench/THIRD_LIST.md

The dataset must already be ingested and its graph built in KGRAG_HOME/eval/<name> (`kgrag eval run`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

Ranked = list[tuple[int, float]]
"""(chunk id, score), best first."""

HEADER = """# Could a third list lift dense+bm25?

What each graph-shaped candidate list adds to dense and BM25, fused by the pipeline's RRF (the lists are
described in bench/third_list.py). On SciFact the graph's entity list stays at weight 0; on 2Wiki without
titles the graph carries the multi-hop signal (its documents' subjects link), for contrast."""

WEIGHTS = (1.0, 0.5, 0.25)
MAX_PHRASE_SHARE = 0.01
"""A phrase in more than this share of chunks is no bridge (a stopword of the field: "patient", "cell")."""


def sentence_list(question: np.ndarray, vectors: np.ndarray, owner: np.ndarray, chunk_ids: np.ndarray,
                  depth: int) -> Ranked:
    best = np.full(len(chunk_ids), -1.0, dtype=np.float32)
    np.maximum.at(best, owner, vectors @ question)
    top = np.argsort(-best, kind="stable")[:depth]
    return [(int(chunk_ids[t]), float(best[t])) for t in top]


def phrase_units(phrases: Sequence[tuple[str, ...]]) -> set[tuple[str, ...]]:
    """A noun phrase counts as itself, its adjacent word pairs and its head noun."""
    out: set[tuple[str, ...]] = set()
    for p in phrases:
        if len(p) >= 2:
            out.add(p)
        out.update(p[i:i + 2] for i in range(len(p) - 1))
        if p:
            out.add(p[-1:])
    return out


def noun_phrases(doc: Any) -> list[tuple[str, ...]]:
    out = []
    for chunk in doc.noun_chunks:
        words = tuple(t.lemma_.lower() for t in chunk
                      if t.pos_ in ("NOUN", "PROPN", "ADJ", "NUM", "X") and not t.is_stop)
        if words:
            out.append(words)
    return out


class PhraseGraph:
    """Chunks and phrases, joined by idf-weighted mention edges; phrases past ``MAX_PHRASE_SHARE`` dropped."""

    def __init__(self, chunk_phrases: Sequence[set[tuple[str, ...]]]) -> None:
        import scipy.sparse as sp

        self.vocab: dict[tuple[str, ...], int] = {}
        rows, cols = [], []
        for i, units in enumerate(chunk_phrases):
            for u in units:
                rows.append(i)
                cols.append(self.vocab.setdefault(u, len(self.vocab)))
        n = len(chunk_phrases)
        m = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, len(self.vocab)))  # a set per chunk: 0/1
        df = np.asarray(m.sum(0)).ravel()
        self.idf = np.log(n / np.maximum(df, 1)) * ((df >= 2) & (df <= MAX_PHRASE_SHARE * n))
        self.weighted = (m @ sp.diags(self.idf)).tocsr()
        self.chunk_to_phrase = _row_normalised(self.weighted)
        self.phrase_to_chunk = _row_normalised(self.weighted.T.tocsr())

    def question_vector(self, units: set[tuple[str, ...]]) -> np.ndarray:
        v = np.zeros(len(self.vocab))
        for u in units:
            if (j := self.vocab.get(u)) is not None:
                v[j] = self.idf[j]
        return v

    def overlap(self, units: set[tuple[str, ...]], chunk_ids: np.ndarray, depth: int) -> Ranked:
        scores = self.weighted @ self.question_vector(units).astype(bool).astype(float)
        top = [t for t in np.argsort(-scores, kind="stable")[:depth] if scores[t] > 0]
        return [(int(chunk_ids[t]), float(scores[t])) for t in top]

    def ppr(self, chunk_reset: np.ndarray, units: set[tuple[str, ...]], chunk_ids: np.ndarray, depth: int, *,
            damping: float, phrase_share: float, steps: int = 15) -> Ranked:
        phrase_reset = self.question_vector(units)
        if phrase_reset.sum() > 0:
            phrase_reset *= phrase_share * chunk_reset.sum() / phrase_reset.sum()
        total = chunk_reset.sum() + phrase_reset.sum()
        if total <= 0:
            return []
        chunk_reset, phrase_reset = chunk_reset / total, phrase_reset / total
        pc, pp = chunk_reset.copy(), phrase_reset.copy()
        for _ in range(steps):
            pc, pp = ((1 - damping) * chunk_reset + damping * (self.phrase_to_chunk.T @ pp),
                      (1 - damping) * phrase_reset + damping * (self.chunk_to_phrase.T @ pc))
        top = np.argsort(-pc, kind="stable")[:depth]
        return [(int(chunk_ids[t]), float(pc[t])) for t in top if pc[t] > 0]


def _row_normalised(a: Any) -> Any:
    import scipy.sparse as sp

    sums = np.asarray(a.sum(1)).ravel()
    sums[sums == 0] = 1.0
    return (sp.diags(1.0 / sums) @ a).tocsr()


def fuse(lists: dict[str, Ranked], weights: dict[str, float], k: int) -> list[tuple[int, float]]:
    """The pipeline's fusion (retrieval.fusion) on plain (id, score) lists: (chunk id, fused score), best first."""
    from kgrag.core.types import Hit
    from kgrag.retrieval.fusion import reciprocal_rank_fusion

    hits = {s: [Hit(c, s, r, sc) for r, (c, sc) in enumerate(ranked, 1)] for s, ranked in lists.items()}
    return [(h.chunk_id, h.score) for h in reciprocal_rank_fusion(hits, k=k, weights=weights)]


def rrf(lists: dict[str, Ranked], weights: dict[str, float], k: int) -> list[int]:
    return [chunk_id for chunk_id, _ in fuse(lists, weights, k)]


def measure(args: argparse.Namespace) -> dict[str, Any]:
    import spacy
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import DatabaseSettings, Settings
    from kgrag.core.text import split_sentences
    from kgrag.eval.datasets import load_dataset, unit_of_source
    from kgrag.eval.metrics import dedupe, ndcg_at, recall_at
    from kgrag.retrieval.base import Query
    from kgrag.retrieval.bm25 import BM25Retriever
    from kgrag.retrieval.dense import DenseRetriever
    from kgrag.retrieval.graph import build_graph_retriever

    ds = load_dataset(args.dataset, drop_titles=args.drop_titles).subset(args.limit)
    base = Settings()
    settings = base.model_copy(update={"home": base.home / "eval" / ds.name, "database": DatabaseSettings()})
    r = settings.retrieval
    t0 = time.perf_counter()
    with Runtime(settings) as rt:
        dense = DenseRetriever(rt.db, rt.checked_embedder, r)
        bm25 = BM25Retriever(rt.store, r, settings.index_dir)
        graph = build_graph_retriever(rt)
        lists: list[dict[str, Ranked]] = []
        graph_weights: list[float] = []
        for q in ds.questions:
            res = {"dense": dense.retrieve(Query(q.text, k=r.dense_candidates)),
                   "bm25": bm25.retrieve(Query(q.text, k=r.bm25_candidates)),
                   "graph": graph.retrieve(Query(q.text, k=settings.graph.candidates))}
            lists.append({s: [(h.chunk_id, h.score) for h in x.hits] for s, x in res.items()})
            graph_weights.append(res["graph"].weight or 0.0)
        with rt.db.connection() as conn:
            rows = conn.execute("SELECT c.id, c.document_id, c.text, d.source, d.title FROM chunks c "
                                "JOIN documents d ON d.id = c.document_id ORDER BY c.id").fetchall()
        embedder = rt.checked_embedder()
        print(f"lists for {len(ds.questions)} questions, {len(rows):,} chunks: {time.perf_counter() - t0:.0f} s",
              file=sys.stderr)
        chunk_ids = np.array([int(x[0]) for x in rows])
        unit_of = {int(x[0]): unit_of_source(x[3]) for x in rows}
        questions = embedder.encode([q.text for q in ds.questions])

        sentences, owner = [], []
        for i, x in enumerate(rows):
            for s in (s.strip() for s in split_sentences(x[2])):
                if len(s) > 15:
                    sentences.append(s)
                    owner.append(i)
        t1 = time.perf_counter()
        vectors = embedder.encode(sentences, batch_size=64, step=64)  # short texts: batch them (core.models)
        print(f"{len(sentences):,} sentences embedded: {time.perf_counter() - t1:.0f} s", file=sys.stderr)
        first_chunk: dict[int, int] = {}
        for i, x in enumerate(rows):
            first_chunk.setdefault(int(x[1]), i)
        docs = sorted(first_chunk)
        titles = embedder.encode([rows[first_chunk[d]][4] for d in docs])
    owner_a = np.array(owner)

    nlp = spacy.load(settings.graph.spacy_model, disable=["ner"])
    t1 = time.perf_counter()
    chunk_units = [phrase_units(noun_phrases(doc)) for doc in nlp.pipe([x[2] for x in rows], batch_size=64)]
    question_units = [phrase_units(noun_phrases(doc)) for doc in nlp.pipe([q.text for q in ds.questions])]
    print(f"noun phrases parsed: {time.perf_counter() - t1:.0f} s", file=sys.stderr)
    phrases = PhraseGraph(chunk_units)
    column = {int(c): i for i, c in enumerate(chunk_ids)}
    document_of = {int(x[0]): int(x[1]) for x in rows}
    depth = settings.graph.candidates
    n = len(ds.questions)
    base_lists = [{s: lists[i][s] for s in ("dense", "bm25")} for i in range(n)]
    fused_base = [fuse(base_lists[i], {}, r.rrf_k) for i in range(n)]

    def fused_reset(i: int) -> np.ndarray:
        reset = np.zeros(len(chunk_ids))
        for cid, score in fused_base[i]:
            reset[column[cid]] = score
        return reset

    def dense_reset(i: int) -> np.ndarray:
        reset = np.zeros(len(chunk_ids))
        for cid, score in lists[i]["dense"]:
            reset[column[cid]] = max(score, 0.0)
        return reset

    def documents(i: int) -> Ranked:
        """Each document by the summed fused score of its chunks, shown by its best-fused chunk."""
        score: dict[int, float] = defaultdict(float)
        best: dict[int, int] = {}
        for cid, fused in fused_base[i]:
            score[document_of[cid]] += fused
            best.setdefault(document_of[cid], cid)
        order = sorted(score, key=lambda d: (-score[d], best[d]))[:depth]
        return [(best[d], score[d]) for d in order]

    def titles_list(i: int) -> Ranked:
        s = titles @ questions[i]
        return [(int(chunk_ids[first_chunk[docs[t]]]), float(s[t])) for t in np.argsort(-s, kind="stable")[:depth]]

    candidates: dict[str, Callable[[int], Ranked]] = {
        "graph": lambda i: lists[i]["graph"],
        "sentences": lambda i: sentence_list(questions[i], vectors, owner_a, chunk_ids, depth),
        "phrases": lambda i: phrases.overlap(question_units[i], chunk_ids, depth),
        "phrase-ppr-dense": lambda i: phrases.ppr(dense_reset(i), question_units[i], chunk_ids, depth,
                                                  damping=0.5, phrase_share=0.1),
        "phrase-ppr-fused": lambda i: phrases.ppr(fused_reset(i), question_units[i], chunk_ids, depth,
                                                  damping=0.35, phrase_share=0.1),
        "titles": titles_list,
        "documents": documents,
    }
    parts = [("all", range(len(ds.questions)))]
    if args.split:
        parts += [(f"q1-{args.split}", range(min(args.split, len(ds.questions)))),
                  (f"q{args.split + 1}-{len(ds.questions)}", range(args.split, len(ds.questions)))]

    def scores(ranked_ids: Sequence[list[int]]) -> dict[str, dict[str, float]]:
        out = {}
        for part, idx in parts:
            nd, r5 = [], []
            for i in idx:
                units = dedupe(unit_of[c] for c in ranked_ids[i])[:10]
                rel = set(ds.questions[i].relevant)
                nd.append(ndcg_at(units, rel, 10))
                r5.append(recall_at(units, rel, 5))
            out[part] = {"nDCG@10": round(float(np.mean(nd)), 4), "R@5": round(float(np.mean(r5)), 4)}
        return out

    rows_out: list[dict[str, Any]] = []
    for name in ("dense", "bm25"):
        rows_out.append({"list": name, "alone": scores([rrf({name: lists[i][name]}, {}, r.rrf_k) for i in range(n)])})
    rows_out.append({"list": "dense+bm25", "alone": scores([[c for c, _ in fused_base[i]] for i in range(n)])})
    for name, make in candidates.items():
        t1 = time.perf_counter()
        third = [make(i) for i in range(n)]
        row: dict[str, Any] = {"list": name, "fired": sum(1 for x in third if x),
                               "alone": scores([rrf({"x": third[i]}, {}, r.rrf_k) for i in range(n)]),
                               "with_dense_bm25": {}}
        for w in WEIGHTS:
            row["with_dense_bm25"][str(w)] = scores(
                [rrf({**base_lists[i], "x": third[i]}, {"x": w}, r.rrf_k) for i in range(n)])
        print(f"{name}: {time.perf_counter() - t1:.0f} s", file=sys.stderr)
        rows_out.append(row)
    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parent).stdout.strip()
    return {"dataset": ds.name, "questions": n, "chunks": len(chunk_ids), "sentences": len(sentences),
            "graph_weight_above_0": sum(1 for w in graph_weights if w > 0), "weights": list(WEIGHTS),
            "parts": [p for p, _ in parts], "candidates": {"dense": r.dense_candidates, "bm25": r.bm25_candidates,
                                                           "third": depth},
            "commit": commit, "at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "command": "python bench/third_list.py " + " ".join(sys.argv[1:]), "rows": rows_out}


def report(result: dict[str, Any]) -> str:
    part = result["parts"][0]
    base = next(r for r in result["rows"] if r["list"] == "dense+bm25")["alone"][part]["nDCG@10"]
    head = ["list", "fired", "alone nDCG@10"] + [f"+dense+bm25 w={w:g}" for w in result["weights"]]
    lines = [f"**{result['dataset']}**, {result['questions']} questions, {result['chunks']:,} chunks "
             f"({result['sentences']:,} sentences); commit `{result['commit']}`, {result['at']}; "
             f"`{result['command']}`. nDCG@10 ({part}); in brackets, the change against dense+bm25 ({base:.4f}). "
             f"The graph retriever reported a weight above 0 on {result['graph_weight_above_0']} questions.",
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in result["rows"]:
        alone = row["alone"][part]["nDCG@10"]
        fused = [f"{v[part]['nDCG@10']:.4f} ({v[part]['nDCG@10'] - base:+.4f})"
                 for v in row.get("with_dense_bm25", {}).values()]
        cells = [row["list"], str(row.get("fired", "–")), f"{alone:.4f}"] + (fused or ["–"] * len(result["weights"]))
        lines.append("| " + " | ".join(cells) + " |")
    if len(result["parts"]) > 1:  # tune and held-out halves apart, at weight 1
        lines += ["", "| list, +dense+bm25 w=1 | " + " | ".join(result["parts"][1:]) + " |",
                  "|" + "---|" * len(result["parts"])]
        for row in result["rows"]:
            source = row["with_dense_bm25"][str(result["weights"][0])] if "with_dense_bm25" in row else row["alone"]
            name = row["list"] if "with_dense_bm25" in row else f"{row['list']} (alone)"
            lines.append(f"| {name} | " + " | ".join(f"{source[p]['nDCG@10']:.4f}" for p in result["parts"][1:]) + " |")
    lines.append("")
    lines.append("_Generated by `python bench/third_list.py --report FILE…` from the JSON file; do not edit._")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", type=Path, help="a dataset folder already evaluated into KGRAG_HOME/eval/<name>")
    ap.add_argument("--split", type=int, default=0, help="also report questions [0, split) and [split, end) apart")
    ap.add_argument("--limit", type=int, default=None, help="only the first N questions")
    ap.add_argument("--drop-titles", action="store_true",
                    help="the dataset loaded with no titles (its home: KGRAG_HOME/eval/<name>-no-titles)")
    ap.add_argument("--out", type=Path, help="write the results here (JSON)")
    ap.add_argument("--report", type=Path, nargs="+", help="render results files as Markdown and exit")
    args = ap.parse_args()
    if args.report:
        print("\n\n".join([HEADER] + [report(json.loads(f.read_text())) for f in args.report]))
        return
    if not args.dataset:
        ap.error("--dataset is required (or --report FILE)")
    result = measure(args)
    text = json.dumps(result, indent=1)
    if args.out:
        args.out.write_text(text + "\n")
    print(report(result))


if __name__ == "__main__":
    main()
