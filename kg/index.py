"""The graph as serving uses it: an immutable object of arrays and sparse matrices built at load time.

Queries only read it, so any number of threads can share one. When the file on disk changes (a new
build renamed over it, or a replica installed a newly published one), the holder loads the new one
and swaps a single reference; a query in flight keeps the object it started with.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import shutil
import threading
import uuid
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from core.artifacts import ArtifactRefusedError, check_database
from kg.documents import TitleDocument, TitleIndex
from kg.graphfile import DOCUMENT, GRAPH_FILE, MENTIONS_DOCUMENT, TITLED, document_id, read_data, write_sidecar
from kg.traversal import row_normalised

Signature = tuple[int, int, int]

DOCUMENT_EDGE_WEIGHT = 3.0
"""A document-to-document mention link weighs this times its alias's specificity in the traversal; an
entity edge weighs 1 + ln(co-occurrences). Links name exactly what they point at, co-occurrence does not."""


@dataclass(frozen=True)
class LoadedGraph:
    path: Path
    signature: Signature
    manifest: dict[str, Any]
    keys: tuple[str, ...]
    names: tuple[str, ...]
    labels: tuple[str, ...]
    index: dict[str, int]
    aliases: dict[str, tuple[int, ...]]
    """Alias key → the entities it names somewhere in the corpus (a surname may name several)."""
    fuzzy_buckets: dict[tuple[str, int], tuple[str, ...]]
    """(first character, length) → names and aliases, so fuzzy matching only compares plausible keys."""
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
    document_index: dict[int, int]
    """Document id → node index."""
    alias_df: dict[str, int]
    """Title alias → how many documents write it (question-side specificity)."""
    link_sentences: dict[tuple[int, int], str]
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
    nodes = data["nodes"]
    keys = tuple(n["id"] for n in nodes)
    index = {k: i for i, k in enumerate(keys)}
    aliases: dict[str, set[int]] = defaultdict(set)
    from kg.canonical import entity_key

    for i, n in enumerate(nodes):
        if n.get("kind") == DOCUMENT:
            continue  # documents are linked by their title aliases (kg.documents), not entity keys
        for alias in n.get("aliases", []):
            ak = entity_key(alias)
            if ak and ak not in index:
                aliases[ak].add(i)
    sorted_aliases = {k: tuple(sorted(v)) for k, v in aliases.items()}
    rows, cols, weights, label_ids, relation_names = _edges(data["edges"], index, document_edge_weight)
    n = len(keys)
    adjacency = sp.csr_matrix((weights, (rows, cols)), shape=(n, n), dtype=np.float64)
    edge_labels = sp.csr_matrix((label_ids, (rows, cols)), shape=(n, n), dtype=np.int32)
    transition = row_normalised(n, rows, cols, weights)

    chunk_set = sorted({c for node in nodes for c, _ in node["chunks"]} | {c for node in nodes
                                                                         for c in node.get("home", ())})
    column = {c: j for j, c in enumerate(chunk_set)}
    e_rows = [i for i, node in enumerate(nodes) for _ in node["chunks"]]
    e_cols = [column[c] for node in nodes for c, _ in node["chunks"]]
    entity_chunks = sp.csr_matrix((np.ones(len(e_rows)), (e_rows, e_cols)), shape=(n, len(chunk_set)))
    df = np.asarray(entity_chunks.sum(axis=1)).ravel()
    h_rows = [i for i, node in enumerate(nodes) for _ in node.get("home", ())]
    h_cols = [column[c] for node in nodes for c in node.get("home", ())]
    home = sp.csr_matrix((np.ones(len(h_rows)), (h_rows, h_cols)), shape=(n, len(chunk_set)))
    chunk_home = np.full(len(chunk_set), -1, dtype=np.int64)
    chunk_home[np.array(h_cols, dtype=np.int64)] = np.array(h_rows, dtype=np.int64)
    documents = [(i, node) for i, node in enumerate(nodes) if node.get("kind") == DOCUMENT]
    document_index = {document_id(node["id"]): i for i, node in documents}
    titles = TitleIndex(TitleDocument(document_id(node["id"]), node["name"], node["full_key"], tuple(node["aliases"]))
                        for _, node in documents)
    alias_df: dict[str, int] = {}
    for _, node in documents:
        alias_df.update(node.get("alias_df", {}))
    link_sentences: dict[tuple[int, int], str] = {}
    for e in data["edges"]:
        if e.get("kind") == MENTIONS_DOCUMENT:
            a, b = index[e["source"]], index[e["target"]]
            sentence = e["relations"][0].get("sentence", "")
            link_sentences[(a, b)] = link_sentences[(b, a)] = sentence
    return LoadedGraph(
        path=path, signature=signature, manifest=data["graph"].get("manifest", {}), keys=keys,
        names=tuple(nd.get("name", nd["id"]) for nd in nodes), labels=tuple(nd.get("label", "") for nd in nodes),
        index=index, aliases=sorted_aliases,
        fuzzy_buckets=_fuzzy_buckets(keys, aliases), adjacency=adjacency, transition=transition,
        degree=np.maximum(np.diff(transition.indptr), 1),
        edge_labels=edge_labels, relation_names=relation_names, entity_chunks=entity_chunks,
        chunk_entities=entity_chunks.T.tocsr(), chunk_ids=np.array(chunk_set, dtype=np.int64),
        document_frequency=df, max_name_tokens=max((k.count(" ") + 1 for k in (*keys, *aliases)), default=1),
        home=home, chunk_home=chunk_home, titles=titles, document_index=document_index, alias_df=alias_df,
        link_sentences=link_sentences,
        stats={"entities": n - len(documents), "documents": len(documents), "edges": len(data["edges"]),
               "chunks": len(chunk_set)},
    )


# -- the arrays form: what a builder writes so replicas map the graph instead of parsing it -----------
ARRAYS_FORMAT = "kgrag-graph-arrays/3"
ARRAYS_PREFIX = "arrays."
"""Artifact file names of the arrays (an artifact's files are flat; they go in ``arrays_folder``)."""
_MATRICES = ("adjacency", "transition", "edge_labels", "entity_chunks", "chunk_entities", "home")
_VECTORS = ("chunk_ids", "document_frequency", "chunk_home")
_SEP = "\x00"
"""Separates the strings of a string table. Every string comes from Postgres text, which cannot hold NUL."""


def save_arrays(graph: LoadedGraph, folder: Path, *, source_sha256: str, document_edge_weight: float) -> None:
    """Every matrix and vector as .npy (CSR parts), every list of strings as one NUL-separated UTF-8
    file, and only small things in JSON: loading is np.load with mmap_mode plus ``str.split``, not a
    JSON parse (at a million chunks the strings alone were half a gigabyte of JSON).

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
    counts: dict[str, int] = {}

    def strings(name: str, values: list[str]) -> None:
        counts[name] = len(values)
        (folder / f"{name}.txt").write_bytes(_SEP.join(values).encode())

    def ints(name: str, values: list[int] | list[list[int]]) -> None:
        np.save(folder / f"{name}.npy", np.asarray(values, dtype=np.int64))

    def offsets(name: str, rows: list[tuple[Any, ...]]) -> None:
        ints(f"{name}.indptr", [0, *itertools.accumulate(len(r) for r in rows)])

    def lists(name: str, mapping: dict[str, tuple[int, ...]]) -> None:
        """str -> tuple of ints, as keys + CSR (offsets, values)."""
        strings(f"{name}.keys", list(mapping))
        offsets(name, list(mapping.values()))
        ints(f"{name}.values", [i for v in mapping.values() for i in v])

    strings("keys", list(graph.keys))
    strings("names", list(graph.names))
    strings("labels", list(graph.labels))
    lists("aliases", graph.aliases)
    docs = list(graph.titles.documents.values())
    ints("titles.ids", [d.document_id for d in docs])
    strings("titles.title", [d.title for d in docs])
    strings("titles.full_key", [d.full_key for d in docs])
    offsets("titles.aliases", [d.aliases for d in docs])
    strings("titles.aliases", [a for d in docs for a in d.aliases])
    lists("title_targets", graph.titles.targets)
    strings("title_prefixes", sorted(graph.titles.prefixes))
    ints("document_index", [[d, i] for d, i in graph.document_index.items()])
    # The fuzzy buckets in bucket order: a load slices one string table instead of re-bucketing every key.
    buckets = list(graph.fuzzy_buckets.items())
    strings("fuzzy.first", [first for (first, _n), _ in buckets])
    ints("fuzzy.length", [n for (_f, n), _ in buckets])
    offsets("fuzzy", [members for _, members in buckets])
    strings("fuzzy.members", [k for _, members in buckets for k in members])
    strings("alias_df.keys", list(graph.alias_df))
    ints("alias_df.values", list(graph.alias_df.values()))
    seen: set[tuple[int, int]] = set()
    pairs: list[list[int]] = []
    sentences: list[str] = []
    for (a, b), text in graph.link_sentences.items():
        if (b, a) not in seen:
            seen.add((a, b))
            pairs.append([a, b])
            sentences.append(text)
    ints("link_sentences.pairs", pairs)
    strings("link_sentences.text", sentences)
    meta = {
        "format": ARRAYS_FORMAT, "source_sha256": source_sha256, "document_edge_weight": document_edge_weight,
        "manifest": graph.manifest, "relation_names": graph.relation_names,
        "max_name_tokens": graph.max_name_tokens, "stats": graph.stats, "counts": counts,
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

    def strings(name: str) -> list[str]:
        if not meta["counts"][name]:
            return []
        return (folder / f"{name}.txt").read_bytes().decode().split(_SEP)

    def ints(name: str) -> list[Any]:
        return np.load(folder / f"{name}.npy").tolist()

    def ragged(name: str, values: list[Any]) -> list[tuple[Any, ...]]:
        """Rows of ``values`` cut at ``name.indptr`` (save_arrays' ``offsets``)."""
        at = ints(f"{name}.indptr")
        return [tuple(values[at[i]:at[i + 1]]) for i in range(len(at) - 1)]

    def pairs(name: str) -> zip[tuple[int, int]]:
        rows = np.load(folder / f"{name}.npy").reshape(-1, 2)
        return zip(rows[:, 0].tolist(), rows[:, 1].tolist(), strict=True)

    def lists(name: str) -> dict[str, tuple[int, ...]]:
        return dict(zip(strings(f"{name}.keys"), ragged(name, ints(f"{name}.values")), strict=True))

    m = {name: matrix(name) for name in _MATRICES}
    v = {name: np.load(folder / f"{name}.npy", mmap_mode="r") for name in _VECTORS}
    keys = tuple(strings("keys"))
    aliases = lists("aliases")
    titles = [TitleDocument(d, t, f, a) for d, t, f, a in zip(
        ints("titles.ids"), strings("titles.title"), strings("titles.full_key"),
        ragged("titles.aliases", strings("titles.aliases")), strict=True)]
    link_sentences: dict[tuple[int, int], str] = {}
    for (a, b), text in zip(pairs("link_sentences.pairs"), strings("link_sentences.text"), strict=True):
        link_sentences[(a, b)] = link_sentences[(b, a)] = text
    fuzzy = dict(zip(zip(strings("fuzzy.first"), ints("fuzzy.length"), strict=True),
                     ragged("fuzzy", strings("fuzzy.members")), strict=True))
    return LoadedGraph(
        path=path, signature=signature, manifest=meta["manifest"], keys=keys, names=tuple(strings("names")),
        labels=tuple(strings("labels")), index={k: i for i, k in enumerate(keys)}, aliases=aliases,
        fuzzy_buckets=fuzzy, adjacency=m["adjacency"], transition=m["transition"],
        degree=np.maximum(np.diff(m["transition"].indptr), 1), edge_labels=m["edge_labels"],
        relation_names=tuple(meta["relation_names"]), entity_chunks=m["entity_chunks"],
        chunk_entities=m["chunk_entities"], chunk_ids=v["chunk_ids"], document_frequency=v["document_frequency"],
        max_name_tokens=int(meta["max_name_tokens"]), home=m["home"], chunk_home=v["chunk_home"],
        titles=TitleIndex.from_parts(titles, lists("title_targets"), strings("title_prefixes")),
        document_index=dict(pairs("document_index")),
        alias_df=dict(zip(strings("alias_df.keys"), ints("alias_df.values"), strict=True)),
        link_sentences=link_sentences, stats=meta["stats"],
    )


def _fuzzy_buckets(keys: tuple[str, ...], aliases: dict[str, Any]) -> dict[tuple[str, int], tuple[str, ...]]:
    buckets: dict[tuple[str, int], list[str]] = defaultdict(list)
    for k in (*keys, *aliases):
        buckets[(k[0], len(k))].append(k)
    return {k: tuple(v) for k, v in buckets.items()}


def _edges(edges: list[dict[str, Any]], index: dict[str, int], document_edge_weight: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    """Both directions of every edge. An entity edge's weight is dampened by log so one chatty document
    cannot dominate; a document mention link weighs ``document_edge_weight`` × its alias's specificity."""
    names: dict[str, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    weights: list[float] = []
    labels: list[int] = []
    for e in edges:
        a, b = index[e["source"]], index[e["target"]]
        rels = e.get("relations") or [{"label": "co-occurs", "weight": 1}]
        best = max(rels, key=lambda r: (r["label"] not in ("co-occurs", "mentions"), r["weight"]))["label"]
        label_id = names.setdefault(best, len(names) + 1)
        kind = e.get("kind")
        if kind == MENTIONS_DOCUMENT:
            w = document_edge_weight * float(e["weight"])
        elif kind == TITLED:
            w = 1.0
        else:
            w = 1.0 + math.log(float(e.get("weight", 1)))
        rows += [a, b]
        cols += [b, a]
        weights += [w, w]
        labels += [label_id, label_id]
    relation_names = tuple(sorted(names, key=names.__getitem__))
    return (np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64), np.array(weights, dtype=np.float64),
            np.array(labels, dtype=np.int32), relation_names)


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
