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
from array import array
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from operator import attrgetter
from pathlib import Path
from typing import IO, Any, Protocol

import networkx as nx
import numpy as np
from kgrag.kg.canonical import canonical_name, entity_key, most_common
from kgrag.kg.documents import DocumentLayer
from kgrag.kg.extract import TITLE_LABEL, Mention, Relation
from kgrag.kg.store import GraphSnapshot
from kgrag.kg.traversal import global_pagerank

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


class RecordSink(Protocol):
    """Told each node-link record as the file is written (kg.assemble.Assembler makes the serving arrays)."""

    def add_node(self, node: dict[str, Any]) -> None: ...

    def add_edge(self, edge: dict[str, Any]) -> None: ...


@dataclass(frozen=True, slots=True)
class WrittenGraph:
    path: Path
    """A new fsynced temporary file in the folder asked for: the caller renames it into place or removes it."""
    sha256: str
    counts: dict[str, int]


def write_graph(snapshot: GraphSnapshot, manifest: dict[str, Any], documents: DocumentLayer, folder: Path,
                sink: RecordSink | None = None) -> WrittenGraph:
    """The graph file of a snapshot's rows and the document layer, streamed: rows go into the file as
    they arrive, and nothing holds the graph whole (at a million chunks, a NetworkX graph of it took
    10 GB).

    The file is ``nx.node_link_data`` of this graph, byte for byte what NetworkX would write:
    entity nodes (name, label, aliases, evidence chunks) in key order, then a node per document (its
    home chunks, the chunks that mention it); an undirected edge per related pair of entities holding
    each relation, a ``titled`` edge from a document to the entity its title names, and mention links
    between documents; every node's global PageRank. Edges are listed as NetworkX iterates them:
    node by node, each edge at its earlier end, in the order it was added. ``sink`` sees every record.

    An entity with no mention left is not a node, and a relation's evidence is always a chunk that
    mentions both ends, so every node and edge can cite a chunk that still exists. The snapshot must
    give mentions in key order and relations in pair order (GraphStore.snapshot does, in code point order).
    """
    sink = sink or _NoSink()
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{GRAPH_FILE}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as raw, tempfile.TemporaryFile(dir=folder) as spool:
            out = _GzipJson(raw)
            position: dict[str, int] = {}
            _entity_nodes(snapshot.mentions, position, spool, sink)
            entities = len(position)
            titled, links = _document_nodes(documents, snapshot.chunk_documents, position, spool, sink)
            out.put('{"directed":false,"edges":[')
            edges = _Edges(out, position, sink)
            for (a, b), rels in _entity_pairs(snapshot.relations, position, entities):
                titled.flush_before(a, edges)
                edges.add(a, b, {"kind": ENTITY, "weight": sum(r[3] for r in rels),
                                 "relations": group_relations(rels)})
            titled.flush_before(None, edges)
            for _first, _added, u, v, record in sorted(links, key=lambda e: e[:2]):
                edges.add(u, v, record)
            counts = {"entities": len(position), "edges": edges.count, "relations": edges.relations,
                      "documents": len(position) - entities, "document_links": len(documents.links),
                      "chunks": len(snapshot.chunk_documents)}
            graph_attrs = {"manifest": {**manifest, "counts": counts},
                           "chunk_documents": [list(p) for p in snapshot.chunk_documents]}
            out.put(f'],"graph":{_dumps(graph_attrs)},"multigraph":false,"nodes":[')
            pagerank = edges.pagerank(len(position))
            spool.seek(0)
            for i, line in enumerate(spool):
                score = _dumps(float(f"{pagerank[i]:.8g}"))
                out.put(("," if i else "") + line[:-1].decode() + f',"pagerank":{score}}}')
            out.put("]}")
            digest = out.close()
            raw.flush()
            os.fsync(raw.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return WrittenGraph(Path(tmp), digest, counts)


class _NoSink:
    def add_node(self, node: dict[str, Any]) -> None:
        pass

    def add_edge(self, edge: dict[str, Any]) -> None:
        pass


class _GzipJson:
    """Text into a gzip stream piece by piece: zlib's gzip stream (wbits 31) is
    ``gzip.compress(..., mtime=0)`` exactly. Hashes what it writes, so nothing reads the file back."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw, self._deflate, self._digest = raw, zlib.compressobj(6, zlib.DEFLATED, 31), hashlib.sha256()
        self._buffer: list[str] = []
        self._size = 0

    def put(self, text: str) -> None:
        self._buffer.append(text)
        self._size += len(text)
        if self._size > 1 << 20:
            self._emit(self._deflate.compress("".join(self._buffer).encode()))
            self._buffer.clear()
            self._size = 0

    def close(self) -> str:
        self._emit(self._deflate.compress("".join(self._buffer).encode()) + self._deflate.flush())
        return self._digest.hexdigest()

    def _emit(self, data: bytes) -> None:
        self._digest.update(data)
        self._raw.write(data)


def _spool_node(spool: IO[bytes], sink: RecordSink, key: str, attrs: dict[str, Any]) -> None:
    """The node's record without its PageRank (known only once every edge is in), one line per node:
    ``pagerank`` sorts after every other key, so it is appended to the line when the nodes are written."""
    record = {**attrs, "id": key}
    sink.add_node(record)
    spool.write(_dumps(record)[:-1].encode() + b"\n")


def _entity_nodes(mentions: Iterable[Mention], position: dict[str, int], spool: IO[bytes],
                  sink: RecordSink) -> None:
    last = None
    for key, group in itertools.groupby(mentions, key=attrgetter("key")):
        if last is not None and key <= last:
            raise ValueError(f"mention of {key!r} after {last!r}: the snapshot must give mentions in key order")
        _spool_node(spool, sink, key, entity_attrs(key, list(group)))
        position[key] = len(position)
        last = key


class _Titled:
    """``titled`` edges, each listed at its entity (the earlier node): after that entity's own pairs."""

    def __init__(self) -> None:
        self._by_entity: dict[str, list[tuple[str, dict[str, Any]]]] = defaultdict(list)
        self._pending: list[str] | None = None

    def add(self, entity: str, document: str) -> None:
        self._by_entity[entity].append((document, {"kind": TITLED, "weight": 1, "relations": [
            {"label": TITLED, "source": document, "target": entity, "weight": 1, "chunks": []}]}))

    def flush_before(self, entity: str | None, edges: _Edges) -> None:
        """List the titled edges of every entity before ``entity`` (all of them for None)."""
        if self._pending is None:
            self._pending = sorted(self._by_entity, reverse=True)
        while self._pending and (entity is None or self._pending[-1] < entity):
            owner = self._pending.pop()
            for document, record in self._by_entity.pop(owner):
                edges.add(owner, document, record)


_Link = tuple[int, int, str, str, dict[str, Any]]
"""A mention link between documents: (its earlier end's position, when it was added, source, target, attributes)."""


def _document_nodes(layer: DocumentLayer, chunk_documents: list[tuple[int, int]], position: dict[str, int],
                    spool: IO[bytes], sink: RecordSink) -> tuple[_Titled, list[_Link]]:
    """Document nodes, the titled edges to the entities their titles name, and the mention links between
    documents (each with its sort key: its earlier end's position, then the order NetworkX added it).
    A link's weight is its alias's specificity (see kg.documents)."""
    entities = len(position)
    live = {c for c, _ in chunk_documents}
    home: dict[int, list[int]] = defaultdict(list)
    for chunk_id, doc_id in chunk_documents:
        home[doc_id].append(chunk_id)
    links = [link for link in layer.links if link.chunk_id in live and link.target in home]
    mentioned_in: dict[int, set[int]] = defaultdict(set)
    for link in links:
        mentioned_in[link.target].add(link.chunk_id)
    titled = _Titled()
    for doc in layer.titles:
        if doc.document_id not in home:
            continue
        key = document_node(doc.document_id)
        _spool_node(spool, sink, key, {
            "kind": DOCUMENT, "name": doc.title, "label": DOCUMENT_LABEL, "aliases": list(doc.aliases),
            "full_key": doc.full_key, "alias_df": {a: layer.alias_df.get(a, 0) for a in doc.aliases},
            "home": sorted(home[doc.document_id]),
            "chunks": [[c, 1] for c in sorted(mentioned_in[doc.document_id])],
            "mentions": len(mentioned_in[doc.document_id]),
        })
        position[key] = len(position)
        entity = entity_key(canonical_name(doc.title, strip_disambiguator=True))
        if position.get(entity, entities) < entities:
            titled.add(entity, key)
    grouped: dict[tuple[int, int], list[Any]] = defaultdict(list)
    for link in links:
        grouped[(link.source_document, link.target)].append(link)
    del links
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for (source, target), group in sorted(grouped.items()):
        a, b = document_node(source), document_node(target)
        if a not in position or b not in position:
            continue
        best = max(group, key=lambda k: (k.weight, -k.chunk_id))
        pairs[(a, b) if a < b else (b, a)].append({
            "label": "mentions", "source": a, "target": b, "weight": round(best.weight, 6),
            "chunks": sorted({k.chunk_id for k in group}), "alias": best.alias, "sentence": best.sentence,
        })
    ordered = []
    for added, ((a, b), rels) in enumerate(sorted(pairs.items())):
        u, v = (a, b) if position[a] < position[b] else (b, a)
        ordered.append((position[u], added, u, v, {"kind": MENTIONS_DOCUMENT,
                                                   "weight": max(r["weight"] for r in rels), "relations": rels}))
    return titled, ordered


def _entity_pairs(relations: Iterable[Relation], position: dict[str, int], entities: int
                  ) -> Iterator[tuple[tuple[str, str], list[tuple[str, str, str, int, int]]]]:
    """Relation rows grouped by their (lesser, greater) pair of entity nodes, pairs in order."""
    last = None
    for pair, rows in itertools.groupby(relations, key=lambda r: (r.source, r.target) if r.source < r.target
                                        else (r.target, r.source)):
        if last is not None and pair <= last:
            raise ValueError(f"relations of {pair} after {last}: the snapshot must give relations in pair order")
        last = pair
        if position.get(pair[0], entities) < entities and position.get(pair[1], entities) < entities:
            yield pair, [(r.relation, r.source, r.target, r.weight, r.chunk_id) for r in rows]


class _Edges:
    """Writes edge records and keeps what PageRank needs of them (numbers in flat arrays)."""

    def __init__(self, out: _GzipJson, position: dict[str, int], sink: RecordSink) -> None:
        self._out, self._position, self._sink = out, position, sink
        self._rows, self._cols, self._weights = array("q"), array("q"), array("d")
        self.count = self.relations = 0

    def add(self, u: str, v: str, attrs: dict[str, Any]) -> None:
        record = {**attrs, "source": u, "target": v}
        self._out.put(("," if self.count else "") + _dumps(record))
        self._sink.add_edge(record)
        a, b, w = self._position[u], self._position[v], float(attrs["weight"])
        self._rows.extend((a, b))
        self._cols.extend((b, a))
        self._weights.extend((w, w))
        self.count += 1
        self.relations += len(attrs["relations"])

    def pagerank(self, nodes: int) -> np.ndarray:
        """Global importance (sizes nodes in the HTML view, ranks `export --top`)."""
        if not nodes:
            return np.zeros(0)
        rows, cols = np.frombuffer(self._rows, dtype=np.int64), np.frombuffer(self._cols, dtype=np.int64)
        return global_pagerank(nodes, rows, cols, np.frombuffer(self._weights, dtype=np.float64))


def entity_attrs(key: str, mentions: list[Mention]) -> dict[str, Any]:
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


def group_relations(rels: list[tuple[str, str, str, int, int]]) -> list[dict[str, Any]]:
    """One entry per (label, direction) with its total weight and evidence chunks."""
    grouped: dict[tuple[str, str, str], dict[str, Any]] = {}
    for label, source, target, weight, chunk in rels:
        k = (label, source, target)
        entry = grouped.setdefault(k, {"label": label, "source": source, "target": target, "weight": 0, "chunks": []})
        entry["weight"] += weight
        entry["chunks"].append(chunk)
    return [dict(grouped[k], chunks=sorted(set(grouped[k]["chunks"]))) for k in sorted(grouped)]


_dumps = functools.partial(json.dumps, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


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
