"""Builds the API in-process for tests: real Postgres (a fresh database per test), the session's embedder."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient
from kgrag.api.app import create_app
from kgrag.core.models import Embedder
from kgrag.core.runtime import Runtime
from kgrag.core.settings import (
    AnswerSettings,
    ApiSettings,
    ArtifactSettings,
    RerankSettings,
    RetrievalSettings,
    Settings,
)

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))  # one wait on /v1/artifacts for these tests, the replica test, the bench
from replicas import settled

MakeClient = Callable[..., Any]


def api_settings(make_settings: Callable[..., Settings], **overrides: Any) -> Settings:
    """Dense + BM25 (the graph has its own tests), no reranker download, the offline answerer. Graph builds
    are the test's own (POST /v1/graph/build), so a test that asserts what one build did is not raced by a
    background one; tests/test_graph_freshness.py turns those on."""
    values: dict[str, Any] = {
        "retrieval": RetrievalSettings(signals=("dense", "bm25")),
        "rerank": RerankSettings(enabled=False),
        "answer": AnswerSettings(backend="extractive"),
        "api": ApiSettings(),
        "artifacts": ArtifactSettings(build_delay=0.0, background_graph_builds=False),
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


def wait_for_artifacts(client: TestClient, timeout: float = 60.0) -> dict[str, Any]:
    """Until this replica serves a BM25 index at the corpus's version: the background builder publishes
    after an upload, the sync thread installs it."""
    client.app.state.resources.sync.kick()
    return settled(client, timeout, kinds=("bm25",))
