"""The 1M-chunk benchmark (issue 18): build a million-chunk corpus on this machine and measure what a
replica and a builder need at that size against the targets.

    HF_HUB_OFFLINE=1 python bench/scale.py --chunks 1000000 --base .kgrag/eval/scifact .kgrag/eval/2wikimultihopqa \
        --report                                         # `make bench-1m`; hours on 2 cores, mostly the load
    python bench/scale.py --render bench/out/scale.json  # JSON -> Markdown again

Not a test. Writes bench/out/scale.json and its Markdown; ``--report`` copies both to
bench/REPORT-1M.json and bench/REPORT-1M.md (a test checks that the two agree).

How the million chunks are made, so the figures can be read honestly:

* **Base:** every chunk of the ``--base`` data homes (real text of ../shared/data, ingested with
  all-MiniLM-L6-v2, graph rows extracted by the real spaCy build); without ``--base``, bench/harness.py
  builds them from all of ../shared/data. This is the only text that is ever embedded or parsed.
* **Copies**, until ``--chunks``: copy ``c`` of a document is a new document (source
  ``scale/c/<source>``) whose title and chunk texts carry *renamed entities*: an entity renamed in copy
  ``c`` gets a pseudo-word appended ("Lothair II" -> "Lothair II Tavoreki") in the text, in its key and
  in every mention and relation row, so the copy's graph has new nodes and edges, BM25 new terms, and
  the title index new titles. Document titles are always renamed (a million chunks are ~600k different
  documents; one base document titled "in", with no title entity, once stayed the same in every copy,
  and every chunk's "in" then linked to all 54 of them). Other entities are renamed with probability
  ``q``, chosen so the number of distinct entities follows Heaps' law fitted on the base itself
  (distinct entities against chunks, over a seeded shuffle of the base documents): realistic growth, not
  the base's entity set 53 times over nor 53 disjoint copies of it. Vectors are the base chunk's plus
  N(0, 0.01) noise, re-normalised (the issue accepts noisy copies for vectors).
* **Rows:** documents and chunks through core.store.Store.write_document (four writer threads, the HNSW
  index dropped and built once at the end, as for any bulk load); graph rows through
  kg.store.GraphStore.write, one transaction per copy, as a build's batches would. spaCy is not run
  on the copies: the extraction time at 1M is the base's measured rate times the chunks
  (docs/scaling.md's capacity model), not a measurement here.
* **Measured at 1M**, each in its own process so its peak RSS is its own: the graph build (everything
  after extraction: snapshot from SQL, document layer, graph file, arrays, publish), `kgrag index
  build` (BM25), a replica's graph load, in-process retrieval+fusion latency, and an HTTP server's RSS.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import harness  # noqa: E402  (bench/harness.py: settings, queries, latency and HTTP measurement)

OUT = REPO / "bench" / "out"
COPY_NOISE = harness.COPY_NOISE
WRITERS = harness.WRITERS
SHUFFLE_SEED = 18
TARGETS = {  # issue 18, at 1M chunks on this machine
    "retrieval+fusion p50 (1 client)": ("ms", 60.0),
    "serving RSS (HTTP server, peak)": ("MB", 4096.0),
    "graph load into a replica": ("s", 10.0),
    "graph build peak memory": ("MB", 8192.0),
}
FRESHNESS_TARGETS = {  # issue 29, from bench/freshness.py (its own run, merged in with its --report)
    "100 documents added: every signal serves them on a second replica": ("s", 60.0),
    "100 documents added: builder peak RSS": ("MB", 2048.0),
    "100 documents deleted: in no signal's results on either replica": ("s", 5.0),
    "retrieval+fusion p50 with 10 deltas pending": ("ms", 60.0),
    "compaction of 10 deltas: peak RSS": ("MB", 8192.0),
    "compaction: query p95 while it runs, against before": ("x", 1.5),
}
BACKGROUND_TARGETS = {  # issue 45, from bench/freshness.py's step 0 (judged once a run has measured it)
    "100 documents added, no build called: every signal serves them on a second replica": ("s", 60.0),
}
_CONSONANTS = "bdfgklmnprstvz"
_VOWELS = "aeiou"


# -- base --------------------------------------------------------------------------------------------
@dataclass
class BaseDoc:
    source: str
    title: str
    title_key: str | None
    chunks: list[tuple[int, int | None, str, int]] = field(default_factory=list)  # position, page, text, tokens
    vectors: list[Any] = field(default_factory=list)
    mentions: dict[int, list[tuple[str, str, str, int]]] = field(default_factory=dict)  # pos -> key, surface..
    relations: dict[int, list[tuple[str, str, str, int]]] = field(default_factory=dict)  # pos -> src, dst..


def read_base(homes: Sequence[Path]) -> list[BaseDoc]:
    """Every document of the base homes with its chunks, vectors and graph rows."""
    import numpy as np
    from kgrag.core.runtime import Runtime

    docs: list[BaseDoc] = []
    for n, home in enumerate(homes):
        if not (home / "pgdata").is_dir() and not harness.settings_for(home).database.url:
            raise SystemExit(f"no database in {home}: run `make eval` (it ingests SciFact and 2Wiki into "
                             f".kgrag/eval/...) or leave --base out to build a base from ../shared/data")
        with Runtime(harness.settings_for(home)) as rt, rt.db.connection() as conn:
            by_id: dict[int, BaseDoc] = {}
            for did, source, title in conn.execute("SELECT id, source, title FROM documents ORDER BY id"):
                by_id[int(did)] = BaseDoc(f"{n}/{source}", title or "", None)
            for did, pos, page, text, tokens, emb in conn.execute(
                    "SELECT document_id, position, page, text, token_count, embedding FROM chunks"
                    " ORDER BY document_id, position"):
                d = by_id[int(did)]
                d.chunks.append((int(pos), page, text, int(tokens)))
                d.vectors.append(np.asarray(getattr(emb, "to_numpy", lambda e=emb: e)(), dtype=np.float32))
            for did, pos, key, surface, label, count in conn.execute(
                    "SELECT c.document_id, c.position, e.key, m.surface, m.label, m.count FROM kg_mentions m"
                    " JOIN kg_entities e ON e.id = m.entity_id JOIN chunks c ON c.id = m.chunk_id"):
                d = by_id[int(did)]
                d.mentions.setdefault(int(pos), []).append((key, surface, label, int(count)))
                if label == "TITLE":
                    d.title_key = key
            for did, pos, a, b, rel, w in conn.execute(
                    "SELECT c.document_id, c.position, s.key, t.key, r.relation, r.weight FROM kg_relations r"
                    " JOIN kg_entities s ON s.id = r.source_id JOIN kg_entities t ON t.id = r.target_id"
                    " JOIN chunks c ON c.id = r.chunk_id"):
                by_id[int(did)].relations.setdefault(int(pos), []).append((a, b, rel, int(w)))
        if not any(d.mentions for d in by_id.values()):
            raise SystemExit(f"{home} has no graph rows: run `KGRAG_HOME={home} kgrag graph build` first")
        docs += [d for d in by_id.values() if d.chunks]
        harness.log(f"base {home}: {len(by_id)} documents")
    return docs


def title_keys(docs: Sequence[BaseDoc]) -> set[str]:
    return {d.title_key for d in docs if d.title_key}


def heaps_fit(docs: Sequence[BaseDoc], titles: set[str]) -> dict[str, Any]:
    """Distinct non-title entities E against chunks n over a seeded shuffle of the base: E = K n^beta."""
    import numpy as np

    order = np.random.default_rng(SHUFFLE_SEED).permutation(len(docs))
    seen: set[str] = set()
    n = 0
    points: list[tuple[int, int]] = []
    next_mark = 250
    for i in order:
        d = docs[int(i)]
        n += len(d.chunks)
        seen.update(k for ms in d.mentions.values() for k, *_ in ms if k not in titles)
        if n >= next_mark:
            points.append((n, len(seen)))
            next_mark = int(next_mark * 1.25) + 1
    points.append((n, len(seen)))
    xs = np.log([p[0] for p in points if p[0] >= 1000])
    ys = np.log([p[1] for p in points if p[0] >= 1000])
    beta, log_k = np.polyfit(xs, ys, 1)
    return {"beta": round(float(beta), 4), "k": round(float(math.exp(log_k)), 4), "points": points,
            "base_chunks": n, "base_entities": len(seen)}


def rename_probability(fit: dict[str, Any], chunks: int) -> float:
    """q such that base entities + q x (entities seen again in the copies) = K chunks^beta."""
    n0, e0 = fit["base_chunks"], fit["base_entities"]
    target = fit["k"] * chunks ** fit["beta"]
    if chunks <= n0:
        return 0.0
    return max(0.0, min(1.0, (target - e0) * n0 / (e0 * (chunks - n0))))


def _unit(*parts: object) -> float:
    h = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(h, "big") / 2**64


@functools.lru_cache(maxsize=1 << 18)
def tag(key: str, copy: int) -> str:
    """A pronounceable pseudo-word, the same for the same entity in the same copy."""
    h = int.from_bytes(hashlib.blake2b(f"{key}\x1f{copy}".encode(), digest_size=8).digest(), "big")
    out = []
    for _ in range(4):
        h, c = divmod(h, len(_CONSONANTS))
        h, v = divmod(h, len(_VOWELS))
        out.append(_CONSONANTS[c] + _VOWELS[v])
    return "".join(out).capitalize()


class Renamer:
    """Which entities copy ``c`` renames (titles always, others with probability q) and what to."""

    def __init__(self, titles: set[str], q: float) -> None:
        self.titles, self.q = titles, q

    def renamed(self, key: str, copy: int) -> bool:
        return copy > 0 and (key in self.titles or _unit(key, copy) < self.q)

    @functools.lru_cache(maxsize=1 << 18)  # noqa: B019 (one Renamer per run)
    def key(self, key: str, copy: int) -> str:
        return f"{key} {tag(key, copy).lower()}" if self.renamed(key, copy) else key

    def surface(self, key: str, surface: str, copy: int) -> str:
        return f"{surface} {tag(key, copy)}" if self.renamed(key, copy) else surface


def rewrite_text(text: str, mentions: Sequence[tuple[str, str, str, int]], ren: Renamer, copy: int
                 ) -> tuple[str, int, int]:
    """The chunk text with every renamed entity's surface followed by its pseudo-word; (text, renamed, found)."""
    subs = {surface.casefold(): tag(key, copy) for key, surface, _label, _n in mentions
            if ren.renamed(key, copy) and surface.strip()}
    if not subs:
        return text, 0, 0
    pattern = re.compile(r"\b(" + "|".join(re.escape(s).replace(r"\ ", r"\s+")
                                           for s in sorted(subs, key=len, reverse=True)) + r")\b", re.IGNORECASE)
    found: set[str] = set()

    def sub(m: re.Match[str]) -> str:
        key = re.sub(r"\s+", " ", m.group(0)).casefold()
        found.add(key)
        return f"{m.group(0)} {subs.get(key, '')}".rstrip()

    return pattern.sub(sub, text), len(subs), len(found & set(subs))


# -- corpus ------------------------------------------------------------------------------------------
def build_corpus(home: Path, docs: Sequence[BaseDoc], chunks: int, fit: dict[str, Any]) -> dict[str, Any]:
    """Documents, chunks and graph rows for ``chunks`` chunks; resumable copy by copy (see module doc)."""
    import numpy as np
    from kgrag.core.runtime import Runtime
    from kgrag.core.types import ChunkDraft, LoadedDocument, Page
    from kgrag.kg.extract import Extraction, Mention, Relation
    from kgrag.kg.store import GraphStore

    meta = harness.read_meta(home) or {}
    if meta.get("chunks_target") == chunks and meta.get("complete"):
        harness.log(f"corpus {chunks}: cached in {home}")
        return meta
    q = rename_probability(fit, chunks)
    ren = Renamer(title_keys(docs), q)
    base_chunks = sum(len(d.chunks) for d in docs)
    copies = -(-chunks // base_chunks)
    done = int(meta.get("copies_done", 0)) if meta.get("chunks_target") == chunks else 0
    harness.log(f"corpus {chunks}: {base_chunks} base chunks x {copies} copies (q={q:.4f}), from copy {done}")
    home.mkdir(parents=True, exist_ok=True)
    counters = meta.get("counters") or {"renamed_surfaces": 0, "found_in_text": 0}
    t0 = time.perf_counter()
    with Runtime(harness.settings_for(home)) as rt:
        rt.checked_embedder()  # the schema with the model's dimension, as ingestion would
        store, gstore = rt.store, GraphStore(rt.db)
        with rt.db.transaction() as conn:
            conn.execute("DROP INDEX IF EXISTS chunks_embedding_hnsw")
        total = done * base_chunks
        for copy in range(done, copies):
            tc = time.perf_counter()
            rng = np.random.default_rng(1000 + copy)
            jobs: list[tuple[BaseDoc, Any, list[Any], Any]] = []
            for d in docs:
                if total >= chunks:
                    break
                drafts = []
                for pos, page, text, tokens in d.chunks:
                    new, renamed, found = rewrite_text(text, d.mentions.get(pos, ()), ren, copy)
                    counters["renamed_surfaces"] += renamed
                    counters["found_in_text"] += found
                    drafts.append(ChunkDraft(pos, new, tokens, page))
                vecs = np.stack(d.vectors)
                if copy:
                    vecs = vecs + rng.normal(0.0, COPY_NOISE, vecs.shape).astype(np.float32)
                    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
                title = f"{d.title} {tag(d.title_key or d.title, copy)}" if copy else d.title
                doc = LoadedDocument(f"scale/{copy}/{d.source}", title, "text/plain",
                                     (Page("\n".join(x.text for x in drafts)),), f"scale-{copy}-{d.source}")
                jobs.append((d, doc, drafts, vecs))
                total += len(drafts)
            tw = time.perf_counter()
            with ThreadPoolExecutor(max_workers=WRITERS) as ex:
                results = list(ex.map(lambda j: store.write_document(j[1], j[2], j[3], ingest_key="bench-scale"),
                                      jobs))
            doc_ids = [r.document_id for r in results]
            with rt.db.connection() as conn:
                ids = {(int(r[0]), int(r[1])): int(r[2]) for r in conn.execute(
                    "SELECT document_id, position, id FROM chunks WHERE document_id = ANY(%s)", (doc_ids,))}
            tg = time.perf_counter()
            mentions: list[Mention] = []
            relations: list[Relation] = []
            for (d, _doc, drafts, _v), did in zip(jobs, doc_ids, strict=True):
                for x in drafts:
                    cid = ids[(did, x.position)]
                    mentions += [Mention(cid, ren.key(k, copy), ren.surface(k, s, copy), label, n)
                                 for k, s, label, n in d.mentions.get(x.position, ())]
                    relations += [Relation(ren.key(a, copy), ren.key(b, copy), rel, cid, w)
                                  for a, b, rel, w in d.relations.get(x.position, ())]
            gstore.write(Extraction(tuple(mentions), tuple(relations), tuple(ids.values())))
            meta.update({"chunks_target": chunks, "copies_done": copy + 1, "counters": counters, "complete": False})
            harness.write_meta(home, meta)
            harness.log(f"  copy {copy + 1}/{copies}: {total} chunks, {len(mentions)} mentions, "
                        f"{len(relations)} relations in {time.perf_counter() - tc:.0f}s (texts {tw - tc:.0f}s, "
                        f"chunks {tg - tw:.0f}s, graph rows {time.perf_counter() - tg:.0f}s)")
        write_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        with rt.db.connection() as conn:
            conn.autocommit = True
            conn.execute("SET maintenance_work_mem = '4GB'")
            conn.execute("CREATE INDEX IF NOT EXISTS chunks_embedding_hnsw ON chunks"
                         " USING hnsw (embedding vector_cosine_ops)")
            conn.autocommit = False
        index_s = time.perf_counter() - t1
        harness.log(f"  HNSW index built in {index_s:.0f}s")
        with rt.db.transaction() as conn:  # the next build records the extraction parameters it runs with
            conn.execute("DELETE FROM kgrag_meta WHERE key = 'graph_params'")
        counts = gstore.counts()
        with rt.db.connection() as conn:
            stored_docs = int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
    meta.update({
        "chunks_target": chunks, "chunks": counts["chunks"], "documents": stored_docs, "copies": copies,
        "base_chunks": base_chunks, "rename_probability": round(q, 5), "heaps": fit, "counters": counters,
        "rows": counts, "write": {"write_s": round(write_s, 1), "hnsw_index_s": round(index_s, 1),
                                  "writers": WRITERS},
        "complete": True, "built_at": time.time()})
    harness.write_meta(home, meta)
    return meta


# -- measured steps, each in a child process -----------------------------------------------------------
def measure_child(args: list[str], *, label: str, cap_mb: float | None = None,
                  env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``args``; its wall time and the peak RSS of its process tree (sampled every 100 ms).

    Above ``cap_mb`` the tree is killed and the result says so: a step that would take the machine's
    whole memory is reported as over its cap, not allowed to take Postgres down with it."""
    import psutil

    harness.log(f"{label}: {' '.join(args)}")
    t0 = time.perf_counter()
    proc = subprocess.Popen(args, cwd=REPO, stdout=subprocess.PIPE, text=True, env=env)
    ps = psutil.Process(proc.pid)
    peak = [0]
    killed = threading.Event()
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            try:
                tree = [ps, *ps.children(recursive=True)]
                rss = sum(p.memory_info().rss for p in tree)
                peak[0] = max(peak[0], rss)
                if cap_mb is not None and rss > cap_mb * 2**20:
                    killed.set()
                    for p in reversed(tree):
                        p.kill()
                    return
            except psutil.Error:
                pass
            stop.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate()
    stop.set()
    sampler.join()
    wall = time.perf_counter() - t0
    stages = [{"at_s": float(t), "rss_mb": float(m), "stage": name}
              for t, m, name in (ln.split(" ", 3)[1:] for ln in out.splitlines() if ln.startswith("STAGE "))]
    if killed.is_set():
        result: dict[str, Any] = {"killed_above_mb": cap_mb}
    elif proc.returncode:
        raise RuntimeError(f"{label} failed with exit code {proc.returncode}")
    else:
        lines = [ln for ln in out.splitlines() if ln.startswith("{")]
        result = json.loads(lines[-1]) if lines else {}
    result.update({"wall_s": round(wall, 1), "peak_rss_mb": round(peak[0] / 2**20, 1)})
    if stages:
        result["stages"] = stages
    harness.log(f"  {result}")
    return result


def child_graph_build(home: Path) -> None:
    """Everything a graph build does after extraction (nothing is pending: the rows are stored)."""
    import psutil
    from kgrag.core.nlp import load_spacy
    from kgrag.core.runtime import Runtime
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore

    settings = harness.settings_for(home)
    nlp = load_spacy(settings.graph.spacy_model)
    t0 = time.perf_counter()

    def on_stage(name: str) -> None:  # parsed by stages(): where a build killed at its memory cap had got to
        rss = psutil.Process().memory_info().rss / 2**20
        print(f"STAGE {time.perf_counter() - t0:.1f} {rss:.0f} {name}", flush=True)

    with Runtime(settings) as rt:
        r = build_graph(GraphStore(rt.db), settings.graph, settings.graph_path, nlp, on_stage=on_stage,
                        embedder=rt.embedder)
    on_stage("done")
    print(json.dumps({"seconds": round(r.seconds, 1), "chunks_processed": r.chunks_processed,
                      "entities": r.entities, "edges": r.edges, "relations": r.relations,
                      "chunks": r.chunks_covered, "file_bytes": r.file_bytes}))


def child_graph_load(home: Path) -> None:
    """A fresh replica's load of the built graph (the arrays beside the file, memory-mapped)."""
    import psutil
    from kgrag.kg.holder import load_graph

    settings = harness.settings_for(home)
    path = settings.graph_path
    rss0 = psutil.Process().memory_info().rss
    t0 = time.perf_counter()
    graph = load_graph(path, document_edge_weight=settings.graph.document_edge_weight)
    seconds = time.perf_counter() - t0
    print(json.dumps({"seconds": round(seconds, 2), "mapped": type(graph.chunk_ids).__name__ == "memmap",
                      "rss_added_mb": round((psutil.Process().memory_info().rss - rss0) / 2**20, 1),
                      "stats": graph.stats}))


def prewarm(home: Path) -> dict[str, Any]:
    """Read the HNSW index and the chunks table once, so the latency runs see a serving database's steady
    state (its hot pages in memory), not the cold pages the graph build's memory use left behind.

    First a CHECKPOINT: the build has just published its artifact into Postgres (over a gigabyte at a
    million chunks), and the spread checkpoint that follows would otherwise write it out on these two
    cores while the latency runs measure. Reads the embedded server's relation files (the packaged
    Postgres has no pg_prewarm); a database given by URL is left as it is."""
    from kgrag.core.runtime import Runtime

    settings = harness.settings_for(home)
    if settings.database.url:
        return {"skipped": "a database by URL keeps its own cache"}
    t0 = time.perf_counter()
    with Runtime(settings) as rt, rt.db.connection() as conn:
        conn.execute("CHECKPOINT")
        checkpoint_s = round(time.perf_counter() - t0, 1)
        rels = [Path(r[0]) for r in conn.execute(
            "SELECT pg_relation_filepath(oid) FROM pg_class WHERE relname IN ('chunks_embedding_hnsw', 'chunks')"
            " OR oid = (SELECT reltoastrelid FROM pg_class WHERE relname = 'chunks')")]
    read = 0
    for rel in rels:
        base = home / "pgdata" / rel
        for segment in [base, *sorted(base.parent.glob(base.name + ".[0-9]*"))]:
            with segment.open("rb") as fh:
                while block := fh.read(16 << 20):
                    read += len(block)
    harness.log(f"prewarm: read {read / 2**30:.1f} GiB in {time.perf_counter() - t0:.0f}s")
    return {"what": "a CHECKPOINT, then the HNSW index, the chunks heap and its TOAST, read once", "bytes": read,
            "seconds": round(time.perf_counter() - t0, 1), "checkpoint_s": checkpoint_s}


def env_for(home: Path) -> dict[str, str]:
    return {**os.environ, "KGRAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "KGRAG_RERANK__ENABLED": "false"}


# -- report ------------------------------------------------------------------------------------------
def render(results: dict[str, Any]) -> str:
    """The Markdown, made only from the JSON (``--render`` regenerates it)."""
    m, c = results["machine"], results["corpus"]
    fit, counters = c["heaps"], c["counters"]
    lines = [
        f"# kgrag at {c['chunks']:,} chunks", "",
        f"Generated by `bench/scale.py` from `{results['json_name']}` (commit {results['commit']}, "
        f"{results['started']}). Command: `{results['command']}`.", "",
        "## Machine", "",
        f"- CPU: {m['cpu']}, {m['cores']} cores; RAM {m['ram_gb']} GB; Python {m['python']}",
        f"- Load average at start: {m['load_average']}; at end: {results.get('load_average_end')}", "",
        "## Targets", "", "| target | limit | measured | verdict |", "|---|---|---|---|",
    ]
    judged = judged_targets(results)
    for name, (unit, limit) in judged.items():
        got = results.get("measured", {}).get(name) or {"value": None, "note": "not measured in this run"}
        value = got["value"]
        shown = "-" if value is None else f"{value} {unit}"
        if got["note"]:
            shown += f" ({got['note']})"
        verdict = got.get("verdict") or harness.verdict(value, limit)
        lines.append(f"| {name} | <= {limit:g} {unit} | {shown} | {verdict} |")
    carried = sorted({f"{v['carried_from']['started']} (commit {v['carried_from']['commit']})"
                      for v in results.values() if isinstance(v, dict) and "carried_from" in v})
    b = results.get("bm25_build")
    if b:
        lines.append(f"| BM25 index build | off the request path, time reported | {b['wall_s']} s "
                     f"(`kgrag index build`, peak {b['peak_rss_mb']} MB) | reported |")
    if carried:
        lines += ["", f"Steps marked *carried* ran in the earlier run of {', '.join(carried)} on this same corpus "
                  "and were not repeated here (`--skip … --carry`)."]
    rows = c["rows"]
    share = 100 * counters["found_in_text"] / max(1, counters["renamed_surfaces"])
    lines += [
        "", "## Corpus", "",
        f"{c['chunks']} chunks in {c['documents']} documents: {c['base_chunks']} real base chunks "
        f"({', '.join(results['base'])}) and {c['copies'] - 1} renamed copies (the last one partial); see "
        f"bench/scale.py's docstring for how copies are made.", "",
        f"- Entity growth: Heaps' law fitted on the base (seeded shuffle, {len(fit['points'])} points): "
        f"E = {fit['k']} n^{fit['beta']}; rename probability q = {c['rename_probability']} "
        f"(document titles always renamed).",
        f"- Renamed surfaces found and rewritten in the chunk text: {counters['found_in_text']} of "
        f"{counters['renamed_surfaces']} ({share:.1f}%;"
        " the rest are canonical forms the text writes differently).",
        f"- Rows: {rows['entities']} entities, {rows['mentions']} mentions, {rows['relations']} relations.",
        f"- Written in {c['write']['write_s']} s ({c['write']['writers']} Store.write_document threads plus "
        f"GraphStore.write per copy); HNSW index built once in {c['write']['hnsw_index_s']} s.",
        "- Not measured here: spaCy extraction of the copies (docs/scaling.md extrapolates it from the "
        "measured rate).", "",
    ]
    g = results.get("graph_build")
    if g and "killed_above_mb" in g:
        lines += ["## Graph build (after extraction)" + (" (carried)" if "carried_from" in g else ""), "",
                  f"`build_graph` with every chunk already extracted (document layer, graph file streamed from "
                  f"SQL, arrays) passed the {g['killed_above_mb']:g} MB cap {g['wall_s']} s in and was killed "
                  f"(peak seen {g['peak_rss_mb']} MB): the build does not fit at this size.", ""]
    elif g:
        lines += ["## Graph build (after extraction)" + (" (carried)" if "carried_from" in g else ""), "",
                  f"`build_graph` with every chunk already extracted: document layer, graph file streamed from "
                  f"SQL, arrays, publish: **{g['seconds']} s**, peak RSS **{g['peak_rss_mb']} MB** "
                  f"({g['entities']} entities, {g['edges']} edges, {g['relations']} relations, "
                  f"{g['file_bytes'] / 2**20:.1f} MiB file).", ""]
    if g and g.get("stages"):
        lines += ["Steps (each row: when it began, the build's own RSS then):", "", "| step | began at s | RSS MB |",
                  "|---|---:|---:|", *[f"| {x['stage']} | {x['at_s']} | {x['rss_mb']:.0f} |" for x in g["stages"]],
                  ""]
    ld = results.get("graph_load")
    if ld:
        lines += ["## Graph load into a replica" + (" (carried)" if "carried_from" in ld else ""), "",
                  f"A fresh process loads the published graph: **{ld['seconds']} s** (arrays mapped: "
                  f"{ld['mapped']}), {ld['rss_added_mb']} MB added to its RSS.", ""]
    if b:
        lines += ["## BM25 index build" + (" (carried)" if "carried_from" in b else ""), "",
                  f"`kgrag index build --force`: {b['wall_s']} s wall, peak RSS "
                  f"{b['peak_rss_mb']} MB (a builder process; replicas download and map the result).", ""]
    q = results.get("queries")
    if q:
        lines += [f"## Query latency (in-process QueryPipeline, dense+bm25+graph, fusion, no rerank, no answer; "
                  f"warm-up {q.get('warm_queries', 0)} other queries)", "",
                  f"Statuses: {q['statuses']}", "",
                  *([f"Before it, {results['prewarm']['what']} ({results['prewarm']['bytes'] / 2**30:.1f} GiB in "
                     f"{results['prewarm']['seconds']} s): a serving database's hot pages, not the cold ones a "
                     "build's memory use leaves.", ""] if results.get("prewarm", {}).get("bytes") else []),
                  *harness.latency_table(q)]
    alone = results.get("alone")
    if alone and q:
        together = q["clients_1"]["stages"]
        asked = next(iter(alone.values()))["clients_1"]["queries"]
        lines += [f"Each signal alone (its own pipeline, 1 client, the first {asked} of the same questions), "
                  "against the same stage with all three running in parallel:", "",
                  "| signal | alone: stage p50 ms | alone: total p50 ms | with the other two: stage p50 ms |",
                  "|---|---:|---:|---:|"]
        for signal, run in alone.items():
            st = run["clients_1"]["stages"]
            lines.append(f"| {signal} | {st[signal]['p50_ms']} | {st['total']['p50_ms']} | "
                         f"{together.get(signal, {}).get('p50_ms', '-')} |")
        lines.append("")
    h = results.get("http")
    if h:
        lines += ["## HTTP server", "", harness.http_summary(h), ""]
    if results.get("freshness"):
        lines += freshness_section(results["freshness"])
    return "\n".join(lines) + "\n"


def freshness_section(f: dict[str, Any]) -> list[str]:
    """Issue 29's run of bench/freshness.py on this corpus, from its own JSON (its own commit and time)."""
    add, delete, comp = f["add"], f["delete"], f["compaction"]
    before = comp.get("latency_b_before", f["pending_latency_b"])  # the p95 baseline of the run the compaction ran in
    rounds = f["rounds"]
    graph_walls = [r["graph_build"]["wall_s"] for r in rounds]
    inside = [r["graph_build"]["build_s"] for r in rounds]
    return [
        "## Freshness: additions and deletes at this size (bench/freshness.py)", "",
        f"Run at commit {f['commit']}, {f['started']}: `{f['command']}`. Two replicas in one process (A on this "
        "data home, B on a second home against the same database), each a pipeline with its own artifact sync.", "",
        f"- **Add:** {add['new_chunks']} chunks in 100 new documents. Ingest {add['ingest_s']} s; BM25 publish "
        f"{add['bm25_publish']['wall_s']} s (peak {add['bm25_publish']['peak_rss_mb']} MB); `kgrag graph build` "
        f"{add['graph_build']['wall_s']} s wall, a delta of {add['graph_build']['delta_chunks']} chunks (peak "
        f"{add['graph_build']['peak_rss_mb']} MB). B served the new corpus version in every signal "
        f"**{add['all_signals_on_b_s']} s** after the ingest began; new chunks B's signals return for the documents' "
        f"titles: {add['found_on_b']}.",
        *([f"- **Add, no build called:** {bg['new_chunks']} chunks in 100 new documents ingested on A "
           f"({bg['ingest_s']} s), "
           f"whose sync runs with background builds as `kgrag serve` runs it; nothing called a build. A's builder "
           f"published the graph ({bg['graph_builds']} build, {bg['graph_build_s']} s) after its quiet period of "
           f"{bg['graph_build_delay_s']:g} s, and BM25. B served the new corpus version in every signal "
           f"**{bg['all_signals_on_b_s']} s** after the ingest began; new chunks B's signals return for the "
           f"documents' titles: {bg['found_on_b']}."] if (bg := f.get("add_background")) else []),
        *([f"- **Corpus of this run:** {f['corpus']['chunks']:,} chunks in {f['corpus']['documents']:,} documents "
           f"(home `{f['home']}`)."] if f.get("corpus") else []),
        f"- **Delete:** the 100 documents deleted in {delete['deletes_s']} s; no chunk of theirs in any signal on "
        f"either replica **{delete['gone_on_both_s']} s** after the first delete ("
        + (f"each replica's first query in every signal after it included; dense reads the database, BM25 and the "
           f"graph leave out the chunks the deletion log names). Found on every question before BM25 published: "
           f"{delete['found_before_publish']}; after its publish ({delete['bm25_publish']['wall_s']} s): "
           if "found_before_publish" in delete else
           "dense reads the database, the graph hides them at once, BM25 once the delta that retires them is "
           "installed); found afterwards: ")
        + f"{delete['found_after']}.",
        f"- **10 deltas pending:** ten rounds of 10 documents, each with its BM25 publish and graph build "
        f"(graph build wall {min(graph_walls)}-{max(graph_walls)} s, of which inside build_graph "
        f"{min(inside)}-{max(inside)} s: the rest is the process start and loading spaCy and the models); "
        f"retrieval+fusion on B then: p50 **{f['pending_latency_b']['p50_ms']} ms**, p95 "
        f"{f['pending_latency_b']['p95_ms']} ms.",
        "- **Compaction** at niceness 10 while B serves"
        + (f" (carried from the run at commit {f['carried']['compaction']['commit']}, "
           f"{f['carried']['compaction']['started']}: `--carry-compaction`)" if "carried" in f else "")
        + ": `kgrag graph build --full` "
        f"{comp['graph_build']['wall_s']} s, "
        f"peak {comp['graph_build']['peak_rss_mb']} MB; `kgrag index build --force` {comp['bm25_build']['wall_s']} s, "
        f"peak {comp['bm25_build']['peak_rss_mb']} MB. B's queries meanwhile: p50 "
        f"{comp['latency_b_during']['p50_ms']} ms, p95 {comp['latency_b_during']['p95_ms']} ms over "
        f"{comp['latency_b_during']['queries']} queries (before, in the same run: p95 {before['p95_ms']} ms).", "",
    ]


def judged_targets(results: dict[str, Any]) -> dict[str, tuple[str, float]]:
    """The targets a report judges: issue 18's, issue 29's once bench/freshness.py has run, and issue 45's once
    a freshness run has measured its step 0 (an upload with no build called)."""
    freshness = results.get("freshness") or {}
    return {**TARGETS, **(FRESHNESS_TARGETS if freshness else {}),
            **(BACKGROUND_TARGETS if freshness.get("add_background") else {})}


def measured(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Each target's figure, or why there is none (a step killed at its memory cap, a graph never built)."""
    out: dict[str, dict[str, Any]] = {}
    q = (results.get("queries") or {}).get("clients_1")
    if q:
        ran = [k for k, v in results["queries"]["statuses"].items() if v == "ran"]
        out["retrieval+fusion p50 (1 client)"] = {"value": q["stages"]["total"]["p50_ms"],
                                                  "note": f"signals that ran: {', '.join(ran)}"}
    if results.get("http"):
        out["serving RSS (HTTP server, peak)"] = {"value": results["http"]["rss_peak_mb"], "note": ""}
    g = results.get("graph_build")
    if g and "killed_above_mb" in g:
        over = g["killed_above_mb"] >= TARGETS["graph build peak memory"][1]
        out["graph build peak memory"] = {
            "value": g["peak_rss_mb"], "verdict": "**above target**" if over else "**did not finish**",
            "note": f"killed when it passed {g['killed_above_mb']:g} MB, {g['wall_s']} s in; it did not finish"}
    elif g:
        out["graph build peak memory"] = {"value": g["peak_rss_mb"], "note": f"{g['seconds']} s"}
    f = results.get("freshness")
    if f:
        add, comp = f["add"], f["compaction"]
        before = comp.get("latency_b_before", f["pending_latency_b"])
        out["100 documents added: every signal serves them on a second replica"] = {
            "value": add["all_signals_on_b_s"], "note": "from the ingest's start"}
        if f.get("add_background"):  # issue 45: the serving replica's own background builder, nothing called
            bg = f["add_background"]
            out["100 documents added, no build called: every signal serves them on a second replica"] = {
                "value": bg["all_signals_on_b_s"],
                "note": f"from the ingest's start; A's background builder, quiet period "
                        f"{bg['graph_build_delay_s']:g} s"}
        out["100 documents added: builder peak RSS"] = {
            "value": max(add["bm25_publish"]["peak_rss_mb"], add["graph_build"]["peak_rss_mb"]),
            "note": "the larger of the BM25 publish and the graph build"}
        out["100 documents deleted: in no signal's results on either replica"] = {
            "value": f["delete"]["gone_on_both_s"], "note": ""}
        out["retrieval+fusion p50 with 10 deltas pending"] = {"value": f["pending_latency_b"]["p50_ms"],
                                                              "note": "replica B"}
        out["compaction of 10 deltas: peak RSS"] = {
            "value": max(comp["graph_build"]["peak_rss_mb"], comp["bm25_build"]["peak_rss_mb"]),
            "note": "the larger of the whole graph and BM25 builds"}
        out["compaction: query p95 while it runs, against before"] = {
            "value": round(comp["latency_b_during"]["p95_ms"] / before["p95_ms"], 2),
            "note": f"{comp['latency_b_during']['p95_ms']} ms against {before['p95_ms']} ms"}
    ld = results.get("graph_load")
    if ld and "seconds" in ld:
        out["graph load into a replica"] = {"value": ld["seconds"], "note": f"arrays mapped: {ld['mapped']}"}
    elif g and "killed_above_mb" in g:
        out["graph load into a replica"] = {"value": None, "note": "not measured: no graph at this size (the build "
                                                                   "did not finish)"}
    return out


def write_outputs(results: dict[str, Any], out: Path, report: bool) -> None:
    results["measured"] = measured(results)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2) + "\n")
    out.with_suffix(".md").write_text(render(results))
    if report:
        (REPO / "bench" / "REPORT-1M.json").write_text(json.dumps(results, indent=2) + "\n")
        (REPO / "bench" / "REPORT-1M.md").write_text(render(results))


ALONE_QUERIES = 100
"""Questions per single-signal latency run."""


# -- main --------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--chunks", type=int, default=1_000_000)
    ap.add_argument("--base", type=Path, nargs="*", default=[],
                    help="data homes with ingested chunks and a built graph (default: bench/harness.py builds one "
                         "from all of ../shared/data)")
    ap.add_argument("--cache", type=Path, default=REPO / ".kgrag" / "bench", help="where the corpus is kept")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--http-seconds", type=float, default=30.0)
    ap.add_argument("--graph-memory-cap", type=float, default=16384.0,
                    help="MB: the graph build is killed above this (and reported so) before it exhausts the machine")
    ap.add_argument("--skip", nargs="*", default=[], choices=["graph", "load", "bm25", "queries", "http"])
    ap.add_argument("--out", type=Path, default=OUT / "scale.json")
    ap.add_argument("--report", action="store_true", help="also write bench/REPORT-1M.md and its JSON")
    ap.add_argument("--render", type=Path, help="only re-render this JSON to Markdown")
    ap.add_argument("--carry", type=Path, help="take the steps this run skips (--skip) from this earlier JSON; the "
                    "report names the run each came from")
    ap.add_argument("--child", choices=["graph-build", "graph-load"], help=argparse.SUPPRESS)
    ap.add_argument("--home", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child == "graph-build":
        child_graph_build(args.home)
        return 0
    if args.child == "graph-load":
        child_graph_load(args.home)
        return 0
    if args.render:
        write_outputs(json.loads(args.render.read_text()), args.render, args.report)
        return 0
    results: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "commit": harness.git_commit(),
        "machine": harness.machine(), "json_name": args.out.name,
        "command": "python bench/scale.py " + " ".join(argv if argv is not None else sys.argv[1:]),
    }
    bases = list(args.base)
    if not bases:
        from kgrag.core.models import load_embedder
        from kgrag.core.settings import EmbeddingSettings

        base_home = args.cache / "real-all"
        harness.build_base(base_home, 10**9, load_embedder(EmbeddingSettings()))
        harness.cached_graph(base_home, lambda: harness.graph_real(base_home), "base",
                             harness.graph_key(harness.settings_for(base_home)))
        bases = [base_home]
    results["base"] = [str(b) for b in bases]
    home = args.cache / f"scale{args.chunks}"
    meta = harness.read_meta(home) or {}
    if not (meta.get("chunks_target") == args.chunks and meta.get("complete")):
        docs = read_base(bases)
        fit = heaps_fit(docs, title_keys(docs))
        harness.log(f"Heaps fit: {fit['k']} n^{fit['beta']} over {fit['base_chunks']} chunks")
        meta = build_corpus(home, docs, args.chunks, fit)
        del docs
    results["corpus"] = {k: v for k, v in meta.items() if k not in ("graph",)}
    me = [sys.executable, str(Path(__file__).resolve())]
    if "bm25" not in args.skip:
        kgrag = str(Path(sys.executable).with_name("kgrag"))
        results["bm25_build"] = measure_child([kgrag, "index", "build", "--force"], label="bm25 build",
                                              env=env_for(home))
    # At this size the graph build may need more memory than the machine has: it is killed at the cap, and the
    # latency and RSS below are then measured without the graph signal (their statuses say so).
    if "graph" not in args.skip:
        results["graph_build"] = measure_child([*me, "--child", "graph-build", "--home", str(home)],
                                               label="graph build", cap_mb=args.graph_memory_cap)
    built = "graph_build" in results and "killed_above_mb" not in results["graph_build"]
    if "load" not in args.skip and built:
        results["graph_load"] = measure_child([*me, "--child", "graph-load", "--home", str(home)], label="graph load")
    if args.carry:
        earlier = json.loads(args.carry.read_text())
        step_names = {"bm25": ("bm25_build",), "graph": ("graph_build",), "load": ("graph_load",)}
        for skipped in args.skip:
            for name in step_names.get(skipped, ()):
                if name in earlier:  # a step carried twice still names the run that measured it
                    results[name] = {**earlier[name], "carried_from": earlier[name].get("carried_from") or {
                        k: earlier.get(k) for k in ("started", "commit", "command")}}
    if "queries" not in args.skip or "http" not in args.skip:
        results["prewarm"] = prewarm(home)
    qs, warm = (lambda all_: (all_[: args.queries], all_[args.queries:]))(
        harness.queries(args.queries + harness.WARM_QUERIES))
    if "queries" not in args.skip:
        results["queries"] = harness.query_latency(home, qs, args.clients, warm)
        # Each signal on its own, on the same questions: what a query costs each stage without the other two
        # beside it in the process (the three run in parallel threads on this machine's two cores).
        results["alone"] = {signal: harness.query_latency(home, qs[:ALONE_QUERIES], [1], warm, signals=(signal,))
                            for signal in ("dense", "bm25", "graph")}
    if "http" not in args.skip:
        results["http"] = harness.http_throughput(home, qs, clients=8, seconds=args.http_seconds, max_requests=5000)
    results["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    committed = REPO / "bench" / "REPORT-1M.json"
    if args.report and committed.exists() and "freshness" in (earlier := json.loads(committed.read_text())):
        results["freshness"] = earlier["freshness"]  # bench/freshness.py's own run, stamped with its own commit
    write_outputs(results, args.out, args.report)
    harness.log(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
