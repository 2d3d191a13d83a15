"""Performance harness: ingestion, graph build, query latency and HTTP throughput at 10k and 100k chunks.

Not a test. Builds corpora from real text (SciFact abstracts and 2WikiMultiHopQA passages under
/work/shared/data), measures every stage the targets name, and writes bench/out/perf.json plus a
Markdown summary rendered from that JSON (``--report`` also writes both to bench/REPORT.json and
bench/REPORT.md, the committed copy; a test checks the two agree).

    HF_HUB_OFFLINE=1 python bench/harness.py --chunks 10000 100000 --report   # the full run
    HF_HUB_OFFLINE=1 python bench/harness.py --quick --out bench/out/quick.json  # 10k only, a few minutes
    python bench/harness.py --render bench/out/perf.json                      # JSON -> Markdown again
    python bench/harness.py --render bench/REPORT.json --report --merge soak=bench/out/soak.json \
        upload_latency=bench/out/upload50.json   # add bench/soak.py's and bench/ingest_query_latency.py's JSON

The soak (bench/soak.py) and the upload-latency bench (bench/ingest_query_latency.py) run on their own;
--merge puts their JSON into REPORT.json under "soak" and "upload_latency", and a full run keeps those
sections (each says when and at which commit it was measured).

How the corpora are made (and what is reused), so the numbers can be read honestly:

* Distinct corpus (--distinct chunks, default 10k): whole real documents, SciFact and 2Wiki
  interleaved, ingested by the real Ingestor (parse, chunk, embed with all-MiniLM-L6-v2, COPY).
  Built once and cached under --cache; this is the only text that is ever embedded.
* Each --chunks size: the distinct chunks plus as many copies as it takes (the last partial), cut at
  whole documents once the size is reached. Copy ``i`` of a document has source
  ``copy{i}/<source>`` and every chunk text prefixed with ``"[copy i] "``; its vectors are the base
  chunk's vector plus Gaussian noise (sigma 0.01 per dimension), re-normalised, so no text is embedded
  twice. Rows go through core.store.Store.write_document (one COPY per document, four writer
  threads): the real DB path, except that the HNSW index is dropped first and built once at the end,
  as for any bulk initial load.
* Ingestion throughput with real embedding is measured on a fresh slice (--ingest-chunks, default
  2000) every run, in a throwaway data home.
* Graph at each size (--graph measured, the default): the real kg.build.build_graph over every
  chunk of the corpus, spaCy included, with the default graph settings (extraction mode and worker
  processes are recorded). The copies' "[copy i] " prefix makes every text distinct, so nothing is
  parsed once and reused. --graph extrapolated is the quicker estimate: the copies' mentions and
  relations are the base chunk's rows re-pointed at the copy's chunk id and written through
  kg.store.GraphStore.write, build_graph finishes (snapshot, NetworkX, file), and the figure is the
  distinct build's extraction rate x chunks + the measured finish.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

SHARED = Path("/work/shared/data")
OUT = REPO / "bench" / "out"
LOOPBACK = "127.0.0.1"
COPY_NOISE = 0.01
WRITERS = 4
WARM_QUERIES = 30
STAGES = ("dense.embed", "dense.search", "dense", "bm25.search", "bm25", "graph.link", "graph.traverse",
          "graph", "fusion", "fetch", "total")
TARGETS_100K = {  # stage -> p50 ms ceiling on this 2-core machine (issue 6)
    "total": 60.0, "bm25": 10.0, "graph": 20.0, "fusion": 1.0,
}


# -- corpus ------------------------------------------------------------------------------------------
def real_documents() -> Iterator[Any]:
    """SciFact and 2Wiki documents, interleaved so any prefix holds both kinds of text."""
    from kgrag.ingest.loaders import load_text

    scifact: list[dict[str, Any]] = []
    for part in ("corpus.part1.jsonl", "corpus.part2.jsonl"):
        with (SHARED / "scifact" / part).open(encoding="utf-8") as fh:
            scifact += [json.loads(line) for line in fh]
    wiki = json.loads((SHARED / "2wikimultihopqa" / "corpus.json").read_text(encoding="utf-8"))
    for i in range(max(len(scifact), len(wiki))):
        if i < len(scifact):
            d = scifact[i]
            yield load_text(d["text"], source=f"scifact/{d['_id']}", title=d["title"] or d["_id"])
        if i < len(wiki):
            w = wiki[i]
            yield load_text(w["text"], source=f"2wiki/{i}", title=w["title"])


def documents_for(chunks: int, chunk_count: Callable[[Any], int]) -> tuple[list[Any], int]:
    """Whole documents, in order, until ``chunks`` chunks (the last document may overshoot a little)."""
    docs: list[Any] = []
    total = 0
    for doc in real_documents():
        if total >= chunks:
            break
        docs.append(doc)
        total += chunk_count(doc)
    if total < chunks:
        raise SystemExit(f"only {total} real chunks available; ask for at most that many distinct chunks")
    return docs, total


def queries(n: int) -> list[str]:
    """SciFact test claims and 2Wiki questions alternated (dense/BM25-style and entity-style questions)."""
    sci = [json.loads(line)["text"] for line in (SHARED / "scifact" / "queries.jsonl").read_text().splitlines()]
    wiki = [json.loads(line)["question"]
            for line in (SHARED / "2wikimultihopqa" / "queries.jsonl").read_text().splitlines()]
    out = [q for pair in zip(sci, wiki, strict=False) for q in pair]
    return out[:n]


def settings_for(home: Path) -> Any:
    from kgrag.core.settings import RerankSettings, Settings

    return Settings(_env_file=None, home=home, rerank=RerankSettings(enabled=False))


def meta_path(home: Path) -> Path:
    return home / "bench_meta.json"


def read_meta(home: Path) -> dict[str, Any] | None:
    try:
        return json.loads(meta_path(home).read_text())
    except (OSError, ValueError):
        return None


def write_meta(home: Path, meta: dict[str, Any]) -> None:
    meta_path(home).write_text(json.dumps(meta, indent=2))


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# -- ingestion ---------------------------------------------------------------------------------------
def ingest_report_json(report: Any, wall: float) -> dict[str, Any]:
    stages = dict(report.stage_seconds)
    return {
        "documents": len(report.added) + len(report.replaced), "chunks": report.chunks_written,
        "failed": len(report.failed), "wall_s": round(wall, 2),
        "chunks_per_s": round(report.chunks_written / wall, 1) if wall else 0.0,
        "stage_s": {k: round(v, 3) for k, v in stages.items()},
        "chunks_per_s_by_stage": {k: round(report.chunks_written / v, 1) if v else None for k, v in stages.items()},
        "share_outside_inference": round(1 - stages["embed"] / wall, 4) if wall else 0.0,
    }


def ingest_real(home: Path, docs: Sequence[Any]) -> dict[str, Any]:
    from kgrag.core.runtime import Runtime
    from kgrag.ingest.pipeline import Ingestor

    settings = settings_for(home)
    with Runtime(settings) as rt:
        ingestor = Ingestor.from_runtime(rt)
        t0 = time.perf_counter()
        report = ingestor.ingest_documents(docs)
        wall = time.perf_counter() - t0
    return ingest_report_json(report, wall)


def build_base(home: Path, chunks: int, embedder: Any) -> dict[str, Any]:
    """The distinct corpus, by real ingestion (cached: documents already stored are not re-embedded)."""
    meta = read_meta(home)
    if meta and meta.get("chunks_target") == chunks and meta.get("complete"):
        log(f"distinct corpus {chunks}: cached in {home}")
        return meta
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import ChunkingSettings
    from kgrag.ingest.chunking import Chunker

    c = ChunkingSettings()
    chunker = Chunker(embedder.count_tokens, embedder.token_offsets, size=c.size, overlap=c.overlap)
    docs, total = documents_for(chunks, lambda d: len(chunker.chunk_pages(d.pages)))
    log(f"distinct corpus {chunks}: ingesting {len(docs)} real documents ({total} chunks) into {home}")
    home.mkdir(parents=True, exist_ok=True)
    ingest = ingest_real(home, docs)
    with Runtime(settings_for(home)) as rt:
        stored_chunks = rt.store.count_chunks()
        stored_docs = len(rt.store.list_documents(limit=10**9))
    meta = {**(meta or {}), "chunks_target": chunks, "chunks": stored_chunks, "documents": stored_docs,
            "how": "real documents through ingest.pipeline.Ingestor (all-MiniLM-L6-v2)",
            "ingest": ingest, "built_at": time.time(), "complete": True}
    write_meta(home, meta)
    return meta


def base_rows(home: Path) -> list[tuple[Any, ...]]:
    """(source, title, position, page, text, token_count, embedding) of every chunk, in document order."""
    from kgrag.core.runtime import Runtime

    with Runtime(settings_for(home)) as rt, rt.db.connection() as conn:
        return conn.execute(
            "SELECT d.source, d.title, c.position, c.page, c.text, c.token_count, c.embedding"
            " FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY d.id, c.position"
        ).fetchall()


def copy_source(source: str, copy: int) -> str:
    return source if copy == 0 else f"copy{copy}/{source}"


def copy_of(source: str) -> int:
    return int(source[4:source.index("/")]) if source.startswith("copy") else 0


def build_replicated(home: Path, base_home: Path, chunks: int) -> dict[str, Any]:
    """``chunks`` rows from the base corpus and its copies, written through Store.write_document."""
    import numpy as np
    from kgrag.core.runtime import Runtime
    from kgrag.core.types import ChunkDraft, LoadedDocument, Page

    meta = read_meta(home)
    if meta and meta.get("chunks_target") == chunks and meta.get("complete"):
        log(f"corpus {chunks}: cached in {home}")
        return meta
    rows = base_rows(base_home)
    copies = -(-chunks // len(rows))
    by_doc: dict[str, list[tuple[Any, ...]]] = defaultdict(list)
    for r in rows:
        by_doc[r[0]].append(r)
    log(f"corpus {chunks}: {len(rows)} base chunks x {copies} copies into {home}")
    rng = np.random.default_rng(6)
    home.mkdir(parents=True, exist_ok=True)
    jobs: list[tuple[Any, list[Any], Any]] = []
    total = 0
    for copy in range(copies):
        for source, doc_rows in by_doc.items():
            if total >= chunks:
                break
            prefix = "" if copy == 0 else f"[copy {copy}] "
            drafts = [ChunkDraft(r[2], prefix + r[4], r[5], r[3]) for r in doc_rows]
            vecs = np.stack([np.asarray(getattr(r[6], "to_numpy", lambda v=r[6]: v)(), dtype=np.float32)
                             for r in doc_rows])
            if copy:
                vecs = vecs + rng.normal(0.0, COPY_NOISE, vecs.shape).astype(np.float32)
                vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            doc = LoadedDocument(copy_source(source, copy), doc_rows[0][1], "text/plain",
                                 (Page("\n".join(d.text for d in drafts)),), f"bench-{copy}-{source}")
            jobs.append((doc, drafts, vecs))
            total += len(drafts)
    written = 0
    t0 = time.perf_counter()
    with Runtime(settings_for(home)) as rt:
        rt.checked_embedder()  # creates the schema with the model's dimension, as ingestion would
        store = rt.store
        # Bulk load: the HNSW index is built once at the end (as for any large initial load) instead of
        # growing row by row; WRITERS threads keep the per-document round trips overlapped.
        with rt.db.transaction() as conn:
            conn.execute("DROP INDEX IF EXISTS chunks_embedding_hnsw")
        lock = threading.Lock()

        def write(job: tuple[Any, list[Any], Any]) -> None:
            nonlocal written
            store.write_document(job[0], job[1], job[2], ingest_key="bench-replicated")
            with lock:
                written += len(job[1])
                if written // 10_000 != (written - len(job[1])) // 10_000:
                    log(f"  {written} chunks written, {time.perf_counter() - t0:.0f}s")

        with ThreadPoolExecutor(max_workers=WRITERS) as ex:
            list(ex.map(write, jobs))
        write_s = time.perf_counter() - t0
        t1 = time.perf_counter()
        with rt.db.connection() as conn:
            conn.autocommit = True
            conn.execute("SET maintenance_work_mem = '1GB'")
            conn.execute("CREATE INDEX chunks_embedding_hnsw ON chunks USING hnsw (embedding vector_cosine_ops)")
            conn.execute("RESET maintenance_work_mem")
            conn.autocommit = False
        index_s = time.perf_counter() - t1
        log(f"  HNSW index built in {index_s:.0f}s")
    wall = time.perf_counter() - t0
    meta = {"chunks_target": chunks, "chunks": written, "copies": copies, "base_chunks": len(rows),
            "how": f"the distinct corpus + {copies - 1} copies (the last one partial): text prefixed '[copy i] ', "
                   f"vectors = base + N(0, {COPY_NOISE}) re-normalised; written with Store.write_document (COPY)",
            "write": {"wall_s": round(wall, 1), "write_s": round(write_s, 1), "writers": WRITERS,
                      "hnsw_index_s": round(index_s, 1),
                      "chunks_per_s": round(written / write_s, 1) if write_s else None},
            "built_at": time.time(), "complete": True}
    write_meta(home, meta)
    return meta


# -- graph -------------------------------------------------------------------------------------------
def graph_real(home: Path) -> dict[str, Any]:
    """kg.build.build_graph over the whole corpus (spaCy on every chunk)."""
    from kgrag.core.nlp import load_spacy
    from kgrag.core.runtime import Runtime
    from kgrag.kg.build import build_graph
    from kgrag.kg.parallel import worker_count
    from kgrag.kg.store import GraphStore

    settings = settings_for(home)
    nlp = load_spacy(settings.graph.spacy_model)
    last = [0.0]
    t0 = time.perf_counter()

    def progress(_n: int) -> None:
        last[0] = time.perf_counter()

    with Runtime(settings) as rt:
        report = build_graph(GraphStore(rt.db), settings.graph, settings.graph_path, nlp, rebuild=True,
                             on_progress=progress)
    extract_s = (last[0] or time.perf_counter()) - t0
    workers = worker_count(settings.graph.processes)
    return {"how": f"kg.build.build_graph over every chunk, measured (extraction={settings.graph.extraction}, "
                   f"{workers} spaCy worker process{'es' if workers > 1 else ''})",
            "key": graph_key(settings), "seconds": round(report.seconds, 2),
            "extract_and_write_s": round(extract_s, 2), "finish_s": round(report.seconds - extract_s, 2),
            "chunks": report.chunks_processed, "chunks_per_s": round(report.chunks_processed / extract_s, 1),
            "entities": report.entities, "edges": report.edges, "relations": report.relations,
            "file_bytes": report.file_bytes}


def graph_replicated(home: Path, base_home: Path, base_graph: dict[str, Any], chunks: int) -> dict[str, Any]:
    """Copies' graph rows re-pointed from the base corpus, then the real build finishes; see module doc."""
    from kgrag.core.nlp import load_spacy
    from kgrag.core.runtime import Runtime
    from kgrag.kg.build import build_graph
    from kgrag.kg.extract import Extraction, Mention, Relation
    from kgrag.kg.store import GraphStore

    with Runtime(settings_for(base_home)) as rt, rt.db.connection() as conn:
        mentions = conn.execute(
            "SELECT d.source, c.position, e.key, m.surface, m.label, m.count FROM kg_mentions m"
            " JOIN kg_entities e ON e.id = m.entity_id JOIN chunks c ON c.id = m.chunk_id"
            " JOIN documents d ON d.id = c.document_id").fetchall()
        relations = conn.execute(
            "SELECT d.source, c.position, s.key, t.key, r.relation, r.weight FROM kg_relations r"
            " JOIN kg_entities s ON s.id = r.source_id JOIN kg_entities t ON t.id = r.target_id"
            " JOIN chunks c ON c.id = r.chunk_id JOIN documents d ON d.id = c.document_id").fetchall()
    settings = settings_for(home)
    nlp = load_spacy(settings.graph.spacy_model)
    with Runtime(settings) as rt:
        gstore = GraphStore(rt.db)
        with rt.db.connection() as conn:
            ids = {(r[0], int(r[1])): int(r[2]) for r in conn.execute(
                "SELECT d.source, c.position, c.id FROM chunks c JOIN documents d ON d.id = c.document_id")}
        copies = int(read_meta(home)["copies"])  # type: ignore[index]
        t0 = time.perf_counter()
        with rt.db.transaction() as conn:  # a rebuild starts from nothing, as `--rebuild` would
            for table in ("kg_processed_chunks", "kg_relations", "kg_mentions", "kg_entities"):
                conn.execute(f"DELETE FROM {table}")
            conn.execute("DELETE FROM kgrag_meta WHERE key = 'graph_params'")
        for copy in range(copies):
            def cid(source: str, pos: int, copy: int = copy) -> int | None:
                return ids.get((copy_source(source, copy), int(pos)))

            ms = [Mention(c, key, surface, label, int(n)) for source, pos, key, surface, label, n in mentions
                  if (c := cid(source, pos)) is not None]
            rs = [Relation(a, b, rel, c, int(w)) for source, pos, a, b, rel, w in relations
                  if (c := cid(source, pos)) is not None]
            chunk_ids = tuple(v for (s, _p), v in ids.items() if copy_of(s) == copy)
            gstore.write(Extraction(tuple(ms), tuple(rs), chunk_ids))
        replicate_s = time.perf_counter() - t0
        report = build_graph(gstore, settings.graph, settings.graph_path, nlp)
    finish_s = report.seconds
    extrapolated = chunks / base_graph["chunks_per_s"] + finish_s
    return {"how": "base rows re-pointed at copies via GraphStore.write, then build_graph (snapshot, NetworkX, "
                   "file) measured; spaCy extraction extrapolated from the base build's rate",
            "replicate_write_s": round(replicate_s, 2), "finish_s": round(finish_s, 2),
            "extraction_extrapolated_s": round(chunks / base_graph["chunks_per_s"], 1),
            "seconds_extrapolated": round(extrapolated, 1), "chunks": report.chunks_covered,
            "key": "extrapolated:" + base_graph.get("key", "?"),
            "entities": report.entities, "edges": report.edges, "relations": report.relations,
            "file_bytes": report.file_bytes}


MERGED = ("soak", "upload_latency")
"""REPORT.json sections written by other benches (--merge); a full harness run keeps them."""


def write_report(results: dict[str, Any]) -> None:
    """bench/REPORT.md with the JSON it is rendered from beside it, so the committed figures can be re-derived."""
    try:
        old = json.loads((REPO / "bench" / "REPORT.json").read_text())
    except (OSError, ValueError):
        old = {}
    for key in (*MERGED, "merged_by"):
        if key in old and key not in results:
            results[key] = old[key]
    (REPO / "bench" / "REPORT.json").write_text(json.dumps(results, indent=2) + "\n")
    (REPO / "bench" / "REPORT.md").write_text(render(results))


def load_note(start_load: float, cores: int) -> str:
    """How to read the figures: a run that started on a busy machine measured other work as well."""
    if start_load < 0.25 * cores:
        return "Quiet machine at the start (the load at the end is the harness's own work)."
    return "Shared with other work while measured: figures are noisy, read them against the load."


def graph_key(settings: Any) -> str:
    """What a cached graph was built with: a graph from other settings is not this run's figure."""
    from kgrag.kg.parallel import worker_count

    return f"{settings.graph.extraction}:{worker_count(settings.graph.processes)}"


def cached_graph(home: Path, build: Callable[[], dict[str, Any]], name: object, key: str) -> dict[str, Any]:
    """A graph already built for this corpus with these settings (meta + file present) is reused."""
    meta = read_meta(home) or {}
    if (meta.get("graph") or {}).get("key") == key and Path(settings_for(home).graph_path).exists():
        log(f"graph {name}: cached")
        return meta["graph"]
    log(f"graph {name}: building")
    meta["graph"] = build()
    write_meta(home, meta)
    log(f"  {meta['graph']}")
    return meta["graph"]


# -- queries -----------------------------------------------------------------------------------------
def pct(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def summarise(samples: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {k: {"p50_ms": round(pct(v, 0.5) * 1000, 2), "p95_ms": round(pct(v, 0.95) * 1000, 2), "n": len(v)}
            for k, v in samples.items() if v}


def query_latency(home: Path, qs: Sequence[str], clients: Sequence[int], warm: Sequence[str] = (),
                  signals: Sequence[str] = ("dense", "bm25", "graph")) -> dict[str, Any]:
    """In-process QueryPipeline (the signals, fusion, no rerank, no answer): stage timings per query.

    ``warm`` (questions outside ``qs``) run first: a freshly started Postgres reads HNSW and heap pages
    from disk, which is start-up cost, not steady-state latency."""
    from kgrag.core.runtime import Runtime
    from kgrag.retrieval.pipeline import build_pipeline

    out: dict[str, Any] = {}
    with Runtime(settings_for(home)) as rt, \
            build_pipeline(rt, signals=tuple(signals), builder=True) as pipe:
        t0 = time.perf_counter()
        pipe.warm()
        warm_r = pipe.run("warm up the index and models", rerank=False)
        for q in warm:
            pipe.run(q, rerank=False)
        out["warm_queries"] = len(warm)
        out["warm_s"] = round(time.perf_counter() - t0, 2)
        out["statuses"] = {k: v.state + (f" ({v.reason})" if v.reason else "") for k, v in warm_r.statuses.items()}
        for n in clients:
            samples: dict[str, list[float]] = defaultdict(list)
            lock = threading.Lock()
            graph_hits = 0

            def one(q: str, samples: dict[str, list[float]] = samples, lock: threading.Lock = lock) -> None:
                nonlocal graph_hits
                r = pipe.run(q, rerank=False)
                with lock:
                    for key in STAGES:
                        if key in r.timings:
                            samples[key].append(r.timings[key])
                    graph_hits += r.hit_counts.get("graph", 0) > 0

            t1 = time.perf_counter()
            if n == 1:
                for q in qs:
                    one(q)
            else:
                with ThreadPoolExecutor(max_workers=n) as ex:
                    list(ex.map(one, qs))
            wall = time.perf_counter() - t1
            out[f"clients_{n}"] = {"queries": len(qs), "wall_s": round(wall, 2),
                                   "queries_per_s": round(len(qs) / wall, 1),
                                   "queries_with_graph_hits": graph_hits, "stages": summarise(samples)}
            log(f"  {n} client(s): {len(qs) / wall:.1f} q/s, total p50 "
                f"{out[f'clients_{n}']['stages']['total']['p50_ms']} ms")
    return out


# -- HTTP --------------------------------------------------------------------------------------------
def serve(home: Path, port: int) -> None:
    """The server subprocess: the real app over the corpus's data home, loopback only."""
    import uvicorn
    from kgrag.api.app import create_app

    uvicorn.run(create_app(settings_for(home)), host=LOOPBACK, port=port, log_level="warning", access_log=False)


def http_throughput(home: Path, qs: Sequence[str], *, clients: int, seconds: float, max_requests: int
                    ) -> dict[str, Any]:
    """POST /v1/query {"answer": false} from ``clients`` threads; server RSS sampled every 100 ms."""
    import httpx
    import psutil

    sys.path.insert(0, str(REPO / "bench"))
    from soak import free_port, wait_until_healthy

    port = free_port()
    proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "serve", "--home", str(home),
                             "--port", str(port)], cwd=REPO)
    base = f"http://{LOOPBACK}:{port}"
    ps = psutil.Process(proc.pid)
    peak = [0]
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], ps.memory_info().rss)
            except psutil.Error:
                return
            stop.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        wait_until_healthy(base, proc, within_s=300, request_timeout=2, poll_s=0.5,
                           failure="the benchmark server did not start")
        with httpx.Client(base_url=base, timeout=120) as c:  # first graph query loads spaCy and the file
            for q in qs[:4]:
                c.post("/v1/query", json={"question": q, "answer": False, "rerank": False})
        rss_ready = ps.memory_info().rss
        latencies: list[float] = []
        errors: list[str] = []
        lock = threading.Lock()
        sent = [0]
        end = time.monotonic() + seconds

        def client(i: int) -> None:
            with httpx.Client(base_url=base, timeout=120) as c:
                n = i
                while time.monotonic() < end:
                    with lock:
                        if sent[0] >= max_requests:
                            return
                        sent[0] += 1
                    t0 = time.perf_counter()
                    try:
                        r = c.post("/v1/query", json={"question": qs[n % len(qs)], "answer": False,
                                                      "rerank": False})
                        ok = r.status_code == 200
                        detail = "" if ok else f"{r.status_code} {r.text[:120]}"
                    except httpx.HTTPError as exc:
                        ok, detail = False, f"{type(exc).__name__}: {exc}"
                    with lock:
                        latencies.append(time.perf_counter() - t0)
                        if not ok:
                            errors.append(detail)
                    n += clients

        t0 = time.perf_counter()
        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=seconds + 300)
        wall = time.perf_counter() - t0
    finally:
        stop.set()
        proc.terminate()
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    return {"clients": clients, "requests": len(latencies), "errors": len(errors), "first_errors": errors[:3],
            "wall_s": round(wall, 2), "requests_per_s": round(len(latencies) / wall, 1),
            "latency": summarise({"request": latencies})["request"] if latencies else {},
            "rss_ready_mb": round(rss_ready / 2**20, 1), "rss_peak_mb": round(peak[0] / 2**20, 1)}


# -- machine -----------------------------------------------------------------------------------------
def machine() -> dict[str, Any]:
    import psutil

    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(psutil.virtual_memory().total / 2**30, 1),
            "load_average": [round(x, 2) for x in os.getloadavg()], "python": platform.python_version(),
            "platform": platform.platform()}


def git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


# -- report ------------------------------------------------------------------------------------------
def verdict(value: float | None, limit: float, *, higher_is_better: bool = False) -> str:
    if value is None:
        return "n/a"
    ok = value >= limit if higher_is_better else value <= limit
    return "met" if ok else "**above target**" if not higher_is_better else "**below target**"


def latency_table(q: dict[str, Any]) -> list[str]:
    """Per-stage p50 / p95 for each client count of a query_latency() result, then its throughput line."""
    runs = {k: v for k, v in q.items() if k.startswith("clients_")}
    lines = ["| stage | " + " | ".join(f"{k.split('_')[1]} client(s) p50 / p95 ms" for k in runs) + " |",
             "|---|" + "---:|" * len(runs)]
    for stage in STAGES:
        cells = [f"{run['stages'][stage]['p50_ms']} / {run['stages'][stage]['p95_ms']}"
                 if stage in run["stages"] else "-" for run in runs.values()]
        lines.append(f"| {stage} | " + " | ".join(cells) + " |")
    return [*lines, "", "Throughput: " + "; ".join(
        f"{k.split('_')[1]} client(s) {v['queries_per_s']} q/s ({v['queries']} queries, "
        f"{v['queries_with_graph_hits']} with graph hits)" for k, v in runs.items()), ""]


def http_summary(h: dict[str, Any]) -> str:
    """One sentence of an http_throughput() result."""
    lat = h["latency"]
    return (f"HTTP `POST /v1/query` (answer false, rerank false), {h['clients']} loopback clients: "
            f"**{h['requests_per_s']} req/s** ({h['requests']} requests, {h['errors']} errors, "
            f"p50 {lat.get('p50_ms')} ms, p95 {lat.get('p95_ms')} ms); server RSS ready "
            f"{h['rss_ready_mb']} MB, **peak {h['rss_peak_mb']} MB**.")


def render(results: dict[str, Any]) -> str:
    """The Markdown summary, made only from the JSON (rerun with --render to regenerate it)."""
    m = results["machine"]
    lines = [
        "# kgrag performance report", "",
        f"Generated by `bench/harness.py` from `{results['json_name']}` (commit {results['commit']}, "
        f"{results['started']}). Command: `{results['command']}`.", "",
        "## Machine", "",
        f"- CPU: {m['cpu']}, {m['cores']} cores; RAM {m['ram_gb']} GB; Python {m['python']}",
        f"- Load average at start: {m['load_average']}; at end: {results.get('load_average_end')}",
        "- " + load_note(m["load_average"][0], m["cores"]), "",
    ]
    targets: list[tuple[str, str, str, str]] = []
    slice_ = results.get("ingest_slice")
    if slice_:
        share = slice_["share_outside_inference"]
        lines += ["## Ingestion (real embedding, fresh data home)", "",
                  f"{slice_['chunks']} chunks from {slice_['documents']} documents in {slice_['wall_s']} s "
                  f"= **{slice_['chunks_per_s']} chunks/s**; time outside model inference "
                  f"**{share * 100:.1f}%**.", "",
                  "| stage | seconds | chunks/s |", "|---|---:|---:|"]
        lines += [f"| {k} | {v} | {slice_['chunks_per_s_by_stage'][k]} |" for k, v in slice_["stage_s"].items()]
        lines.append("")
        targets.append(("ingestion time outside model inference", "<= 25%", f"{share * 100:.1f}%",
                        verdict(share, 0.25)))
    d = results.get("distinct")
    if d:
        lines += ["## Distinct corpus", "", f"{d['chunks']} distinct real chunks ({d['documents']} documents), "
                  f"{d['how']}; every larger corpus is made from these.", ""]
        g = d.get("graph")
        if g:
            lines += [f"Graph over them ({g['how']}): **{g['seconds']} s**, {g['chunks_per_s']} chunks/s through "
                      f"spaCy and the row writes (finish {g['finish_s']} s; {g['entities']} entities, "
                      f"{g['edges']} edges).", ""]
    if not slice_ and d and d.get("ingest", {}).get("chunks"):
        share = d["ingest"]["share_outside_inference"]
        targets.append(("ingestion time outside model inference (distinct corpus build)", "<= 25%",
                        f"{share * 100:.1f}%", verdict(share, 0.25)))
    for size, r in results["corpora"].items():
        lines += [f"## {size} chunks", "", f"Corpus: {r['corpus']['chunks']} chunks; {r['corpus']['how']}.", ""]
        if "write" in r["corpus"]:
            w = r["corpus"]["write"]
            lines += [f"Written (no embedding) with {w['writers']} Store.write_document threads at "
                      f"{w['chunks_per_s']} chunks/s ({w['write_s']} s), then the HNSW index built once in "
                      f"{w['hnsw_index_s']} s.", ""]
        g = r.get("graph")
        rate = ((d or {}).get("graph") or {}).get("chunks_per_s")
        if g and "seconds_extrapolated" in g and rate:  # this run's distinct build sets the spaCy rate
            extraction = g["chunks"] / rate
            g = dict(g, extraction_extrapolated_s=round(extraction, 1),
                     seconds_extrapolated=round(extraction + g["finish_s"], 1))
        if g:
            if "seconds_extrapolated" in g:
                lines += [f"Graph: {g['how']}. Replicated rows written in {g['replicate_write_s']} s; build finish "
                          f"(snapshot, NetworkX, file) **{g['finish_s']} s measured**; spaCy extraction "
                          f"{g['extraction_extrapolated_s']} s extrapolated at the distinct build's rate; full build "
                          f"**{g['seconds_extrapolated']} s extrapolated** ({g['entities']} entities, "
                          f"{g['edges']} edges, {g['file_bytes'] / 2**20:.1f} MiB file).", ""]
                graph_s, label = g["seconds_extrapolated"], "extrapolated"
            else:
                lines += [f"Graph: {g['how']}: **{g['seconds']} s** ({g['chunks_per_s']} chunks/s through spaCy and "
                          f"the writes, finish {g['finish_s']} s; {g['entities']} entities, {g['edges']} edges).", ""]
                graph_s, label = g["seconds"], "measured"
            if size == "100000":
                targets.append(("graph build at 100k", "<= 900 s", f"{graph_s} s ({label})", verdict(graph_s, 900)))
        q = r.get("queries")
        if q:
            lines += [f"Query latency (in-process QueryPipeline, dense+bm25+graph, fusion, no rerank, no answer; "
                      f"warm-up {q.get('warm_queries', 0)} other queries, {q['warm_s']} s; "
                      f"statuses {q['statuses']}):", "", *latency_table(q)]
            if size == "100000" and "clients_1" in q:
                st = q["clients_1"]["stages"]
                for stage, limit in TARGETS_100K.items():
                    if stage in st:
                        name = "three-signal retrieval + fusion (total, 1 client)" if stage == "total" else \
                            f"{stage} stage (1 client)"
                        targets.append((name, f"p50 <= {limit:g} ms", f"{st[stage]['p50_ms']} ms",
                                        verdict(st[stage]["p50_ms"], limit)))
        h = r.get("http")
        if h:
            lines += [http_summary(h), ""]
            if size == "100000" or len(results["corpora"]) == 1:
                targets.append((f"serving RSS at {size}", "<= 2048 MB", f"{h['rss_peak_mb']} MB",
                                verdict(h["rss_peak_mb"], 2048)))
    soak = results.get("soak")
    if soak:
        import importlib.util

        spec = importlib.util.spec_from_file_location("bench_soak_render", REPO / "bench" / "soak.py")
        assert spec and spec.loader
        soak_module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = soak_module  # dataclasses look their module up there
        spec.loader.exec_module(soak_module)
        lines += soak_module.render_section(soak)
        for name, run in soak["runs"].items():
            targets.append((f"soak RSS levels off ({name}, {run['minutes']:g} min)",
                            f"end within {soak['target_pct']:g}% of warm-up",
                            f"{run['rss_after_warmup_mb']} -> {run['rss_end_mb']} MB ({run['rss_growth_pct']:+}%)",
                            soak_module.level_verdict(run)))
    up = results.get("upload_latency")
    if up:
        lines += upload_section(up)
        targets.append((f"query p95 during a {up['document_mb']:g} MB upload", "<= 2x idle p95",
                        f"{up['during_ingest']['p95_ms']} ms vs {up['idle']['p95_ms']} ms idle ({up['p95_ratio']}x)"
                        + ("" if up.get("complete", True) else ", ingest not finished"),
                        verdict(up["p95_ratio"], 2.0)))
    if results.get("merged_by") and (soak or up):
        import re

        merged_by = re.sub(r" --merge-note ('(?:[^']|'\"'\"')*'|\S+)", " --merge-note …", results["merged_by"])
        lines += [f"The soak and upload sections were put into this report with `{merged_by}`"
                  + (" (each `--merge-note …` is a paragraph of its section; the full command is in the JSON's "
                     "merged_by)." if merged_by != results["merged_by"] else "."), ""]
    at = lines.index("## Machine") + 6
    lines[at:at] = ["## Targets", "", "| target | limit | measured | verdict |", "|---|---|---|---|",
                  *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in targets], ""]
    return "\n".join(lines) + "\n"


def upload_section(up: dict[str, Any]) -> list[str]:
    """bench/ingest_query_latency.py's JSON as Markdown."""
    idle, busy = up["idle"], up["during_ingest"]
    lines = [f"## Query latency during a {up['document_mb']:g} MB upload", "",
             f"In-process dense + BM25 queries, no rerank, one a second on a fixed schedule (timed from when each "
             f"was due), first idle, then while one {up['document_mb']:g} MB document ingests on another thread "
             f"(bench/ingest_query_latency.py; measured {up['started']}).", "",
             "| phase | queries | p50 ms | p95 ms | max ms | load avg (1 min) mean / max |",
             "|---|---:|---:|---:|---:|---|",
             f"| idle | {idle['queries']} | {idle['p50_ms']} | {idle['p95_ms']} | - | "
             f"{up['load_1m_idle_phase']['mean']} / {up['load_1m_idle_phase']['max']} |",
             f"| during the upload | {busy['queries']} | {busy['p50_ms']} | {busy['p95_ms']} | {busy['max_ms']} | "
             f"{up['load_1m_during_ingest']['mean']} / {up['load_1m_during_ingest']['max']} |", "",
             f"p95 ratio **{up['p95_ratio']}x** (target <= 2x): {up['verdict']}."]
    if up.get("complete", True):
        lines.append(f"The upload: {up.get('chunks')} chunks in {up.get('ingest_s')} s (stages {up.get('stage_s')}).")
    else:
        lines.append(f"**Ingest not finished** when these figures were taken, {up.get('ingest_s_so_far')} s into "
                     "it: they cover the queries up to then.")
    lines += [f"Load average at start {up['load_average_start']}, at end {up['load_average_end']} "
              f"({up['cores']} cores).", ""]
    for note in up.get("notes") or []:
        lines += [note, ""]
    return [*lines, f"Command: `{up['command']}`", ""]


# -- main --------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd")
    sp = sub.add_parser("serve", help="(internal) the server process the HTTP benchmark loads")
    sp.add_argument("--home", type=Path, required=True)
    sp.add_argument("--port", type=int, required=True)
    ap.add_argument("--chunks", type=int, nargs="+", default=[10_000, 100_000],
                    help="corpus sizes, each the distinct corpus plus copies")
    ap.add_argument("--distinct", type=int, default=10_000,
                    help="distinct real chunks (embedded once, by real ingestion) the corpora are made from")
    ap.add_argument("--quick", action="store_true",
                    help="10k only from 2k distinct chunks, a 500-chunk ingestion slice, 100 queries, 15 s of HTTP")
    ap.add_argument("--cache", type=Path, default=REPO / ".kgrag" / "bench", help="where built corpora are kept")
    ap.add_argument("--ingest-chunks", type=int, default=2000, help="real-embedding ingestion slice (0: skip)")
    ap.add_argument("--queries", type=int, default=200, help="queries per latency run")
    ap.add_argument("--clients", type=int, nargs="+", default=[1, 8])
    ap.add_argument("--http-clients", type=int, default=8)
    ap.add_argument("--http-seconds", type=float, default=30.0)
    ap.add_argument("--http-max-requests", type=int, default=5000)
    ap.add_argument("--graph", choices=["measured", "extrapolated"], default="measured",
                    help="build each corpus's graph for real (100k: ~15 min on 2 cores), or estimate it from the "
                         "distinct build's rate (a minute)")
    ap.add_argument("--skip", nargs="*", default=[], choices=["graph", "queries", "http"])
    ap.add_argument("--out", type=Path, default=OUT / "perf.json")
    ap.add_argument("--report", action="store_true", help="also copy the Markdown to bench/REPORT.md")
    ap.add_argument("--render", type=Path, default=None, help="only re-render this JSON file to Markdown")
    ap.add_argument("--merge", nargs="+", default=[], metavar="KEY=JSON",
                    help=f"with --render: put these JSON files into it first, under KEY (one of {', '.join(MERGED)})")
    ap.add_argument("--merge-note", action="append", default=[], metavar="KEY=TEXT",
                    help="with --merge: a paragraph for that merged section (how it was measured)")
    args = ap.parse_args(argv)
    if args.cmd == "serve":
        serve(args.home, args.port)
        return 0
    if args.render:
        results = json.loads(args.render.read_text())
        for item in args.merge:
            key, _, path = item.partition("=")
            if key not in MERGED:
                raise SystemExit(f"--merge: {key!r} is not one of {MERGED}")
            results[key] = json.loads(Path(path).read_text())
        for item in args.merge_note:
            key, _, text = item.partition("=")
            if key not in MERGED or key not in results:
                raise SystemExit(f"--merge-note: no merged section {key!r}")
            results[key].setdefault("notes", []).append(text)
        if args.merge:
            import shlex

            results["merged_by"] = "python bench/harness.py " + shlex.join(argv if argv is not None else sys.argv[1:])
            args.render.write_text(json.dumps(results, indent=2) + "\n")
        args.render.with_suffix(".md").write_text(render(results))
        if args.report:
            write_report(results)
        return 0
    if args.quick:
        args.chunks, args.queries, args.http_seconds = [10_000], min(args.queries, 100), min(args.http_seconds, 15)
        args.distinct, args.ingest_chunks = min(args.distinct, 2000), min(args.ingest_chunks, 500)
    sizes = sorted(set(args.chunks))
    results: dict[str, Any] = {
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "commit": git_commit(), "machine": machine(),
        "command": "python bench/harness.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        "json_name": args.out.name, "corpora": {},
    }
    log(f"machine: {results['machine']}")
    from kgrag.core.models import load_embedder
    from kgrag.core.settings import EmbeddingSettings

    embedder = load_embedder(EmbeddingSettings())
    if args.ingest_chunks:
        from kgrag.core.settings import ChunkingSettings
        from kgrag.ingest.chunking import Chunker

        c = ChunkingSettings()
        chunker = Chunker(embedder.count_tokens, embedder.token_offsets, size=c.size, overlap=c.overlap)
        docs, _ = documents_for(args.ingest_chunks, lambda d: len(chunker.chunk_pages(d.pages)))
        with tempfile.TemporaryDirectory(prefix="kgrag-ingest-") as tmp:
            log(f"ingestion slice: {len(docs)} documents")
            results["ingest_slice"] = ingest_real(Path(tmp), docs)
        log(f"  {results['ingest_slice']}")
    qs, warm = (lambda all_: (all_[: args.queries], all_[args.queries:]))(queries(args.queries + WARM_QUERIES))
    base_home = args.cache / f"real{args.distinct}"
    base = build_base(base_home, args.distinct, embedder)
    results["distinct"] = base
    base_graph: dict[str, Any] | None = None
    key = graph_key(settings_for(base_home))
    if "graph" not in args.skip:
        base_graph = cached_graph(base_home, lambda: graph_real(base_home), "distinct", key)
        results["distinct"]["graph"] = base_graph
    for size in sizes:
        home = args.cache / f"c{size}-d{args.distinct}"
        entry: dict[str, Any] = {"corpus": build_replicated(home, base_home, size)}
        results["corpora"][str(size)] = entry
        if "graph" not in args.skip and args.graph == "measured":
            entry["graph"] = cached_graph(home, lambda home=home: graph_real(home), size, key)
        elif "graph" not in args.skip:
            entry["graph"] = cached_graph(
                home, lambda home=home, size=size: graph_replicated(home, base_home, base_graph or {}, size), size,
                "extrapolated:" + key)
        if "queries" not in args.skip:
            log(f"queries {size}: {len(qs)} per run, clients {args.clients}")
            entry["queries"] = query_latency(home, qs, args.clients, warm)
        if "http" not in args.skip:
            log(f"http {size}: {args.http_clients} clients for {args.http_seconds:g} s")
            entry["http"] = http_throughput(home, qs, clients=args.http_clients, seconds=args.http_seconds,
                                            max_requests=args.http_max_requests)
            log(f"  {entry['http']}")
    results["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2))
    md = render(results)
    args.out.with_suffix(".md").write_text(md)
    if args.report:
        write_report(results)
    log(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
