"""The graph catches up with uploads by itself (issue 45): a serving replica's background builder publishes
the graph once uploads pause, one build for a burst, and says while it is pending.

Real app, real embedded Postgres, real spaCy: nothing here calls `kgrag graph build` or POST /v1/graph/build.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import psycopg
from fastapi.testclient import TestClient
from kgrag.api.doctor import check_graph_file
from kgrag.core.models import Embedder
from kgrag.core.settings import ArtifactSettings, RetrievalSettings, Settings

from tests.conftest import EXAMPLES_DIR
from tests.test_api_support import api_settings, client_for, settled
from tests.test_jobs_restart import KG_TABLES, wait_job

FRESHNESS_S = 60.0
"""What issue 45 asks of every signal after an upload."""

NEW_COMPANY = {
    "title": "Fjordlight Analytics",
    "source": "fjordlight",
    "text": "Fjordlight Analytics is a data company based in Bergen, Norway. Fjordlight Analytics was founded "
            "in 2022 by Marta Kask after she left Northwind Dynamics. Fjordlight Analytics sells tide forecasts "
            "to the Bergen Marine Institute.",
}
QUESTION = "Who founded Fjordlight Analytics?"


def _settings(make_settings: Callable[..., Settings], **artifacts: Any) -> Settings:
    """All three signals, background graph builds at their shipped quiet period unless told otherwise."""
    return api_settings(make_settings, retrieval=RetrievalSettings(),
                        artifacts=ArtifactSettings(build_delay=0.0, **artifacts))


def _graph_only(client: TestClient, question: str) -> dict[str, Any]:
    r = client.post("/v1/query", json={"question": question, "signals": ["graph"], "answer": False})
    assert r.status_code == 200, r.text
    return r.json()


def _caught_up(client: TestClient, timeout: float) -> dict[str, Any]:
    """/v1/artifacts once this replica serves a graph at the corpus's version and its builder is idle (the graph
    is installed a moment before the build that made it has returned)."""
    deadline = time.monotonic() + timeout
    while True:
        status = settled(client, max(deadline - time.monotonic(), 0.1), kinds=("bm25", "graph"))
        if status["graph_build"]["state"] == "idle" and not status["graph_build"]["pending"]:
            return status
        assert time.monotonic() < deadline, status
        time.sleep(0.2)


def _upload_examples(client: TestClient) -> int:
    """Every example file over HTTP, one after another, as the web UI's folder upload sends them."""
    files = sorted(p for p in EXAMPLES_DIR.iterdir() if p.is_file())
    for path in files:
        r = client.post("/v1/documents", files={"file": (path.name, path.read_bytes())})
        assert r.status_code == 201, r.text
    return len(files)


def test_an_uploaded_document_reaches_the_graph_signal_with_no_build_call(
        make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    with client_for(_settings(make_settings), embedder) as client:
        _upload_examples(client)
        job = client.post("/v1/graph/build").json()  # the user's first build; from here on nobody builds
        assert wait_job(client, job["id"], 180)["state"] == "succeeded"  # (a background one in flight is waited for)
        settled(client, 60, kinds=("bm25", "graph"))
        assert not any(h["title"] == NEW_COMPANY["title"] for h in _graph_only(client, QUESTION)["hits"])

        uploaded = client.post("/v1/documents", json=NEW_COMPANY)
        assert uploaded.status_code == 201, uploaded.text
        t0 = time.monotonic()
        doc_id = uploaded.json()["document"]["id"]
        status_then = client.get("/v1/artifacts").json()  # before the quiet period ends: asserted below
        stage_then = _graph_only(client, QUESTION)["stages"]["graph"]
        doctor_then = check_graph_file(client.app.state.resources.runtime)  # `kgrag doctor` on this home

        found_after = None
        while time.monotonic() - t0 < FRESHNESS_S:
            body = _graph_only(client, QUESTION)
            if any(h["document_id"] == doc_id for h in body["hits"]):
                found_after = time.monotonic() - t0
                break
            time.sleep(0.5)
        assert found_after is not None, (f"a graph-only query missed the upload after {FRESHNESS_S:.0f} s: "
                                         f"{client.get('/v1/artifacts').json()}")
        print(f"time to graph after an upload: {found_after:.1f} s")
        assert body["stages"]["graph"]["state"] == "ran" and "pending" not in body["stages"]["graph"]["reason"]
        hit = next(h for h in body["hits"] if h["document_id"] == doc_id)
        assert hit["ranks"].keys() == {"graph"} and "Fjordlight Analytics" in hit["explanations"]["graph"]["path"]

        # While it was pending, it said so: in /v1/artifacts and in the graph stage's reason.
        assert status_then["graph"]["behind"] > 0 and status_then["graph_build"]["pending"], status_then
        assert status_then["graph_build"]["state"] in ("scheduled", "building"), status_then
        assert "graph build is pending" in stage_then["reason"], stage_then
        assert "background graph build" in stage_then["reason"], stage_then
        assert not doctor_then.ok and "a graph build is pending" in doctor_then.detail, doctor_then
        assert "publishes it by itself" in doctor_then.fix and "kgrag graph build" in doctor_then.fix, doctor_then
        assert check_graph_file(client.app.state.resources.runtime).ok
        status = _caught_up(client, FRESHNESS_S)
        assert status["graph_build"]["builds"] >= 1, status

        # A delete is caught up the same way: the next graph is built without the document, not merely hiding it.
        assert client.delete(f"/v1/documents/{doc_id}").status_code == 200
        assert client.get("/v1/artifacts").json()["graph_build"]["pending"]
        after = _caught_up(client, FRESHNESS_S)
        assert after["graph"]["hidden_nodes"] == 0 and not after["graph_build"]["pending"], after
        assert not any(h["document_id"] == doc_id for h in _graph_only(client, QUESTION)["hits"])


def test_a_burst_of_uploads_makes_one_graph_build_not_one_per_upload(
        make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    with client_for(_settings(make_settings), embedder) as client:
        uploads = _upload_examples(client)
        status = _caught_up(client, 180)
        builds = status["graph_build"]["builds"]
        # One build after the burst; two if the machine paused longer than the quiet period between two files.
        assert 1 <= builds <= 2 < uploads, status
        body = _graph_only(client, "Which company did Tomas Berg start?")
        assert body["hits"] and any("Tomas Berg" in h["explanations"]["graph"]["path"] for h in body["hits"])
        time.sleep(2 * client.app.state.resources.settings.artifacts.poll_interval)
        assert client.get("/v1/artifacts").json()["graph_build"]["builds"] == builds  # nothing more to do


def test_a_failing_background_build_is_reported_and_the_server_keeps_answering(
        make_settings: Callable[..., Settings], embedder: Embedder, fresh_database_url: str) -> None:
    """The build cannot take the graph tables (another session holds them, and the database gives up waiting
    after a second): its error is in /v1/artifacts, queries still answer, and the next upload tries again."""
    with psycopg.connect(fresh_database_url, autocommit=True) as conn:
        conn.execute(f"ALTER DATABASE {conn.info.dbname} SET lock_timeout = '1s'")
    with client_for(_settings(make_settings, graph_build_delay=0.0), embedder) as client, \
            psycopg.connect(fresh_database_url) as holder:
        holder.execute(f"LOCK TABLE {', '.join(KG_TABLES)} IN ACCESS EXCLUSIVE MODE")
        assert client.post("/v1/documents", json=NEW_COMPANY).status_code == 201
        deadline = time.monotonic() + FRESHNESS_S
        while not (build := client.get("/v1/artifacts").json()["graph_build"])["last_error"]:
            assert time.monotonic() < deadline, build
            time.sleep(0.3)
        assert "lock" in build["last_error"] and build["pending"] and build["builds"] == 0, build
        assert "failed" in build["reason"] and "kgrag graph build" in build["reason"], build
        body = client.post("/v1/query", json={"question": QUESTION, "answer": False})
        assert body.status_code == 200 and body.json()["hits"], body.text
        holder.rollback()  # the tables are free again: the next upload's build goes through

        again = client.post("/v1/documents", json={**NEW_COMPANY, "source": "fjordlight-2",
                                                   "text": NEW_COMPANY["text"] + " It opened an office in Tallinn."})
        assert again.status_code == 201, again.text
        status = _caught_up(client, FRESHNESS_S)
        assert status["graph_build"]["builds"] == 1 and status["graph_build"]["last_error"] is None, status
