"""From node-link records to the serving graph (kg.serving.LoadedGraph): the one way it is made.

The records come from a parsed graph file (``from_node_link``), from a build as it streams the file
(kg.graphfile.write_graph tells the Assembler each one), or from an in-memory networkx graph
(``loaded_view``, an export's live view). Traversal weights are made here; ``document_edge_weight``
comes from settings (GraphSettings.document_edge_weight) and is baked into ``transition``.
"""

from __future__ import annotations

import math
from array import array
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
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
