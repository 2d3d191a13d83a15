"""Graph-stage latency at ~100k chunks: the 2Wiki graph file replicated into disjoint copies.

Not a test. Each copy's entity keys get a suffix (so only copy 0 links exactly, while fuzzy
buckets, the sparse matrices and every O(entities) step grow with the copies) and chunk ids an
offset. The replicated graph goes through the builder's last steps (every link sentence embedded, the
arrays written) and is served memory-mapped from them, as a replica serves it. Times the graph stage
(link with spaCy NER, PPR push, chunk scoring, the per-hop sentence weighting from the stored vectors,
explain); the question's own embedding (made once per request and shared with dense) is reported apart;
the retriever adds one corpus-version query (~0.3 ms) on top. ``--no-stored-vectors`` times the
hops as a graph built without vectors serves them (each query embeds up to ``hop_sentences``).

    HF_HUB_OFFLINE=1 python bench/graph_scale.py --graph .kgrag/eval/2wikimultihopqa/graph/graph.json.gz --copies 14 \
        --out bench/GRAPH_SCALE.json   # --no-stored-vectors: GRAPH_SCALE-no-vectors.json; --deleted 100: -deleted
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from kgrag.core.models import load_embedder
from kgrag.core.nlp import load_spacy
from kgrag.core.settings import EmbeddingSettings, GraphSettings
from kgrag.kg import arrays
from kgrag.kg.assemble import from_node_link
from kgrag.kg.build import link_vectors
from kgrag.kg.graphfile import DOCUMENT, DOCUMENT_PREFIX, document_id, document_node, read_data
from kgrag.kg.linking import Linker
from kgrag.kg.liveness import liveness
from kgrag.kg.search import explain, score, weigh_hops
from kgrag.retrieval.graph import SENTENCE_MEMO, SentenceVectors

QUERIES = Path(__file__).resolve().parents[2] / "shared" / "data" / "2wikimultihopqa" / "queries.jsonl"


def replicate(data: dict[str, Any], copies: int) -> dict[str, Any]:
    """Disjoint copies: entity keys and document aliases get a suffix, chunk and document ids an offset."""
    chunk_span = 1 + max((c for n in data["nodes"] for c in [*(c for c, _ in n["chunks"]), *n.get("home", ())]),
                         default=0)
    doc_span = 1 + max((document_id(n["id"]) for n in data["nodes"] if n.get("kind") == DOCUMENT), default=0)

    def node_id(key: str, i: int) -> str:
        if key.startswith(DOCUMENT_PREFIX):
            return document_node(document_id(key) + i * doc_span)
        return key if i == 0 else f"{key} r{i}"

    nodes, edges = [], []
    for i in range(copies):
        suffix = "" if i == 0 else f" r{i}"
        for n in data["nodes"]:
            copy = dict(n, id=node_id(n["id"], i), chunks=[[c + i * chunk_span, k] for c, k in n["chunks"]])
            if n.get("kind") == DOCUMENT:
                copy.update(home=[c + i * chunk_span for c in n["home"]], full_key=n["full_key"] + suffix,
                            aliases=[a + suffix for a in n["aliases"]],
                            alias_df={a + suffix: df for a, df in n.get("alias_df", {}).items()})
            nodes.append(copy)
        for e in data["edges"]:
            edges.append(dict(e, source=node_id(e["source"], i), target=node_id(e["target"], i)))
    return {"graph": data["graph"], "nodes": nodes, "edges": edges}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", type=Path, default=Path("/tmp/kgrag_2wiki/graph/graph.json.gz"))
    ap.add_argument("--copies", type=int, default=14)
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--out", type=Path, help="also write the JSON here, with the command and commit")
    ap.add_argument("--deleted", type=int, default=0,
                    help="delete this many documents (seeded choice) after the build: time kg.liveness, serve with it")
    ap.add_argument("--no-stored-vectors", action="store_true",
                    help="serve the graph without build-time link vectors (queries embed their hop sentences)")
    args = ap.parse_args()
    settings = GraphSettings()
    embedder = load_embedder(EmbeddingSettings())
    t0 = time.perf_counter()
    data = replicate(read_data(args.graph), args.copies)
    parsed = from_node_link(data, path=args.graph, signature=(0, 0, 0),
                            document_edge_weight=settings.document_edge_weight)
    load_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    vectors = None if args.no_stored_vectors else link_vectors(parsed, embedder, Path("/nonexistent"),
                                                                     lambda stage: print(stage, file=sys.stderr))[0]
    vectors_s = time.perf_counter() - t0
    folder = Path(tempfile.mkdtemp(prefix="graph_scale-")) / "arrays"
    arrays.save(parsed, folder, source_sha256="bench", document_edge_weight=settings.document_edge_weight,
                link_vectors=vectors)
    graph = arrays.load(folder, path=args.graph, signature=(0, 0, 0), source_sha256="bench",
                        document_edge_weight=settings.document_edge_weight)
    assert graph is not None
    sentences = len(arrays.link_texts(parsed))
    del parsed
    linker = Linker(load_spacy(settings.spacy_model), labels=settings.entity_labels,
                    fuzzy_threshold=settings.fuzzy_threshold)
    questions = [json.loads(line)["question"] for line in QUERIES.read_text().splitlines()[: args.queries]]
    memo = SentenceVectors(SENTENCE_MEMO, stored=graph.link_vectors)
    live, liveness_s = None, 0.0
    if args.deleted:  # what a replica works out once per delete, then every query applies
        rng = np.random.default_rng(0)
        documents = rng.choice(np.flatnonzero(np.diff(graph.home.indptr) > 0), size=args.deleted, replace=False)
        live_ids = np.delete(graph.chunk_ids, np.unique(graph.home[documents].indices))
        t0 = time.perf_counter()
        live = liveness(graph, live_ids)
        liveness_s = time.perf_counter() - t0

    def similarity_to(question_vector: np.ndarray) -> Any:
        def similarity(sentences: Any) -> np.ndarray:
            return memo.vectors(sentences, embedder.encode) @ question_vector
        return similarity

    stages: dict[str, list[float]] = {"link": [], "traverse": [], "hops": [], "explain": [], "total": [],
                                      "question_embed": []}
    for q in [questions[0], *questions]:  # the first call warms spaCy up and is dropped
        # The question's vector is the request's, made once and shared with dense (retrieval.base.QueryVector);
        # in the pipeline dense embeds it while the graph links, so it is timed apart from the graph stage.
        te = time.perf_counter()
        question_vector = embedder.encode_query(q)
        t0 = time.perf_counter()
        linked = linker.link(q, graph)
        if live is not None:
            linked = [e for e in linked if live.shows(e.index)]
        t1 = time.perf_counter()
        scored = score(graph, linked, traversal=settings.traversal, damping=settings.ppr_damping,
                       hops=settings.hops, limit=settings.candidates * 4, mention_share=settings.mention_share,
                       live=live)
        t2 = time.perf_counter()
        top = scored.chunk_columns[: settings.candidates].tolist()
        weighed = weigh_hops(graph, linked, top, scored.chunk_scores[: settings.candidates].tolist(),
                             similarity_to(question_vector), weight=settings.hop_evidence_weight,
                             limit=settings.hop_sentences, stored=memo.stored)
        t3 = time.perf_counter()
        explain(graph, linked, scored, [c for c, _ in weighed])
        t4 = time.perf_counter()
        for name, secs in (("link", t1 - t0), ("traverse", t2 - t1), ("hops", t3 - t2), ("explain", t4 - t3),
                           ("total", t4 - t0), ("question_embed", t0 - te)):
            stages[name].append(secs * 1000)
    for values in stages.values():
        values.pop(0)
    out = {
        "copies": args.copies, "entities": graph.stats["entities"], "edges": graph.stats["edges"],
        "documents": graph.stats["documents"], "chunks": graph.stats["chunks"], "load_seconds": round(load_s, 1),
        "stored_vectors": not args.no_stored_vectors, "link_sentences": sentences,
        "link_vectors_seconds": round(vectors_s, 1), "deleted_documents": args.deleted,
        "hidden_nodes": int(live.hidden.sum()) if live is not None else 0, "liveness_ms": round(liveness_s * 1000, 1),
        "queries": len(questions),
        "ms": {k: {"p50": round(statistics.median(v), 2), "p95": round(sorted(v)[int(0.95 * (len(v) - 1))], 2)}
               for k, v in stages.items()},
    }
    print(json.dumps(out, indent=2))
    if args.out:
        commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent).stdout.strip()
        stamp = {"command": "python bench/graph_scale.py " + " ".join(sys.argv[1:]), "commit": commit,
                 "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}
        args.out.write_text(json.dumps({**stamp, **out}, indent=2) + "\n")


if __name__ == "__main__":
    main()
