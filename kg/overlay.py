"""Base plus delta: the serving graph a replica answers from while a graph delta (kg.delta) is published.

The base stays as it was loaded (memory-mapped arrays, shared by every process on the host); the result
is a new LoadedGraph whose nodes are the base's followed by the delta's new ones, and whose chunk columns
are the base's followed by the new chunks (their ids are above the base's last, so the columns stay in
id order). Only the matrix rows the delta touches are rebuilt; every other row is copied as it is, in
one vectorised pass per matrix (about a second at a million chunks). Mappings and name tables are not
copied at all: kg.delta's Overlay lays the delta's entries over the base's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from kgrag.kg.assemble import DeltaChanges, Row, edge_weight, link_sentence, overlaid
from kgrag.kg.canonical import entity_key
from kgrag.kg.delta import REMOVED, GraphDelta
from kgrag.kg.documents import TitleDocument
from kgrag.kg.graphfile import DOCUMENT, MENTIONS_DOCUMENT, document_id
from kgrag.kg.serving import LoadedGraph, fuzzy_bucket


def with_delta(base: LoadedGraph, delta: GraphDelta, *, document_edge_weight: float) -> LoadedGraph:
    """The graph a full build of the delta's corpus would serve, up to kg.delta's stated differences.

    In the order the module's docstring tells it: the rows the delta touches (its new nodes and chunk columns),
    then its nodes' rows, then its links' rows, then the names that find them; kg.assemble lays them over the
    base."""
    rows = _touched_rows(base, delta)
    nodes = _node_rows(delta, rows)
    links = _link_rows(base, delta, rows, document_edge_weight)
    names = _names(base, rows, nodes)
    return overlaid(base, delta, DeltaChanges(
        new_keys=rows.new_keys, index_over=rows.index_over, chunk_ids=rows.chunk_ids, names_over=nodes.names_over,
        labels_over=nodes.labels_over, mention_rows=nodes.mention_rows, home_rows=nodes.home_rows,
        documents=nodes.documents, relation_ids=links.relation_ids, adjacency_rows=links.adjacency_rows,
        label_rows=links.label_rows, transition_rows=links.transition_rows, sentences=links.sentences,
        dropped=links.dropped, alias_over=names.alias_over, unaliased=names.unaliased,
        bucket_over=names.bucket_over, named=names.named))


@dataclass(frozen=True)
class _Touched:
    """The rows and columns a delta adds: its new nodes after the base's, its chunks after the base's."""

    base: LoadedGraph
    new_keys: list[str]
    index_over: dict[str, int]
    chunk_ids: np.ndarray

    @property
    def node_count(self) -> int:
        return self.base.node_count + len(self.new_keys)

    def node(self, key: str) -> int:
        """A key's node, the delta's or the base's (KeyError when neither has it)."""
        if key in self.index_over:
            return self.index_over[key]
        node = self.base.node_of(key)
        if node is None:
            raise KeyError(key)
        return node

    def knows(self, key: str) -> bool:
        return key in self.index_over or self.base.node_of(key) is not None

    def columns(self, chunks: Any) -> np.ndarray:
        """The chunk columns of (chunk id, count) pairs."""
        ids = np.asarray([c for c, _count in chunks], dtype=np.int64)
        return np.searchsorted(self.chunk_ids, ids)


def _touched_rows(base: LoadedGraph, delta: GraphDelta) -> _Touched:
    n0 = base.node_count
    new_keys: list[str] = []
    index_over: dict[str, int] = {}
    for record in delta.nodes:
        key = record["id"]
        if base.node_of(key) is None and key not in index_over:
            index_over[key] = n0 + len(new_keys)
            new_keys.append(key)
    new_chunks = np.asarray([c for c, _ in delta.chunk_documents], dtype=np.int64)
    if base.chunk_count and new_chunks.size and new_chunks.min() <= base.last_chunk_id:
        raise ValueError("a graph delta's chunks must all come after its base's last chunk")
    chunk_ids = np.concatenate([np.asarray(base.all_chunk_ids(), dtype=np.int64), new_chunks])
    return _Touched(base, new_keys, index_over, chunk_ids)


@dataclass
class _Nodes:
    """What the delta's node records set: names, labels, mention and home rows, title documents, aliases."""

    names_over: dict[int, str] = field(default_factory=dict)
    labels_over: dict[int, str] = field(default_factory=dict)
    mention_rows: dict[int, Row] = field(default_factory=dict)
    home_rows: dict[int, Row] = field(default_factory=dict)
    documents: list[TitleDocument] = field(default_factory=list)
    entity_aliases: list[tuple[int, list[str]]] = field(default_factory=list)


def _node_rows(delta: GraphDelta, rows: _Touched) -> _Nodes:
    out = _Nodes()
    for record in delta.nodes:
        i = rows.node(record["id"])
        if "name" in record:
            out.names_over[i] = record["name"]
        if "label" in record:
            out.labels_over[i] = record["label"]
        if "chunks" in record:
            cols = np.unique(rows.columns(record["chunks"]))
            out.mention_rows[i] = (cols, np.ones(cols.size))
        if "home" in record:
            cols = np.unique(rows.columns([(c, 1) for c in record["home"]]))
            out.home_rows[i] = (cols, np.ones(cols.size))
        if record.get("kind") == DOCUMENT and "full_key" in record:
            out.documents.append(TitleDocument(document_id(record["id"]), record["name"], record["full_key"],
                                               tuple(record["aliases"])))
        elif record.get("kind") != DOCUMENT and record.get("aliases"):
            out.entity_aliases.append((i, record["aliases"]))
    return out


@dataclass(frozen=True)
class _Links:
    """The adjacency, transition and edge-label rows the delta's edge records rewrite, and the mention links'
    sentences it adds (``dropped``: the pairs it unlinks)."""

    relation_ids: dict[str, int]
    adjacency_rows: dict[int, Row]
    label_rows: dict[int, Row]
    transition_rows: dict[int, Row]
    sentences: dict[tuple[int, int], str]
    dropped: set[tuple[int, int]]


def _link_rows(base: LoadedGraph, delta: GraphDelta, rows: _Touched, document_edge_weight: float) -> _Links:
    relation_ids = base.relation_ids()
    edits: dict[int, dict[int, tuple[float, int] | None]] = defaultdict(dict)
    sentences: dict[tuple[int, int], str] = {}
    dropped: set[tuple[int, int]] = set()
    for edge in delta.edges:
        a, b = rows.node(edge["source"]), rows.node(edge["target"])
        if edge.get(REMOVED):
            edits[a][b] = edits[b][a] = None
            dropped.update({(a, b), (b, a)})
            continue
        w, best = edge_weight(edge, document_edge_weight)
        label = relation_ids.setdefault(best, len(relation_ids) + 1)
        edits[a][b] = edits[b][a] = (w, label)
        if edge.get("kind") == MENTIONS_DOCUMENT:
            sentences[(a, b)] = sentences[(b, a)] = link_sentence(edge)
    adjacency_rows, label_rows, transition_rows = {}, {}, {}
    for row, changes in edits.items():
        entries = _edited_row(base, row, changes)
        cols = np.asarray(sorted(entries), dtype=np.int64)
        weights = np.asarray([entries[c][0] for c in cols.tolist()], dtype=np.float64)
        total = float(np.cumsum(weights)[-1]) if weights.size else 0.0
        adjacency_rows[row] = (cols, weights)
        label_rows[row] = (cols, np.asarray([entries[c][1] for c in cols.tolist()], dtype=np.int32))
        transition_rows[row] = (cols, weights * (1.0 / total if total > 0 else 0.0))
    return _Links(relation_ids, adjacency_rows, label_rows, transition_rows, sentences, dropped)


def _edited_row(base: LoadedGraph, row: int, changes: Mapping[int, tuple[float, int] | None]
                ) -> dict[int, tuple[float, int]]:
    """Neighbour → (weight, label id) of one row after the delta's changes (None: the edge goes)."""
    entries: dict[int, tuple[float, int]] = {}
    if row < base.node_count:
        cols, weights, label_of = base.edge_row(row)
        entries = {c: (w, int(label_of.get(c, 0))) for c, w in zip(cols.tolist(), weights.tolist(), strict=True)}
    for col, value in changes.items():
        if value is None:
            entries.pop(col, None)
        else:
            entries[col] = value
    return entries


@dataclass(frozen=True)
class _Names:
    """The entity aliases and fuzzy buckets that find the delta's nodes."""

    alias_over: dict[str, tuple[int, ...]]
    unaliased: list[str]
    """Aliases that a new node's key now names instead."""
    bucket_over: dict[str, tuple[str, ...]]
    named: list[str]
    """The new keys and aliases (their word counts bound the question n-grams linking tries)."""


def _names(base: LoadedGraph, rows: _Touched, nodes: _Nodes) -> _Names:
    alias_over: dict[str, set[int]] = {}
    for i, names in nodes.entity_aliases:
        for alias in names:
            ak = entity_key(alias)
            if ak and not rows.knows(ak):
                alias_over.setdefault(ak, set(base.aliased(ak))).add(i)
    unaliased = [k for k in rows.new_keys if base.aliased(k)]  # a new node's key is no longer an alias
    bucket_over: dict[str, list[str]] = {}
    for k in [*(k for k in rows.new_keys if not k.startswith("doc:")),
              *(k for k in alias_over if not base.aliased(k))]:
        bucket = fuzzy_bucket(k[0], len(k))
        members = bucket_over.setdefault(bucket, list(base.fuzzy_bucket_members(bucket)))
        if k not in members:
            members.append(k)
    return _Names({k: tuple(sorted(v)) for k, v in alias_over.items()}, unaliased,
                  {b: tuple(m) for b, m in bucket_over.items()}, [*rows.new_keys, *alias_over])


def networkx_with_delta(g: Any, delta: GraphDelta) -> Any:
    """The base file's networkx graph with the delta's records laid over it, as ``with_delta`` lays them over the
    serving arrays: the exports, the HTML view and `kgrag graph stats` show what queries are answered from, not
    the base alone. A node record replaces the fields it holds, an edge record the whole edge (or drops it).
    PageRank, a whole-build statistic, is the base's: new nodes have none until compaction."""
    for record in delta.nodes:  # add_node updates a node that exists: only the record's fields change
        g.add_node(record["id"], **{k: v for k, v in record.items() if k != "id"})
    for record in delta.edges:
        source, target = record["source"], record["target"]
        if g.has_edge(source, target):
            g.remove_edge(source, target)
        if not record.get(REMOVED):
            g.add_edge(source, target, **{k: v for k, v in record.items() if k not in ("source", "target")})
    manifest = dict(g.graph.get("manifest", {}))
    g.graph["manifest"] = {**manifest, "corpus_version": delta.corpus_version,
                           "delta": {"base_version": manifest.get("corpus_version"), "chunks": delta.size}}
    return g


