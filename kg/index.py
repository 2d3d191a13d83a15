"""The graph as serving uses it: an immutable object of arrays and sparse matrices built at load time.

Queries only read it, so any number of threads can share one. When the file on disk changes (a new
build renamed over it, or a replica installed a newly published one), the holder loads the new one
and swaps a single reference; a query in flight keeps the object it started with.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import threading
import uuid
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from kgrag.core.artifacts import ArtifactRefusedError, check_database
from kgrag.kg.documents import TitleDocument, TitleIndex
from kgrag.kg.graphfile import DOCUMENT, GRAPH_FILE, MENTIONS_DOCUMENT, TITLED, document_id, read_data, write_sidecar
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
from kgrag.kg.traversal import row_normalised

Signature = tuple[int, int, int]

DOCUMENT_EDGE_WEIGHT = 3.0
"""A document-to-document mention link weighs this times its alias's specificity in the traversal; an
entity edge weighs 1 + ln(co-occurrences). Links name exactly what they point at, co-occurrence does not."""


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
    degree: np.ndarray
    """Edges per entity (at least 1): scales the push threshold, so hubs push only large residuals."""
    """Row-normalised adjacency: row i spreads i's relevance over its neighbours."""
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

    @property
    def corpus_version(self) -> int:
        return int(self.manifest.get("corpus_version", -1))

    def edge_label(self, a: int, b: int) -> str:
        value = int(self.edge_labels[a, b])
        return self.relation_names[value - 1] if value else ""


def file_signature(path: Path) -> Signature | None:
    """Cheap change detection (one stat per query): inode changes on every atomic rename."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def load_graph(path: Path, *, document_edge_weight: float = DOCUMENT_EDGE_WEIGHT) -> LoadedGraph:
    """From the arrays beside the file when they were made from it (memory-mapped, fast), else by
    parsing the file itself (an older build, or other traversal weights)."""
    signature = file_signature(path)
    if signature is None:
        raise FileNotFoundError(path)
    folder = arrays_folder(path)
    if folder.is_dir():
        graph = load_arrays(folder, path=path, signature=signature, source_sha256=file_sha256(path),
                            document_edge_weight=document_edge_weight)
        if graph is not None:
            return graph
    data = read_data(path)
    return from_node_link(data, path=path, signature=signature, document_edge_weight=document_edge_weight)


def arrays_folder(path: Path) -> Path:
    return path.with_name(path.name + ".arrays")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def install_arrays(src: Path, path: Path) -> None:
    """Rename a finished arrays folder into place beside ``path``. A process still mapping the old one
    keeps its pages (POSIX); a reader that sees the new arrays with the old file, or the reverse, finds
    their digests differ and parses the file instead."""
    final = arrays_folder(path)
    trash = final.with_name(f".{final.name}.old-{uuid.uuid4().hex[:8]}")
    if final.exists():
        final.rename(trash)
    src.rename(final)
    shutil.rmtree(trash, ignore_errors=True)


def loaded_view(g: Any, path: Path) -> LoadedGraph:
    """A LoadedGraph of an in-memory networkx graph (an export's live view of the file)."""
    import networkx as nx

    return from_node_link(nx.node_link_data(g, edges="edges"), path=path, signature=(0, 0, 0))


def from_node_link(data: dict[str, Any], *, path: Path, signature: Signature,
                   document_edge_weight: float = DOCUMENT_EDGE_WEIGHT) -> LoadedGraph:
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

    def __init__(self, document_edge_weight: float = DOCUMENT_EDGE_WEIGHT) -> None:
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
        rels = edge.get("relations") or [{"label": "co-occurs", "weight": 1}]
        best = max(rels, key=lambda r: (r["label"] not in ("co-occurs", "mentions"), r["weight"]))["label"]
        label_id = self._relation_ids.setdefault(best, len(self._relation_ids) + 1)
        kind = edge.get("kind")
        if kind == MENTIONS_DOCUMENT:
            w = self.document_edge_weight * float(edge["weight"])
            self._link_sentences[(a, b)] = self._link_sentences[(b, a)] = rels[0].get("sentence", "")
        elif kind == TITLED:
            w = 1.0
        else:
            w = 1.0 + math.log(float(edge.get("weight", 1)))
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

# -- the arrays form: what a builder writes so replicas map the graph instead of parsing it -----------
ARRAYS_FORMAT = "kgrag-graph-arrays/4"
ARRAYS_PREFIX = "arrays."
"""Artifact file names of the arrays (an artifact's files are flat; they go in ``arrays_folder``)."""
_MATRICES = ("adjacency", "transition", "edge_labels", "entity_chunks", "chunk_entities", "home")
_VECTORS = ("chunk_ids", "document_frequency", "chunk_home")
FUZZY_BUCKET_CACHE = 2048
"""Fuzzy buckets kept decoded. Questions keep asking for the same few (common first letters, name-like
lengths); decoding one of the largest at a million chunks costs milliseconds, keeping all of them
hundreds of MB."""


def save_arrays(graph: LoadedGraph, folder: Path, *, source_sha256: str, document_edge_weight: float) -> None:
    """Every matrix and vector as .npy (CSR parts), every string list as a kg.tables table, every mapping
    as a sorted table of its keys beside its values, and only small things in JSON: a load maps files
    and makes no Python object per node (kg.tables says why).

    ``source_sha256`` names the graph file the arrays were made from; a reader uses them only for that file
    and the same ``document_edge_weight`` (the traversal weights are baked into ``transition``)."""
    folder.mkdir(parents=True)
    for name in _MATRICES:
        m: sp.csr_matrix = getattr(graph, name)
        np.save(folder / f"{name}.data.npy", m.data)
        np.save(folder / f"{name}.indices.npy", m.indices)
        np.save(folder / f"{name}.indptr.npy", m.indptr)
    for name in _VECTORS:
        np.save(folder / f"{name}.npy", np.asarray(getattr(graph, name)))

    def lookup(name: str, mapping: Mapping[str, Any]) -> list[Any]:
        """The keys as a sorted table; returns the values in that order."""
        ordered = sorted(mapping.items())
        write_sorted_strings(folder, f"{name}.keys", [k for k, _ in ordered])
        return [v for _, v in ordered]

    write_strings(folder, "keys", graph.keys)
    write_strings(folder, "names", graph.names)
    write_strings(folder, "labels", graph.labels)
    write_ints(folder, "index.values", lookup("index", graph.index))
    write_ragged(folder, "aliases", lookup("aliases", graph.aliases))
    write_ints(folder, "alias_df.values", lookup("alias_df", graph.alias_df))
    write_ragged_strings(folder, "fuzzy.indptr", "fuzzy.members", lookup("fuzzy", graph.fuzzy_buckets))
    docs = [graph.titles.documents[d] for d in sorted(graph.titles.documents)]
    write_ints(folder, "titles.ids", [d.document_id for d in docs])
    write_strings(folder, "titles.title", (d.title for d in docs))
    write_strings(folder, "titles.full_key", (d.full_key for d in docs))
    write_ragged_strings(folder, "titles.aliases.indptr", "titles.aliases", [d.aliases for d in docs])
    write_ragged(folder, "title_targets", lookup("title_targets", graph.titles.targets))
    write_sorted_strings(folder, "title_prefixes", sorted(graph.titles.prefixes))  # type: ignore[call-overload]
    documents = sorted(graph.document_index.items())
    write_ints(folder, "document_index.ids", [d for d, _ in documents])
    write_ints(folder, "document_index.values", [i for _, i in documents])
    # Each link's sentence once; both orders of its node pair find it (code = a * nodes + b, sorted).
    n, codes, sentences = len(graph.keys), [], []
    for (a, b), text in graph.link_sentences.items():
        if a <= b:
            codes += [(a * n + b, len(sentences)), (b * n + a, len(sentences))]
            sentences.append(text)
    codes = sorted(set(codes))
    write_ints(folder, "link_sentences.codes", [c for c, _ in codes])
    write_ints(folder, "link_sentences.rows", [r for _, r in codes])
    write_strings(folder, "link_sentences.text", sentences)
    meta = {
        "format": ARRAYS_FORMAT, "source_sha256": source_sha256, "document_edge_weight": document_edge_weight,
        "manifest": graph.manifest, "relation_names": graph.relation_names,
        "max_name_tokens": graph.max_name_tokens, "stats": graph.stats,
        "shapes": {name: list(getattr(graph, name).shape) for name in _MATRICES},
    }
    (folder / "graph.json").write_text(json.dumps(meta, ensure_ascii=False, separators=(",", ":")))


def load_arrays(folder: Path, *, path: Path, signature: Signature, source_sha256: str,
                document_edge_weight: float) -> LoadedGraph | None:
    """The graph from its arrays, memory-mapped; None when they were made from another file or weights."""
    try:
        meta = json.loads((folder / "graph.json").read_text())
    except (OSError, ValueError):
        return None
    if (meta.get("format") != ARRAYS_FORMAT or meta.get("source_sha256") != source_sha256
            or meta.get("document_edge_weight") != document_edge_weight):
        return None

    def matrix(name: str) -> sp.csr_matrix:
        parts = [np.load(folder / f"{name}.{p}.npy", mmap_mode="r") for p in ("data", "indices", "indptr")]
        return sp.csr_matrix(tuple(parts), shape=tuple(meta["shapes"][name]), copy=False)

    def ints(name: str) -> memoryview:
        return map_ints(folder, name)

    def lookup(name: str, value: Callable[[int], Any], cache: int = 0) -> Lookup[Any]:
        return Lookup(SortedStrings.load(folder, f"{name}.keys"), value, cache=cache)

    m = {name: matrix(name) for name in _MATRICES}
    v = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in _VECTORS}
    keys = Strings.load(folder, "keys")
    index_values, df_values = ints("index.values"), ints("alias_df.values")
    titles, full_keys = Strings.load(folder, "titles.title"), Strings.load(folder, "titles.full_key")
    title_ids = np.load(folder / "titles.ids.npy", mmap_mode="r")
    title_aliases = ragged_strings(folder, "titles.aliases.indptr", "titles.aliases")
    documents = IntLookup(title_ids, lambda i: TitleDocument(int(title_ids[i]), titles[i], full_keys[i],
                                                             title_aliases(i)))
    document_nodes = ints("document_index.values")
    sentences, sentence_rows = Strings.load(folder, "link_sentences.text"), ints("link_sentences.rows")
    return LoadedGraph(
        path=path, signature=signature, manifest=meta["manifest"], keys=keys, names=Strings.load(folder, "names"),
        labels=Strings.load(folder, "labels"), index=lookup("index", index_values.__getitem__),
        aliases=lookup("aliases", ragged(folder, "aliases")),
        fuzzy_buckets=lookup("fuzzy", ragged_strings(folder, "fuzzy.indptr", "fuzzy.members"),
                             cache=FUZZY_BUCKET_CACHE),
        adjacency=m["adjacency"], transition=m["transition"],
        degree=np.maximum(np.diff(m["transition"].indptr), 1), edge_labels=m["edge_labels"],
        relation_names=tuple(meta["relation_names"]), entity_chunks=m["entity_chunks"],
        chunk_entities=m["chunk_entities"], chunk_ids=v["chunk_ids"], document_frequency=v["document_frequency"],
        max_name_tokens=int(meta["max_name_tokens"]), home=m["home"], chunk_home=v["chunk_home"],
        titles=TitleIndex.from_parts(documents, lookup("title_targets", ragged(folder, "title_targets")),
                                     SortedStrings.load(folder, "title_prefixes")),
        document_index=IntLookup(np.load(folder / "document_index.ids.npy", mmap_mode="r"),
                                 document_nodes.__getitem__),
        alias_df=lookup("alias_df", df_values.__getitem__),
        link_sentences=PairLookup(np.load(folder / "link_sentences.codes.npy", mmap_mode="r"), len(keys),
                                  lambda i: sentences[sentence_rows[i]]),
        stats=meta["stats"],
    )


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


def _fuzzy_buckets(keys: list[str], aliases: dict[str, Any]) -> dict[str, tuple[str, ...]]:
    """Entity keys and aliases by bucket. Document nodes are linked by title (kg.documents), never by a
    fuzzy match of their "doc:<id>" key (hundreds of thousands of them at a million chunks, all in one bucket)."""
    buckets: dict[str, list[str]] = defaultdict(list)
    for k in (*keys, *aliases):
        buckets[fuzzy_bucket(k[0], len(k))].append(k)
    return {k: tuple(v) for k, v in buckets.items()}


class GraphHolder:
    """The current LoadedGraph for a path, reloaded when the file changes; None while there is no file.

    A new version is loaded beside the old one: while one thread loads it, queries keep the graph
    they had (only a holder with no graph yet waits). ``install`` (a replica's sync thread) loads the
    downloaded bytes before renaming them into place, so no query ever pays for the load. A file
    made against another database than ``database_id`` names is refused, never served.
    """

    def __init__(self, path: Path, *, document_edge_weight: float = DOCUMENT_EDGE_WEIGHT,
                 database_id: Callable[[], str] | None = None) -> None:
        self.path = path
        self.document_edge_weight = document_edge_weight
        self.database_id = database_id
        self._lock = threading.Lock()
        self._graph: LoadedGraph | None = None
        self._refused: tuple[Signature, ArtifactRefusedError] | None = None

    def current(self) -> LoadedGraph | None:
        graph = self._graph
        signature = file_signature(self.path)
        if signature is None:
            return None
        if graph is not None and graph.signature == signature:
            return graph
        if graph is not None:
            if not self._lock.acquire(blocking=False):
                return graph  # another thread is loading the new file: serve the old one meanwhile
        else:
            self._lock.acquire()
        try:
            return self._load(signature)
        finally:
            self._lock.release()

    def _load(self, signature: Signature) -> LoadedGraph:
        if self._graph is not None and self._graph.signature == signature:
            return self._graph
        if self._refused is not None and self._refused[0] == signature:
            raise self._refused[1]
        graph = load_graph(self.path, document_edge_weight=self.document_edge_weight)
        try:
            self._check(graph)
        except ArtifactRefusedError as exc:
            self._refused = (signature, exc)
            raise
        self._graph = graph
        return graph

    def _check(self, graph: LoadedGraph) -> None:
        if self.database_id is not None:
            check_database(graph.manifest, self.database_id(), f"the graph file at {graph.path}",
                           fix="run `kgrag graph build` against this database (or POST /v1/graph/build)")

    def install(self, folder: Path, artifact_id: int, sha256: str) -> LoadedGraph:
        """Load a downloaded graph artifact (its file and arrays) from ``folder``, then rename both into
        place and swap the reference: no query waits for the load."""
        data_file = folder / GRAPH_FILE
        arrays = folder / ".arrays"
        arrays.mkdir(exist_ok=True)
        for part in folder.glob(ARRAYS_PREFIX + "*"):
            part.rename(arrays / part.name.removeprefix(ARRAYS_PREFIX))
        signature = file_signature(data_file)
        assert signature is not None
        graph = load_arrays(arrays, path=self.path, signature=signature, source_sha256=file_sha256(data_file),
                            document_edge_weight=self.document_edge_weight)
        if graph is None:  # published before arrays existed, or other traversal weights here
            graph = from_node_link(read_data(data_file), path=self.path, signature=signature,
                                   document_edge_weight=self.document_edge_weight)
        self._check(graph)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            install_arrays(arrays, self.path)
            os.replace(data_file, self.path)  # same inode, mtime and size: the signature still matches
            self._graph = graph
            write_sidecar(self.path, artifact_id, sha256)
        return graph
