"""kgrag: knowledge-graph-augmented RAG over your own documents.

Installed, all of kgrag lives under this one name, so it can never shadow (or be shadowed by) another
distribution's ``core`` or ``api``. In the repository the subpackages keep the folders the design card
names; pyproject.toml's ``package-dir`` maps each one here:

- ``kgrag.core``      (core/)      settings, domain types, errors, Postgres store, model loading, runtime
- ``kgrag.ingest``    (ingest/)    loaders, chunking, embedding and writing chunks
- ``kgrag.kg``        (kg/)        extraction, graph build and file, the serving graph, linking, traversal
- ``kgrag.retrieval`` (retrieval/) dense, BM25 and graph retrievers, fusion, rerank, answers, the pipeline
- ``kgrag.eval``      (eval/)      datasets, metrics, ablation runs, reports
- ``kgrag.api``       (api/)       the HTTP routes and the ``kgrag`` CLI: thin layers over the above
"""
