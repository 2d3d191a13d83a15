"""Two `kgrag serve` processes on two ports, one Postgres, each with its own data home.

What makes replicas safe behind a load balancer: they serve the same published artifacts, a write
through one reaches the other in all three signals without a restart, jobs are visible from any
replica, a builder killed mid-publish changes nothing, and a data home pointed at another database
refuses that database's artifacts. Everything is real: uvicorn over HTTP, PostgreSQL + pgvector,
spaCy and the MiniLM model in each process.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest
from kgrag.core.artifacts import ArtifactRefusedError
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import DatabaseSettings, RerankSettings, Settings
from kgrag.retrieval.base import Query
from kgrag.retrieval.pipeline import build_pipeline

from tests.conftest import EXAMPLES_DIR, REPO_ROOT, create_database

sys.path.insert(0, str(REPO_ROOT / "bench"))
from replicas import replica_env, serve_replica, settled, wait_job

FAST = {"KGRAG_ARTIFACTS__BUILD_DELAY": "0", "KGRAG_ARTIFACTS__POLL_INTERVAL": "2", "KGRAG_GRAPH__PROCESSES": "1",
        # these tests start each graph build themselves (and kill one); test_graph_freshness.py tests background ones
        "KGRAG_ARTIFACTS__BACKGROUND_GRAPH_BUILDS": "false"}
QUESTION = "Who founded the company that acquired Lumen Robotics?"
NEW_FACT = ("Zorvanne Quillfeather founded Halvorix Instruments in Brenmoor Bay. Halvorix Instruments builds "
            "tide gauges for harbours.")
NEW_QUESTION = "Who founded Halvorix Instruments?"


def _env(home: Path, url: str) -> dict[str, str]:
    return replica_env(home, url, **FAST)


@contextmanager
def replica(home: Path, url: str, log: Path) -> Iterator[httpx.Client]:
    with serve_replica(home, url, log, **FAST) as client:
        yield client


def _upload(client: httpx.Client, path: Path) -> None:
    r = client.post("/v1/documents", files={"file": (path.name, path.read_bytes())})
    assert r.status_code == 201, r.text


def _wait_job(client: httpx.Client, job_id: str) -> dict[str, Any]:
    return wait_job(client, job_id, timeout=240)


def _settled(client: httpx.Client, timeout: float = 90) -> dict[str, Any]:
    return settled(client, timeout)


def _hits(client: httpx.Client, question: str, signals: list[str] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"question": question, "answer": False, "top_k": 5}
    if signals:
        body["signals"] = signals
    r = client.post("/v1/query", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def _graph_build(client: httpx.Client, other: httpx.Client) -> None:
    """Started on one replica, followed to the end on the other: jobs live in Postgres."""
    job = client.post("/v1/graph/build").json()
    done = _wait_job(other, job["id"])
    assert done["state"] == "succeeded", done


def test_two_replicas_share_artifacts_jobs_and_writes(tmp_path: Path, fresh_database_url: str) -> None:
    url = fresh_database_url
    with replica(tmp_path / "home1", url, tmp_path / "r1.log") as r1, \
            replica(tmp_path / "home2", url, tmp_path / "r2.log") as r2:
        for path in sorted(EXAMPLES_DIR.iterdir()):
            _upload(r1, path)
        _graph_build(r1, r2)

        # Same artifacts, same hits, all three signals ran on both.
        a1, a2 = _settled(r1), _settled(r2)
        assert a1 == a2 and a1["bm25"]["sha256"] and a1["graph"]["sha256"]
        q1, q2 = _hits(r1, QUESTION), _hits(r2, QUESTION)
        assert [h["chunk_id"] for h in q1["hits"]] == [h["chunk_id"] for h in q2["hits"]]
        assert {s: v["state"] for s, v in q2["stages"].items() if s in ("dense", "bm25", "graph")} == {
            "dense": "ran", "bm25": "ran", "graph": "ran"}
        assert (tmp_path / "home2" / "graph" / "graph.json.gz").read_bytes() == \
            (tmp_path / "home1" / "graph" / "graph.json.gz").read_bytes()

        # A document written through replica 1 is served by replica 2 in every signal, no restart.
        r = r1.post("/v1/documents", json={"text": NEW_FACT, "title": "Halvorix note", "source": "halvorix.txt"})
        assert r.status_code == 201, r.text
        new_doc = r.json()["document"]["id"]
        _graph_build(r1, r2)
        after = _settled(r2)
        assert after["corpus_version"] > a2["corpus_version"] and after == _settled(r1)
        for signal_name in ("dense", "bm25", "graph"):
            body = _hits(r2, NEW_QUESTION, [signal_name])
            assert body["stages"][signal_name]["state"] == "ran", body["stages"]
            assert body["hits"] and body["hits"][0]["document_id"] == new_doc, (signal_name, body["hits"][:2])

        # kill -9 during a publish: the builder holds its new graph, blocked on the current-version row.
        _upload(r1, _write(tmp_path / "extra.md", "# Brenmoor Bay\n\nBrenmoor Bay harbour hosts Halvorix's "
                                                  "tide gauge workshop, opened by Ingrid Halvorsen."))
        graph_before = r1.get("/v1/artifacts").json()["graph"]
        _killed_mid_publish(tmp_path, url)
        for client in (r1, r2):
            now = client.get("/v1/artifacts").json()
            assert now["graph"] == graph_before, "both replicas stay on the previous graph"
            assert _hits(client, NEW_QUESTION, ["graph"])["stages"]["graph"]["state"] == "ran"
        with psycopg.connect(url) as conn:
            graphs = conn.execute("SELECT sha256 FROM kgrag_artifacts WHERE kind = 'graph'").fetchall()
        assert graphs == [(graph_before["sha256"],)], "the killed publish left no row behind"
        _graph_build(r2, r1)  # the lock died with the builder: a new build runs, and both move on
        assert _settled(r1)["graph"] == _settled(r2)["graph"] != graph_before


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _killed_mid_publish(tmp_path: Path, url: str) -> None:
    """Run `kgrag graph build` in a third process while this test holds the row a publish must update,
    wait until the builder is blocked on it (its parts written, not committed), then kill -9 it."""
    with psycopg.connect(url) as holder, psycopg.connect(url, autocommit=True) as watcher:
        holder.execute("SELECT * FROM kgrag_artifact_current WHERE kind = 'graph' FOR UPDATE")
        proc = subprocess.Popen([sys.executable, "-m", "kgrag", "graph", "build"], cwd=REPO_ROOT,
                                env=_env(tmp_path / "home3", url), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 240
            while True:
                assert proc.poll() is None, "the builder ended before it reached the publish"
                waiting = watcher.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                    " AND query LIKE '%kgrag_artifact_current%FOR UPDATE%'").fetchone()[0]
                if waiting:
                    break
                assert time.monotonic() < deadline, "the builder never reached the publish"
                time.sleep(0.2)
        finally:
            proc.kill()
            proc.wait(timeout=30)
        holder.rollback()
    assert proc.returncode == -signal.SIGKILL


def test_a_home_pointed_at_another_database_refuses_its_artifacts(
        tmp_path: Path, pg_server: str, embedder: Embedder, make_settings: Callable[..., Settings]) -> None:
    from kgrag.core.nlp import load_spacy
    from kgrag.kg.build import build_graph
    from kgrag.kg.export import live_view
    from kgrag.kg.graphfile import read_networkx
    from kgrag.kg.store import GraphStore
    from kgrag.retrieval.maintenance import publish_bm25

    from tests.retrieval_corpus import ingest, planted_loaded

    home = tmp_path / "shared-home"
    settings_a = make_settings(home=home, rerank=RerankSettings(enabled=False))
    with Runtime(settings_a, embedder=embedder) as rt:
        ingest(rt, planted_loaded([("a/1", "Glaciers", "Glaciers retreat in warm summers near Tromsø."),
                                   ("a/2", "Harbours", "Halvorix Instruments builds tide gauges in Brenmoor Bay.")]))
        nlp = load_spacy(rt.settings.graph.spacy_model)
        build_graph(GraphStore(rt.db), rt.settings.graph, rt.settings.graph_path, nlp)
        version_a = rt.store.corpus_version()
        database_a = rt.artifacts.database_id()

    # Database B: other documents, brought to the same corpus version (as a restored-then-advanced one could be).
    url_b = create_database(pg_server)
    settings_b = Settings(_env_file=None, home=home, database=DatabaseSettings(url=url_b),
                          rerank=RerankSettings(enabled=False))
    with Runtime(settings_b, embedder=embedder) as rt:
        ingest(rt, planted_loaded([("b/1", "Orchards", "Apple orchards bloom in May near Hardanger."),
                                   ("b/2", "Ferries", "Halvorix ferries cross the fjord at dawn."),
                                   ("b/3", "Bread", "Yeast makes bread rise.")]), publish=False)
        with rt.db.transaction() as conn:
            conn.execute("UPDATE corpus_state SET version = %s", (version_a,))
        assert rt.store.corpus_version() == version_a
        assert rt.artifacts.database_id() != database_a
        with build_pipeline(rt, signals=("dense", "bm25", "graph")) as pipe:
            for name in ("bm25", "graph"):
                result = pipe.retrievers[name].retrieve(Query("Halvorix tide gauges Brenmoor", k=5))
                assert result.hits == (), name
                assert result.status.state == "skipped" and "another database" in result.status.reason, name
            run = pipe.run("Halvorix tide gauges Brenmoor", rerank=False)
            assert run.hits and {p.source for p in run.hits} <= {"b/1", "b/2", "b/3"}, "only B's own chunks"
        with pytest.raises(ArtifactRefusedError):  # nor do exports show A's graph against B's chunk ids
            live_view(read_networkx(rt.settings.graph_path), rt.store)
        publish_bm25(rt)  # B publishes its own: now the home serves B's index, never A's
        with build_pipeline(rt, signals=("bm25",)) as pipe:
            hits = pipe.retrievers["bm25"].retrieve(Query("Halvorix", k=5)).hits
            assert [rt.store.chunks([h.chunk_id])[h.chunk_id].source for h in hits] == ["b/2"]
