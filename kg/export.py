"""Exports of the graph file: GraphML (Gephi, yEd), node-link JSON, and a self-contained HTML view.

The HTML page carries its data and a small canvas force layout inline, so it opens offline from
a file:// URL with no CDN. Subgraphs (an entity's neighbourhood, the top N entities) keep exports
of a large corpus readable.
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any, Literal

import networkx as nx
from rapidfuzz import process

from core.errors import NotFoundError
from core.store import Store
from kg.canonical import canonical_name, entity_key

Ranking = Literal["degree", "pagerank"]
HTML_DEFAULT_TOP = 300
"""An HTML view of more nodes than this is a hairball; without --top or --entity it is cut to these."""
EVIDENCE_PER_NODE = 5


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
    ids.update(int(c) for _, _, rels in g.edges(data="relations") for r in rels or () for c in r.get("chunks", ()))
    return ids


def live_only(g: nx.Graph, live: set[int]) -> nx.Graph:
    """The graph as if built from the live chunks only: a file built before a delete still names the
    deleted document's entities until the next build, and no export may show them.

    Entities and relations are dropped when none of their evidence chunks is live; the rest keep
    only their live evidence. (Aliases and counts are not traced per chunk, so they stay as built.)
    """
    out = nx.Graph()
    out.graph.update(g.graph)
    for node, data in g.nodes(data=True):
        chunks = [cn for cn in data.get("chunks") or () if int(cn[0]) in live]
        if chunks:
            out.add_node(node, **{**data, "chunks": chunks})
    for a, b, data in g.edges(data=True):
        if a not in out or b not in out:
            continue
        rels = [{**r, "chunks": kept} for r in data.get("relations") or ()
                if (kept := [c for c in r.get("chunks", ()) if int(c) in live])]
        if rels or not data.get("relations"):
            out.add_edge(a, b, **{**data, "relations": rels})
    return out


def live_view(g: nx.Graph, store: Store) -> nx.Graph:
    """``g`` unless documents changed since it was built; then only what live chunks still support."""
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
                      label=_xml_safe(", ".join(sorted({r["label"] for r in rels}))),
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


def evidence_chunk_ids(g: nx.Graph, per_node: int = EVIDENCE_PER_NODE) -> list[int]:
    """The chunks an HTML view embeds: each node's most-mentioning chunks."""
    ids: set[int] = set()
    for _, chunks in g.nodes(data="chunks"):
        ranked = sorted(chunks or [], key=lambda cn: (-cn[1], cn[0]))[:per_node]
        ids.update(int(c) for c, _ in ranked)
    return sorted(ids)


_SCRIPT_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                "\u2028": "\\u2028", "\u2029": "\\u2029"})


def script_safe_json(value: Any) -> str:
    """JSON that can sit inside <script> whatever its strings hold.

    Escaping only ``</`` is not enough: ``<!--<script>`` puts the HTML parser in the "script data
    double escaped" state, where the real ``</script>`` no longer ends the element and the whole
    view is blank. With <, > and & as \\u escapes no markup can appear; U+2028/9 for old JS parsers.
    """
    return json.dumps(value, sort_keys=True, ensure_ascii=False).translate(_SCRIPT_UNSAFE)


def write_html(g: nx.Graph, path: Path, chunk_texts: dict[int, tuple[str, str, str]]) -> None:
    """One file: the template from kg/assets with this graph's nodes, edges and evidence inlined."""
    nodes = []
    for node, data in sorted(g.nodes(data=True)):
        ranked = sorted(data.get("chunks") or [], key=lambda cn: (-cn[1], cn[0]))[:EVIDENCE_PER_NODE]
        nodes.append({
            "id": node, "name": data.get("name", node), "label": data.get("label", ""),
            "pagerank": data.get("pagerank", 0.0), "aliases": data.get("aliases", []),
            "mentions": data.get("mentions", 0), "chunks": [int(c) for c, _ in ranked if int(c) in chunk_texts],
        })
    edges = [
        {"source": a, "target": b, "weight": data.get("weight", 1),
         "label": ", ".join(sorted({r["label"] for r in data.get("relations", [])}))}
        for a, b, data in sorted(g.edges(data=True))
    ]
    evidence = {str(cid): {"title": t, "source": s, "text": text} for cid, (t, s, text) in sorted(chunk_texts.items())}
    payload = {"nodes": nodes, "edges": edges, "chunks": evidence, "manifest": g.graph.get("manifest", {})}
    blob = script_safe_json(payload)
    template = resources.files("kg").joinpath("assets/graph_view.html").read_text(encoding="utf-8")
    path.write_text(template.replace("/*__GRAPH_DATA__*/null", blob), encoding="utf-8")
