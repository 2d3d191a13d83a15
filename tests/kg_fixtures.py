"""Shared helpers for the graph tests: one spaCy pipeline per session, corpus ingest, a build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from kgrag.core.runtime import Runtime
from kgrag.core.settings import GraphSettings
from kgrag.ingest.pipeline import Ingestor, IngestReport
from kgrag.kg.build import BuildReport, build_graph
from kgrag.kg.store import GraphStore
from kgrag.retrieval.maintenance import publish_bm25

GRAPH_CORPUS = Path(__file__).resolve().parent / "data" / "graph_corpus"


@pytest.fixture(scope="session", name="nlp")
def nlp_fixture() -> Any:
    from kgrag.core.nlp import load_spacy

    return load_spacy(GraphSettings().spacy_model)


def ingest_folder(rt: Runtime, folder: Path = GRAPH_CORPUS) -> IngestReport:
    ingestor = Ingestor(rt.store, rt.checked_embedder(), rt.settings.chunking, rt.settings.embedding)
    report = ingestor.ingest_paths([folder])
    assert not report.failed, report.failed
    publish_bm25(rt)  # as `kgrag ingest` does
    return report


def build(rt: Runtime, nlp: Any, *, rebuild: bool = False) -> BuildReport:
    """The same call `kgrag graph build` makes, with the session's spaCy pipeline."""
    return build_graph(GraphStore(rt.db), rt.settings.graph, rt.settings.graph_path, nlp, rebuild=rebuild,
                       embedder=rt.embedder)
