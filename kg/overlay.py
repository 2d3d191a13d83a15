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
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp
from kgrag.kg.assemble import edge_weight, link_sentence
from kgrag.kg.canonical import entity_key
from kgrag.kg.delta import REMOVED, GraphDelta, Overlay, merged_titles
from kgrag.kg.documents import TitleDocument
from kgrag.kg.graphfile import DOCUMENT, MENTIONS_DOCUMENT, document_id
from kgrag.kg.serving import LoadedGraph, fuzzy_bucket

Row = tuple[np.ndarray, np.ndarray]
"""A matrix row: its sorted column indices and their values."""


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


def with_delta(base: LoadedGraph, delta: GraphDelta, *, document_edge_weight: float) -> LoadedGraph:
    """The graph a full build of the delta's corpus would serve, up to kg.delta's stated differences."""
    n0, c0 = base.node_count, len(base.chunk_ids)
    new_keys: list[str] = []
    index_over: dict[str, int] = {}
    for record in delta.nodes:
        key = record["id"]
        if base.node_of(key) is None and key not in index_over:
            index_over[key] = n0 + len(new_keys)
            new_keys.append(key)
    index = Overlay(base.index, index_over)
    n = n0 + len(new_keys)
    new_chunks = np.asarray([c for c, _ in delta.chunk_documents], dtype=np.int64)
    if c0 and new_chunks.size and new_chunks.min() <= base.chunk_ids[-1]:
        raise ValueError("a graph delta's chunks must all come after its base's last chunk")
    chunk_ids = np.concatenate([np.asarray(base.chunk_ids, dtype=np.int64), new_chunks])
    shape = (n, len(chunk_ids))

    def columns(chunks: Any) -> np.ndarray:
        ids = np.asarray([c for c, _count in chunks], dtype=np.int64)
        return np.searchsorted(chunk_ids, ids)

    names_over: dict[int, str] = {}
    labels_over: dict[int, str] = {}
    mention_rows: dict[int, Row] = {}
    home_rows: dict[int, Row] = {}
    entity_aliases: list[tuple[int, list[str]]] = []
    documents: list[TitleDocument] = []
    for record in delta.nodes:
        i = index[record["id"]]
        if "name" in record:
            names_over[i] = record["name"]
        if "label" in record:
            labels_over[i] = record["label"]
        if "chunks" in record:
            cols = np.unique(columns(record["chunks"]))
            mention_rows[i] = (cols, np.ones(cols.size))
        if "home" in record:
            cols = np.unique(columns([(c, 1) for c in record["home"]]))
            home_rows[i] = (cols, np.ones(cols.size))
        if record.get("kind") == DOCUMENT and "full_key" in record:
            documents.append(TitleDocument(document_id(record["id"]), record["name"], record["full_key"],
                                           tuple(record["aliases"])))
        elif record.get("kind") != DOCUMENT and record.get("aliases"):
            entity_aliases.append((i, record["aliases"]))
    entity_chunks = replace_rows(base.entity_chunks, shape, mention_rows)
    home = replace_rows(base.home, shape, home_rows)
    chunk_home = np.concatenate([np.asarray(base.chunk_home, dtype=np.int64), np.full(new_chunks.size, -1)])
    for i, (cols, _values) in home_rows.items():
        chunk_home[cols] = i

    relation_ids = {name: k + 1 for k, name in enumerate(base.relation_names)}
    edits: dict[int, dict[int, tuple[float, int] | None]] = defaultdict(dict)
    sentences: dict[tuple[int, int], str] = {}
    dropped: set[tuple[int, int]] = set()
    for edge in delta.edges:
        a, b = index[edge["source"]], index[edge["target"]]
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
        entries: dict[int, tuple[float, int]] = {}
        if row < n0:
            cols, weights = _row(base.adjacency, row)
            label_cols, labels = _row(base.edge_labels, row)
            label_of = dict(zip(label_cols.tolist(), labels.tolist(), strict=True))
            entries = {c: (w, int(label_of.get(c, 0))) for c, w in zip(cols.tolist(), weights.tolist(), strict=True)}
        for col, value in changes.items():
            if value is None:
                entries.pop(col, None)
            else:
                entries[col] = value
        cols = np.asarray(sorted(entries), dtype=np.int64)
        weights = np.asarray([entries[c][0] for c in cols.tolist()], dtype=np.float64)
        total = float(np.cumsum(weights)[-1]) if weights.size else 0.0
        adjacency_rows[row] = (cols, weights)
        label_rows[row] = (cols, np.asarray([entries[c][1] for c in cols.tolist()], dtype=np.int32))
        transition_rows[row] = (cols, weights * (1.0 / total if total > 0 else 0.0))
    square = (n, n)
    adjacency = replace_rows(base.adjacency, square, adjacency_rows)
    transition = replace_rows(base.transition, square, transition_rows)
    edge_labels = replace_rows(base.edge_labels, square, label_rows)

    alias_over: dict[str, set[int]] = {}
    for i, names in entity_aliases:
        for alias in names:
            ak = entity_key(alias)
            if ak and ak not in index:
                alias_over.setdefault(ak, set(base.aliased(ak))).add(i)
    unaliased = [k for k in new_keys if base.aliased(k)]  # a new node's key is no longer an alias
    aliases = Overlay(base.aliases, {k: tuple(sorted(v)) for k, v in alias_over.items()}, unaliased)
    bucket_over: dict[str, list[str]] = {}
    for k in [*(k for k in new_keys if not k.startswith("doc:")), *(k for k in alias_over if not base.aliased(k))]:
        bucket = fuzzy_bucket(k[0], len(k))
        members = bucket_over.setdefault(bucket, list(base.fuzzy_buckets.get(bucket, ())))
        if k not in members:
            members.append(k)
    named = [*new_keys, *alias_over]
    link_vectors: Mapping[str, np.ndarray] = base.link_vectors
    if delta.link_vectors and delta.link_vectors_model == base.link_vectors_model:
        link_vectors = Overlay(base.link_vectors, delta.link_vectors)
    new_documents = sum(1 for k in new_keys if k.startswith("doc:"))
    return LoadedGraph(
        path=base.path, signature=base.signature,
        manifest={**base.manifest, "corpus_version": delta.corpus_version,
                  "delta": {"base_version": base.corpus_version, "base_artifact": delta.base_artifact,
                            "chunks": delta.size}},
        keys=Extended(base.keys, {}, new_keys), names=Extended(base.names, names_over, [
            names_over[n0 + j] for j in range(len(new_keys))]),
        labels=Extended(base.labels, labels_over, [labels_over.get(n0 + j, "") for j in range(len(new_keys))]),
        index=index, aliases=aliases,
        fuzzy_buckets=Overlay(base.fuzzy_buckets, {b: tuple(m) for b, m in bucket_over.items()}),
        adjacency=adjacency, transition=transition, degree=np.maximum(np.diff(transition.indptr), 1),
        edge_labels=edge_labels, relation_names=tuple(sorted(relation_ids, key=relation_ids.__getitem__)),
        entity_chunks=entity_chunks, chunk_entities=entity_chunks.T.tocsr(), chunk_ids=chunk_ids,
        document_frequency=np.asarray(entity_chunks.sum(axis=1)).ravel(),
        max_name_tokens=max([base.max_name_tokens, *(k.count(" ") + 1 for k in named)]),
        home=home, chunk_home=chunk_home, titles=merged_titles(base.titles, documents, delta.removed_documents),
        document_index=Overlay(base.document_index, {d.document_id: index[f"doc:{d.document_id}"]
                                                      for d in documents}),
        alias_df=Overlay(base.alias_df, delta.alias_df),
        link_sentences=Overlay(base.link_sentences, sentences, dropped - set(sentences)),
        stats={"entities": base.stats.get("entities", 0) + len(new_keys) - new_documents,
               "documents": base.stats.get("documents", 0) + new_documents,
               "edges": int(adjacency.nnz // 2), "chunks": len(chunk_ids)},
        link_vectors=link_vectors, link_vectors_model=base.link_vectors_model,
    )


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


def _row(matrix: sp.csr_matrix, row: int) -> Row:
    span = slice(int(matrix.indptr[row]), int(matrix.indptr[row + 1]))
    return np.asarray(matrix.indices[span]), np.asarray(matrix.data[span])


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
