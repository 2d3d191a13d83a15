"""kill -9 during `kgrag ingest` leaves no partial document, and the next run finishes the work."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
from kgrag.core.runtime import Runtime
from kgrag.core.settings import ChunkingSettings, EmbeddingSettings
from kgrag.ingest.loaders import load_file
from kgrag.ingest.pipeline import Ingestor

N_DOCS = 120
CHUNKING = ChunkingSettings(size=32, overlap=0)


def write_corpus(folder: Path) -> None:
    folder.mkdir()
    for i in range(N_DOCS):
        sentences = [f"Report {i} part {j} says the ferry to island {i * 7 + j} leaves at dawn." for j in range(4)]
        (folder / f"doc{i:04d}.txt").write_text(" ".join(sentences))


def count_documents(url: str) -> int:
    try:
        with psycopg.connect(url) as conn:
            return int(conn.execute("SELECT count(*) FROM documents WHERE status = 'indexed'").fetchone()[0])
    except psycopg.Error:  # schema not created yet
        return 0


def test_kill_during_ingest_leaves_only_whole_documents(
    runtime: Runtime, fresh_database_url: str, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"
    write_corpus(corpus)
    env = {**os.environ, "KGRAG_HOME": str(tmp_path / "home"), "KGRAG_DATABASE__URL": fresh_database_url,
           "KGRAG_CHUNKING__SIZE": str(CHUNKING.size), "KGRAG_CHUNKING__OVERLAP": str(CHUNKING.overlap)}
    proc = subprocess.Popen([sys.executable, "-m", "kgrag", "ingest", str(corpus)], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while count_documents(fresh_database_url) < 5:
            assert proc.poll() is None, "ingest finished before it could be killed"
            assert time.monotonic() < deadline, "ingest never started writing"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    ingestor = Ingestor(runtime.store, runtime.checked_embedder(), CHUNKING, EmbeddingSettings())
    stored = runtime.store.list_documents(status="indexed")
    assert 5 <= len(stored) < N_DOCS
    for doc in stored:  # every stored document has exactly the chunks its text makes
        expected = ingestor.chunker.chunk_pages(load_file(Path(doc.source)).pages)
        assert doc.chunk_count == len(expected), doc.source
    # What the killed run had accepted but not finished is listed as pending, with no chunks: not lost.
    pending = runtime.store.list_documents(status="pending")
    assert pending and all(d.chunk_count == 0 for d in pending)
    assert {d.source for d in stored}.isdisjoint(d.source for d in pending)

    report = ingestor.ingest_paths([corpus])
    assert len(report.unchanged) == len(stored) and len(report.added) == N_DOCS - len(stored)
    assert not report.failed and len(runtime.store.list_documents()) == N_DOCS
    assert runtime.store.list_documents(status="pending") == []
