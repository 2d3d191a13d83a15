"""The graph signal, end to end (installed as ``kgrag.kg``; the repository folder is ``kg/``).

Build
    ``kg.build.build_graph`` reads pending chunks (``kg.store.GraphStore``), extracts entities and
    relations with spaCy (``kg.extract``; worker processes or Ray actors in ``kg.parallel``; the pipeline
    is the Runtime's, ``Runtime.spacy``, component lists in ``kg.nlp``), keys them (``kg.canonical``) and
    links documents by their titles (``kg.documents``).
File and arrays
    ``kg.graphfile.write_graph`` streams the node-link file (graph.json.gz) and tells each record to
    ``kg.assemble.Assembler``, which makes the serving graph (``kg.serving.LoadedGraph``);
    ``kg.arrays.save`` writes it as memory-mappable arrays beside the file (``kg.tables`` holds the tables).
Publish
    ``kg.build`` publishes the file and the arrays as one artifact (``kgrag.core.artifacts``); replicas
    install it through ``kgrag.retrieval.sync.ArtifactSync`` and ``kg.holder.GraphHolder.install``.
    On a large graph, additions since go out as a delta instead (``kg.delta.build_delta``, installed by
    ``GraphHolder.install_delta``); ``kg.liveness`` hides what deletes took, from the moment they commit.
Load
    ``kg.holder.GraphHolder`` (one per process, owned by the Runtime: ``kg.holder.graph_holder``) maps the
    arrays (``kg.arrays.load``) or parses the file (``kg.assemble.from_node_link``), lays the delta over
    them (``kg.overlay.with_delta``), and swaps in a new version when the file or the delta changes.
Link the question
    ``kg.linking.Linker``: document titles (``kg.documents.TitleIndex``), then spaCy NER, then n-grams,
    exactly and fuzzily.
Traverse
    ``kg.traversal`` (push PPR, k-hop, shortest paths), over ``LoadedGraph.transition``/``adjacency``.
Score
    ``kg.search.score``: each chunk scores its own document's relevance plus ``mention_share`` of what it
    mentions (home scoring).
Explain
    ``kg.search.explain``: the chain from a linked node to the chunk's document, each step's relation and,
    for a document mention link, its sentence.
Fuse
    ``kgrag.retrieval.graph.GraphRetriever`` adapts the above to a retriever and sets the list's weight
    (``fusion_weight``); ``kgrag.retrieval.pipeline`` fuses it with dense and BM25 by RRF
    (``kgrag.retrieval.fusion``).

For people rather than queries: ``kg.browse`` (bounded views for the web UI) and ``kg.export``.
Defaults of every knob above live in ``kgrag.core.settings.GraphSettings``.
"""
