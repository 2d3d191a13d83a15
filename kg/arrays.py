"""The arrays form of the serving graph: what a builder writes so replicas map the graph instead of parsing it.

One ``save`` and one ``load``, and every file name in ``_Files``: the two sides cannot disagree on a
name. Every matrix and vector is .npy (CSR parts), every string list a kg.tables table, every mapping a
sorted table of its keys beside its values, and only small things are JSON: a load maps files and makes
no Python object per node (kg.tables says why).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from kgrag.kg.documents import TitleDocument, TitleIndex
from kgrag.kg.serving import LoadedGraph, PairLookup, Signature
from kgrag.kg.tables import (
    IntLookup,
    Lookup,
    SortedStrings,
    Strings,
    map_ints,
    ragged,
    ragged_strings,
    write_ints,
    write_ragged,
    write_ragged_strings,
    write_sorted_strings,
    write_strings,
)

FORMAT = "kgrag-graph-arrays/5"
PREFIX = "arrays."
"""Artifact file names of the arrays (an artifact's files are flat; they go in ``folder_of``)."""
MATRICES = ("adjacency", "transition", "edge_labels", "entity_chunks", "chunk_entities", "home")
VECTORS = ("chunk_ids", "document_frequency", "chunk_home")
LINK_VECTOR_STEP = 32
"""Link sentences per forward pass when a build embeds them: twice the rate of one at a time (Embedder.encode's
``step``)."""
FUZZY_BUCKET_CACHE = 2048
"""Fuzzy buckets kept decoded. Questions keep asking for the same few (common first letters, name-like
lengths); decoding one of the largest at a million chunks costs milliseconds, keeping all of them
hundreds of MB."""


class _Files:
    """The table names (kg.tables adds the suffixes). A lookup ``X`` is ``X.keys`` plus its values."""

    META = "graph.json"
    KEYS, NAMES, LABELS = "keys", "names", "labels"
    INDEX, ALIASES, ALIAS_DF, FUZZY = "index", "aliases", "alias_df", "fuzzy"
    INDEX_VALUES, ALIAS_DF_VALUES = "index.values", "alias_df.values"
    FUZZY_INDPTR, FUZZY_MEMBERS = "fuzzy.indptr", "fuzzy.members"
    TITLE_IDS, TITLE_TITLES, TITLE_FULL_KEYS = "titles.ids", "titles.title", "titles.full_key"
    TITLE_ALIASES_INDPTR, TITLE_ALIASES = "titles.aliases.indptr", "titles.aliases"
    TITLE_TARGETS, TITLE_PREFIXES = "title_targets", "title_prefixes"
    DOCUMENT_IDS, DOCUMENT_NODES = "document_index.ids", "document_index.values"
    LINK_CODES, LINK_ROWS, LINK_TEXT = "link_sentences.codes", "link_sentences.rows", "link_sentences.text"
    LINK_VECTORS = "link_sentences.vectors"

    @staticmethod
    def lookup_keys(name: str) -> str:
        return f"{name}.keys"

    @staticmethod
    def matrix_part(name: str, part: str) -> str:
        return f"{name}.{part}.npy"

    @staticmethod
    def vector(name: str) -> str:
        return f"{name}.npy"


_CSR_PARTS = ("data", "indices", "indptr")


def folder_of(path: Path) -> Path:
    """Where the arrays of the graph file at ``path`` live."""
    return path.with_name(path.name + ".arrays")


@dataclass(frozen=True, slots=True)
class LinkVectors:
    """The embedding of every link sentence (``link_texts`` order), made at build time so a hop costs a dot
    product, not a forward pass; ``model`` (``Embedder.stamp``) says whose vectors they are."""

    model: str
    vectors: np.ndarray


def link_texts(graph: LoadedGraph) -> list[str]:
    """Every link sentence once, in code point order: the rows of the text table and of its vectors."""
    return sorted(set(graph.link_sentences.values()))


def save(graph: LoadedGraph, folder: Path, *, source_sha256: str, document_edge_weight: float,
         link_vectors: LinkVectors | None = None) -> None:
    """``source_sha256`` names the graph file the arrays were made from; a reader uses them only for that
    file and the same ``document_edge_weight`` (the traversal weights are baked into ``transition``)."""
    f = _Files
    folder.mkdir(parents=True)
    for name in MATRICES:
        m: sp.csr_matrix = getattr(graph, name)
        for part in _CSR_PARTS:
            np.save(folder / f.matrix_part(name, part), getattr(m, part))
    for name in VECTORS:
        np.save(folder / f.vector(name), np.asarray(getattr(graph, name)))

    def lookup(name: str, mapping: Mapping[str, Any]) -> list[Any]:
        """The keys as a sorted table; returns the values in that order."""
        ordered = sorted(mapping.items())
        write_sorted_strings(folder, f.lookup_keys(name), [k for k, _ in ordered])
        return [v for _, v in ordered]

    write_strings(folder, f.KEYS, graph.keys)
    write_strings(folder, f.NAMES, graph.names)
    write_strings(folder, f.LABELS, graph.labels)
    write_ints(folder, f.INDEX_VALUES, lookup(f.INDEX, graph.index))
    write_ragged(folder, f.ALIASES, lookup(f.ALIASES, graph.aliases))
    write_ints(folder, f.ALIAS_DF_VALUES, lookup(f.ALIAS_DF, graph.alias_df))
    write_ragged_strings(folder, f.FUZZY_INDPTR, f.FUZZY_MEMBERS, lookup(f.FUZZY, graph.fuzzy_buckets))
    docs = [graph.titles.documents[d] for d in sorted(graph.titles.documents)]
    write_ints(folder, f.TITLE_IDS, [d.document_id for d in docs])
    write_strings(folder, f.TITLE_TITLES, (d.title for d in docs))
    write_strings(folder, f.TITLE_FULL_KEYS, (d.full_key for d in docs))
    write_ragged_strings(folder, f.TITLE_ALIASES_INDPTR, f.TITLE_ALIASES, [d.aliases for d in docs])
    write_ragged(folder, f.TITLE_TARGETS, lookup(f.TITLE_TARGETS, graph.titles.targets))
    write_sorted_strings(folder, f.TITLE_PREFIXES, sorted(graph.titles.prefixes))  # type: ignore[call-overload]
    documents = sorted(graph.document_index.items())
    write_ints(folder, f.DOCUMENT_IDS, [d for d, _ in documents])
    write_ints(folder, f.DOCUMENT_NODES, [i for _, i in documents])
    # Each link's sentence once (a sorted table, so a text finds its vector row); both orders of its node
    # pair find it (code = a * nodes + b, sorted).
    n, sentences = len(graph.keys), link_texts(graph)
    row_of = {text: i for i, text in enumerate(sentences)}
    codes = sorted((a * n + b, row_of[text]) for (a, b), text in graph.link_sentences.items())
    write_ints(folder, f.LINK_CODES, [c for c, _ in codes])
    write_ints(folder, f.LINK_ROWS, [r for _, r in codes])
    write_sorted_strings(folder, f.LINK_TEXT, sentences)
    if link_vectors is not None:
        if len(link_vectors.vectors) != len(sentences):
            raise ValueError(f"{len(link_vectors.vectors)} link vectors for {len(sentences)} link sentences")
        np.save(folder / f.vector(f.LINK_VECTORS), link_vectors.vectors.astype(np.float16))
    meta = {
        "format": FORMAT, "source_sha256": source_sha256, "document_edge_weight": document_edge_weight,
        "manifest": graph.manifest, "relation_names": graph.relation_names,
        "max_name_tokens": graph.max_name_tokens, "stats": graph.stats,
        "shapes": {name: list(getattr(graph, name).shape) for name in MATRICES},
        "link_vectors": link_vectors.model if link_vectors is not None else "",
    }
    (folder / f.META).write_text(json.dumps(meta, ensure_ascii=False, separators=(",", ":")))


def load(folder: Path, *, path: Path, signature: Signature, source_sha256: str,
         document_edge_weight: float) -> LoadedGraph | None:
    """The graph from its arrays, memory-mapped; None when they were made from another file or weights."""
    f = _Files
    try:
        meta = json.loads((folder / f.META).read_text())
    except (OSError, ValueError):
        return None
    if (meta.get("format") != FORMAT or meta.get("source_sha256") != source_sha256
            or meta.get("document_edge_weight") != document_edge_weight):
        return None

    def npy(file: str) -> np.ndarray:
        return np.load(folder / file, mmap_mode="r")

    def matrix(name: str) -> sp.csr_matrix:
        parts = [npy(f.matrix_part(name, p)) for p in _CSR_PARTS]
        return sp.csr_matrix(tuple(parts), shape=tuple(meta["shapes"][name]), copy=False)

    def ints(name: str) -> memoryview:
        return map_ints(folder, name)

    def lookup(name: str, value: Callable[[int], Any], cache: int = 0) -> Lookup[Any]:
        return Lookup(SortedStrings.load(folder, f.lookup_keys(name)), value, cache=cache)

    m = {name: matrix(name) for name in MATRICES}
    v = {name: npy(f.vector(name)) for name in VECTORS}
    keys = Strings.load(folder, f.KEYS)
    index_values, df_values = ints(f.INDEX_VALUES), ints(f.ALIAS_DF_VALUES)
    titles, full_keys = Strings.load(folder, f.TITLE_TITLES), Strings.load(folder, f.TITLE_FULL_KEYS)
    title_ids = npy(f.vector(f.TITLE_IDS))
    title_aliases = ragged_strings(folder, f.TITLE_ALIASES_INDPTR, f.TITLE_ALIASES)
    documents = IntLookup(title_ids, lambda i: TitleDocument(int(title_ids[i]), titles[i], full_keys[i],
                                                             title_aliases(i)))
    document_nodes = ints(f.DOCUMENT_NODES)
    sentences, sentence_rows = SortedStrings.load(folder, f.LINK_TEXT), ints(f.LINK_ROWS)
    vectors_model = meta.get("link_vectors", "")
    link_vectors = _link_vectors(folder, sentences) if vectors_model else {}
    return LoadedGraph(
        path=path, signature=signature, manifest=meta["manifest"], keys=keys,
        names=Strings.load(folder, f.NAMES), labels=Strings.load(folder, f.LABELS),
        index=lookup(f.INDEX, index_values.__getitem__), aliases=lookup(f.ALIASES, ragged(folder, f.ALIASES)),
        fuzzy_buckets=lookup(f.FUZZY, ragged_strings(folder, f.FUZZY_INDPTR, f.FUZZY_MEMBERS),
                             cache=FUZZY_BUCKET_CACHE),
        adjacency=m["adjacency"], transition=m["transition"],
        degree=np.maximum(np.diff(m["transition"].indptr), 1), edge_labels=m["edge_labels"],
        relation_names=tuple(meta["relation_names"]), entity_chunks=m["entity_chunks"],
        chunk_entities=m["chunk_entities"], chunk_ids=v["chunk_ids"], document_frequency=v["document_frequency"],
        max_name_tokens=int(meta["max_name_tokens"]), home=m["home"], chunk_home=v["chunk_home"],
        titles=TitleIndex.from_parts(documents, lookup(f.TITLE_TARGETS, ragged(folder, f.TITLE_TARGETS)),
                                     SortedStrings.load(folder, f.TITLE_PREFIXES)),
        document_index=IntLookup(npy(f.vector(f.DOCUMENT_IDS)), document_nodes.__getitem__),
        alias_df=lookup(f.ALIAS_DF, df_values.__getitem__),
        link_sentences=PairLookup(npy(f.vector(f.LINK_CODES)), len(keys), lambda i: sentences[sentence_rows[i]]),
        stats=meta["stats"], link_vectors=link_vectors, link_vectors_model=vectors_model,
    )


def stored_link_vectors(folder: Path, model: str) -> Mapping[str, np.ndarray]:
    """Sentence → vector from the arrays at ``folder`` when ``model`` made them (else empty): a rebuild
    embeds only the sentences that are new since, as most links outlive any one change."""
    f = _Files
    try:
        meta = json.loads((folder / f.META).read_text())
        if meta.get("format") != FORMAT or meta.get("link_vectors") != model:
            return {}
        return _link_vectors(folder, SortedStrings.load(folder, f.LINK_TEXT))
    except (OSError, ValueError):
        return {}


def _link_vectors(folder: Path, sentences: SortedStrings) -> Mapping[str, np.ndarray]:
    """Sentence → its stored vector (float16, memory-mapped), by a binary search of the sorted text table."""
    return Lookup(sentences, np.load(folder / _Files.vector(_Files.LINK_VECTORS), mmap_mode="r").__getitem__)
