"""Graph build as a background job over HTTP, job polling, and export."""

from __future__ import annotations

import time
from collections.abc import Callable

from fastapi.testclient import TestClient
from kgrag.core.models import Embedder
from kgrag.core.settings import RetrievalSettings, Settings

from tests.test_api_query import ingest_examples
from tests.test_api_support import api_settings, client_for


def wait_for(client: TestClient, job_id: str, timeout: float = 120) -> dict[str, object]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.get(f"/v1/jobs/{job_id}").json()
        if job["state"] in ("succeeded", "failed"):
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not finish in {timeout}s")


def test_build_job_then_export(make_settings: Callable[..., Settings], embedder: Embedder) -> None:
    settings = api_settings(make_settings, retrieval=RetrievalSettings())  # all three signals
    with client_for(settings, embedder) as client:
        missing = client.get("/v1/graph/export", params={"format": "json"})
        assert missing.status_code == 409 and "POST /v1/graph/build" in missing.json()["fix"]
        assert str(settings.home) not in missing.text  # no server paths to clients

        ingest_examples(client)
        no_graph = client.post("/v1/query", json={"question": "Who is Tomas Berg?", "answer": False})
        assert no_graph.status_code == 200
        assert no_graph.json()["stages"]["graph"]["state"] == "skipped"
        assert "kgrag graph build" in no_graph.json()["stages"]["graph"]["reason"]
        assert str(settings.home.resolve()) not in no_graph.text and "graph.json" not in no_graph.text

        r = client.post("/v1/graph/build")
        assert r.status_code == 202
        job = r.json()
        assert job["kind"] == "graph-build" and job["state"] in ("queued", "running")
        assert r.headers["location"] == f"/v1/jobs/{job['id']}"
        done = wait_for(client, job["id"])
        assert done["state"] == "succeeded", done
        result = done["result"]
        assert isinstance(result, dict) and result["entities"] > 0 and result["chunks_processed"] > 0
        polled = client.get(f"/v1/jobs/{job['id']}")
        assert "path" not in result and str(settings.home.resolve()) not in polled.text  # the log keeps it

        exported = client.get("/v1/graph/export", params={"format": "json"})
        assert exported.status_code == 200 and exported.headers["content-type"].startswith("application/json")
        names = {n.get("name") for n in exported.json()["nodes"]}
        assert "Tomas Berg" in names
        graphml = client.get("/v1/graph/export", params={"format": "graphml", "entity": "Tomas Berg"})
        assert graphml.status_code == 200 and graphml.content.startswith(b"<?xml")
        bad = client.get("/v1/graph/export", params={"format": "pdf"})
        assert bad.status_code == 422

        # The running server's graph retriever picks up the graph the job just wrote.
        body = client.post("/v1/query", json={"question": "Which company did Tomas Berg start?",
                                              "signals": ["graph"], "answer": False}).json()
        assert body["stages"]["graph"]["state"] == "ran", body["stages"]
        assert body["hits"] and all(h["ranks"].keys() == {"graph"} for h in body["hits"])
        # Each hit says why the graph returned it: the entities it mentions, the chain from the question.
        assert all(h["explanations"]["graph"]["entities"] for h in body["hits"])
        assert any("Tomas Berg" in h["explanations"]["graph"]["path"] for h in body["hits"])
