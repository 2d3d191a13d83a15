"""The current serving graph of a path: loaded once, swapped when the file on disk changes.

When the file changes (a new build renamed over it, or a replica installed a newly published one), the
holder loads the new one and swaps a single reference; a query in flight keeps the object it started
with. One holder per process, owned by the Runtime (``graph_holder``): the graph retriever, the artifact
sync and the browse routes share it, so the graph is in memory once.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kgrag.core.artifacts import ArtifactRefusedError, check_database
from kgrag.core.runtime import Runtime
from kgrag.kg import arrays
from kgrag.kg.assemble import from_node_link
from kgrag.kg.delta import GraphDelta, read_delta
from kgrag.kg.graphfile import GRAPH_FILE, installed_artifact, read_data, read_networkx, write_sidecar
from kgrag.kg.overlay import networkx_with_delta, with_delta
from kgrag.kg.serving import LoadedGraph, Signature

DELTA_SIDECAR = "artifact.json"
DeltaSignature = tuple[Signature | None, Signature | None]
"""The file's signature and its delta sidecar's: either changing means another graph to serve."""


def file_signature(path: Path) -> Signature | None:
    """Cheap change detection (one stat per query): inode changes on every atomic rename."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def load_graph(path: Path, *, document_edge_weight: float) -> LoadedGraph:
    """From the arrays beside the file when they were made from it (memory-mapped, fast), else by
    parsing the file itself (an older build, or other traversal weights)."""
    signature = file_signature(path)
    if signature is None:
        raise FileNotFoundError(path)
    folder = arrays.folder_of(path)
    if folder.is_dir():
        graph = arrays.load(folder, path=path, signature=signature, source_sha256=file_sha256(path),
                            document_edge_weight=document_edge_weight)
        if graph is not None:
            return graph
    data = read_data(path)
    return from_node_link(data, path=path, signature=signature, document_edge_weight=document_edge_weight)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def delta_folder(path: Path) -> Path:
    """Where the graph delta laid over the file at ``path`` lives (kg.delta): beside it, in the data home."""
    return path.with_name("graph-delta")


def local_delta(path: Path) -> GraphDelta | None:
    """The delta installed beside the file, when it was built against the base the file is; None otherwise (a
    delta of an earlier base is never laid over a newer one)."""
    folder = delta_folder(path)
    if not folder.is_dir():
        return None
    delta = read_delta(folder)
    return delta if delta.base_artifact == installed_artifact(path) else None


def read_served_networkx(path: Path) -> Any:
    """The graph file as networkx, with the delta installed beside it laid over (what this home serves)."""
    g = read_networkx(path)
    delta = local_delta(path)
    return g if delta is None else networkx_with_delta(g, delta)


def install_delta_folder(src: Path, path: Path, sha256: str) -> None:
    """Rename a finished delta folder into place beside ``path`` (replacing the previous delta), stamped with
    the published artifact's digest so a replica knows it holds it."""
    (src / DELTA_SIDECAR).write_text(json.dumps({"sha256": sha256}))
    final = delta_folder(path)
    trash = final.with_name(f".{final.name}.old-{uuid.uuid4().hex[:8]}")
    if final.exists():
        final.rename(trash)
    src.rename(final)
    shutil.rmtree(trash, ignore_errors=True)


def installed_delta(path: Path) -> str | None:
    """The digest of the published delta installed beside ``path``; None when there is none."""
    try:
        return str(json.loads((delta_folder(path) / DELTA_SIDECAR).read_text())["sha256"])
    except (OSError, ValueError, KeyError):
        return None


def remove_delta(path: Path) -> None:
    """Drop the delta beside ``path`` (a new base folded it in)."""
    shutil.rmtree(delta_folder(path), ignore_errors=True)


def install_arrays(src: Path, path: Path) -> None:
    """Rename a finished arrays folder into place beside ``path``. A process still mapping the old one
    keeps its pages (POSIX); a reader that sees the new arrays with the old file, or the reverse, finds
    their digests differ and parses the file instead."""
    final = arrays.folder_of(path)
    trash = final.with_name(f".{final.name}.old-{uuid.uuid4().hex[:8]}")
    if final.exists():
        final.rename(trash)
    src.rename(final)
    shutil.rmtree(trash, ignore_errors=True)


class GraphHolder:
    """The current LoadedGraph for a path, reloaded when the file or its delta changes; None while there is
    no file.

    A new version is loaded beside the old one: while one thread loads it, queries keep the graph
    they had (only a holder with no graph yet waits). ``install`` and ``install_delta`` (a replica's sync
    thread) load the downloaded bytes before renaming them into place, so no query ever pays for the load.
    A file made against another database than ``database_id`` names is refused, never served. With a delta
    beside the file (kg.delta), the graph served is the base with the delta laid over it (kg.overlay).
    """

    def __init__(self, path: Path, *, document_edge_weight: float,
                 database_id: Callable[[], str] | None = None) -> None:
        self.path = path
        self.document_edge_weight = document_edge_weight
        self.database_id = database_id
        self._lock = threading.Lock()
        self._graph: LoadedGraph | None = None
        self._base: LoadedGraph | None = None
        self._key: DeltaSignature = (None, None)
        self._refused: tuple[DeltaSignature, ArtifactRefusedError] | None = None

    def _signature(self) -> DeltaSignature:
        return file_signature(self.path), file_signature(delta_folder(self.path) / DELTA_SIDECAR)

    def current(self) -> LoadedGraph | None:
        graph = self._graph
        key = self._signature()
        if key[0] is None:
            return None
        if graph is not None and self._key == key:
            return graph
        if graph is not None:
            if not self._lock.acquire(blocking=False):
                return graph  # another thread is loading the new file: serve the old one meanwhile
        else:
            self._lock.acquire()
        try:
            return self._load(key)
        finally:
            self._lock.release()

    def _load(self, key: DeltaSignature) -> LoadedGraph:
        if self._graph is not None and self._key == key:
            return self._graph
        if self._refused is not None and self._refused[0] == key:
            raise self._refused[1]
        base = self._base
        if base is None or not base.read_from(key[0]):
            base = load_graph(self.path, document_edge_weight=self.document_edge_weight)
        try:
            self._check(base)
        except ArtifactRefusedError as exc:
            self._refused = (key, exc)
            raise
        delta = local_delta(self.path)
        graph = base if delta is None else with_delta(base, delta, document_edge_weight=self.document_edge_weight)
        self._base, self._graph, self._key = base, graph, key
        return graph

    def _check(self, graph: LoadedGraph) -> None:
        if self.database_id is not None:
            check_database(graph.build_manifest(), self.database_id(), f"the graph file at {graph.loaded_from}",
                           fix="run `kgrag graph build` against this database (or POST /v1/graph/build)")

    def install(self, folder: Path, artifact_id: int, sha256: str) -> LoadedGraph:
        """Load a downloaded graph artifact (its file and arrays) from ``folder``, then rename both into
        place and swap the reference: no query waits for the load. A delta of the previous base goes."""
        data_file = folder / GRAPH_FILE
        parts = folder / ".arrays"
        parts.mkdir(exist_ok=True)
        for part in folder.glob(arrays.PREFIX + "*"):
            part.rename(parts / part.name.removeprefix(arrays.PREFIX))
        signature = file_signature(data_file)
        assert signature is not None
        graph = arrays.load(parts, path=self.path, signature=signature, source_sha256=file_sha256(data_file),
                            document_edge_weight=self.document_edge_weight)
        if graph is None:  # published before arrays existed, or other traversal weights here
            graph = from_node_link(read_data(data_file), path=self.path, signature=signature,
                                   document_edge_weight=self.document_edge_weight)
        self._check(graph)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._lock:
            remove_delta(self.path)
            install_arrays(parts, self.path)
            os.replace(data_file, self.path)  # same inode, mtime and size: the signature still matches
            write_sidecar(self.path, artifact_id, sha256)
            self._base = self._graph = graph
            self._key = self._signature()
        return graph

    def install_delta(self, folder: Path, sha256: str) -> LoadedGraph | None:
        """Lay a downloaded graph delta over the base this holder serves, then rename it into place and swap the
        reference; None (and nothing installed) when it was built against another base."""
        delta = read_delta(folder)
        base = self._base
        if base is None or delta.base_artifact != installed_artifact(self.path):
            return None
        graph = with_delta(base, delta, document_edge_weight=self.document_edge_weight)
        with self._lock:
            if self._base is not base:
                return None  # a new base arrived meanwhile
            install_delta_folder(folder, self.path, sha256)
            self._graph, self._key = graph, self._signature()
        return graph


def graph_holder(rt: Runtime) -> GraphHolder:
    """The process's one holder, made on first use from the runtime's settings and owned by it."""
    settings = rt.settings
    return rt.shared("graph_holder", lambda: GraphHolder(
        settings.graph_path, document_edge_weight=settings.graph.document_edge_weight,
        database_id=rt.artifacts.database_id))
