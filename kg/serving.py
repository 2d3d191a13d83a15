"""The graph as serving uses it: an immutable object of arrays and sparse matrices built at load time.

Queries only read it, so any number of threads can share one. Its three readers each get named
methods over the arrays they need, so none reaches into another's layout:

- traversal (kg.search, kg.browse): ``transition``, ``adjacency``, ``degree``, ``neighbours``, ``edge_label``;
- scoring (kg.search, retrieval.graph): ``home``, ``entity_chunks``, ``entities_of_chunk``, ``home_of_chunk``,
  ``chunk_columns_of_entity``, ``chunk_ids``;
- linking and browsing (kg.linking, kg.browse): ``keys``, ``names``, ``labels``, ``node_of``, ``aliases``,
  ``fuzzy_candidates``, ``titles``, ``document_node``, ``alias_df``, ``sentence_between``.

The fields stay public for kg.arrays and kg.assemble, which write and read them whole.
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

    # -- topology (traversal) ----------------------------------------------------------------------
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

    # -- names and titles (linking, browsing) --------------------------------------------------------
    def node_of(self, key: str) -> int | None:
        return self.index.get(key)

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
