"""The pieces that make replicas stateless, one at a time: durable jobs, retry-safe graph writes, the
embedding model's identity, the database id and the published artifacts' transactional switch."""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import torch
from kgrag.api.jobs import JobRunner
from kgrag.core.artifacts import ArtifactStore
from kgrag.core.errors import BuildLockedError, ConfigError
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import Settings
from kgrag.kg.extract import Extraction, Mention, Relation
from kgrag.kg.store import GraphStore

from tests.retrieval_corpus import ingest, planted_loaded


def _rows(rt: Runtime) -> tuple[list[Any], list[Any]]:
    with rt.db.connection() as conn:
        mentions = conn.execute("SELECT e.key, m.chunk_id, m.surface, m.label, m.count FROM kg_mentions m"
                                " JOIN kg_entities e ON e.id = m.entity_id ORDER BY 1, 2, 3, 4").fetchall()
        relations = conn.execute("SELECT source_id, target_id, relation, chunk_id, weight FROM kg_relations"
                                 " ORDER BY 1, 2, 3, 4").fetchall()
    return mentions, relations


def test_a_graph_batch_written_twice_is_stored_once(runtime: Runtime) -> None:
    report = ingest(runtime, planted_loaded([("a", "Harbour", "Ingrid Halvorsen met Tomas Berg in Bergen.")]))
    chunk = next(c.id for c in runtime.store.iter_chunks() if c.document_id == report.document_ids["a"])
    batch = Extraction(
        mentions=(Mention(chunk, "ingrid halvorsen", "Ingrid Halvorsen", "PERSON", 1),
                  Mention(chunk, "tomas berg", "Tomas Berg", "PERSON", 1)),
        relations=(Relation("ingrid halvorsen", "tomas berg", "co-occurs", chunk, 1),),
        chunk_ids=(chunk,))
    store = GraphStore(runtime.db)
    assert store.write(batch) == 1
    once = _rows(runtime)
    assert store.write(batch) == 1  # a retry after the commit: no primary-key error, no doubled counts
    assert _rows(runtime) == once and len(once[0]) == 2 and len(once[1]) == 1


def test_another_model_of_the_same_dimension_is_refused(make_settings: Callable[..., Settings],
                                                         embedder: Embedder) -> None:
    with Runtime(make_settings(), embedder=embedder) as rt:
        ingest(rt, planted_loaded([("a", "Tides", "Tides follow the moon.")]))
    other_model = copy.deepcopy(embedder.model)
    with torch.no_grad():
        next(other_model.parameters()).mul_(1.01)  # same architecture and dimension, other weights
    other = Embedder(other_model, embedder.name)  # even under the same name
    assert other.dim == embedder.dim and other.identity()["revision"] != embedder.identity()["revision"]
    with Runtime(make_settings(), embedder=other) as rt, pytest.raises(ConfigError) as err:
        rt.checked_embedder()
    assert "revision" in str(err.value) and "KGRAG_EMBEDDING__MODEL" in str(err.value)
    with Runtime(make_settings(), embedder=embedder) as rt:
        assert rt.checked_embedder() is embedder  # the recorded model itself still passes


def test_jobs_outlive_their_runner_and_a_dead_runners_job_is_failed(runtime: Runtime) -> None:
    first = JobRunner(runtime.db, stale_after=1.0)
    job = first.submit("graph-build", lambda: {"entities": 3})
    deadline = time.monotonic() + 30
    while first.get(job.id).state != "succeeded":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    first.close()
    second = JobRunner(runtime.db, stale_after=1.0)  # another replica, or this one restarted
    assert second.get(job.id).result == {"entities": 3}

    # A runner that dies mid-job (kill -9): its heartbeat stops, and after stale_after the job is failed.
    with runtime.db.transaction() as conn:
        conn.execute("INSERT INTO kgrag_jobs (id, kind, state, owner, started_at, heartbeat_at)"
                     " VALUES ('dead', 'graph-build', 'running', 'gone:1', now(), now())")
    with pytest.raises(BuildLockedError):
        second.submit("graph-build", lambda: {})  # still alive as far as anyone knows
    time.sleep(1.2)
    lost = second.get("dead")
    assert lost.state == "failed" and lost.error is not None and lost.error["type"].endswith("job-lost")
    assert "stopped" in lost.error["detail"]
    fresh = second.submit("graph-build", lambda: {})
    assert fresh.state == "queued"
    second.close()


def test_a_publish_is_one_transaction_and_replaces_older_versions(runtime: Runtime) -> None:
    store = ArtifactStore(runtime.db, part_bytes=1024)
    first = store.publish("graph", "", 1, {"graph.json.gz": b"a" * 3000}, {})
    assert store.current("graph") == first and first.manifest["database_id"] == store.database_id()
    assert store.publish("graph", "", 1, {"graph.json.gz": b"a" * 3000}, {}) == first  # same bytes: no new row
    older = store.publish("graph", "", 0, {"graph.json.gz": b"old"}, {})
    assert older == first, "an artifact from an older corpus never replaces a newer one"
    second = store.publish("graph", "", 2, {"graph.json.gz": b"b" * 2500}, {})
    assert store.current("graph") == second
    with runtime.db.connection() as conn:
        rows = conn.execute("SELECT id FROM kgrag_artifacts").fetchall()
        parts = conn.execute("SELECT count(*) FROM kgrag_artifact_parts").fetchone()[0]
    assert rows == [(second.id,)] and parts == 3  # 2500 bytes in 1024-byte parts; the old ones are gone


def test_two_downloads_of_one_artifact_at_once_both_get_the_whole_folder(runtime: Runtime, tmp_path: Path) -> None:
    """A replica's sync thread and a builder in the same process can fetch the same version together; the
    second to finish used to fail renaming its copy onto the first's ("Directory not empty")."""
    store = ArtifactStore(runtime.db, part_bytes=1024)
    artifact = store.publish("graph", "", 1, {"graph.json.gz": b"a" * 50_000, "extra.bin": b"b" * 30_000}, {})
    folder = tmp_path / "dl" / "a1"
    start = threading.Barrier(6)

    def fetch() -> Path:
        start.wait()
        return store.download(artifact, folder)

    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(lambda _i: fetch(), range(6)))
    assert got == [folder] * 6
    assert sorted(p.name for p in (tmp_path / "dl").iterdir()) == ["a1"]  # no copy left behind
    assert (folder / "graph.json.gz").read_bytes() == b"a" * 50_000
