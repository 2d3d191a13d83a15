"""The ``ray`` executor (the ``kgrag[ray]`` extra) gives what the local one gives: rows and graph file.

One real local Ray (``num_cpus=2``) serves the module; the corpus is ingested once per executor into
its own fresh database on the session's embedded PostgreSQL, then graphed, with the real MiniLM model
and the real spaCy pipeline on both sides.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psutil
import pytest
from kgrag.api.cli import app
from kgrag.api.cli.common import ExecutorKind, executor_settings
from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.executor import check_reachable, code_digest, ray_session, require_ray
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import (
    ChunkingSettings,
    DatabaseSettings,
    EmbeddingSettings,
    ExecutorSettings,
    GraphSettings,
    Settings,
)
from kgrag.ingest.pipeline import Ingestor, IngestReport
from kgrag.kg.build import BuildReport, build_graph
from kgrag.kg.store import GraphStore
from typer.testing import CliRunner

from tests.conftest import REPO_ROOT, create_database
from tests.kg_fixtures import GRAPH_CORPUS, nlp_fixture  # noqa: F401  (the `nlp` fixture)

RAY = ExecutorSettings(kind="ray", ray_cpus=2)
EMBEDDING = EmbeddingSettings(batch_size=4, yield_every=2)
CHUNKING = ChunkingSettings(size=48, overlap=8)
"""Small chunks and batches: the corpus's ~60 chunks make many batches of several pieces (each of two
model calls), so both actors work and more than one batch is in flight."""
GRAPH = GraphSettings(processes=1)
EMBEDDING_ATOL = 1e-5
"""Ray pieces are whole model calls, so every text is padded with the same neighbours as locally; what
can still differ is the matrix kernels' summation order (an actor runs torch on one thread, this
process on several), which moves float32 results in the last bits (~1e-7), far below 1e-5."""


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[Any]:
    with ray_session(RAY) as ray:
        yield ray


def _runtime(pg_server: str, home: Path, embedder: Embedder) -> Runtime:
    settings = Settings(_env_file=None, home=home, database=DatabaseSettings(url=create_database(pg_server)),
                        embedding=EMBEDDING, chunking=CHUNKING, graph=GRAPH)
    return Runtime(settings, embedder=embedder)


def _ingest(rt: Runtime, executor: ExecutorSettings | None) -> IngestReport:
    s = rt.settings
    ingestor = Ingestor(rt.store, rt.checked_embedder(), s.chunking, s.embedding, s.ingest, executor=executor)
    report = ingestor.ingest_paths([GRAPH_CORPUS])
    assert not report.failed, report.failed
    return report


@pytest.fixture(scope="module")
def corpora(ray_cluster: Any, pg_server: str, embedder: Embedder, tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[tuple[Runtime, Runtime]]:
    """(ingested here, ingested with Ray embedding): the same files into two fresh databases."""
    local = _runtime(pg_server, tmp_path_factory.mktemp("local"), embedder)
    on_ray = _runtime(pg_server, tmp_path_factory.mktemp("ray"), embedder)
    _ingest(local, None)
    report = _ingest(on_ray, RAY)
    assert report.chunks_written > 4 * EMBEDDING.batch_size  # at least two batches, each cut into pieces
    yield local, on_ray
    local.close()
    on_ray.close()


def _chunks(rt: Runtime) -> tuple[list[tuple[Any, ...]], np.ndarray]:
    with rt.db.connection() as conn:
        rows = conn.execute(
            "SELECT c.id, d.id, d.source, d.content_hash, d.ingest_key, d.title, d.mime_type, d.metadata,"
            " c.position, c.page, c.text, c.token_count, c.metadata, c.embedding"
            " FROM chunks c JOIN documents d ON d.id = c.document_id ORDER BY c.id"
        ).fetchall()
    return [row[:-1] for row in rows], np.array([row[-1].to_numpy() for row in rows])


def _graph_rows(rt: Runtime) -> dict[str, list[tuple[Any, ...]]]:
    queries = {
        "entities": "SELECT key FROM kg_entities ORDER BY key",
        "mentions": "SELECT e.key, m.chunk_id, m.surface, m.label, m.count FROM kg_mentions m"
                    " JOIN kg_entities e ON e.id = m.entity_id ORDER BY 1, 2, 3, 4",
        "relations": "SELECT s.key, t.key, r.relation, r.chunk_id, r.weight FROM kg_relations r"
                     " JOIN kg_entities s ON s.id = r.source_id JOIN kg_entities t ON t.id = r.target_id"
                     " ORDER BY 1, 2, 3, 4",
        "processed": "SELECT chunk_id FROM kg_processed_chunks ORDER BY 1",
    }
    with rt.db.connection() as conn:
        return {name: conn.execute(sql).fetchall() for name, sql in queries.items()}


def _build(rt: Runtime, nlp: Any, executor: ExecutorSettings | None, **kwargs: Any) -> BuildReport:
    return build_graph(GraphStore(rt.db), rt.settings.graph, rt.settings.graph_path, nlp, batch_chunks=2,
                       executor=executor, **kwargs)


def test_ray_workers_run_this_checkout(ray_cluster: Any) -> None:
    """The venv's editable install points at another checkout: the job must ship this one's code."""

    @ray_cluster.remote(num_cpus=1)
    def where() -> tuple[str, str]:
        import kgrag.kg.parallel

        return kgrag.kg.parallel.__file__, code_digest()

    path, digest = ray_cluster.get(where.remote())
    assert digest == code_digest()
    assert Path(path).read_bytes() == (REPO_ROOT / "kg" / "parallel.py").read_bytes()


def test_ingest_embedding_on_ray_stores_the_same_chunks(corpora: tuple[Runtime, Runtime]) -> None:
    local_rows, local_vectors = _chunks(corpora[0])
    ray_rows, ray_vectors = _chunks(corpora[1])
    assert len(local_rows) > 4 * EMBEDDING.batch_size
    assert ray_rows == local_rows  # ids, documents, text, positions: row for row
    assert ray_vectors.shape == local_vectors.shape
    np.testing.assert_allclose(ray_vectors, local_vectors, rtol=0, atol=EMBEDDING_ATOL)


def test_graph_build_on_ray_writes_the_same_file_and_rows(corpora: tuple[Runtime, Runtime], nlp: Any) -> None:
    local, on_ray = corpora
    local_report = _build(local, nlp, None)
    batches: list[int] = []
    ray_report = _build(on_ray, nlp, RAY, on_progress=batches.append)
    assert len(batches) > 8  # enough batches to keep both actors busy and the in-flight bound in play
    assert ray_report.chunks_processed == local_report.chunks_processed > 0
    assert _graph_rows(on_ray) == _graph_rows(local)
    # The file names the database it came from, so bytes are compared within one database.
    on_ray_bytes = on_ray.settings.graph_path.read_bytes()
    _build(on_ray, nlp, None, rebuild=True)
    assert on_ray.settings.graph_path.read_bytes() == on_ray_bytes


def test_a_worker_killed_mid_build_changes_nothing(corpora: tuple[Runtime, Runtime], nlp: Any) -> None:
    """Ray restarts the dead actor and retries its tasks; the driver still writes each batch once."""
    local, on_ray = corpora
    if not local.settings.graph_path.exists():
        _build(local, nlp, None)
    _build(on_ray, nlp, None, rebuild=True)
    reference = on_ray.settings.graph_path.read_bytes()  # the local build, in the same database
    killed: list[int] = []

    def kill_one_worker(_chunks: int) -> None:
        if killed:
            return
        workers = [p for p in psutil.process_iter(["cmdline"])
                   if any("RayExtractor" in part for part in p.info["cmdline"] or ())]
        assert len(workers) == 2, [w.info["cmdline"] for w in workers]  # one actor per Ray CPU
        os.kill(workers[0].pid, signal.SIGKILL)
        killed.append(workers[0].pid)

    report = _build(on_ray, nlp, RAY, rebuild=True, on_progress=kill_one_worker)
    assert killed and report.rebuilt
    assert report.chunks_processed == len(_graph_rows(local)["processed"])
    assert _graph_rows(on_ray) == _graph_rows(local)
    assert on_ray.settings.graph_path.read_bytes() == reference


@pytest.mark.parametrize("command", [["graph", "build"], ["ingest"]])
def test_help_teaches_the_executor_and_names_the_extra(command: list[str]) -> None:
    out = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    text = " ".join(out.output.replace("│", " ").split())
    assert "--executor" in text and "--ray-address" in text
    assert "pip install 'kgrag[ray]'" in text


def test_without_ray_the_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets when the extra is not installed
    with pytest.raises(ConfigError) as caught, ray_session(RAY):
        pass
    assert "pip install 'kgrag[ray]'" in str(caught.value)
    with pytest.raises(ConfigError):
        require_ray()


def test_ray_address_alone_means_the_ray_executor() -> None:
    settings = Settings(_env_file=None)
    assert executor_settings(settings, None, None).kind == "local"
    chosen = executor_settings(settings, None, "ray://head:10001")
    assert (chosen.kind, chosen.ray_address) == ("ray", "ray://head:10001")
    assert executor_settings(settings, ExecutorKind.ray, None).kind == "ray"
    with pytest.raises(KgragError, match="--executor local"):
        executor_settings(settings, ExecutorKind.local, "ray://head:10001")


def test_an_address_nobody_listens_on_fails_at_once_with_the_fix() -> None:
    """Ray retries an unreachable address for minutes; the command says so in seconds."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        free_port = sock.getsockname()[1]  # bound, never listening: a connection is refused
        t0 = time.perf_counter()
        with pytest.raises(KgragError, match="--ray-address") as caught:
            check_reachable(f"ray://127.0.0.1:{free_port}")
    assert time.perf_counter() - t0 < 5
    assert f"127.0.0.1:{free_port}" in str(caught.value)
