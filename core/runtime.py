"""The process-wide resources (settings, embedding model, database) created once and passed in.

The CLI makes one per command and the API one per process (in its lifespan). Loading is lazy and
locked, so `kgrag documents list` never loads a model and two threads never load one twice.
"""

from __future__ import annotations

import threading
from functools import cached_property

from kgrag.core.artifacts import ArtifactStore
from kgrag.core.db import Database, check_embedding_model
from kgrag.core.models import Embedder, load_embedder
from kgrag.core.settings import Settings
from kgrag.core.store import Store


class Runtime:
    def __init__(self, settings: Settings, *, embedder: Embedder | None = None) -> None:
        self.settings = settings
        self._lock = threading.RLock()
        if embedder is not None:
            self.__dict__["embedder"] = embedder
        self._db: Database | None = None
        self._dim_checked = False

    @cached_property
    def embedder(self) -> Embedder:
        with self._lock:
            if "embedder" in self.__dict__:  # pragma: no cover - set while we waited
                return self.__dict__["embedder"]
            return load_embedder(self.settings.embedding)

    @property
    def db(self) -> Database:
        with self._lock:
            if self._db is None:
                self.settings.home.mkdir(parents=True, exist_ok=True)
                self._db = Database.from_settings(self.settings, embedding_dim=lambda: self.embedder.dim)
            return self._db

    def checked_embedder(self) -> Embedder:
        """The embedder, after checking its vectors fit the database (ingest and query use this)."""
        embedder = self.embedder
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

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def __enter__(self) -> Runtime:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
