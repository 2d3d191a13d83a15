"""Changes that must reach every derived index at once, not only the tables they were built from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kgrag.core.runtime import Runtime
from kgrag.core.types import DocumentRecord
from kgrag.retrieval.bm25_freshness import publish_index
from kgrag.retrieval.bm25_index import BM25Index, index_root

if TYPE_CHECKING:
    from kgrag.kg.build import BuildReport


def delete_document_everywhere(rt: Runtime, document_id: int) -> DocumentRecord:
    """Delete a document so that nothing only it contributed stays visible once this returns.

    The store removes its rows and the graph entities only it mentioned (one transaction). The BM25
    index still holds its vocabulary, so a new one is published here: a whole rebuild, which deletes
    the older versions from the database and this data home (other replicas swap on the notification
    and delete theirs), or, for a corpus large enough to take deltas, a delta that retires its chunks
    at once, its words leaving the base at the next compaction (retrieval.bm25_compact_after). Graph
    exports filter the graph file against the live chunks until the next build rewrites it.
    """
    record = rt.store.delete_document(document_id)
    publish_bm25(rt)
    return record


def publish_bm25(rt: Runtime, *, force: bool = False) -> BM25Index:
    """Build the BM25 index for the corpus as it is now and publish it (see retrieval.bm25_freshness.publish_index)."""
    return publish_index(rt.store, rt.settings.retrieval, rt.artifacts, index_root(rt.settings.index_dir),
                         force=force)


def publish_graph(rt: Runtime, *, rebuild: bool = False, full: bool = False) -> BuildReport:
    """Build the graph for the corpus as it is now and publish it: a delta on a large graph, else whole
    (kg.build.build_graph, under its database lock: raises BuildLockedError while another build runs).
    What a POST /v1/graph/build job and a serving replica's background builder both call, so the two make
    the same graph. kg.build is imported here, not above: spaCy's code loads only when a build runs."""
    from kgrag.kg.build import build_graph
    from kgrag.kg.store import GraphStore

    settings = rt.settings
    return build_graph(GraphStore(rt.db), settings.graph, settings.graph_path, rt.spacy(), rebuild=rebuild,
                       artifacts=rt.artifacts, embedder=rt.bulk_embedder, full=full)


def describe_index(index: BM25Index) -> str:
    """"120 chunks", or "1,000,200 chunks: a base at v7 and a delta of 200 (3 retired)" for the CLI."""
    if index.delta is None:
        return f"{index.chunks:,} chunks"
    return (f"{index.chunks:,} chunks: a base at v{index.corpus_version} and a delta of {index.delta.size:,}"
            f" ({index.delta.dropped.size:,} retired)")
