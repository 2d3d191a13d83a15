"""Changes that must reach every derived index at once, not only the tables they were built from."""

from __future__ import annotations

from core.runtime import Runtime
from core.types import DocumentRecord
from retrieval.bm25 import drop_stale_indexes, index_root


def delete_document_everywhere(rt: Runtime, document_id: int) -> DocumentRecord:
    """Delete a document so that nothing only it contributed stays visible once this returns.

    The store removes its rows and the graph entities only it mentioned (one transaction); the BM25
    index on disk still holds its vocabulary, so it is dropped here (the next query rebuilds it);
    graph exports filter the graph file against the live chunks until the next build rewrites it.
    """
    record = rt.store.delete_document(document_id)
    drop_stale_indexes(index_root(rt.settings.index_dir), rt.store.corpus_version())
    return record
