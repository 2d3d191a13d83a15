"""Exports of the graph file: GraphML (Gephi, yEd), node-link JSON, and a self-contained HTML view.

The HTML page carries its data and a small canvas force layout inline, so it opens offline from
a file:// URL with no CDN. Subgraphs (an entity's neighbourhood, the top N entities) keep exports
of a large corpus readable.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Literal

import networkx as nx
from kgrag.core.artifacts import check_database
from kgrag.core.db import database_id
from kgrag.core.errors import NotFoundError
from kgrag.core.store import Store
from kgrag.kg.canonical import canonical_name, entity_key
from rapidfuzz import process

Ranking = Literal["degree", "pagerank"]
HTML_DEFAULT_TOP = 300
"""An HTML view of more nodes than this is a hairball; without --top or --entity it is cut to these."""


def find_entity(g: nx.Graph, name: str) -> str:
    """The node a user means by ``name``: its key, or an alias; otherwise a NotFoundError with suggestions."""
    key = entity_key(canonical_name(name))
    if key in g:
        return key
    for node, aliases in g.nodes(data="aliases"):
        if key in {entity_key(a) for a in aliases or ()}:
            return node
    names = {data.get("name", n): n for n, data in g.nodes(data=True)}
    close = [m[0] for m in process.extract(name, list(names), limit=3)] if names else []
    raise NotFoundError(f"no entity named {name!r} in the graph",
                        fix=f"try one of {close}" if close else "build the graph first: kgrag graph build")


def graph_chunk_ids(g: nx.Graph) -> set[int]:
    """Every chunk the graph cites as evidence, on nodes and on edges."""
    ids = {int(c) for _, chunks in g.nodes(data="chunks") for c, _ in chunks or ()}
    ids.update(int(c) for _, home in g.nodes(data="home") for c in home or ())
    ids.update(int(c) for _, _, rels in g.edges(data="relations") for r in rels or () for c in r.get("chunks", ()))
    return ids


def live_only(g: nx.Graph, live: set[int]) -> nx.Graph:
    """The graph as if built from the live chunks only: a file built before a delete still names the
    deleted document's entities until the next build, and no export may show them.

    Entities and relations are dropped when none of their evidence chunks is live, a document node
    when none of its own chunks is; the rest keep only their live evidence. (Aliases and counts are
    not traced per chunk, so they stay as built.)
    """
    out = nx.Graph()
    out.graph.update(g.graph)
    for node, data in g.nodes(data=True):
        chunks = [cn for cn in data.get("chunks") or () if int(cn[0]) in live]
        if "home" in data:
            home = [c for c in data["home"] if int(c) in live]
            if home:
                out.add_node(node, **{**data, "chunks": chunks, "home": home})
        elif chunks:
            out.add_node(node, **{**data, "chunks": chunks})
    for a, b, data in g.edges(data=True):
        if a not in out or b not in out:
            continue
        rels = [{**r, "chunks": kept} for r in data.get("relations") or ()
                if (kept := [c for c in r.get("chunks", ()) if int(c) in live]) or not r.get("chunks")]
        if rels or not data.get("relations"):
            out.add_edge(a, b, **{**data, "relations": rels})
    return out


def live_view(g: nx.Graph, store: Store) -> nx.Graph:
    """``g`` unless documents changed since it was built; then only what live chunks still support.

    A graph built against another database is refused: its chunk ids mean other passages here."""
    check_database(g.graph.get("manifest", {}), database_id(store.db), "the graph file",
                   fix="run `kgrag graph build` against this database (or POST /v1/graph/build)")
    if g.graph.get("manifest", {}).get("corpus_version") == store.corpus_version():
        return g
    return live_only(g, store.live_chunk_ids(sorted(graph_chunk_ids(g))))


def subgraph(g: nx.Graph, *, entity: str | None = None, hops: int = 1, top: int | None = None,
             by: Ranking = "pagerank") -> nx.Graph:
    """The neighbourhood of ``entity`` (``hops`` deep) and/or the ``top`` entities by degree or PageRank."""
    selected = g
    if entity is not None:
        selected = nx.ego_graph(g, find_entity(g, entity), radius=hops)
    if top is not None and selected.number_of_nodes() > top:
        ranked = sorted(selected.nodes, key=lambda n: (-_importance(selected, n, by), n))[:top]
        selected = selected.subgraph(ranked)
    out = nx.Graph(selected)  # a copy, so callers may annotate it
    out.graph.update(g.graph)
    return out


def _importance(g: nx.Graph, node: str, by: Ranking) -> float:
    return float(g.degree(node, weight="weight")) if by == "degree" else float(g.nodes[node].get("pagerank", 0.0))


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """XML 1.0 cannot hold some code points a document may contain (U+FFFE, lone surrogates, C0 controls)."""
    return _NOT_XML.sub("\ufffd", text)


def write_graphml(g: nx.Graph, path: Path) -> None:
    """GraphML holds only scalars: lists and dicts travel as JSON strings (aliases, chunks, relations)."""
    flat = nx.Graph()
    flat.graph["manifest"] = json.dumps(g.graph.get("manifest", {}), sort_keys=True)
    for node, data in sorted(g.nodes(data=True)):
        flat.add_node(_xml_safe(node), **{k: _scalar(v) for k, v in sorted(data.items())})
    for a, b, data in sorted(g.edges(data=True)):
        rels = data.get("relations", [])
        flat.add_edge(_xml_safe(a), _xml_safe(b), weight=float(data.get("weight", 1)),
                      kind=data.get("kind", "entity"), label=_xml_safe(", ".join(sorted({r["label"] for r in rels}))),
                      relations=json.dumps(rels, sort_keys=True))
    nx.write_graphml(flat, path)


def _scalar(value: Any) -> Any:
    """JSON with ensure_ascii escapes every non-ASCII character, so it is always XML-safe."""
    if isinstance(value, str):
        return _xml_safe(value)
    return value if isinstance(value, int | float | bool) else json.dumps(value, sort_keys=True)


def write_json(g: nx.Graph, path: Path) -> None:
    data = nx.node_link_data(g, edges="edges")
    data["graph"] = {"manifest": g.graph.get("manifest", {})}
    path.write_text(json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False), encoding="utf-8")


_SCRIPT_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_safe_json(value: Any) -> str:
    """JSON that can sit inside <script> whatever its strings hold.

    Escaping only ``</`` is not enough: ``<!--<script>`` puts the HTML parser in the "script data
    double escaped" state, where the real ``</script>`` no longer ends the element and the whole
    view is blank. With <, > and & as \\u escapes no markup can appear; U+2028/9 for old JS parsers.
    """
    return json.dumps(value, sort_keys=True, ensure_ascii=False).translate(_SCRIPT_UNSAFE)
