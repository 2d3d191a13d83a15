"""`kgrag graph export --format html`: the web UI's Graph page as one self-contained file.

The page is the same bundle the server serves (api/static), with the views it would fetch from
/v1/graph/* computed now and inlined, so it opens offline from a file:// URL. Like the server,
it never draws more than a bounded view: the overview, and each exported entity's neighbourhood.
Which entities get a neighbourhood is bounded too (the most useful ones, or those near --entity),
so the file stays a few megabytes on any corpus.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import networkx as nx
from kgrag.api.service import ChunkTexts, entity_out, view_out
from kgrag.kg import browse
from kgrag.kg.export import script_safe_json
from kgrag.kg.serving import LoadedGraph

NEIGHBOURS = 40
OVERVIEW = 120
EVIDENCE_PER_EDGE = 1
"""One chunk per link in a file (the server shows up to three): evidence is most of the file's size."""


def static_views(graph: LoadedGraph, chunk_texts: ChunkTexts, *, entity: str | None = None, hops: int = 1,
                 top: int = 300) -> dict[str, Any]:
    """What the page's static mode answers /v1/graph/* from (see ui/src/main.js, KGRAG_STATIC)."""
    if entity is not None:
        keys = browse.within_hops(graph, entity, hops, limit=top)
        start: str | None = keys[0]
        overview = browse.neighbourhood(graph, keys[0], NEIGHBOURS)
    else:
        start = None
        overview = browse.overview(graph, min(OVERVIEW, top))
        keys = list(dict.fromkeys([n.key for n in overview.nodes] + browse.most_useful(graph, top)))[:max(top, 1)]
    views = {k: browse.neighbourhood(graph, k, NEIGHBOURS) for k in keys}
    wanted = sorted({c for v in (overview, *views.values()) for e in v.edges for c in e.evidence_chunks[:1]})
    texts = chunk_texts(wanted) if wanted else {}

    def lookup(ids: list[int]) -> dict[int, tuple[str, str, str]]:
        return {i: texts[i] for i in ids if i in texts}

    d = {k: view_out(graph, v, lookup, EVIDENCE_PER_EDGE).model_dump(mode="json") for k, v in views.items()}
    entities = {n["key"]: n for v in d.values() for n in v["nodes"] if n["key"] in d}
    return {
        "overview": view_out(graph, overview, lookup, EVIDENCE_PER_EDGE).model_dump(mode="json"),
        "views": d, "entities": [entities[k] for k in keys if k in entities], "start": start,
        "manifest": graph.build_manifest(),
    }


def live_page(g: nx.Graph, path: Path, chunk_texts: ChunkTexts, *, entity: str | None, hops: int,
              top: int | None, document_edge_weight: float) -> tuple[str, dict[str, Any]]:
    """The page for ``g``, the graph file's live view (kg.export.live_view): the CLI's and the API's export.
    ``document_edge_weight`` (GraphSettings) weighs links as serving does."""
    from kgrag.kg.assemble import loaded_view
    from kgrag.kg.export import HTML_DEFAULT_TOP

    graph = loaded_view(g, path, document_edge_weight=document_edge_weight)
    payload = static_views(graph, chunk_texts, entity=entity, hops=hops, top=top or HTML_DEFAULT_TOP)
    return static_page(payload), payload


def static_page(payload: dict[str, Any]) -> str:
    """One HTML file: the UI's CSS and script inline, the views as data; no request leaves the page."""
    static = resources.files("kgrag.api").joinpath("static")
    css = static.joinpath("app.css").read_text(encoding="utf-8")
    script = static.joinpath("app.js").read_text(encoding="utf-8")
    blob = script_safe_json(payload)  # <, >, & as \u escapes: a "<!--<script>" in a name cannot end the element
    script = script.replace("</script", "<\\/script")  # none today; a future bundle must not end the element
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>kgrag graph</title>\n'
        f"<style>{css}</style>\n</head>\n<body>\n"
        '<header><span class="brand">kgrag</span><nav></nav></header>\n<main id="main"></main>\n'
        f"<script>window.KGRAG_STATIC = {blob};</script>\n<script>{script}</script>\n"
        "</body>\n</html>\n"
    )


__all__ = ["entity_out", "live_page", "static_page", "static_views"]
