"""Builds the API in-process for tests: real Postgres (a fresh database per test), the session's embedder."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from api.app import create_app
from core.models import Embedder
from core.runtime import Runtime
from core.settings import AnswerSettings, ApiSettings, ArtifactSettings, RerankSettings, RetrievalSettings, Settings

MakeClient = Callable[..., Any]


def api_settings(make_settings: Callable[..., Settings], **overrides: Any) -> Settings:
    """Dense + BM25 (the graph has its own tests), no reranker download, the offline answerer."""
    values: dict[str, Any] = {
        "retrieval": RetrievalSettings(signals=("dense", "bm25")),
        "rerank": RerankSettings(enabled=False),
        "answer": AnswerSettings(backend="extractive"),
        "api": ApiSettings(),
        "artifacts": ArtifactSettings(build_delay=0.0),
    }
    values.update(overrides)
    return make_settings(**values)


@contextmanager
def client_for(settings: Settings, embedder: Embedder, **kwargs: Any) -> Iterator[TestClient]:
    rt = Runtime(settings, embedder=embedder)
    try:
        with TestClient(create_app(runtime=rt), **kwargs) as client:
            yield client
    finally:
        rt.close()


def wait_for_artifacts(client: TestClient, timeout: float = 60.0, *, graph: bool = False) -> dict[str, Any]:
    """Until this replica serves a BM25 index (and with ``graph`` a graph) at the corpus's version: the
    background builder publishes after an upload, the sync thread installs it."""
    client.app.state.resources.sync.kick()
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        body = client.get("/v1/artifacts").json()
        wanted = [body.get("bm25")] + ([body.get("graph")] if graph else [])
        if all(a and a["corpus_version"] == body["corpus_version"] for a in wanted):
            return body
        time.sleep(0.05)
    raise AssertionError(f"artifacts did not reach the corpus version in {timeout}s: {body}")
