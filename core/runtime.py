"""The process-wide resources (settings, embedding model, spaCy, database, the graph holder) created
once and passed in.

The CLI makes one per command and the API one per process (in its lifespan). Loading is lazy and
locked, so `kgrag documents list` never loads a model and two threads never load one twice. Layers
above core hand their own resources to ``shared`` (kg.holder.graph_holder does), so the Runtime owns
them without core importing those layers.

Workspaces (core/workspaces.py): ``rt.workspace(name)`` is the runtime of one workspace, made once per
process and cached. It shares this runtime's models (embedder, spaCy, anything made through ``model``),
the parser sandbox and the database pool, and has its own database handle (searching only its schema),
store, artifact store, graph holder and index folder: the corpus objects that must never be shared.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from functools import cached_property
from typing import Any, TypeVar

from kgrag.core.artifacts import ArtifactStore
from kgrag.core.db import Database, check_embedding_model
from kgrag.core.models import Embedder, embedding_dim_without_loading, load_embedder, numpy_folder
from kgrag.core.nlp import load_spacy
from kgrag.core.priority import QueryActivity
from kgrag.core.sandbox import Sandbox
from kgrag.core.settings import DEFAULT_WORKSPACE, Settings
from kgrag.core.store import Store
from kgrag.core.workspaces import Workspaces

T = TypeVar("T")


class Runtime:
    def __init__(self, settings: Settings, *, embedder: Embedder | None = None,
                 bulk_embedder: Embedder | None = None, light: bool = False, parent: Runtime | None = None) -> None:
        """``light``: a one-shot query process (`kgrag query`, `kgrag ask`), where the numpy encoder saves the
        seconds torch takes to import (EmbeddingSettings.backend). ``parent``: made by ``parent.workspace``,
        whose models, sandbox and pool this one uses. ``embedder``: a model already loaded (tests share
        one); it also serves ingestion unless ``bulk_embedder`` is given too."""
        self.settings = settings
        self.light = light
        self._parent = parent
        self._lock = threading.RLock()
        if embedder is not None:
            self.__dict__["embedder"] = embedder
        if bulk_embedder is not None or embedder is not None:
            self.__dict__["bulk_embedder"] = bulk_embedder or embedder
        self._db: Database | None = None
        self._view: Database | None = None
        self._dim_checked = False
        self._shared_lock = threading.Lock()
        self._shared: dict[Hashable, tuple[threading.Lock, list[Any]]] = {}
        self.activity = parent.root.activity if parent is not None else QueryActivity()
        """This process's queries in flight, whatever their workspace: its pipelines count themselves, its
        ingestors wait for them (the cores are the process's)."""

    @property
    def root(self) -> Runtime:
        """The runtime that owns the models and the pool (itself, unless made by ``workspace``)."""
        return self._parent.root if self._parent is not None else self

    def workspace(self, name: str) -> Runtime:
        """The runtime of workspace ``name``, made once per process (this one for its own workspace)."""
        if name == self.settings.workspace:
            return self
        root = self.root
        if name == root.settings.workspace:
            return root
        settings = root.settings.for_workspace(name)
        return root.shared(("workspace", name), lambda: Runtime(settings, light=root.light, parent=root))

    def forget_workspace(self, name: str) -> None:
        """Drop the cached runtime of a deleted workspace, so a workspace made again under its name starts
        afresh (its graph holder and index point at files that are gone)."""
        root = self.root
        with root._shared_lock:
            root._shared.pop(("workspace", name), None)

    @property
    def workspaces(self) -> Workspaces:
        return Workspaces(self.database)

    def model(self, key: Hashable, make: Callable[[], T]) -> T:
        """Like ``shared``, but one per process whatever the workspace: models (a reranker) and anything
        else that holds no workspace's data."""
        return self.root.shared(("model", key), make)

    @cached_property
    def embedder(self) -> Embedder:
        if self._parent is not None:
            return self.root.embedder
        with self._lock:
            if "embedder" in self.__dict__:  # pragma: no cover - set while we waited
                return self.__dict__["embedder"]
            return load_embedder(self.settings.embedding, light=self.light)

    @cached_property
    def bulk_embedder(self) -> Embedder:
        """What ingestion embeds with: a second instance of the model, on a thread of lower OS priority
        (settings.ingest.embed_nice, core.priority), so an upload never holds the model a query waits
        for nor takes the cores from it; with embed_nice 0, the queries' own instance. One per process."""
        if self._parent is not None:
            return self.root.bulk_embedder
        nice = self.settings.ingest.embed_nice
        if not nice:
            return self.embedder
        with self._lock:
            if "bulk_embedder" in self.__dict__:  # pragma: no cover - set while we waited
                return self.__dict__["bulk_embedder"]
            return load_embedder(self.settings.embedding, light=self.light, nice=nice)

    def shared(self, key: Hashable, make: Callable[[], T]) -> T:
        """The resource made by ``make`` for ``key``, made once per runtime on first use. Each key has its
        own lock: loading spaCy never holds up a thread that wants the database."""
        with self._shared_lock:
            lock, slot = self._shared.setdefault(key, (threading.Lock(), []))
        if not slot:
            with lock:
                if not slot:
                    slot.append(make())
        return slot[0]

    def spacy(self, name: str | None = None) -> Any:
        """The spaCy pipeline ``name`` (default: settings.graph.spacy_model), loaded once, on first use."""
        model = name or self.settings.graph.spacy_model
        without_torch = self.light and numpy_folder(self.settings.embedding, light=True) is not None
        return self.model(("spacy", model), lambda: load_spacy(model, without_torch=without_torch))

    @property
    def database(self) -> Database:
        """The pool (and the default workspace's handle): one per process, whatever the workspace."""
        if self._parent is not None:
            return self.root.database
        with self._lock:
            if self._db is None:
                self.settings.home.mkdir(parents=True, exist_ok=True)
                self._db = Database.from_settings(self.settings, embedding_dim=self._embedding_dim)
            return self._db

    @property
    def db(self) -> Database:
        """This runtime's workspace's handle: its connections see that workspace's tables alone (the pool's
        own handle for the default workspace). Opening a workspace that does not exist raises NotFoundError."""
        database = self.database
        if self.settings.workspace == DEFAULT_WORKSPACE:
            return database
        with self._lock:
            if self._view is None:
                self._view = Workspaces(database).open(self.settings.workspace)
            return self._view

    def _embedding_dim(self) -> int:
        """For a new database's schema: read from the model's config when it can be, so no model loads."""
        if "embedder" not in self.__dict__:
            dim = embedding_dim_without_loading(self.settings.embedding)
            if dim is not None:
                return dim
        return self.embedder.dim

    def checked_embedder(self, *, bulk: bool = False) -> Embedder:
        """The embedder, after checking its vectors fit the database (ingest and query use this).
        ``bulk``: ingestion's instance (``bulk_embedder``); both are the same weights, so one check does."""
        embedder = self.bulk_embedder if bulk else self.embedder
        with self._lock:
            if not self._dim_checked:
                check_embedding_model(self.db, embedder.dim, embedder.identity())
                self._dim_checked = True
        return embedder

    @cached_property
    def store(self) -> Store:
        return Store(self.db)

    @cached_property
    def artifacts(self) -> ArtifactStore:
        return ArtifactStore(self.db, part_bytes=self.settings.artifacts.part_bytes)

    def parser_sandbox(self, preload: tuple[str, ...]) -> Sandbox | None:
        """Where uploaded and ingested files are parsed (None: in this process, ingest.isolate_parsers off).

        ``preload``, the modules its workers start with, comes from the caller (ingest.loaders.PARSER_MODULES):
        ingest owns the parsers, and core names no package above it. Made once, by the first call."""
        if self._parent is not None:
            return self.root.parser_sandbox(preload)
        ingest = self.settings.ingest
        if not ingest.isolate_parsers:
            return None
        with self._lock:  # two first uploads at once still make one sandbox
            if "sandbox" not in self.__dict__:
                self.__dict__["sandbox"] = Sandbox(
                    memory_bytes=ingest.parser_memory_bytes, timeout_s=ingest.parser_timeout_s,
                    processes=ingest.parser_processes, preload=preload)
            return self.__dict__["sandbox"]

    def close(self) -> None:
        """The root closes the sandbox and the pool; a workspace's runtime owns neither."""
        if self._parent is not None:
            return
        if (sandbox := self.__dict__.get("sandbox")) is not None:
            sandbox.close()
        with self._lock:
            self._view = None
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
