"""BM25 freshness at scale: 100 new documents, then their delete, reach a second replica as a delta.

Not a test. On a data home with a large corpus (bench/scale.py's million-chunk home):
 1. a base index with the statistics deltas are scored with (a whole build, once: an index published
    before deltas existed lacks them), in a child process: wall time and peak RSS;
 2. replica B, a BM25 retriever over a second data home, installs that base (not timed);
 3. 100 new documents are ingested (embedded as an upload is; not what is measured);
 4. the builder publishes, in a child process as `kgrag ingest` does after its writes: wall time and
    peak RSS; then B syncs, and the time from the publish's start until B serves the corpus version
    and finds every new document by its own word is reported;
 5. the 100 documents are deleted and the builder publishes again; the time until none of their chunks
    is in B's BM25 results is reported.

    HF_HUB_OFFLINE=1 python bench/bm25_freshness.py --home .kgrag/bench/scale1000000 --out bench/BM25_FRESHNESS.json
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "bench"))
import harness  # noqa: E402  (bench/ is not a package)
from scale import measure_child  # noqa: E402

DOCUMENTS = 100
WORDS = ("harbour", "turbine", "ledger", "quarry", "lantern", "orchard", "glacier", "foundry", "meadow", "canal")


def word(i: int) -> str:
    return f"qelvarin{i:03d}"


def documents() -> list[Any]:
    """Two chunks' worth of text each, every document naming its own word."""
    from kgrag.ingest.loaders import load_text

    rng = random.Random(11)
    out = []
    for i in range(DOCUMENTS):
        paragraphs = [f"The {word(i)} survey, part {p}. " + " ".join(rng.choice(WORDS) for _ in range(160))
                      for p in range(2)]
        out.append(load_text("\n\n".join(paragraphs), source=f"bench-fresh/{i}", title=f"Survey {word(i)}"))
    return out


def child_publish(home: Path, force: bool) -> None:
    from kgrag.core.runtime import Runtime
    from kgrag.retrieval.maintenance import describe_index, publish_bm25

    with Runtime(harness.settings_for(home)) as rt:
        index = publish_bm25(rt, force=force)
        print(json.dumps({"published_version": index.serving_version, "index": describe_index(index)}), flush=True)


def found(retriever: Any, ids: set[int]) -> set[int]:
    """The chunk ids of ``ids`` that B's BM25 returns for the documents' own words."""
    from kgrag.retrieval.base import Query

    hits: set[int] = set()
    for i in range(DOCUMENTS):
        hits |= {h.chunk_id for h in retriever.retrieve(Query(word(i), k=10)).hits}
    return hits & ids


def until(check: Any, timeout: float = 120.0) -> float:
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > timeout:
            raise TimeoutError("replica B did not catch up")
        time.sleep(0.05)
    return time.perf_counter() - t0


def run(home: Path) -> dict[str, Any]:
    from kgrag.core.runtime import Runtime
    from kgrag.ingest.pipeline import Ingestor
    from kgrag.retrieval.bm25 import BM25Retriever

    me = [sys.executable, str(Path(__file__).resolve())]
    out: dict[str, Any] = {"home": str(home), "commit": harness.git_commit(), "documents": DOCUMENTS}
    settings = harness.settings_for(home)
    with Runtime(settings) as rt:
        base = BM25Retriever(rt.store, settings.retrieval, settings.index_dir).sync()
        if base is None or base.mean_length is None:
            out["base_build"] = measure_child([*me, "--child", "publish", "--force", "--home", str(home)],
                                              label="base build")
        replica = BM25Retriever(rt.store, settings.retrieval, Path(tempfile.mkdtemp(prefix="kgrag-replica-b-")))
        replica.sync()
        report = Ingestor.from_runtime(rt).ingest_documents(documents())
        new = {c.id for d in report.document_ids.values() for c in rt.store.document_chunks(d)}
        out["new_chunks"] = len(new)
        t0 = time.perf_counter()
        out["publish"] = measure_child([*me, "--child", "publish", "--home", str(home)], label="delta publish")
        version = rt.store.corpus_version()
        until(lambda: (replica.sync() or replica.current_index()).serving_version == version)
        out["replica_serves_s"] = round(time.perf_counter() - t0, 2)
        out["replica_finds_new"] = len(found(replica, new))
        out["replica_index"] = replica.current_index().chunks

        t0 = time.perf_counter()
        for document_id in report.document_ids.values():
            rt.store.delete_document(document_id)
        deleted = time.perf_counter()
        out["deletes_s"] = round(deleted - t0, 2)
        out["delete_publish"] = measure_child([*me, "--child", "publish", "--home", str(home)], label="delete publish")

        def gone() -> bool:
            replica.sync()
            return not found(replica, new)

        until(gone)
        out["deleted_gone_on_replica_s"] = round(time.perf_counter() - deleted, 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--home", type=Path, default=REPO / ".kgrag" / "bench" / "scale1000000")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "out" / "bm25_freshness.json")
    ap.add_argument("--child", choices=["publish"], help=argparse.SUPPRESS)
    ap.add_argument("--force", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child == "publish":
        child_publish(args.home, args.force)
        return 0
    result = run(args.home)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
