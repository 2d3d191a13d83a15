"""The persisted graph: NetworkX node-link JSON, gzipped, written atomically, never pickled.

Serving loads this file, not the database, so it must be complete or absent: it is written to a
temporary file, fsynced and renamed over the old one, and a kill at any moment leaves the previous
graph intact. Nodes, edges and keys are sorted and gzip's timestamp is zero, so the same rows give
the same bytes (a rebuild can be checked with cmp).
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import itertools
import json
import os
import tempfile
import zlib
from collections import defaultdict
from collections.abc import Iterator
from operator import attrgetter
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from kg.canonical import canonical_name, entity_key, most_common
from kg.documents import DocumentLayer
from kg.extract import TITLE_LABEL, Mention
from kg.store import GraphSnapshot
from kg.traversal import global_pagerank

FORMAT = "kgrag-graph/2"
GRAPH_FILE = "graph.json.gz"
"""The graph file's name, in a data home and in the published graph artifact."""
DOCUMENT_PREFIX = "doc:"
"""Document node keys; entity keys never hold a colon, so the two kinds cannot collide."""
DOCUMENT_LABEL = "DOCUMENT"
ENTITY, DOCUMENT = "entity", "document"
MENTIONS_DOCUMENT, TITLED = "mentions-document", "titled"
"""Edge kinds beside entity relations: a chunk of one document writes another's title; a document and
the entity its title names."""


def document_node(document_id: int) -> str:
    return f"{DOCUMENT_PREFIX}{document_id}"


def document_id(node: str) -> int:
    """The document a ``document_node`` key names."""
    return int(node.removeprefix(DOCUMENT_PREFIX))


def build_networkx(snapshot: GraphSnapshot, manifest: dict[str, Any], documents: DocumentLayer | None = None
                   ) -> nx.Graph:
    """Entity nodes (name, label, aliases, evidence chunks) and undirected edges holding each relation,
    plus a node per document (its home chunks, the chunks that mention it) and mention links between them.

    An entity with no mention left is not a node, and a relation's evidence is always a chunk that
    mentions both ends, so every node and edge can cite a chunk that still exists.
    """
    g = nx.Graph(manifest=manifest, chunk_documents=[list(p) for p in snapshot.chunk_documents])
    nodes: dict[str, dict[str, Any]] = {}
    # Mentions arrive grouped by key (GraphStore.snapshot orders them so): one entity's rows at a time,
    # so the build never holds per-entity working sets for every entity at once.
    for key, group in itertools.groupby(snapshot.mentions, key=attrgetter("key")):
        if key in nodes:
            raise ValueError(f"mentions of {key!r} are not contiguous: the snapshot must order them by key")
        nodes[key] = _entity_attrs(key, list(group))
    for key in sorted(nodes):
        g.add_node(key, **nodes[key])
    # One compact tuple per relation row until they are grouped (there are tens of millions at scale).
    edges: dict[tuple[str, str], list[tuple[str, str, str, int, int]]] = defaultdict(list)
    for r in snapshot.relations:
        if r.source not in nodes or r.target not in nodes:
            continue
        pair = (r.source, r.target) if r.source < r.target else (r.target, r.source)
        edges[pair].append((r.relation, r.source, r.target, r.weight, r.chunk_id))
    del nodes
    for (a, b), rels in sorted(edges.items()):
        g.add_edge(a, b, kind=ENTITY, weight=sum(r[3] for r in rels), relations=_group_relations(rels))
    del edges
    if documents is not None:
        _add_documents(g, documents, snapshot.chunk_documents)
    _add_pagerank(g)
    return g


def _add_documents(g: nx.Graph, layer: DocumentLayer, chunk_documents: list[tuple[int, int]]) -> None:
    """Document nodes and their links. A link's weight is its alias's specificity (see kg.documents)."""
    live = {c for c, _ in chunk_documents}
    home: dict[int, list[int]] = defaultdict(list)
    for chunk_id, document_id in chunk_documents:
        home[document_id].append(chunk_id)
    links = [link for link in layer.links if link.chunk_id in live and link.target in home]
    mentioned_in: dict[int, set[int]] = defaultdict(set)
    for link in links:
        mentioned_in[link.target].add(link.chunk_id)
    for doc in layer.titles:
        if doc.document_id not in home:
            continue
        g.add_node(
            document_node(doc.document_id), kind=DOCUMENT, name=doc.title, label=DOCUMENT_LABEL,
            aliases=list(doc.aliases), full_key=doc.full_key,
            alias_df={a: layer.alias_df.get(a, 0) for a in doc.aliases}, home=sorted(home[doc.document_id]),
            chunks=[[c, 1] for c in sorted(mentioned_in[doc.document_id])],
            mentions=len(mentioned_in[doc.document_id]),
        )
        entity = entity_key(canonical_name(doc.title, strip_disambiguator=True))
        if entity in g and g.nodes[entity].get("kind") == ENTITY:
            g.add_edge(document_node(doc.document_id), entity, kind=TITLED, weight=1, relations=[
                {"label": TITLED, "source": document_node(doc.document_id), "target": entity, "weight": 1,
                 "chunks": []}])
    grouped: dict[tuple[int, int], list[Any]] = defaultdict(list)
    for link in links:
        grouped[(link.source_document, link.target)].append(link)
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for (source, target), group in sorted(grouped.items()):
        a, b = document_node(source), document_node(target)
        if a not in g or b not in g:
            continue
        best = max(group, key=lambda k: (k.weight, -k.chunk_id))
        pairs[(a, b) if a < b else (b, a)].append({
            "label": "mentions", "source": a, "target": b, "weight": round(best.weight, 6),
            "chunks": sorted({k.chunk_id for k in group}), "alias": best.alias, "sentence": best.sentence,
        })
    for (a, b), rels in sorted(pairs.items()):
        g.add_edge(a, b, kind=MENTIONS_DOCUMENT, weight=max(r["weight"] for r in rels), relations=rels)


def _entity_attrs(key: str, mentions: list[Mention]) -> dict[str, Any]:
    """Name (the most written surface of the key itself), label, aliases and evidence chunks of one entity."""
    surfaces = [(m.surface, m.count) for m in mentions]
    labels = [(m.label, m.count) for m in mentions if m.label != TITLE_LABEL]
    chunks: dict[int, int] = defaultdict(int)
    for m in mentions:
        chunks[m.chunk_id] += m.count
    own = [(s, n) for s, n in surfaces if entity_key(s) == key] or surfaces
    return {
        "kind": ENTITY, "name": most_common(own), "label": most_common(labels) if labels else TITLE_LABEL,
        "aliases": sorted({s for s, _ in surfaces if entity_key(s) != key}),
        "chunks": [[c, n] for c, n in sorted(chunks.items())], "mentions": sum(chunks.values()),
    }


def _group_relations(rels: list[tuple[str, str, str, int, int]]) -> list[dict[str, Any]]:
    """One entry per (label, direction) with its total weight and evidence chunks."""
    grouped: dict[tuple[str, str, str], dict[str, Any]] = {}
    for label, source, target, weight, chunk in rels:
        k = (label, source, target)
        entry = grouped.setdefault(k, {"label": label, "source": source, "target": target, "weight": 0, "chunks": []})
        entry["weight"] += weight
        entry["chunks"].append(chunk)
    return [dict(grouped[k], chunks=sorted(set(grouped[k]["chunks"]))) for k in sorted(grouped)]


def _add_pagerank(g: nx.Graph) -> None:
    """Global importance (sizes nodes in the HTML view, ranks `export --top`); rounded so bytes are stable."""
    nodes = list(g.nodes)
    if not nodes:
        return
    index = {n: i for i, n in enumerate(nodes)}
    rows, cols, weights = [], [], []
    for a, b, w in g.edges(data="weight"):
        rows += [index[a], index[b]]
        cols += [index[b], index[a]]
        weights += [float(w), float(w)]
    pr = global_pagerank(len(nodes), np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64),
                         np.array(weights, dtype=np.float64))
    for n, score in zip(nodes, pr.tolist(), strict=True):
        g.nodes[n]["pagerank"] = float(f"{score:.8g}")


_dumps = functools.partial(json.dumps, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def node_records(g: nx.Graph) -> Iterator[dict[str, Any]]:
    """``nx.node_link_data(g)["nodes"]``, one record at a time."""
    return ({**d, "id": n} for n, d in g.nodes(data=True))


def edge_records(g: nx.Graph) -> Iterator[dict[str, Any]]:
    """``nx.node_link_data(g, edges="edges")["edges"]``, one record at a time."""
    return ({**d, "source": u, "target": v} for u, v, d in g.edges(data=True))


def write_graph_file(g: nx.Graph, folder: Path) -> tuple[Path, str]:
    """``nx.node_link_data(g)`` as JSON (sorted keys, compact, UTF-8), gzipped with mtime 0, in a new
    temporary file in ``folder`` (fsynced; the caller renames it into place or removes it), and the
    file's sha256, taken as it is written so nothing reads the file back for it.

    Written node by node and edge by edge: at a million chunks the JSON is gigabytes, and holding it,
    plus node_link_data's copy of the graph, beside the graph was most of a build's peak memory."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{GRAPH_FILE}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw:
            # zlib's gzip stream (wbits 31) is gzip.compress(..., mtime=0) exactly, fed piece by piece.
            deflate = zlib.compressobj(6, zlib.DEFLATED, 31)
            digest = hashlib.sha256()
            buffer: list[str] = []
            size = 0

            def emit(data: bytes) -> None:
                digest.update(data)
                raw.write(data)

            def put(text: str) -> None:
                nonlocal size
                buffer.append(text)
                size += len(text)
                if size > 1 << 20:
                    emit(deflate.compress("".join(buffer).encode()))
                    buffer.clear()
                    size = 0

            def items(rows: Iterator[dict[str, Any]]) -> None:
                for i, row in enumerate(rows):
                    put("," + _dumps(row) if i else _dumps(row))

            # node_link_data's keys in sorted order: directed, edges, graph, multigraph, nodes.
            put(f'{{"directed":{_dumps(g.is_directed())},"edges":[')
            items(edge_records(g))
            put(f'],"graph":{_dumps(g.graph)},"multigraph":{_dumps(g.is_multigraph())},"nodes":[')
            items(node_records(g))
            put("]}")
            emit(deflate.compress("".join(buffer).encode()) + deflate.flush())
            raw.flush()
            os.fsync(raw.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp), digest.hexdigest()


def move_atomic(src: Path, path: Path) -> None:
    """Rename a finished, fsynced file over ``path`` and fsync the folder: the old file or the new, never half."""
    os.replace(src, path)
    _fsync_folder(path.parent)


def write_atomic(path: Path, data: bytes) -> None:
    """Temp file in the same folder, fsync, rename over, fsync the folder: the old file or the new, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_folder(path.parent)


def _fsync_folder(folder: Path) -> None:
    dir_fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def sidecar(path: Path) -> Path:
    """Names the published artifact a graph file is (its digest): a replica compares it with the
    database's current one to know whether to download."""
    return path.with_name(path.name + ".artifact")


def write_sidecar(path: Path, artifact_id: int, sha256: str) -> None:
    write_atomic(sidecar(path), json.dumps({"id": artifact_id, "sha256": sha256}).encode())


def installed_artifact(path: Path) -> str | None:
    """The digest of the published artifact this file was installed from; None if unknown or absent."""
    try:
        return str(json.loads(sidecar(path).read_text())["sha256"]) if path.exists() else None
    except (OSError, ValueError, KeyError):
        return None


def read_data(path: Path) -> dict[str, Any]:
    """The node-link dict (plain JSON; nothing in it can execute)."""
    with gzip.open(path, "rb") as fh:
        data = json.loads(fh.read())
    manifest = data.get("graph", {}).get("manifest", {})
    if manifest.get("format") != FORMAT:
        raise ValueError(f"{path} is not a {FORMAT} file (format {manifest.get('format')!r})")
    return data


def read_networkx(path: Path) -> nx.Graph:
    return nx.node_link_graph(read_data(path), edges="edges")
