"""Workspaces: several teams' corpora in one database, each in a Postgres schema of its own.

A workspace's documents, chunks, graph rows, published artifacts, jobs and corpus version are the tables
of core/schema.py created in the schema ``kgrag_ws_<name>``; its connections' search_path names that
schema alone (core.db.Database.scoped). Isolation is therefore structural: a query written without a
workspace filter cannot reach another workspace's rows, because from that connection they have no name.
The ``default`` workspace is the database's original tables (the server's default search path), so a
database from before workspaces is the default workspace as it stands, with nothing to migrate.

What all workspaces share lives in the ``kgrag_registry`` schema (core/schema.py): the list of
workspaces, the API keys and the audit log. Files a workspace derives on disk (its BM25 index and graph
cache) live under ``<home>/workspaces/<name>/`` (core.settings.Settings.workspace_home).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import psycopg
from kgrag.core.db import Database, migrate, stored_embedding_dim
from kgrag.core.errors import InvalidInputError, KgragError, NotFoundError
from kgrag.core.schema import REGISTRY
from kgrag.core.settings import DEFAULT_WORKSPACE, WORKSPACE_PATTERN
from psycopg import sql

DEFAULT = DEFAULT_WORKSPACE
_NAME = re.compile(WORKSPACE_PATTERN)
SCHEMA_PREFIX = "kgrag_ws_"


class WorkspaceExistsError(KgragError):
    status_code = 409


def check_name(name: str) -> str:
    """A workspace name becomes part of a schema name and a folder name: lowercase letters, digits and
    underscores, starting with a letter, at most 40 characters."""
    if not _NAME.fullmatch(name):
        raise InvalidInputError(f"{name!r} is not a valid workspace name",
                                fix="use lowercase letters, digits and underscores, starting with a letter, "
                                    "at most 40 characters (e.g. hr, legal, eng_2024)")
    return name


def schema_of(name: str) -> str | None:
    """The Postgres schema holding ``name``'s tables; None for the default workspace (the original tables)."""
    return None if check_name(name) == DEFAULT else SCHEMA_PREFIX + name


def missing(name: str) -> NotFoundError:
    return NotFoundError(f"there is no workspace {name!r}",
                         fix=f"create it with `kgrag workspace create {name}`, or list them with "
                             "`kgrag workspace list`")


@dataclass(frozen=True, slots=True)
class Workspace:
    name: str
    created_at: datetime
    documents: int | None = None


class Workspaces:
    """The registry of workspaces: create, list, open and delete them."""

    def __init__(self, db: Database) -> None:
        self.db = db  # the root handle: the registry's tables are always named with their schema

    def exists(self, name: str) -> bool:
        with self.db.connection() as conn:
            row = conn.execute(f"SELECT 1 FROM {REGISTRY}.workspaces WHERE name = %s", (name,)).fetchone()
        return row is not None

    def names(self) -> list[str]:
        with self.db.connection() as conn:
            return [r[0] for r in conn.execute(f"SELECT name FROM {REGISTRY}.workspaces ORDER BY name")]

    def list(self) -> list[Workspace]:
        with self.db.connection() as conn:
            rows = conn.execute(f"SELECT name, created_at FROM {REGISTRY}.workspaces ORDER BY name").fetchall()
        return [Workspace(r[0], r[1], self._documents(r[0])) for r in rows]

    def _documents(self, name: str) -> int | None:
        try:
            with self.open(name).connection() as conn:
                return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
        except (KgragError, psycopg.Error):
            return None

    def create(self, name: str) -> Workspace:
        """Its schema and tables, made with the default workspace's embedding dimension (one model serves all)."""
        schema = schema_of(name)
        if schema is None:
            raise WorkspaceExistsError("the default workspace always exists", fix="create one with another name")
        with self.db.transaction() as conn:
            row = conn.execute(f"INSERT INTO {REGISTRY}.workspaces (name) VALUES (%s) ON CONFLICT DO NOTHING"
                               " RETURNING created_at", (name,)).fetchone()
            if row is None:
                raise WorkspaceExistsError(f"workspace {name!r} already exists",
                                           fix="use it as it is, or delete it first with "
                                               f"`kgrag workspace delete {name}`")
            conn.execute(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(schema)))
            dim = stored_embedding_dim(conn)
        migrate(self.db.scoped(schema), embedding_dim=lambda: dim)
        return Workspace(name, row[0], 0)

    def open(self, name: str) -> Database:
        """The handle whose connections see ``name``'s tables alone, migrated to the current schema version.
        Raises NotFoundError for a workspace that does not exist."""
        schema = schema_of(name)
        if schema is None:
            return self.db
        if not self.exists(name):
            raise missing(name)
        view = self.db.scoped(schema)
        with self.db.connection() as conn:
            dim = stored_embedding_dim(conn)
        migrate(view, embedding_dim=lambda: dim)
        return view

    def delete(self, name: str, *, folder: Path | None = None) -> None:
        """Drop its schema (every row: documents, chunks, graph, artifacts, jobs) and its keys, in one
        transaction; its audit rows stay (who changed or tried to read it outlives it: a log that forgets a
        deleted workspace hides what happened before the delete);
        then its folder under ``home``. Replicas still holding the workspace find
        its tables gone (their connections search no other schema) and its keys refused. ``folder``: its
        derived files in this data home (Settings.workspace_home)."""
        schema = schema_of(name)
        if schema is None:
            raise InvalidInputError("the default workspace cannot be deleted",
                                    fix="delete its documents instead (`kgrag documents delete ID`)")
        with self.db.transaction() as conn:
            row = conn.execute(f"DELETE FROM {REGISTRY}.workspaces WHERE name = %s RETURNING name", (name,)).fetchone()
            if row is None:
                raise missing(name)
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(schema)))
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
