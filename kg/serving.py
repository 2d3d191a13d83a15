"""The graph as serving uses it: an immutable object of arrays and sparse matrices built at load time.

Queries only read it, so any number of threads can share one. Its fields are its layout, read only by the
modules that make and store it (kg.serving, kg.arrays, kg.assemble; tests/test_architecture.py checks this);
every other reader gets named methods over what it needs, so none reaches into another's layout:

- traversal (kg.search, kg.browse, kg.liveness): ``transition_matrix``, ``adjacency_matrix``, ``push_degree``,
  ``neighbour_counts``, ``neighbours``, ``edge_row``, ``edge_label``, ``labelled_pairs``;
- scoring (kg.search, kg.liveness, retrieval.graph): ``home_matrix``, ``mention_matrix``, ``chunk_ids_at``,
  ``all_chunk_ids``, ``entities_of_chunk``, ``entities_of_chunks``, ``home_of_chunk``, ``homes_of_chunks``,
  ``home_columns``, ``chunk_columns_of_entity``, ``mention_counts``;
- linking and browsing (kg.linking, kg.browse, kg.delta): ``key``, ``name``, ``label``, ``all_keys``,
  ``all_names``, ``all_labels``, ``node_of``, ``aliased``, ``alias_keys``, ``fuzzy_candidates``,
  ``title_index``, ``document_node``, ``document_node_of``, ``alias_df_of``, ``sentence_between``;
- the build behind it (kg.holder, kg.build, kg.liveness, retrieval.graph): ``corpus_version``, ``delta``,
  ``deletions``, ``build_manifest``, ``read_from``, ``link_vectors_for``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import scipy.sparse as sp
from kgrag.kg.documents import TitleIndex
from kgrag.kg.tables import IntLookup

Signature = tuple[int, int, int]
T = TypeVar("T")


@dataclass(frozen=True)
class LoadedGraph:
    path: Path
    signature: Signature
    manifest: dict[str, Any]
    keys: Sequence[str]
    names: Sequence[str]
    labels: Sequence[str]
    index: Mapping[str, int]
    aliases: Mapping[str, tuple[int, ...]]
    """Alias key → the entities it names somewhere in the corpus (a surname may name several)."""
    fuzzy_buckets: Mapping[str, Sequence[str]]
    """``fuzzy_bucket(first character, length)`` → names and aliases, so fuzzy matching only compares
    plausible keys."""
    adjacency: sp.csr_matrix
    transition: sp.csr_matrix
    """Row-normalised adjacency: row i spreads i's relevance over its neighbours."""
    degree: np.ndarray
    """Edges per entity (at least 1): scales the push threshold, so hubs push only large residuals."""
    edge_labels: sp.csr_matrix
    """Same structure as ``adjacency``; value - 1 indexes ``relation_names`` (the edge's strongest relation)."""
    relation_names: tuple[str, ...]
    entity_chunks: sp.csr_matrix
    """Entities × chunk columns, 1 where the entity is mentioned; ``chunk_entities`` is its transpose."""
    chunk_entities: sp.csr_matrix
    chunk_ids: np.ndarray
    document_frequency: np.ndarray
    max_name_tokens: int
    home: sp.csr_matrix
    """Nodes × chunk columns, 1 where the chunk belongs to the document node (all-zero rows for entities)."""
    chunk_home: np.ndarray
    """Chunk column → its document's node index (-1 when the document has no node)."""
    titles: TitleIndex
    document_index: Mapping[int, int]
    """Document id → node index."""
    alias_df: Mapping[str, int]
    """Title alias → how many documents write it (question-side specificity)."""
    link_sentences: Mapping[tuple[int, int], str]
    """(node, node) → the sentence holding the mention link between two documents (both orders)."""
    stats: dict[str, int] = field(default_factory=dict)
    link_vectors: Mapping[str, np.ndarray] = field(default_factory=dict)
    """Link sentence → its unit vector, embedded at build time by ``link_vectors_model`` (empty: none)."""
    link_vectors_model: str = ""

    def __post_init__(self) -> None:
        # Not fields (the graph's data is the fields): values readers derive from this graph, such as
        # kg.browse's usefulness, one per graph, made once (see ``derived``).
        object.__setattr__(self, "_derived", {})
        object.__setattr__(self, "_derived_lock", threading.Lock())

    @property
    def corpus_version(self) -> int:
        return int(self.manifest.get("corpus_version", -1))

    @property
    def last_chunk_id(self) -> int:
        """The highest chunk id the graph holds (0 when empty): a delta takes the chunks above it (kg.delta)."""
        return int(self.chunk_ids.max()) if len(self.chunk_ids) else 0

    @property
    def node_count(self) -> int:
        return len(self.keys)

    @property
    def edge_count(self) -> int:
        """Undirected edges (the adjacency holds each in both directions)."""
        return int(self.adjacency.nnz // 2)

    @property
    def chunk_count(self) -> int:
        return len(self.chunk_ids)

    @property
    def longest_name_tokens(self) -> int:
        """The most words an entity's name or alias has: question n-grams longer than this match nothing."""
        return self.max_name_tokens

    # -- the build behind it -----------------------------------------------------------------------
    def delta(self) -> dict[str, Any] | None:
        """The delta laid over the base this graph serves ({base_version, base_artifact, chunks}); None for a
        whole build."""
        return self.manifest.get("delta")

    def deletions(self) -> Any:
        """The deletion-log position the build saw (a delta's graph keeps its base's); None before any delete."""
        return self.manifest.get("deletions")

    def processed_seq(self) -> int | None:
        """The ingest order position the build reached (None for a graph built before the order was kept)."""
        return self.manifest.get("processed_seq")

    def build_manifest(self) -> dict[str, Any]:
        """A copy of the build's manifest (corpus version, database, counts), for checks and exports."""
        return dict(self.manifest)

    @property
    def loaded_from(self) -> Path:
        """The graph file it was loaded from (a download's, until it is installed)."""
        return self.path

    def read_from(self, signature: Signature) -> bool:
        """Whether this graph was loaded from the file with ``signature`` (so a reload can keep it)."""
        return self.signature == signature

    def embeds_links_with(self, model: str) -> bool:
        """Whether the build embedded its link sentences with ``model``."""
        return bool(self.link_vectors_model) and self.link_vectors_model == model

    def link_vectors_for(self, model: str) -> Mapping[str, np.ndarray]:
        """Link sentence → unit vector, as the build embedded them with ``model`` (empty for any other model)."""
        return self.link_vectors if model and self.link_vectors_model == model else {}

    # -- topology (traversal) ----------------------------------------------------------------------
    def transition_matrix(self) -> sp.csr_matrix:
        """Row-normalised adjacency (read-only): what personalized PageRank pushes along."""
        return self.transition

    def adjacency_matrix(self) -> sp.csr_matrix:
        """Edge weights, nodes × nodes (read-only)."""
        return self.adjacency

    def push_degree(self) -> np.ndarray:
        """Edges per node, at least 1: the push threshold's degree."""
        return self.degree

    def neighbour_counts(self) -> np.ndarray:
        """Edges per node (0 for an isolated one)."""
        return np.diff(self.adjacency.indptr).astype(np.int64)

    def edge_row(self, node: int) -> tuple[np.ndarray, np.ndarray, dict[int, int]]:
        """The node's neighbours, the edge weights to them, and neighbour → its edge's label id (1-based into
        ``relation_ids``), copied: what a delta rewrites row by row."""
        adj, labels = self.adjacency, self.edge_labels
        span = slice(int(adj.indptr[node]), int(adj.indptr[node + 1]))
        label_span = slice(int(labels.indptr[node]), int(labels.indptr[node + 1]))
        label_of = dict(zip(np.asarray(labels.indices[label_span]).tolist(),
                            np.asarray(labels.data[label_span]).tolist(), strict=True))
        return np.asarray(adj.indices[span]), np.asarray(adj.data[span]), label_of

    def relation_ids(self) -> dict[str, int]:
        """Relation name → its label id in the edge-label matrix (from 1)."""
        return {name: k + 1 for k, name in enumerate(self.relation_names)}

    def labelled_pairs(self, relation: str) -> tuple[np.ndarray, np.ndarray]:
        """(rows, columns) of every edge whose strongest relation is ``relation`` (both directions)."""
        if relation not in self.relation_names:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        label = self.relation_names.index(relation) + 1
        labels = self.edge_labels
        rows = np.repeat(np.arange(labels.shape[0]), np.diff(labels.indptr))
        hit = np.asarray(labels.data) == label
        return rows[hit], np.asarray(labels.indices)[hit]

    def neighbours(self, node: int) -> tuple[np.ndarray, np.ndarray]:
        """The node's neighbours and the edge weights to them (CSR slices: no copy)."""
        adj = self.adjacency
        row = slice(adj.indptr[node], adj.indptr[node + 1])
        return adj.indices[row], adj.data[row]

    def edge_label(self, a: int, b: int) -> str:
        value = int(self.edge_labels[a, b])
        return self.relation_names[value - 1] if value else ""

    # -- mentions and homes (scoring) ----------------------------------------------------------------
    def chunk_columns_of_entity(self, node: int) -> np.ndarray:
        """The chunk columns that mention the node (sorted; a CSR slice)."""
        ec = self.entity_chunks
        return ec.indices[ec.indptr[node]:ec.indptr[node + 1]]

    def entities_of_chunk(self, column: int) -> np.ndarray:
        """The nodes a chunk column mentions (a CSR slice)."""
        ce = self.chunk_entities
        return ce.indices[ce.indptr[column]:ce.indptr[column + 1]]

    def home_of_chunk(self, column: int) -> int:
        """The node of the chunk's own document, -1 when it has none."""
        return int(self.chunk_home[column])

    def entities_of_chunks(self, columns: np.ndarray) -> np.ndarray:
        """The nodes any of the chunk columns mention (with repeats)."""
        return self.chunk_entities[columns].indices

    def homes_of_chunks(self, columns: np.ndarray) -> np.ndarray:
        """Per chunk column, its document's node (-1 when it has none)."""
        return self.chunk_home[columns]

    def home_columns(self, node: int) -> np.ndarray:
        """A document node's own chunk columns (empty for an entity; a CSR slice)."""
        home = self.home
        return home.indices[home.indptr[node]:home.indptr[node + 1]]

    def home_matrix(self) -> sp.csr_matrix:
        """Nodes × chunk columns, 1 where the chunk belongs to the document node (read-only)."""
        return self.home

    def mention_matrix(self) -> sp.csr_matrix:
        """Nodes × chunk columns, 1 where the chunk mentions the node (read-only)."""
        return self.entity_chunks

    def mention_counts(self) -> np.ndarray:
        """Per node, how many chunks mention it (read-only)."""
        return self.document_frequency

    def chunk_ids_at(self, columns: Any) -> np.ndarray:
        """The chunk ids of chunk columns."""
        return self.chunk_ids[columns]

    def all_chunk_ids(self) -> np.ndarray:
        """Every chunk id the graph holds, in column order (ascending; read-only)."""
        return self.chunk_ids

    # -- names and titles (linking, browsing) --------------------------------------------------------
    def node_of(self, key: str) -> int | None:
        return self.index.get(key)

    def key(self, node: int) -> str:
        return self.keys[node]

    def name(self, node: int) -> str:
        return self.names[node]

    def label(self, node: int) -> str:
        return self.labels[node]

    def all_keys(self) -> Sequence[str]:
        """Every node's key, by node index (a read-only table)."""
        return self.keys

    def all_names(self) -> Sequence[str]:
        return self.names

    def all_labels(self) -> Sequence[str]:
        return self.labels

    def alias_keys(self) -> Iterator[str]:
        """Every entity alias key (its owners are read with ``aliased``, for the few a caller keeps)."""
        return iter(self.aliases)

    def fuzzy_bucket_members(self, bucket: str) -> Sequence[str]:
        return self.fuzzy_buckets.get(bucket, ())

    def title_index(self) -> TitleIndex:
        """The document titles' aliases, for matching questions and chunks against them."""
        return self.titles

    def has_documents(self) -> bool:
        """Whether any document is a node (a graph of entities only links no title)."""
        return bool(self.document_index)

    def document_node_of(self, document_id: int) -> int | None:
        """The document's node, None when it has none."""
        return self.document_index.get(document_id)

    def alias_df_of(self, alias: str, default: int) -> int:
        """How many documents write the title alias (``default`` when the graph does not know it)."""
        return self.alias_df.get(alias, default)

    def aliased(self, alias_key: str) -> tuple[int, ...]:
        """The nodes an alias names (empty when it names none)."""
        return self.aliases.get(alias_key, ())

    def fuzzy_candidates(self, first: str, length: int) -> Sequence[str]:
        """Names and aliases that start with ``first`` and have ``length`` characters."""
        return self.fuzzy_buckets.get(fuzzy_bucket(first, length), ())

    def document_node(self, document_id: int) -> int:
        return self.document_index[document_id]

    def sentence_between(self, a: int, b: int) -> str:
        """The sentence of the document mention link between two nodes ("" when they are linked otherwise)."""
        return self.link_sentences.get((a, b), "")

    # -- values derived by readers -------------------------------------------------------------------
    def derived(self, name: str, make: Callable[[LoadedGraph], T]) -> T:
        """``make(self)``, computed once per graph (a new build is a new object, so nothing goes stale)."""
        cache: dict[str, Any] = self._derived  # type: ignore[attr-defined]
        value = cache.get(name)
        if value is None:
            with self._derived_lock:  # type: ignore[attr-defined]
                value = cache.get(name)
                if value is None:
                    value = cache[name] = make(self)
        return value


class PairLookup(IntLookup[str]):
    """(node, node) → a link's sentence, over sorted codes ``a * nodes + b``."""

    def __init__(self, codes: np.ndarray, nodes: int, value: Callable[[int], str]) -> None:
        super().__init__(codes, value)
        self._nodes = nodes

    def __getitem__(self, pair: Any) -> str:  # type: ignore[override]
        a, b = pair
        return super().__getitem__(int(a) * self._nodes + int(b))

    def __contains__(self, pair: object) -> bool:
        try:
            self[pair]
        except (KeyError, TypeError, ValueError):
            return False
        return True

    def __iter__(self) -> Iterator[Any]:
        return (divmod(code, self._nodes) for code in super().__iter__())


def fuzzy_bucket(first: str, length: int) -> str:
    """The bucket of keys that start with ``first`` and have ``length`` characters (one character, then
    digits: unambiguous, and a plain string key for a sorted table)."""
    return f"{first}{length}"
