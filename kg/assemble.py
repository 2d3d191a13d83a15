"""From node-link records to the serving graph (kg.serving.LoadedGraph): the one way it is made.

The records come from a parsed graph file (``from_node_link``), from a build as it streams the file
(kg.graphfile.write_graph tells the Assembler each one), or from an in-memory networkx graph
(``loaded_view``, an export's live view). Traversal weights are made here; ``document_edge_weight``
comes from settings (GraphSettings.document_edge_weight) and is baked into ``transition``.

A base graph with a delta laid over it is made here too (``overlaid``): kg.overlay reads what the delta
changes, as rows and table entries, and this lays them over the base's arrays without copying the rest.
"""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from kgrag.kg.delta import GraphDelta, Overlay, merged_titles
from kgrag.kg.documents import TitleDocument, TitleIndex
from kgrag.kg.graphfile import DOCUMENT, MENTIONS_DOCUMENT, TITLED, document_id
from kgrag.kg.serving import LoadedGraph, Signature, fuzzy_bucket
from kgrag.kg.traversal import row_normalised


def loaded_view(g: Any, path: Path, *, document_edge_weight: float) -> LoadedGraph:
    """A LoadedGraph of an in-memory networkx graph (an export's live view of the file)."""
    import networkx as nx

    return from_node_link(nx.node_link_data(g, edges="edges"), path=path, signature=(0, 0, 0),
                          document_edge_weight=document_edge_weight)


def from_node_link(data: dict[str, Any], *, path: Path, signature: Signature,
                   document_edge_weight: float) -> LoadedGraph:
    """The serving graph of a parsed graph file (kg.graphfile's node-link dict)."""
    assembler = Assembler(document_edge_weight)
    for node in data["nodes"]:
        assembler.add_node(node)
    for edge in data["edges"]:
        assembler.add_edge(edge)
    return assembler.finish(data["graph"].get("manifest", {}), path=path, signature=signature)


class Assembler:
    """Makes the serving graph from node-link records fed one at a time: every node, then every edge.

    One path for both of its sources, so they cannot drift apart: a parsed graph file (from_node_link)
    and the records a build streams as it writes that file (kg.graphfile.write_graph), which never
    holds the graph whole. What it keeps per record is numbers in flat arrays and the strings serving
    needs; the matrices are made once, in ``finish``.
    """

    def __init__(self, document_edge_weight: float) -> None:
        self.document_edge_weight = document_edge_weight
        self.keys: list[str] = []
        self.index: dict[str, int] = {}
        self._names: list[str] = []
        self._labels: list[str] = []
        self._entity_aliases: list[tuple[int, list[str]]] = []
        self._mention_rows, self._mention_chunks = array("q"), array("q")
        self._home_rows, self._home_chunks = array("q"), array("q")
        self._documents: list[tuple[int, TitleDocument]] = []
        self._is_document = bytearray()
        self._alias_df: dict[str, int] = {}
        self._rows, self._cols = array("q"), array("q")
        self._weights, self._edge_labels = array("d"), array("i")
        self._relation_ids: dict[str, int] = {}
        self._link_sentences: dict[tuple[int, int], str] = {}
        self._edges = 0

    def add_node(self, node: dict[str, Any]) -> None:
        i = len(self.keys)
        key = node["id"]
        self.keys.append(key)
        self.index[key] = i
        self._names.append(node.get("name", key))
        self._labels.append(node.get("label", ""))
        for chunk, _count in node["chunks"]:
            self._mention_rows.append(i)
            self._mention_chunks.append(chunk)
        for chunk in node.get("home", ()):
            self._home_rows.append(i)
            self._home_chunks.append(chunk)
        self._is_document.append(node.get("kind") == DOCUMENT)
        if node.get("kind") == DOCUMENT:
            # documents are linked by their title aliases (kg.documents), not entity keys
            self._documents.append((i, TitleDocument(document_id(key), node["name"], node["full_key"],
                                                     tuple(node["aliases"]))))
            self._alias_df.update(node.get("alias_df", {}))
        elif node.get("aliases"):
            self._entity_aliases.append((i, node["aliases"]))

    def add_edge(self, edge: dict[str, Any]) -> None:
        """Both directions of the edge. An entity edge's weight is dampened by log so one chatty document
        cannot dominate; a document mention link weighs ``document_edge_weight`` × its alias's specificity."""
        a, b = self.index[edge["source"]], self.index[edge["target"]]
        w, best = edge_weight(edge, self.document_edge_weight)
        label_id = self._relation_ids.setdefault(best, len(self._relation_ids) + 1)
        if edge.get("kind") == MENTIONS_DOCUMENT:
            self._link_sentences[(a, b)] = self._link_sentences[(b, a)] = link_sentence(edge)
        self._rows.extend((a, b))
        self._cols.extend((b, a))
        self._weights.extend((w, w))
        self._edge_labels.extend((label_id, label_id))
        self._edges += 1

    def finish(self, manifest: dict[str, Any], *, path: Path, signature: Signature) -> LoadedGraph:
        from kgrag.kg.canonical import entity_key

        n = len(self.keys)
        aliases: dict[str, set[int]] = defaultdict(set)
        for i, names in self._entity_aliases:
            for alias in names:
                ak = entity_key(alias)
                if ak and ak not in self.index:
                    aliases[ak].add(i)
        del self._entity_aliases
        rows, cols = np.frombuffer(self._rows, dtype=np.int64), np.frombuffer(self._cols, dtype=np.int64)
        weights = np.frombuffer(self._weights, dtype=np.float64)
        adjacency = sp.csr_matrix((weights, (rows, cols)), shape=(n, n), dtype=np.float64)
        edge_labels = sp.csr_matrix((np.frombuffer(self._edge_labels, dtype=np.int32), (rows, cols)),
                                    shape=(n, n), dtype=np.int32)
        transition = row_normalised(n, rows, cols, weights)
        del rows, cols, weights
        self._rows, self._cols, self._weights, self._edge_labels = array("q"), array("q"), array("d"), array("i")

        mention_chunks = np.frombuffer(self._mention_chunks, dtype=np.int64)
        home_chunks = np.frombuffer(self._home_chunks, dtype=np.int64)
        chunk_set = np.union1d(mention_chunks, home_chunks)
        e_rows = np.frombuffer(self._mention_rows, dtype=np.int64)
        h_rows = np.frombuffer(self._home_rows, dtype=np.int64)
        e_cols, h_cols = np.searchsorted(chunk_set, mention_chunks), np.searchsorted(chunk_set, home_chunks)
        entity_chunks = sp.csr_matrix((np.ones(len(e_rows)), (e_rows, e_cols)), shape=(n, len(chunk_set)))
        home = sp.csr_matrix((np.ones(len(h_rows)), (h_rows, h_cols)), shape=(n, len(chunk_set)))
        chunk_home = np.full(len(chunk_set), -1, dtype=np.int64)
        chunk_home[h_cols] = h_rows
        keys = tuple(self.keys)
        entity_keys = [k for k, is_document in zip(keys, self._is_document, strict=True) if not is_document]
        return LoadedGraph(
            path=path, signature=signature, manifest=manifest, keys=keys, names=tuple(self._names),
            labels=tuple(self._labels), index=self.index, aliases={k: tuple(sorted(v)) for k, v in aliases.items()},
            fuzzy_buckets=_fuzzy_buckets(entity_keys, aliases), adjacency=adjacency, transition=transition,
            degree=np.maximum(np.diff(transition.indptr), 1), edge_labels=edge_labels,
            relation_names=tuple(sorted(self._relation_ids, key=self._relation_ids.__getitem__)),
            entity_chunks=entity_chunks, chunk_entities=entity_chunks.T.tocsr(),
            chunk_ids=chunk_set.astype(np.int64), document_frequency=np.asarray(entity_chunks.sum(axis=1)).ravel(),
            max_name_tokens=max((k.count(" ") + 1 for k in (*keys, *aliases)), default=1),
            home=home, chunk_home=chunk_home, titles=TitleIndex(doc for _, doc in self._documents),
            document_index={doc.document_id: i for i, doc in self._documents}, alias_df=self._alias_df,
            link_sentences=self._link_sentences,
            stats={"entities": n - len(self._documents), "documents": len(self._documents), "edges": self._edges,
                   "chunks": len(chunk_set)},
        )


def edge_weight(edge: dict[str, Any], document_edge_weight: float) -> tuple[float, str]:
    """An edge record's traversal weight and the label it shows (its strongest relation)."""
    rels = edge.get("relations") or [{"label": "co-occurs", "weight": 1}]
    best = max(rels, key=lambda r: (r["label"] not in ("co-occurs", "mentions"), r["weight"]))["label"]
    kind = edge.get("kind")
    if kind == MENTIONS_DOCUMENT:
        return document_edge_weight * float(edge["weight"]), best
    if kind == TITLED:
        return 1.0, best
    return 1.0 + math.log(float(edge.get("weight", 1))), best


def link_sentence(edge: dict[str, Any]) -> str:
    """The sentence a document mention link shows (its first relation's)."""
    rels = edge.get("relations") or [{}]
    return str(rels[0].get("sentence", ""))


def _fuzzy_buckets(keys: list[str], aliases: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Entity keys and aliases by bucket. Document nodes are linked by title (kg.documents), never by a
    fuzzy match of their "doc:<id>" key (hundreds of thousands of them at a million chunks, all in one bucket)."""
    buckets: dict[str, list[str]] = defaultdict(list)
    for k in (*keys, *aliases):
        buckets[fuzzy_bucket(k[0], len(k))].append(k)
    return {k: tuple(v) for k, v in buckets.items()}


Row = tuple[np.ndarray, np.ndarray]
"""A matrix row: its sorted column indices and their values."""


@dataclass(frozen=True)
class DeltaChanges:
    """What a graph delta changes, in the base's node and chunk-column numbering (kg.overlay reads it off the
    delta): the rows to replace and the table entries to lay over the base's."""

    new_keys: list[str]
    index_over: dict[str, int]
    chunk_ids: np.ndarray
    """The base's chunk ids, then the delta's (all above the base's last)."""
    names_over: dict[int, str]
    labels_over: dict[int, str]
    mention_rows: dict[int, Row]
    home_rows: dict[int, Row]
    documents: list[TitleDocument]
    relation_ids: dict[str, int]
    adjacency_rows: dict[int, Row]
    label_rows: dict[int, Row]
    transition_rows: dict[int, Row]
    sentences: dict[tuple[int, int], str]
    dropped: set[tuple[int, int]]
    alias_over: dict[str, tuple[int, ...]]
    unaliased: list[str]
    bucket_over: dict[str, tuple[str, ...]]
    named: list[str]


def overlaid(base: LoadedGraph, delta: GraphDelta, changes: DeltaChanges) -> LoadedGraph:
    """``base`` with ``changes`` laid over it: replaced rows rebuilt, every other row copied in one pass per
    matrix, and the name tables and mappings wrapped (kg.delta.Overlay), never copied."""
    c = changes
    n0, n = base.node_count, base.node_count + len(c.new_keys)
    shape, square = (n, len(c.chunk_ids)), (n, n)
    entity_chunks = replace_rows(base.entity_chunks, shape, c.mention_rows)
    home = replace_rows(base.home, shape, c.home_rows)
    chunk_home = np.concatenate([np.asarray(base.chunk_home, dtype=np.int64),
                                 np.full(len(c.chunk_ids) - base.chunk_count, -1)])
    for i, (cols, _values) in c.home_rows.items():
        chunk_home[cols] = i
    adjacency = replace_rows(base.adjacency, square, c.adjacency_rows)
    transition = replace_rows(base.transition, square, c.transition_rows)
    edge_labels = replace_rows(base.edge_labels, square, c.label_rows)
    index = Overlay(base.index, c.index_over)
    link_vectors: Mapping[str, np.ndarray] = base.link_vectors
    if delta.link_vectors and delta.link_vectors_model == base.link_vectors_model:
        link_vectors = Overlay(base.link_vectors, delta.link_vectors)
    new_documents = sum(1 for k in c.new_keys if k.startswith("doc:"))
    return LoadedGraph(
        path=base.path, signature=base.signature,
        manifest={**base.manifest, "corpus_version": delta.corpus_version,
                  "delta": {"base_version": base.corpus_version, "base_artifact": delta.base_artifact,
                            "chunks": delta.size}},
        keys=Extended(base.keys, {}, c.new_keys), names=Extended(base.names, c.names_over, [
            c.names_over[n0 + j] for j in range(len(c.new_keys))]),
        labels=Extended(base.labels, c.labels_over, [c.labels_over.get(n0 + j, "") for j in range(len(c.new_keys))]),
        index=index, aliases=Overlay(base.aliases, c.alias_over, c.unaliased),
        fuzzy_buckets=Overlay(base.fuzzy_buckets, c.bucket_over),
        adjacency=adjacency, transition=transition, degree=np.maximum(np.diff(transition.indptr), 1),
        edge_labels=edge_labels, relation_names=tuple(sorted(c.relation_ids, key=c.relation_ids.__getitem__)),
        entity_chunks=entity_chunks, chunk_entities=entity_chunks.T.tocsr(), chunk_ids=c.chunk_ids,
        document_frequency=np.asarray(entity_chunks.sum(axis=1)).ravel(),
        max_name_tokens=max([base.max_name_tokens, *(k.count(" ") + 1 for k in c.named)]),
        home=home, chunk_home=chunk_home, titles=merged_titles(base.titles, c.documents, delta.removed_documents),
        document_index=Overlay(base.document_index, {d.document_id: index[f"doc:{d.document_id}"]
                                                      for d in c.documents}),
        alias_df=Overlay(base.alias_df, delta.alias_df),
        link_sentences=Overlay(base.link_sentences, c.sentences, c.dropped - set(c.sentences)),
        stats={"entities": base.stats.get("entities", 0) + len(c.new_keys) - new_documents,
               "documents": base.stats.get("documents", 0) + new_documents,
               "edges": int(adjacency.nnz // 2), "chunks": len(c.chunk_ids)},
        link_vectors=link_vectors, link_vectors_model=base.link_vectors_model,
    )


class Extended(Sequence[str]):
    """A base name table with some entries replaced and new ones after it."""

    def __init__(self, base: Sequence[str], over: Mapping[int, str], tail: Sequence[str]) -> None:
        self._base, self._over, self._tail = base, over, tail
        self._n = len(base)

    def __len__(self) -> int:
        return self._n + len(self._tail)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        if i < 0:
            i += len(self)
        if i in self._over:
            return self._over[i]
        return self._base[i] if i < self._n else self._tail[i - self._n]

    def __iter__(self) -> Iterator[str]:
        return (self[i] for i in range(len(self)))



def replace_rows(base: sp.csr_matrix, shape: tuple[int, int], rows: Mapping[int, Row]) -> sp.csr_matrix:
    """``base`` grown to ``shape`` (new rows and columns empty) with ``rows`` replaced: every other row is
    copied in one vectorised pass, so the cost is one pass over the entries, not one per replaced row."""
    old_rows = base.shape[0]
    old_lengths = np.diff(np.asarray(base.indptr, dtype=np.int64))
    lengths = np.zeros(shape[0], dtype=np.int64)
    lengths[:old_rows] = old_lengths
    touched = np.asarray(sorted(rows), dtype=np.int64)
    for r in touched.tolist():
        lengths[r] = rows[r][0].size
    indptr = np.zeros(shape[0] + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int64)
    data = np.empty(int(indptr[-1]), dtype=base.data.dtype)
    keep_row = np.ones(old_rows, dtype=bool)
    keep_row[touched[touched < old_rows]] = False
    entry_row = np.repeat(np.arange(old_rows, dtype=np.int64), old_lengths)
    keep = keep_row[entry_row]
    offset = np.arange(entry_row.size, dtype=np.int64) - np.asarray(base.indptr, dtype=np.int64)[entry_row]
    target = indptr[entry_row[keep]] + offset[keep]
    indices[target] = np.asarray(base.indices)[keep]
    data[target] = np.asarray(base.data)[keep]
    for r in touched.tolist():
        cols, values = rows[r]
        indices[indptr[r]:indptr[r + 1]] = cols
        data[indptr[r]:indptr[r + 1]] = values
    return sp.csr_matrix((data, indices, indptr), shape=shape)
