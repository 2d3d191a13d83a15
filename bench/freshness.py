"""Freshness at a million chunks, every signal (issue 29): additions and deletes reach a second replica in seconds.

Not a test. On bench/scale.py's million-chunk home, after `make bench-1m` built and published its BM25 index and
graph, with two replicas in this process (A on the home itself, B on a second data home against the same
database; each a real pipeline with its own artifact sync):
 0. **add, no build called**: 100 new documents are ingested on A as an upload is, and A's own artifact sync (a
    started one with background builds, as `kgrag serve` runs it) is kicked as the upload route kicks it; nothing
    calls a build. Reported: the time from the ingest's start until B serves the new corpus version in BM25 and the
    graph, and how many new chunks each signal finds on B (issue 45);
 1. **add**: 100 new documents (two chunks each, each naming an older document's title) are ingested as an
    upload is; the BM25 publish `kgrag ingest` makes and a `kgrag graph build` run in child processes (wall,
    peak RSS); then B syncs. Reported: the time from the ingest's start until B serves the new corpus version
    in BM25 and the graph (dense reads the database), and how many new chunks each signal finds on B;
 2. **delete**: the 100 documents are deleted; reported: the time from the first delete until each replica
    has answered a query in every signal after the last (the first query pays for reading the deletion log),
    then that no chunk of theirs is in any signal's results on either replica before BM25 publishes, and
    again after it publishes as `kgrag documents delete` does;
 3. **10 deltas pending**: ten rounds of 10 documents, each with its BM25 publish and graph build (each
    build a delta); then retrieval+fusion latency on B (the 200 questions bench/scale.py uses);
 4. **compaction**: a whole graph build (`kgrag graph build --full`) and a whole BM25 build in child processes
    at niceness 10 (as a background builder runs), their peak RSS, and B's query latency while they run.

    HF_HUB_OFFLINE=1 python bench/freshness.py --home .kgrag/bench/scale1000000 --out bench/FRESHNESS-1M.json --report

``--report`` merges the result into bench/REPORT-1M.json (under "freshness") and renders bench/REPORT-1M.md again,
with issue 29's targets in its table.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import harness  # noqa: E402  (bench/ is not a package)
from scale import measure_child  # noqa: E402

DOCUMENTS = 100
ROUNDS, ROUND_DOCUMENTS = 10, 10
QUERIES = 200
WORDS = ("harbour", "turbine", "ledger", "quarry", "lantern", "orchard", "glacier", "foundry", "meadow", "canal")


RUN = time.strftime("%y%m%d%H%M")
"""Each run's documents are its own: a second run on the same home adds new ones (the rounds' stay stored)."""


def word(i: int) -> str:
    return f"qelvarin{RUN}n{i:04d}"


def documents(start: int, count: int, named: list[str]) -> list[Any]:
    """Two chunks' worth of text each, titled by its own word, the first paragraph naming an older title."""
    from kgrag.ingest.loaders import load_text

    rng = random.Random(start)
    out = []
    for i in range(start, start + count):
        first = f"The {word(i)} survey was commissioned by {named[i % len(named)]}. "
        paragraphs = [(first if p == 0 else f"The {word(i)} survey, part {p}. ")
                      + " ".join(rng.choice(WORDS) for _ in range(160)) for p in range(2)]
        out.append(load_text("\n\n".join(paragraphs), source=f"bench-fresh/{RUN}/{i}", title=f"Survey {word(i)}"))
    return out


# -- the builder's steps, each in its own process (its RSS its own) -----------------------------------------
def child_bm25(home: Path, force: bool) -> None:
    from kgrag.core.runtime import Runtime
    from kgrag.retrieval.maintenance import describe_index, publish_bm25

    with Runtime(harness.settings_for(home)) as rt:
        index = publish_bm25(rt, force=force)
        print(json.dumps({"published_version": index.serving_version, "index": describe_index(index)}), flush=True)


def child_graph(home: Path, full: bool) -> None:
    from kgrag.core.runtime import Runtime
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore

    with Runtime(harness.settings_for(home)) as rt:
        report = build_graph(GraphStore(rt.db), rt.settings.graph, rt.settings.graph_path, rt.spacy(),
                             embedder=rt.embedder, full=full)
        print(json.dumps({"corpus_version": report.corpus_version, "delta_chunks": report.delta_chunks,
                          "chunks_processed": report.chunks_processed, "build_s": round(report.seconds, 1)}),
              flush=True)


# -- the replicas ----------------------------------------------------------------------------------------
class Replica:
    """A pipeline over a data home and its own artifact sync, as a serving replica has."""

    def __init__(self, rt: Any) -> None:
        from kgrag.retrieval.pipeline import build_pipeline
        from kgrag.retrieval.sync import sync_for

        self.rt = rt
        self.pipe = build_pipeline(rt, signals=("dense", "bm25", "graph"))
        self.sync = sync_for(rt, self.pipe, background_builds=False, start=False, listen=False)

    def serves(self) -> tuple[int | None, int | None]:
        """(BM25's, the graph's) corpus versions served, after a sync."""
        self.sync.sync_once()
        status = self.sync.status()
        return ((status["bm25"] or {}).get("corpus_version"), (status["graph"] or {}).get("corpus_version"))

    def found(self, chunk_ids: set[int], questions: list[str]) -> dict[str, int]:
        """Per signal, how many of ``chunk_ids`` its results hold over the questions."""
        from kgrag.retrieval.base import Query

        got: dict[str, set[int]] = {name: set() for name in self.pipe.retrievers}
        for q in questions:
            for name, retriever in self.pipe.retrievers.items():
                got[name] |= {h.chunk_id for h in retriever.retrieve(Query(q, k=10)).hits}
        return {name: len(ids & chunk_ids) for name, ids in got.items()}

    def latency(self, questions: list[str]) -> dict[str, float]:
        totals = [self.pipe.run(q, rerank=False).timings["total"] * 1000 for q in questions]
        return summary(totals)

    def close(self) -> None:
        self.sync.close()
        self.pipe.close()


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {"queries": len(ms), "p50_ms": round(statistics.median(ordered), 2),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2)}


def until(check: Any, timeout: float = 300.0, step: float = 0.05) -> float:
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("a replica did not catch up")
        time.sleep(step)
    return time.perf_counter() - t0


def corpus_of(rt: Any) -> dict[str, int]:
    with rt.db.connection() as conn:
        chunks, documents_ = conn.execute(
            "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM documents)").fetchone()
    return {"chunks": int(chunks), "documents": int(documents_)}


def add_by_background_builder(ra: Any, a: Replica, b: Replica, docs: list[Any]) -> dict[str, Any]:
    """Step 0: an upload to a serving replica, and nothing else. A's sync is started with background builds, as
    `kgrag serve` starts it, and kicked as the upload route kicks it; B only syncs. The clock runs from the
    ingest's start until B serves the new corpus version in BM25 and the graph."""
    from kgrag.ingest.pipeline import Ingestor
    from kgrag.retrieval.sync import sync_for

    serving = sync_for(ra, a.pipe, background_builds=True, start=True, listen=True)
    try:
        t0 = time.perf_counter()
        report = Ingestor.from_runtime(ra).ingest_documents(docs)
        serving.kick()
        step: dict[str, Any] = {"ingest_s": round(time.perf_counter() - t0, 2),
                                "graph_build_delay_s": ra.settings.artifacts.graph_build_delay}
        new = {c.id for d in report.document_ids.values() for c in ra.store.document_chunks(d)}
        step["new_chunks"] = len(new)
        version = ra.store.corpus_version()
        until(lambda: b.serves() == (version, version), timeout=600, step=0.25)
        step["all_signals_on_b_s"] = round(time.perf_counter() - t0, 2)
        builds = serving.builds
        step["graph_builds"] = builds.builds
        step["graph_build_s"] = builds.last_seconds
        step["graph_build_error"] = builds.last_error
        step["found_on_b"] = b.found(new, [d.title for d in docs])
    finally:
        serving.close()
    harness.log(f"add, no build called: every signal serves the 100 documents on B {step['all_signals_on_b_s']} s "
                f"after the ingest began; found on B {step['found_on_b']}")
    return step


def run(home: Path, out: dict[str, Any], carry: dict[str, Any] | None = None) -> dict[str, Any]:
    """Fills ``out`` step by step (a run that fails midway still leaves what it measured)."""
    from kgrag.core.runtime import Runtime
    from kgrag.ingest.pipeline import Ingestor

    me = [sys.executable, str(Path(__file__).resolve())]
    out.update({"home": str(home), "commit": harness.git_commit(), "machine": harness.machine(),
                "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                "command": "python bench/freshness.py " + " ".join(sys.argv[1:])})
    questions = harness.queries(QUERIES)

    def bm25(label: str, force: bool = False, nice: bool = False) -> dict[str, Any]:
        cmd = [*me, "--child", "bm25", "--home", str(home), *(["--force"] if force else [])]
        return measure_child(["nice", "-n", "10", *cmd] if nice else cmd, label=label)

    def graph(label: str, full: bool = False, nice: bool = False) -> dict[str, Any]:
        cmd = [*me, "--child", "graph", "--home", str(home), *(["--full"] if full else [])]
        return measure_child(["nice", "-n", "10", *cmd] if nice else cmd, label=label,
                             cap_mb=16384.0 if full else 4096.0)

    from kgrag.core.settings import DatabaseSettings

    with Runtime(harness.settings_for(home)) as ra, \
            Runtime(harness.settings_for(Path(tempfile.mkdtemp(prefix="kgrag-replica-b-"))).model_copy(
                update={"database": DatabaseSettings(url=ra.db.url)}), embedder=ra.embedder) as rb:
        a, b = Replica(ra), Replica(rb)
        t0 = time.perf_counter()
        out["replica_b_install_s"] = round(until(lambda: None not in b.serves() and None not in a.serves(),
                                                 timeout=1800, step=1.0), 1)
        harness.log(f"replica B installed the base artifacts in {out['replica_b_install_s']} s")
        for replica in (a, b):
            replica.pipe.warm()
            replica.latency(questions[:20])
        with ra.db.connection() as conn:
            named = [r[0] for r in conn.execute(
                "SELECT title FROM documents WHERE length(title) BETWEEN 8 AND 40 ORDER BY id LIMIT 500")]

        out["corpus"] = corpus_of(ra)

        # 0. add, with no build called: the serving replica's own background builder publishes both artifacts
        out["add_background"] = add_by_background_builder(ra, a, b, documents(DOCUMENTS * 50, DOCUMENTS, named))
        until(lambda: a.serves() == b.serves(), step=0.1)

        # 1. add
        docs = documents(0, DOCUMENTS, named)
        t0 = time.perf_counter()
        report = Ingestor.from_runtime(ra).ingest_documents(docs)
        add: dict[str, Any] = {"ingest_s": round(time.perf_counter() - t0, 2)}
        new = {c.id for d in report.document_ids.values() for c in ra.store.document_chunks(d)}
        add["new_chunks"] = len(new)
        add["bm25_publish"] = bm25("bm25 publish (add)")
        add["graph_build"] = graph("graph build (add)")
        version = ra.store.corpus_version()
        until(lambda: b.serves() == (version, version))
        add["all_signals_on_b_s"] = round(time.perf_counter() - t0, 2)
        add["found_on_b"] = b.found(new, [f"Survey {word(i)}" for i in range(DOCUMENTS)])
        until(lambda: a.serves() == (version, version))  # A loads the delta too, as its sync thread would
        out["add"] = add
        harness.log(f"add: every signal serves the 100 documents on B {add['all_signals_on_b_s']} s after the ingest "
                    f"began; found on B {add['found_on_b']}")

        # 2. delete
        asked = [f"Survey {word(i)}" for i in range(DOCUMENTS)]
        t0 = time.perf_counter()
        for document_id in report.document_ids.values():
            ra.store.delete_document(document_id)
        delete: dict[str, Any] = {"deletes_s": round(time.perf_counter() - t0, 2)}
        # From the last commit on, no query may return them; the first query each replica and signal answers
        # after it pays for finding out (the deletion log's rows), so it is counted in.
        first = {label: replica.found(new, asked[:1]) for label, replica in (("a", a), ("b", b))}
        delete["gone_on_both_s"] = round(time.perf_counter() - t0, 2)
        delete["first_query_found"] = first
        # Every question, before any BM25 index is published: each must be all 0.
        delete["found_before_publish"] = {"a": a.found(new, asked), "b": b.found(new, asked)}
        delete["bm25_publish"] = bm25("bm25 publish (delete)")  # as `kgrag documents delete` does next
        version = ra.store.corpus_version()
        until(lambda: a.serves()[0] == b.serves()[0] == version, step=0.1)
        delete["found_after"] = {"a": a.found(new, asked), "b": b.found(new, asked)}  # each must be all 0
        out["delete"] = delete
        harness.log(f"delete: no chunk of theirs in any signal on either replica after {delete['gone_on_both_s']} s")

        # 3. ten deltas pending
        rounds = []
        for r in range(ROUNDS):
            start = DOCUMENTS + r * ROUND_DOCUMENTS
            t0 = time.perf_counter()
            Ingestor.from_runtime(ra).ingest_documents(documents(start, ROUND_DOCUMENTS, named))
            step = {"bm25_publish": bm25(f"bm25 publish (round {r + 1})"),
                    "graph_build": graph(f"graph build (round {r + 1})")}
            version = ra.store.corpus_version()
            until(lambda v=version: b.serves() == (v, v))
            step["all_signals_on_b_s"] = round(time.perf_counter() - t0, 2)
            rounds.append(step)
        out["rounds"] = rounds
        b.latency(questions[:20])
        out["pending_latency_b"] = b.latency(questions)
        harness.log(f"10 deltas pending: retrieval+fusion on B {out['pending_latency_b']}")

        if carry is not None:  # 4. carried from a run of the same bench (a whole build: nothing above changes it)
            out["compaction"] = {"latency_b_before": carry["pending_latency_b"], **carry["compaction"]}
            out["after_compaction_latency_b"] = carry["after_compaction_latency_b"]
            out["carried"] = {"compaction": carry.get("carried", {}).get("compaction")  # the run that measured it
                              or {"commit": carry["commit"], "started": carry["started"]}}
            a.close()
            b.close()
            return out

        # 4. compaction while B serves
        during: list[float] = []
        done = threading.Event()
        compaction: dict[str, Any] = {"latency_b_before": out["pending_latency_b"]}  # its p95 ratio's baseline

        def compact() -> None:
            compaction["graph_build"] = graph("graph build --full (compaction)", full=True, nice=True)
            compaction["bm25_build"] = bm25("bm25 build --force (compaction)", force=True, nice=True)
            done.set()

        threading.Thread(target=compact).start()
        i = 0
        while not done.is_set():
            during.append(b.pipe.run(questions[i % len(questions)], rerank=False).timings["total"] * 1000)
            i += 1
        compaction["latency_b_during"] = summary(during)
        out["compaction"] = compaction
        version = ra.store.corpus_version()
        compaction["b_serves_new_base_s"] = round(until(lambda: b.serves() == (version, version), timeout=1800,
                                                        step=1.0), 1)
        out["after_compaction_latency_b"] = b.latency(questions)
        a.close()
        b.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, default=REPO / ".kgrag" / "bench" / "scale1000000")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "freshness.json")
    ap.add_argument("--child", choices=["bm25", "graph"], help=argparse.SUPPRESS)
    ap.add_argument("--force", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--full", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--carry-compaction", type=Path, metavar="JSON",
                    help="skip step 4 and take the compaction's figures from an earlier run's JSON (a whole build "
                         "and a whole BM25 build: 20 minutes that changes to the delta or delete paths do not move)")
    ap.add_argument("--report", action="store_true",
                    help="also merge the result into bench/REPORT-1M.json and re-render bench/REPORT-1M.md")
    args = ap.parse_args()
    if args.child == "bm25":
        child_bm25(args.home, args.force)
        return 0
    if args.child == "graph":
        child_graph(args.home, args.full)
        return 0
    result: dict[str, Any] = {}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    try:
        carry = json.loads(args.carry_compaction.read_text()) if args.carry_compaction else None
        run(args.home, result, carry)
    except BaseException as exc:
        result["failed"] = f"{type(exc).__name__}: {exc}"
        args.out.write_text(json.dumps(result, indent=1) + "\n")
        raise
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    if args.report:
        from scale import write_outputs

        report = json.loads((REPO / "bench" / "REPORT-1M.json").read_text())
        report["freshness"] = result
        write_outputs(report, REPO / "bench" / "out" / "scale.json", True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
