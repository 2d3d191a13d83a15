"""Bytes per chunk of everything kgrag stores, measured on real data homes, and the 10M-chunk capacity
model derived from them (docs/scaling.md's generated block).

    python bench/capacity.py --home .kgrag/eval/scifact --home .kgrag/eval/2wikimultihopqa
    python bench/capacity.py --home … --update docs/scaling.md     # rewrite the block between the markers

For each home it measures, from PostgreSQL's own size functions and the files on disk: the chunks
heap, its TOAST, the HNSW index, the graph evidence tables (entities, mentions, relations, processed
marks, with their indexes), the published artifacts, the BM25 index folder, the graph file and the
graph's serving arrays. Each home is stamped with the commit, its config and the corpus version its
published graph was built from, so the block names what it was measured on. The
10M figures multiply the largest per-chunk measurement by 10M; the halfvec and binary-quantised
HNSW figures are derived from the float32 one by replacing the 4-byte components (stated in the
table). Throughputs come from bench/REPORT.json (the harness's measurements on this machine).
Output: bench/CAPACITY.json (committed; tests/test_bench_report.py checks docs/scaling.md's block
is rendered from it: `python bench/capacity.py --render bench/CAPACITY.json --update docs/scaling.md`).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kgrag.core.db import Database  # noqa: E402
from kgrag.core.settings import Settings  # noqa: E402
from kgrag.eval.runner import git_commit  # noqa: E402
from kgrag.kg.arrays import folder_of as arrays_folder  # noqa: E402

BEGIN, END = "<!-- capacity:begin -->", "<!-- capacity:end -->"
TARGET_CHUNKS = 10_000_000
GIB = 2**30

_SIZES = """
SELECT (SELECT count(*) FROM chunks),
       pg_relation_size('chunks'),
       coalesce(pg_total_relation_size((SELECT reltoastrelid FROM pg_class WHERE relname = 'chunks')), 0),
       pg_relation_size('chunks_embedding_hnsw'),
       pg_total_relation_size('kg_entities') + pg_total_relation_size('kg_mentions')
         + pg_total_relation_size('kg_relations') + pg_total_relation_size('kg_processed_chunks'),
       pg_total_relation_size('kgrag_artifact_parts'),
       (SELECT value FROM kgrag_meta WHERE key = 'embedding_dim'),
       (SELECT a.corpus_version FROM kgrag_artifact_current c JOIN kgrag_artifacts a ON a.id = c.artifact_id
         WHERE c.kind = 'graph')
"""


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.exists() else 0


def measure(home: Path) -> dict[str, Any]:
    settings = Settings(_env_file=None, home=home)
    db = Database.from_settings(settings, embedding_dim=lambda: 384)
    try:
        with db.connection() as conn:
            row = conn.execute(_SIZES).fetchone()
    finally:
        db.close()
    chunks = int(row[0])
    bm25 = _folder_bytes(settings.index_dir / "bm25")
    graph = settings.graph_path.stat().st_size if settings.graph_path.exists() else 0
    if not graph or row[7] is None:
        raise SystemExit(f"{home}: no published graph to measure: run `kgrag graph build` there first")
    sizes = {"chunks_heap": int(row[1]), "chunks_toast": int(row[2]), "hnsw_float32": int(row[3]),
             "graph_evidence_tables": int(row[4]), "published_artifacts": int(row[5]), "bm25_folder": bm25,
             "graph_file": graph, "graph_arrays": _folder_bytes(arrays_folder(settings.graph_path))}
    return {"home": str(home), "chunks": chunks, "embedding_dim": int(row[6]), "graph_corpus_version": int(row[7]),
            "config_hash": settings.config_hash(), "config": settings.fingerprint_config(), "bytes": sizes,
            "bytes_per_chunk": {k: round(v / max(chunks, 1), 1) for k, v in sizes.items()}}


def model(measured: list[dict[str, Any]]) -> dict[str, Any]:
    """The 10M projection: the largest per-chunk figure of any measured home, times 10M."""
    dim = measured[0]["embedding_dim"]
    per = {k: max(m["bytes_per_chunk"][k] for m in measured) for k in measured[0]["bytes_per_chunk"]}
    hnsw = per["hnsw_float32"]
    per["hnsw_halfvec"] = hnsw - 2 * dim  # each stored vector component: 4 bytes → 2
    per["hnsw_binary"] = hnsw - 4 * dim + dim / 8  # → 1 bit (re-rank from the float32 heap)
    report = json.loads((REPO / "bench" / "REPORT.json").read_text())
    big = report["corpora"][max(report["corpora"], key=int)]
    ner_per_core = big["graph"]["chunks_per_s"] / report["machine"]["cores"]
    embed_per_s = report.get("ingest_slice", {}).get("chunks_per_s_by_stage", {}).get("embed")
    return {
        "created_at": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), "git": git_commit(REPO),
        "target_chunks": TARGET_CHUNKS, "embedding_dim": dim, "bytes_per_chunk": per,
        "gib_at_target": {k: round(v * TARGET_CHUNKS / GIB, 1) for k, v in per.items()},
        "ner_chunks_per_core_s": round(ner_per_core, 1),
        "ner_core_hours": round(TARGET_CHUNKS / ner_per_core / 3600, 1),
        "embed_chunks_per_s_2_cores": embed_per_s,
        "embed_core_hours": round(TARGET_CHUNKS / (embed_per_s / report["machine"]["cores"]) / 3600, 1)
        if embed_per_s else None,
        "processes": processes_at_target(json.loads((REPO / "bench" / "REPORT-1M.json").read_text())),
        "source": {"report_commit": report.get("commit"), "graph_measurement": big["graph"]["how"],
                   "graph_chunks": big["graph"]["chunks"]},
    }


def processes_at_target(scale: dict[str, Any]) -> dict[str, Any]:
    """Memory and time of the builders and a server at 10M, scaled linearly from the 1M run.

    Linear is an upper bound for the graph (entities grow as n^0.873 there) and close for BM25 (its
    build holds every token); one measured point cannot show curvature, so the table says linear."""
    factor = TARGET_CHUNKS / scale["corpus"]["chunks"]
    runs = {
        "graph build (after extraction)": (scale["graph_build"], "peak_rss_mb", "seconds"),
        "BM25 index build": (scale["bm25_build"], "peak_rss_mb", "wall_s"),
        "serving process (HTTP, 8 clients)": (scale["http"], "rss_peak_mb", None),
    }
    rows = []
    for name, (run, rss_key, time_key) in runs.items():
        seconds = run[time_key] if time_key else None
        rows.append({"process": name, "rss_mb": run[rss_key], "seconds": seconds,
                     "rss_gib_at_target": round(run[rss_key] * factor / 1024, 1),
                     "hours_at_target": round(seconds * factor / 3600, 1) if seconds else None,
                     "measured_at": (run.get("carried_from") or scale)["commit"]})
    return {"chunks": scale["corpus"]["chunks"], "machine_ram_gb": scale["machine"]["ram_gb"],
            "cores": scale["machine"]["cores"], "rows": rows}


def markdown(measured: list[dict[str, Any]], m: dict[str, Any]) -> str:
    rows = [
        ("chunks heap (text, metadata, float32 vector inline)", "chunks_heap"),
        ("chunks TOAST (long texts)", "chunks_toast"),
        ("HNSW index, float32 (measured)", "hnsw_float32"),
        (f"HNSW index, halfvec (derived: −2 bytes × {m['embedding_dim']} dims)", "hnsw_halfvec"),
        (f"HNSW index, binary quantised (derived: {m['embedding_dim']} dims at 1 bit)", "hnsw_binary"),
        ("graph evidence rows (entities, mentions, relations, marks; with indexes)", "graph_evidence_tables"),
        ("published artifacts in Postgres (BM25 index; graph file and serving arrays)", "published_artifacts"),
        ("BM25 index on a replica's disk (memory-mapped)", "bm25_folder"),
        ("graph file on a replica's disk (gzip JSON; read only by export and older replicas)", "graph_file"),
        ("graph serving arrays on a replica's disk (memory-mapped CSR and string tables)", "graph_arrays"),
    ]
    homes = ", ".join(f"{Path(x['home']).name} ({x['chunks']:,} chunks, graph of corpus version "
                      f"{x['graph_corpus_version']}, config {x['config_hash']})" for x in measured)
    git = m["git"]
    at = f"commit {git['commit'][:7]}{' (uncommitted changes)' if git['dirty'] else ''}" if git["commit"] else "?"
    lines = [f"Measured on {homes} at {at}, {m['created_at']}, by `python bench/capacity.py`; "
             "10M = the larger per-chunk figure × 10M.", "",
             "| what | bytes per chunk | at 10M chunks |", "|---|---:|---:|"]
    for label, key in rows:
        lines.append(f"| {label} | {m['bytes_per_chunk'][key]:,.0f} | {m['gib_at_target'][key]:,.1f} GiB |")
    lines += ["", f"- NER (spaCy, entities): {m['ner_chunks_per_core_s']} chunks/s per core (bench/REPORT.json, "
              f"{m['source']['graph_chunks']:,}-chunk build) → **{m['ner_core_hours']:,} core-hours** for 10M "
              f"chunks, e.g. {m['ner_core_hours'] / 32:,.1f} h on 32 cores."]
    if m["embed_core_hours"]:
        lines.append(f"- Embedding (all-MiniLM-L6-v2 on CPU): {m['embed_chunks_per_s_2_cores']} chunks/s on 2 cores "
                     f"(bench/REPORT.json ingestion) → **{m['embed_core_hours']:,} core-hours** for 10M chunks, e.g. "
                     f"{m['embed_core_hours'] / 32:,.1f} h on 32 cores. GPU throughput was not measured (no "
                     "accelerator on this machine).")
    procs = m["processes"]
    lines += ["", f"Processes at 10M, scaled linearly from the {procs['chunks']:,}-chunk run (bench/REPORT-1M.json, "
              f"{procs['cores']} cores, {procs['machine_ram_gb']} GB RAM):", "",
              "| process | peak RSS at 1M | at 10M | time at 1M | at 10M |", "|---|---:|---:|---:|---:|"]
    for row in procs["rows"]:
        took = f"{row['seconds']:,.0f} s | {row['hours_at_target']:,.1f} h" if row["seconds"] else "– | –"
        lines.append(f"| {row['process']} (commit {row['measured_at']}) | {row['rss_mb']:,.0f} MB | "
                     f"{row['rss_gib_at_target']:,.1f} GiB | {took} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--home", type=Path, action="append", help="A data home to measure (repeat for several).")
    source.add_argument("--render", type=Path, metavar="JSON", help="Render a saved measurement; measure nothing.")
    parser.add_argument("--update", type=Path, help="Rewrite the block between the capacity markers in this file.")
    parser.add_argument("--out", type=Path, default=REPO / "bench" / "CAPACITY.json")
    args = parser.parse_args()
    if args.render:
        saved = json.loads(args.render.read_text())
        measured, m = saved["measured"], saved["model"]
    else:
        measured = [measure(h) for h in args.home]
        m = model(measured)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"measured": measured, "model": m}, indent=2) + "\n")
    block = markdown(measured, m)
    print(block)
    if args.update:
        args.update.write_text(splice(args.update.read_text(), block))


def _markers(text: str) -> tuple[int, int]:
    if BEGIN not in text or END not in text:
        raise SystemExit(f"no {BEGIN} … {END} markers to write the capacity block between")
    return text.index(BEGIN) + len(BEGIN), text.index(END)


def splice(text: str, block: str) -> str:
    start, end = _markers(text)
    return text[:start] + "\n" + block + "\n" + text[end:]


def current_block(text: str) -> str:
    """The block a document holds now, to compare with what its JSON renders."""
    start, end = _markers(text)
    return text[start:end].strip("\n")


if __name__ == "__main__":
    main()
